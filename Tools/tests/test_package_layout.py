"""The package's shape: every module of Tools/ is importable by its `liftpy` name, none edits
`sys.path`, and no module imports itself through others (at module level or inside a function).
Reads the sources with `ast` only, so it runs without the heavy packages installed."""
from __future__ import annotations

import ast
import tomllib
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[1]
BENCHMARKS = TOOLS.parent / "Benchmarks"


def package_dirs() -> dict[str, Path]:
    """{package name: its folder} as Tools/pyproject.toml maps them."""
    config = tomllib.loads((TOOLS / "pyproject.toml").read_text())["tool"]["setuptools"]
    return {name: TOOLS / folder for name, folder in config["package-dir"].items()}


def modules() -> dict[str, Path]:
    """{dotted module name: source file} for every module of the package."""
    found = {}
    for package, folder in package_dirs().items():
        for path in sorted(folder.glob("*.py")):
            found[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return found


def imported(path: Path, known: set[str]) -> set[str]:
    """The package's modules that `path` imports anywhere in its body."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if name in known}


def test_every_folder_is_a_package():
    for package, folder in package_dirs().items():
        assert (folder / "__init__.py").is_file(), f"{folder} lacks __init__.py for {package}"


def test_no_script_edits_sys_path():
    offenders = [str(p.relative_to(TOOLS.parent)) for root in (TOOLS, BENCHMARKS) for p in root.rglob("*.py")
                 if "sys.path" in p.read_text() and p.name != Path(__file__).name]
    assert offenders == []


def cycles_in(graph: dict) -> list:
    """Every cycle a depth-first walk of {node: nodes it imports} meets, as a path."""
    cycles, state = [], {}

    def visit(name, trail):
        state[name] = "open"
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                cycles.append(trail[trail.index(other):] + [other])
            elif other not in state:
                visit(other, trail + [other])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return cycles


def test_no_import_cycles():
    found = modules()
    graph = {name: imported(path, set(found)) - {name} for name, path in found.items()}
    cycles = cycles_in(graph)
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_jobs_depend_one_way():
    """The shared modules import no job, and no two jobs import each other, even through others."""
    jobs = set(package_dirs()) - {"liftpy"}
    found = modules()

    def owner(module):
        return next((job for job in jobs if module == job or module.startswith(job + ".")), "liftpy")

    graph = {}
    for name, path in found.items():
        graph.setdefault(owner(name), set()).update(owner(m) for m in imported(path, set(found)))
    graph = {job: uses - {job} for job, uses in graph.items()}
    assert graph["liftpy"] == set(), f"the shared modules import jobs: {graph['liftpy']}"
    cycles = cycles_in(graph)
    assert cycles == [], "jobs that import each other: " + "; ".join(" -> ".join(c) for c in cycles)
