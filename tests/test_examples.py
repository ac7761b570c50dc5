"""Every script in examples/ runs as a user would run it; the PyTorch-style one prints the same
losses under `import torch` as under `import wengert as torch`."""
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[1] / "examples").glob("*.py"))
#: the eager examples, written as PyTorch code: they print losses, not generated code
EAGER = {"classifier_training.py"}


def _run(script, *flags) -> str:
    run = subprocess.run([sys.executable, str(script), *flags], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script):
    out = _run(script)
    if script.name in EAGER:
        assert "epoch 5: loss" in out
    else:
        assert "def @" in out or "def loss_adjoint" in out   # each shows what wengert made


def _losses(out: str) -> list:
    return [float(m) for m in re.findall(r"loss ([0-9.]+)", out)]


@pytest.mark.parametrize("script", sorted(EAGER))
def test_eager_example_matches_pytorch(script):
    pytest.importorskip("torch", reason="PyTorch (a test extra) is not installed: nothing to compare with")
    path = EXAMPLES[0].parent / script
    mine, theirs = _run(path), _run(path, "--torch")
    assert mine.split("epoch 0")[0] == theirs.split("epoch 0")[0]   # print(model): the same text
    assert _losses(mine) == pytest.approx(_losses(theirs), rel=1e-6, abs=0) and len(_losses(mine)) == 6
