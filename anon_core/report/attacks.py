"""The release report's "Attacks" section data, from an :class:`~anon_core.attacks.battery.AttackReport`.

Plain JSON-ready data (no rendering): the figures with their intervals, the seeds, n_attacks and
the split, so ``verify`` can re-run the battery with the same seeds and compare.
"""

from __future__ import annotations

from typing import Any

from anon_core.attacks.battery import AttackReport

MAIN_VS_CONTROL = (
    "Main attack: guesses about records that were released. Control: the same guesses about records "
    "that never were (what the release teaches about anyone). Baseline: random guessing. The risk is "
    "the share of the main attack's success not explained by the control: (main - control) / (1 - control)."
)


def attacks_section(report: AttackReport) -> dict[str, Any]:
    """The "Attacks" section: a table row per attack, linkage and membership figures, and how to re-run.

    ``figures`` is exactly the ``anon-core attack`` JSON (what ``verify`` compares);
    ``rows`` adds the three rates with their Wilson errors; ``reproduce`` holds the seed,
    n_attacks and split that produce the same figures again.
    """
    details = report.details()
    out: dict[str, Any] = {
        "title": "Attacks",
        "explanation": MAIN_VS_CONTROL,
        "figures": report.to_dict(),
        "rows": report.rows(),
        "reproduce": {
            "random_state": report.random_state,
            "n_attacks": report.n_attacks,
            "split": details["split"],
        },
    }
    if report.linkage is not None:
        out["linkage"] = {**report.linkage.to_dict(), **details["linkage"]}
    if report.membership is not None:
        out["membership"] = {**report.membership.to_dict(), **details["membership"]}
    return out


def compare_sections(
    expected: dict[str, Any], actual: dict[str, Any], tol: float = 1e-9
) -> list[str]:
    """Differences between two sections' ``figures`` (for ``verify``): one line per differing figure."""
    diffs: list[str] = []

    def walk(a: Any, b: Any, path: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                if key not in a or key not in b:
                    diffs.append(f"attacks.{path}{key}: present on one side only")
                else:
                    walk(a[key], b[key], f"{path}{key}.")
        elif isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, f"{path}{i}.")
        elif isinstance(a, int | float) and isinstance(b, int | float):
            if abs(float(a) - float(b)) > tol * max(1.0, abs(float(a))):
                diffs.append(f"attacks.{path.rstrip('.')}: report {a}, re-run {b}")
        elif a != b:
            diffs.append(f"attacks.{path.rstrip('.')}: report {a!r}, re-run {b!r}")

    walk(expected.get("figures", {}), actual.get("figures", {}), "")
    return diffs
