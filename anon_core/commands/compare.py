"""``anon-core compare CONFIG [--methods m1,m2,...] [--output DIR]``: methods side by side.

Every method releases the same part of the attack lab's control split, then meets the same attack
battery and the same utility yardstick (:func:`anon_core.services.compare.compare`). Prints one
JSON object ``{"methods": {NAME: {"parameters", "seconds", "attacks", "utility",
"privacy_guarantee", ...}}, "split": {...}}``; ``--output DIR`` also writes each release to
``DIR/NAME.csv`` (refused before anything runs when one of those files is a file the run reads
or not a regular file). ``--shadow`` (opt-in, as ``anon-core release --shadow``) adds the
shadow-model membership attack on the 10 most vulnerable records to every synthetic and
perturbative method (``attacks.shadow_mia``: mean AUC and advantage with intervals); it is refused
before anything runs when no compared method is synthetic or perturbative. Progress goes to
stderr with ``--verbose``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from anon_core.commands import EXIT_OK
from anon_core.data.paths import check_run_outputs
from anon_core.errors import ConfigError
from anon_core.methods import METHODS
from anon_core.release.engines.base import write_frame
from anon_core.services import runs
from anon_core.services.compare import BASELINE, default_methods
from anon_core.services.session import Session
from anon_core.services.shadow_evidence import SHADOW_SHADOWS, SHADOW_TARGETS, shadow_applies

#: Format of the releases ``--output DIR`` holds.
SUFFIX = ".csv"

log = logging.getLogger("anon_core")


def _names(value: str | None, option: str = "--methods") -> list[str] | None:
    if value is None:
        return None
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise ConfigError(f"'{option}' must list names separated by commas, got {value!r}.")
    return names


def _planned_files(args: argparse.Namespace) -> list[str]:
    """The file names ``--output DIR`` will hold: one per method (and the baseline)."""
    names = _names(args.methods) or default_methods()
    if args.baseline and BASELINE not in names:
        names = [BASELINE, *names]
    return [f"{name}{SUFFIX}" for name in names]


def _check_shadow(args: argparse.Namespace) -> None:
    """``--shadow`` needs a compared method it is defined for (synthetic or perturbative)."""
    if not args.shadow:
        return
    names = _names(args.methods) or default_methods()
    known = [n for n in names if n in METHODS or n == BASELINE]  # others: refused by compare
    if known and not any(
        n in METHODS and shadow_applies(n, bool(METHODS[n].synthetic)) for n in known
    ):
        raise ConfigError(
            f"--shadow attacks synthetic and perturbative releases only, and the compared methods "
            f"({', '.join(known)}) are neither: a generalized release's rows are the input's "
            "records. Add a method such as noise or synthetic-gaussian-copula to --methods, or "
            "leave out --shadow."
        )


def _run(args: argparse.Namespace) -> int:
    _check_shadow(args)
    session = Session.open(args.config)
    config = session.config
    if args.output:
        check_run_outputs(
            {"--output": (args.output, "folder")},
            config=config,
            config_path=args.config,
            folder_files={"--output": _planned_files(args)},
        )

    def progress(name: str, fraction: float, message: str) -> None:
        log.info("compare %s %3.0f%% %s", name, 100 * fraction, message)

    result = runs.compare(
        session,
        _names(args.methods),
        target=args.target,
        baseline=args.baseline,
        random_state=args.seed,
        n_attacks=args.n_attacks,
        utility_options={"models": _names(args.ml_models, "--ml-models")}
        if args.ml_models
        else None,
        progress=progress,
        keep_releases=bool(args.output),
        shadow=bool(args.shadow),
    )
    out = result.to_dict()
    if args.output:
        folder = Path(args.output)
        check_run_outputs(  # the names the comparison actually released, before any is written
            {"--output": (args.output, "folder")},
            config=config,
            config_path=args.config,
            folder_files={"--output": [f"{name}{SUFFIX}" for name in result.releases]},
        )
        out["written"] = [
            str(write_frame(table, folder / f"{name}{SUFFIX}", config.formula_escape))
            for name, table in result.releases.items()
        ]
    sys.stdout.write(json.dumps(out, indent=2, default=str) + "\n")
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "compare", help="run several release methods on one split with the same attacks and utility"
    )
    parser.add_argument("config", help="release configuration (JSON or YAML)")
    parser.add_argument(
        "--methods", metavar="M1,M2", help="methods to compare (default: every core method)"
    )
    parser.add_argument("--output", "-o", metavar="DIR", help="also write each release here")
    parser.add_argument("--target", help="ML utility target (default: first sensitive attribute)")
    parser.add_argument(
        "--baseline", action="store_true", help=f"add the '{BASELINE}' row (no protection)"
    )
    parser.add_argument("--seed", type=int, help="split and method seed (default: attack section)")
    parser.add_argument(
        "--n-attacks", type=int, help="attacks per attack (default: attack section)"
    )
    parser.add_argument(
        "--ml-models",
        metavar="M1,M2",
        help="ML utility models (default: logistic_regression,random_forest)",
    )
    parser.add_argument(
        "--shadow",
        action="store_true",
        help=f"also run shadow-model membership inference on the {SHADOW_TARGETS} most vulnerable "
        "records for each synthetic and perturbative method (re-fits each such method "
        f"{2 * SHADOW_SHADOWS} times; off by default)",
    )
    parser.set_defaults(func=_run)
