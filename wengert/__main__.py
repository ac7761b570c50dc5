"""`python -m wengert ...`: the same command line as the `wengert` console script (wengert.cli)."""
from .cli import main

if __name__ == "__main__":
    main(prog_name="wengert")
