"""``anon-core attack CONFIG [--released FILE] [--control FILE] [--external FILE] [--n-attacks N] [--seed S]``.

Without ``--released``/``--control`` the input is split as the configuration's ``attack`` section
says (seeded ``control_fraction``), the released part is anonymized as configured (its
transformation, else the search; an ``attack-risk`` model gets the control part), and the battery
attacks that release. With both files (or the section's ``released`` and ``control``), the released
file is the protected release and is attacked as given (anonymeter's ``syn``), CONFIG's input holds
the original records that were released, before protection (``ori``), the control file records of
the same population that were never released (``control``); nothing is split. Prints one JSON object (see
:meth:`anon_core.attacks.battery.AttackReport.to_dict`); bad input exits 2 with one line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from anon_core.attacks.split import AttackSection, parse_attack_section
from anon_core.commands import EXIT_NOT_SATISFIED, EXIT_OK
from anon_core.config import ReleaseConfig
from anon_core.errors import ConfigError
from anon_core.services import runs
from anon_core.services.attacks import NothingReleased
from anon_core.services.session import Session


def _section(config: ReleaseConfig, args: argparse.Namespace) -> AttackSection:
    section = parse_attack_section(config.sections.get("attack"), config.base_dir)
    if args.n_attacks is not None and args.n_attacks < 1:
        raise ConfigError(f"'--n-attacks' must be at least 1, got {args.n_attacks}.")
    if args.seed is not None and args.seed < 0:
        raise ConfigError(f"'--seed' must be a non-negative whole number, got {args.seed}.")
    return section.with_options(
        n_attacks=args.n_attacks,
        random_state=args.seed,
        external=args.external,
        linkage_mode=args.linkage_mode,
    )


def _run(args: argparse.Namespace) -> int:
    session = Session.open(args.config)
    section = _section(session.config, args)

    def progress(fraction: float, message: str) -> None:
        if args.verbose:
            sys.stderr.write(f"{message}: {fraction:.0%}\n")

    try:
        report = runs.attack(
            session,
            section,
            released_file=Path(args.released) if args.released else None,
            control_file=Path(args.control) if args.control else None,
            progress=progress,
        )
    except NothingReleased as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_NOT_SATISFIED
    json.dump(report.to_dict(), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")
    return EXIT_OK


def add_parser(sub: Any) -> None:
    """Register ``anon-core attack``."""
    p = sub.add_parser(
        "attack",
        help="singling-out, linkability, inference, linkage and membership attacks on the configuration's release",
    )
    p.add_argument(
        "config", help="release configuration (JSON or YAML); its 'attack' section applies"
    )
    p.add_argument(
        "--released",
        metavar="FILE",
        help="the protected release to attack (CONFIG's input then holds its original records before "
        "protection; needs --control)",
    )
    p.add_argument(
        "--control",
        metavar="FILE",
        help="records of the same population that were never released (needs --released)",
    )
    p.add_argument(
        "--external",
        metavar="FILE",
        help="external table (an identifier plus raw quasi-identifiers) for the linkage attack",
    )
    p.add_argument(
        "--linkage-mode",
        metavar="MODE",
        default=None,
        help="linkage with --external: 'exact' (default) or 'probabilistic' (Fellegi-Sunter, links noisy records too)",
    )
    p.add_argument("--n-attacks", type=int, default=None, help="guesses per attack (default 2000)")
    p.add_argument(
        "--seed", type=int, default=None, help="random_state of the split and the attacks"
    )
    p.set_defaults(func=_run)
