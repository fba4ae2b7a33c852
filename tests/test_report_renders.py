"""The release report renders given evidence: no module of ``anon_core/report`` imports the
packages that compute figures (risk, utility, search, privacy models, the problem) or the services
that orchestrate them; the figures come from ``anon_core.services.report_evidence``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: What computes figures or orchestrates a run: the report reaches it only through the evidence.
COMPUTING = (
    "anon_core.risk",
    "anon_core.utility",
    "anon_core.search",
    "anon_core.privacy",
    "anon_core.population",
    "anon_core.transform.problem",
    "anon_core.services.attacks",
    "anon_core.services.compare",
    "anon_core.services.inputs",
    "anon_core.services.resolve",
)


def computing_imports(source: str, where: str) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            if any(name == m or name.startswith(m + ".") for m in COMPUTING):
                out.append(f"{where}:{node.lineno} {name}")
    return out


def test_the_report_package_imports_nothing_that_computes_figures():
    found = []
    for path in sorted((ROOT / "anon_core" / "report").glob("*.py")):
        found += computing_imports(path.read_text(encoding="utf-8"), path.name)
    assert found == []


def test_the_rule_catches_a_planted_import_at_any_depth():
    planted = (
        "import json\n"
        "from anon_core.report.model import plain\n"
        "def f():\n"
        "    from anon_core.risk.reidentification import risk_of_result\n"
        "    import anon_core.transform.problem\n"
    )
    assert computing_imports(planted, "x.py") == [
        "x.py:4 anon_core.risk.reidentification",
        "x.py:5 anon_core.transform.problem",
    ]


def test_a_methods_guarantee_source_is_declared_not_named():
    from anon_core.methods import METHODS

    declared = {name for name, cls in METHODS.items() if cls.guarantee_from_models}
    # generalization enforces the configuration's privacy models; no randomized method does
    assert declared == {"generalization"}
    assert all(not METHODS[name].randomized for name in declared)
