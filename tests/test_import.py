"""`import wengert` loads only what differentiating NumPy code needs: no SciPy, PyTorch or HIPS
autograd, and neither the eager Tensor, the command line nor scipy.special's primitives, which load
on first use. Each test runs a fresh interpreter, since this process has imported everything."""
import json
import subprocess
import sys
import textwrap

import pytest

#: modules `import wengert` must leave unloaded: other libraries, and wengert's lazily loaded parts
NOT_LOADED = ["scipy", "scipy.special", "torch", "autograd", "click",
              "wengert.eager", "wengert.autograd", "wengert.linalg", "wengert.special", "wengert.compiled",
              "wengert.cli", "wengert.runtime.tensor", "wengert.runtime.autograd", "wengert.runtime.functional",
              "wengert.runtime.prims.special", "wengert.tracer.parser"]


def _run(code: str, cwd=None) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_wengert_loads_no_peer_library_and_no_lazy_part():
    out = _run(f"""
        import json, sys
        import wengert
        print(json.dumps([m for m in {NOT_LOADED!r} if m in sys.modules]))
        print(json.dumps([callable(wengert.grad), wengert.__version__]))
    """)
    loaded, front = map(json.loads, out.splitlines())
    assert loaded == []
    assert front == [True, "0.1.0"]


def test_scipy_special_traced_after_a_late_scipy_import(tmp_path):
    """scipy.special's primitives are declared when the tracer meets one of its functions (or the IR
    parser one of their ops)."""
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import numpy as np
        import scipy.special


        def loss(x):
            return np.sum(scipy.special.expit(x) * scipy.special.erf(x))
    """))
    out = _run("""
        import sys
        import numpy as np
        import wengert
        assert "scipy" not in sys.modules
        text = "def @g(%x):\\n  %0 = erf %x\\n  %1 = sum[axis=None, keepdims=False] %0\\n  return %1\\n"
        assert str(wengert.parse_ir(text)) == text   # an op of scipy.special's group, declared by the parser
        import model
        x = np.array([-1.5, 0.2, 2.0])
        s, e = model.scipy.special.expit(x), model.scipy.special.erf(x)
        want = s * (1 - s) * e + s * 2 / np.sqrt(np.pi) * np.exp(-x ** 2)
        np.testing.assert_allclose(wengert.grad(model.loss)(x), want, rtol=1e-12)
        np.testing.assert_allclose(wengert.hessian(model.loss)(x).sum(0), wengert.jvp(
            wengert.grad(model.loss), (x,), (np.ones(3),))[1], rtol=1e-10)
        print("ok")
    """, cwd=tmp_path)
    assert out.strip() == "ok"


def test_the_eager_api_loads_on_first_use(tmp_path):
    """`import wengert as torch` then `torch.tensor(...)`: the eager API (with scipy.special's
    functions, `x.erf()`, where SciPy is installed) loads at its first use; so does @wengert.function."""
    pytest.importorskip("scipy.special")
    (tmp_path / "model.py").write_text(textwrap.dedent("""
        import numpy as np
        import wengert


        @wengert.function
        def cube(x):
            return np.sum(x ** 3)
    """))
    out = _run("""
        import sys
        import numpy as np
        import wengert as torch
        assert "wengert.runtime.tensor" not in sys.modules
        import model
        y = torch.tensor([1.0, 2.0], requires_grad=True)
        model.cube(y).backward()
        assert y.grad.tolist() == [3.0, 12.0]
        x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
        (x.erf() * x).sum().backward()
        v = np.array([0.5, -1.0, 2.0])
        from scipy.special import erf
        np.testing.assert_allclose(x.grad.numpy(), erf(v) + v * 2 / np.sqrt(np.pi) * np.exp(-v ** 2), rtol=1e-12)
        assert isinstance(x, torch.Tensor) and torch.autograd.grad is not None
        print(torch.linalg.det(torch.eye(2)).item(), torch.special.expit(torch.zeros(1)).item())
    """, cwd=tmp_path)
    assert out.split() == ["1.0", "0.5"]


def test_every_public_name_is_listed_before_it_loads():
    """`dir(wengert)` (tab completion) and `from wengert import *` list the lazily loaded names too."""
    out = _run("""
        import json
        import wengert
        names = dir(wengert)
        scope = {}
        exec("from wengert import *", scope)
        print(json.dumps([n in names for n in ("grad", "tensor", "Tensor", "float32", "no_grad", "function")]))
        print(json.dumps([n in scope for n in ("grad", "hessian", "tensor", "Tensor", "exp", "function")]))
        print(json.dumps(sorted(set(wengert.__all__) - set(names))))
    """)
    in_dir, star, missing = map(json.loads, out.splitlines())
    assert in_dir == [True] * 6 and star == [True] * 6 and missing == []


def test_the_command_line_loads_on_its_own(tmp_path):
    (tmp_path / "model.py").write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.tanh(x))\n")
    done = subprocess.run([sys.executable, "-m", "wengert", "ir", "model.py:f", "--args", "f64[3]"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "tanh" in done.stdout and "f64[3]" in done.stdout
