"""The architecture's rules, checked on the source (design §1, docs/architecture.md):

* `compiler` never imports `solver`;
* the solver imports from the compiler only its public API, `sleuth.compiler.api`;
* the command line loads no plotting, Dask or decision-diagram / SAT library until a
  command that needs one runs, and `sleuth check` loads no plotting or Dask;
* every package folder is listed in pyproject.toml, so `pip install .` ships it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

HEAVY = ("matplotlib", "dask", "distributed", "pysdd", "pysat", "pyganak", "pyapproxmc",
         "pyunigen")


def imports(folder: Path) -> list[tuple[Path, int, str]]:
    """(file, line, imported module) for every import in the folder's Python files,
    relative imports resolved against the `sleuth` package."""
    package = {"compiler": "sleuth.compiler", "solver": "sleuth.solver"}[folder.name]
    out = []
    for path in sorted(folder.rglob("*.py")):
        here = package + "." + ".".join(path.relative_to(folder).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                out += [(path, node.lineno, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    base = here.split(".")[:-node.level]
                    module = ".".join(base + ([module] if module else []))
                out.append((path, node.lineno, module))
    return out


def violations(folder: Path, allowed: callable) -> list[str]:
    return [f"{p.relative_to(ROOT)}:{line}: imports {m}" for p, line, m in imports(folder)
            if not allowed(m)]


def test_compiler_never_imports_solver():
    bad = violations(ROOT / "compiler",
                     lambda m: not (m == "solver" or m.startswith(("solver.", "sleuth.solver"))))
    assert not bad, "\n".join(bad)


def test_solver_imports_only_the_compilers_public_api():
    def allowed(m: str) -> bool:
        if m == "compiler" or m.startswith("compiler."):
            return False  # the old top-level name: not installed
        return not m.startswith("sleuth.compiler") or m == "sleuth.compiler.api"

    bad = violations(ROOT / "solver", allowed)
    assert not bad, "\n".join(bad)


def loaded_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return eval(out.stdout.strip())  # a printed list of module names


def test_cli_loads_no_heavy_library_at_import():
    assert loaded_after("import sleuth.solver.interfaces.cli") == []
    assert loaded_after("import sleuth") == []


@pytest.mark.parametrize("command", ["inspect", "playing"])
def test_check_and_play_commands_load_no_plotting_or_dask(command):
    loaded = loaded_after(f"import sleuth.solver.interfaces.commands.{command}")
    assert not {"matplotlib", "dask", "distributed"} & set(loaded), loaded


def test_every_package_folder_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    roots = {v: k for k, v in config["package-dir"].items()}
    found = set()
    for folder, package in roots.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *rel)))
    assert found == listed, f"missing: {sorted(found - listed)}, extra: {sorted(listed - found)}"


def test_every_module_is_named_in_the_architecture():
    """docs/architecture.md names every module of the package (by its file name, in its
    folder's listing)."""
    arch = (ROOT / "docs" / "architecture.md").read_text()
    missing = [str(p.relative_to(ROOT)) for top in ("compiler", "solver", "sleuth", "specs")
               for p in (ROOT / top).rglob("*.py")
               if p.name != "__init__.py" and p.name not in arch]
    assert not missing, f"not named in docs/architecture.md: {missing}"


def folder_imports() -> dict[str, set[str]]:
    """{folder: the folders its modules import}, every import counted (a function's own
    import too): compiler, solver (its own modules), solver/infoset, solver/search,
    solver/strategies, solver/evaluation, solver/interfaces."""
    def folder(parts: tuple[str, ...]) -> str:
        if parts[0] == "compiler":
            return "compiler"
        return "solver/" + parts[1] if len(parts) > 2 else "solver"

    def target(module: str) -> str | None:
        parts = module.split(".")
        if parts[:2] == ["sleuth", "compiler"]:
            return "compiler"
        if parts[:2] != ["sleuth", "solver"] or len(parts) < 3:
            return "solver" if parts[:2] == ["sleuth", "solver"] else None
        is_folder = (ROOT / "solver" / parts[2]).is_dir()
        return "solver/" + parts[2] if is_folder else "solver"

    edges: dict[str, set[str]] = {}
    for top in ("compiler", "solver"):
        for path in (ROOT / top).rglob("*.py"):
            here = folder(path.relative_to(ROOT).parts)
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module:
                    there = target(node.module)
                    if there is not None and there != here:
                        edges.setdefault(here, set()).add(there)
    return edges


def test_no_folder_imports_a_folder_that_imports_it():
    """The folders form layers, with no cycle: compiler, then the solver's own modules,
    then infoset, search, strategies, evaluation and interfaces, each importing only
    those before it."""
    order = ["compiler", "solver", "solver/infoset", "solver/search", "solver/strategies",
             "solver/evaluation", "solver/interfaces"]
    edges = folder_imports()
    assert set(edges) <= set(order)
    for here, theirs in edges.items():
        later = [t for t in theirs if order.index(t) >= order.index(here)]
        assert not later, f"{here} imports {later}, a folder at or above its layer"
