"""docs/architecture.md's recipe "add a primitive" is one declaration: run exactly that block, in a
fresh process, and check that every mode differentiates the new primitive with no other edit."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]
BEGIN, END = "<!-- recipe:add-primitive:begin -->", "<!-- recipe:add-primitive:end -->"

USE = '''

import json
import sys

import wengert
import wengert as torch

sys.path.insert(0, {docs!r})
import gen_primitives


def loss(x):
    return np.sum(cube(x) * 2.0)


x = np.array([1.0, -2.0, 0.5])
t = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
y = t.cube()
torch.cube(t).sum().backward()
print(json.dumps({{
    "grad": wengert.grad(loss)(x).tolist(),
    "jvp": float(wengert.jvp(loss, (x,), (np.array([1.0, 0.0, 0.0]),))[1]),
    "hessian": wengert.hessian(loss)(x).tolist(),
    "node": y.grad_fn.name(),
    "eager_grad": t.grad.tolist(),
    "in_table": "cube" in gen_primitives.table(),
}}))
'''


def recipe() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text[text.index(BEGIN) + len(BEGIN):text.index(END)]
    return textwrap.dedent(block.strip().removeprefix("```python").removesuffix("```"))


def test_the_recipe_is_one_declaration():
    code = recipe()
    assert code.count("declare(") == 1


def test_a_primitive_declared_by_the_recipe_works_in_every_mode(tmp_path):
    module = tmp_path / "recipe_cube.py"
    module.write_text(recipe() + USE.format(docs=str(ROOT / "docs")))
    out = subprocess.run([sys.executable, str(module)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    x = [1.0, -2.0, 0.5]
    assert got["grad"] == [6.0 * v * v for v in x]                    # d/dx sum(2 x^3)
    assert got["jvp"] == 6.0                                          # along e_0 at x_0 = 1
    assert got["hessian"] == [[12.0 * x[i] if i == j else 0.0 for j in range(3)] for i in range(3)]
    assert got["node"] == "CubeBackward0"
    assert got["eager_grad"] == [3.0 * v * v for v in x]
    assert got["in_table"]
