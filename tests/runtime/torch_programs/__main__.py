"""`python -m tests.runtime.torch_programs [NAME ...]`: runs every program (or those named) under
PyTorch and under wengert, prints the count of those that print the same, and for each that differs
its first differing line."""
import sys

import wengert

from tests.runtime.torch_programs import PROGRAMS, run


def _outputs(code: str, module) -> list:
    try:
        return run(code, module).splitlines()
    except Exception as e:   # a program that stops outside `attempt` differs (or fails under both)
        return [f"<the program raised {type(e).__name__}: {e}>"]


def _first_difference(expected: list, got: list) -> str:
    for i, (a, b) in enumerate(zip(expected, got)):
        if a != b:
            return f"line {i + 1}:\n      torch:   {a}\n      wengert: {b}"
    return f"torch printed {len(expected)} lines, wengert {len(got)}"


def main(names: list) -> int:
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed: nothing to compare against")
        return 2
    chosen = names or list(PROGRAMS)
    differing = []
    for name in chosen:
        expected, got = _outputs(PROGRAMS[name], torch), _outputs(PROGRAMS[name], wengert)
        if expected != got:
            differing.append((name, _first_difference(expected, got)))
    version = torch.__version__.split("+")[0].rsplit(".", 1)[0]
    print(f"{len(chosen) - len(differing)} of {len(chosen)} programs print the same as PyTorch {version}")
    for name, where in differing:
        print(f"  differs: {name}  {where}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
