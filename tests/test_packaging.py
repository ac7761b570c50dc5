"""The package layout holds: every code folder ships in the wheel, the folders are importable
only as wengert.<name>, and no module imports them by their bare folder names."""
import ast
import importlib.util
import pathlib
import subprocess
import sys
try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = __import__("pytest").importorskip("tomli")

ROOT = pathlib.Path(__file__).resolve().parents[1]
FOLDERS = {"tracer": "wengert.tracer", "codegen": "wengert.codegen", "runtime": "wengert.runtime"}


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def package_folders():
    """Every folder of the repository that holds Python package code, as its import name."""
    names = set()
    for init in ROOT.rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT)
        if rel.parts[0] in ("tests", ".venv", "build", "docs", "examples", "benchmarks") or \
                any(p.startswith(".") for p in rel.parts):
            continue
        head, *rest = rel.parts
        names.add(".".join([FOLDERS.get(head, head), *rest]))
    return names


def test_every_package_folder_is_listed():
    listed = set(pyproject()["tool"]["setuptools"]["packages"])
    assert package_folders() == listed


def test_folders_map_to_wengert_names():
    mapping = pyproject()["tool"]["setuptools"]["package-dir"]
    assert mapping == {name: folder for folder, name in FOLDERS.items()}


def test_bare_folder_names_are_not_importable():
    for folder in FOLDERS:
        assert importlib.util.find_spec(folder) is None, folder


def test_no_module_imports_a_bare_folder_name():
    offenders = []
    for path in ROOT.rglob("*.py"):
        if any(p.startswith(".") or p in ("build",) for p in path.relative_to(ROOT).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno}" for n in names if n.split(".")[0] in FOLDERS]
    assert offenders == []


def test_layers_import_only_downwards():
    """runtime imports no other layer; tracer imports runtime only; nothing imports the front door."""
    allowed = {"runtime": set(), "tracer": {"runtime"}, "codegen": {"runtime", "tracer"}}
    wrong = []
    for folder, ok in allowed.items():
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level >= 1:
                    package = list(path.relative_to(ROOT).parts[:-1])   # e.g. ["runtime", "prims"]
                    base = package[:len(package) - (node.level - 1)]
                    layer = base[0] if base else (node.module or "").split(".")[0]
                    if layer != folder and layer not in ok:
                        wrong.append(f"{path.relative_to(ROOT)} imports {layer}")
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                    wrong += [f"{path.relative_to(ROOT)} imports {m}" for m in mods
                              if m == "wengert" or (m.startswith("wengert.") and m.split(".")[1] not in ok)]
    assert wrong == []


def test_console_script_and_module_entry_point():
    scripts = pyproject()["project"]["scripts"]
    assert scripts == {"wengert": "wengert.cli:main"}
    out = subprocess.run([sys.executable, "-m", "wengert", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "0.1.0" in out.stdout


def test_runtime_dependencies_are_few():
    deps = {d.split(">")[0].split("=")[0].strip() for d in pyproject()["project"]["dependencies"]}
    assert deps == {"numpy", "gast", "astor", "click"}
