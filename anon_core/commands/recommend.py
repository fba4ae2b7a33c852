"""``anon-core recommend CONFIG [--families a,b] [--n-attacks N] [--output FILE]``: the release
with the best utility that passes the configuration's acceptance criteria (or the defaults).

Each family's main parameter is tried over a small grid on the seeded rehearsal
(:mod:`anon_core.services.recommend`). Prints one JSON object: the winner (as a ``method``
section to paste into the configuration), the best and runner-up per family, every setting tried.
Exit 3 when no setting passes.
"""

from __future__ import annotations

import argparse
import json
import sys

from anon_core.commands import EXIT_NOT_SATISFIED, EXIT_OK, verbose_progress
from anon_core.config import load_config
from anon_core.data.paths import check_run_outputs
from anon_core.services.recommend import FAMILIES, recommend
from anon_core.services.session import Session


def _run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    check_run_outputs({"--output": (args.output, "json")}, config=config, config_path=args.config)
    families = [f.strip() for f in args.families.split(",")] if args.families else None

    found = recommend(
        Session(config), families, n_attacks=args.n_attacks, progress=verbose_progress(args)
    )
    out = found.to_dict()
    out["method"] = found.method_section()
    text = json.dumps(out, indent=2, default=str) + "\n"
    if args.output:
        from anon_core.data.safe_write import atomic_write

        atomic_write(args.output, text.encode("utf-8"))
    sys.stdout.write(text)
    if found.winner is None:
        sys.stderr.write("error: " + found.notes[-1] + "\n")
        return EXIT_NOT_SATISFIED
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "recommend",
        help="the release with the best utility that passes the acceptance criteria",
    )
    parser.add_argument("config", help="release configuration (JSON or YAML)")
    parser.add_argument(
        "--families",
        metavar="A,B",
        help=f"method families to try (default: every available one of {', '.join(FAMILIES)})",
    )
    parser.add_argument(
        "--n-attacks", type=int, default=500, metavar="N", help="guesses per attack (default 500)"
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="also write the JSON to FILE")
    parser.add_argument("--verbose", "-v", action="store_true", help="progress on stderr")
    parser.set_defaults(func=_run)
