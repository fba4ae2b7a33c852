"""Count the calls that cross anon_core's packages on ``anon-core anonymize`` (the hospital sample).

A ``sys.setprofile`` hook sees every Python call event; a call counts when the caller's frame
and the callee's frame are both in ``anon_core`` and their top-level unit (``anon_core.<unit>``,
as ``tests/test_layout.py`` ranks them) differs. A "climb" is a crossing whose callee ranks
above its caller (a callback, or an import that points up). Imports are done before counting.

    python -m benchmarks.cross_package_calls [--search] [--engine duckdb]

``--search`` leaves the transformation out of the configuration (the lattice search runs);
without it the configured transformation is evaluated. Prints the totals and one line per
(caller, callee) pair.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = str(ROOT / "anon_core") + "/"


def _unit(filename: str) -> str | None:
    if not filename.startswith(PACKAGE):
        return None
    head = filename[len(PACKAGE) :].split("/")[0]
    return head[:-3] if head.endswith(".py") else head


def _config(search: bool) -> dict:
    config = {
        "input": {"path": str(ROOT / "sample_data" / "hospital_discharge.csv")},
        "attributes": {
            "patient_name": {"role": "identifier"},
            "email": {"role": "identifier"},
            "phone": {"role": "identifier"},
            "zip_code": {
                "role": "quasi-identifier",
                "hierarchy": {"builder": "masking", "levels": 5},
            },
            "sex": {"role": "quasi-identifier"},
            "length_of_stay": {
                "role": "quasi-identifier",
                "hierarchy": {"builder": "intervals", "width": 5},
            },
            "diagnosis": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.05,
        "quality_metric": {"name": "loss"},
    }
    if not search:
        config["transformation"] = {"zip_code": 2, "sex": 0, "length_of_stay": 1}
    return config


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search", action="store_true", help="no transformation: search")
    parser.add_argument("--engine", default=None, help="pandas, duckdb or spark")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from test_layout import RANK  # the package ranks the layout test enforces

    import anon_core.report  # noqa: F401 - import everything before counting
    import anon_core.services.session  # noqa: F401
    from anon_core.cli import main as cli_main

    crossings: Counter = Counter()
    climbs: Counter = Counter()

    def hook(frame, event, arg):  # noqa: ARG001
        if event != "call" or frame.f_back is None:
            return
        callee = _unit(frame.f_code.co_filename)
        caller = _unit(frame.f_back.f_code.co_filename)
        if callee is None or caller is None or caller == callee:
            return
        crossings[caller, callee] += 1
        if RANK.get(callee, -1) > RANK.get(caller, -1):
            climbs[caller, callee] += 1

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "release.json"
        path.write_text(json.dumps(_config(args.search)))
        argv = ["anonymize", str(path), "--output", str(Path(tmp) / "released.csv")]
        if args.engine:
            argv += ["--engine", args.engine]
        sys.setprofile(hook)
        try:
            code = cli_main(argv)
        finally:
            sys.setprofile(None)
    out = sys.stderr
    out.write(
        f"exit {code}: {sum(crossings.values())} cross-package calls, "
        f"{sum(climbs.values())} climbs, {len(crossings)} package pairs\n"
    )
    for (a, b), n in sorted(crossings.items(), key=lambda x: (-x[1], x[0])):
        out.write(f"  {a:>10} -> {b:<10} {n:4d}{'  (up)' if (a, b) in climbs else ''}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
