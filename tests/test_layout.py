"""Layout rules of anon_core: no import circles (module-level, function-level and type-checking
imports alike), packages layered by rank (imports point down only), no module over ~600 lines, no
private name imported across modules, no streamlit in the engine, and pages that import only ui/
and anon_core."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "anon_core"
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> tuple[set[str], list[str]]:
    """Modules of the package that ``name`` imports (anywhere in it), and private names it takes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    private: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                full = f"{module}.{alias.name}"
                if full in known:
                    found.add(full)
                elif module in known:
                    found.add(module)
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append(f"{name} imports {module}.{alias.name}")
    found.discard(name)
    return found, private


def _graph() -> tuple[dict[str, set[str]], list[str]]:
    mods = _modules()
    known = set(mods)
    graph, private = {}, []
    for name, path in mods.items():
        deps, priv = _imports(name, path, known)
        if path.name == "__init__.py":  # a package re-exporting its own modules is no circle
            deps = {d for d in deps if not d.startswith(name + ".")}
        graph[name] = deps
        private += priv
    return graph, private


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


#: The layers of anon_core, bottom up (docs/architecture.md draws them). A package imports only
#: packages of a lower rank; packages that share a rank do not import each other. Every import
#: counts: module-level, function-level and under ``TYPE_CHECKING``.
RANKS: tuple[tuple[str, ...], ...] = (
    ("errors", "version"),
    ("registry", "validation", "estimate"),
    ("params",),
    ("data",),
    ("geo", "population"),
    ("privacy", "quality"),
    ("search",),
    ("release",),
    ("config",),
    ("attacks",),
    ("transform",),
    ("methods",),
    ("risk", "utility"),
    ("pii", "dp", "training"),
    ("audit",),
    ("services",),
    ("workspace",),
    ("report",),
    ("commands",),
    ("cli", "__main__"),
    ("docs_reference",),
)
RANK = {unit: rank for rank, units in enumerate(RANKS) for unit in units}


def _unit(module: str) -> str:
    """The layer unit of a module: its top-level package (or module) under anon_core."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _rank_violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports that do not point down the ranks ("" is the package root, above every rank)."""
    out = []
    for module, deps in sorted(graph.items()):
        here = _unit(module)
        for dep in sorted(deps):
            there = _unit(dep)
            if here == there or here == "":
                continue
            if there == "" or RANK[here] <= RANK[there]:
                out.append(f"{module} -> {dep}")
    return out


def test_every_package_has_a_rank():
    units = {_unit(m) for m in _modules()} - {""}
    assert sorted(units - set(RANK)) == [], "place the new package in RANKS (and the docs' picture)"


def test_the_rank_rule_catches_a_planted_upward_import():
    planted = {
        "anon_core.data.io": {"anon_core.services.session"},  # up
        "anon_core.pii.scan": {"anon_core.dp.budget"},  # same rank, other package
        "anon_core.search.lattice": {"anon_core"},  # the package root
        "anon_core.report.html": {"anon_core.report.blocks", "anon_core.data.io"},  # fine
    }
    assert _rank_violations(planted) == [
        "anon_core.data.io -> anon_core.services.session",
        "anon_core.pii.scan -> anon_core.dp.budget",
        "anon_core.search.lattice -> anon_core",
    ]


def test_imports_point_down_the_ranks():
    graph, _ = _graph()
    assert _rank_violations(graph) == []


def test_the_cycle_finder_finds_a_known_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles():
    graph, _ = _graph()
    assert _cycles(graph) == []


def test_no_private_names_imported_across_modules():
    _, private = _graph()
    assert private == []


def test_no_module_over_the_size_limit():
    big = {
        str(p.relative_to(ROOT)): n
        for p in PACKAGE.rglob("*.py")
        if (n := sum(1 for _ in p.open(encoding="utf-8"))) > MAX_LINES
    }
    assert big == {}


def test_the_engine_never_imports_streamlit():
    offenders = [
        str(p.relative_to(ROOT))
        for p in PACKAGE.rglob("*.py")
        if any(
            (
                isinstance(n, ast.Import)
                and any(a.name.split(".")[0] == "streamlit" for a in n.names)
            )
            or (isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "streamlit")
            for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        )
    ]
    assert offenders == []


def test_pages_hold_only_pages():
    """Streamlit's pages/ folder keeps only pages; shared widgets live in ui/."""
    for path in (ROOT / "pages").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("pages"), f"{path.name} imports {node.module}"


def test_code_is_formatted_and_lint_clean():
    """`ruff format --check` and `ruff check` pass on the whole project (CI keeps them)."""
    import shutil
    import subprocess
    import sys

    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is a dev dependency: pip install -e '.[dev]'"
    for args in (["format", "--check", "."], ["check", "."]):
        run = subprocess.run([ruff, *args], cwd=ROOT, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


def test_the_version_is_the_one_in_pyproject():
    import tomllib

    from anon_core.version import __version__

    with (ROOT / "pyproject.toml").open("rb") as fh:
        assert tomllib.load(fh)["project"]["version"] == __version__
