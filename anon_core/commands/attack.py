"""``anon-core attack CONFIG [--released FILE] [--control FILE] [--external FILE] [--n-attacks N] [--seed S]``.

Without ``--released``/``--control`` the input is split as the configuration's ``attack`` section
says (seeded ``control_fraction``), the released part is anonymized as configured (its
transformation, else the search; an ``attack-risk`` model gets the control part), and the battery
attacks that release. With both files, CONFIG's input is the original released part, the released
file is attacked as given and nothing is split. Prints one JSON object (see
:meth:`anon_core.attacks.battery.AttackReport.to_dict`); bad input exits 2 with one line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.attacks.split import AttackSection, parse_attack_section, split_frame
from anon_core.commands import EXIT_NOT_SATISFIED, EXIT_OK
from anon_core.config import ReleaseConfig, load_config
from anon_core.data.io import load_table
from anon_core.errors import AnonError, ConfigError, DataError
from anon_core.privacy.attack_risk import AttackRisk
from anon_core.services.problem import Problem, load_input


class NothingReleased(Exception):
    """The configuration releases nothing (no transformation satisfies its models)."""


def _section(config: ReleaseConfig, args: argparse.Namespace) -> AttackSection:
    section = parse_attack_section(config.sections.get("attack"), config.base_dir)
    if args.n_attacks is not None and args.n_attacks < 1:
        raise ConfigError(f"'--n-attacks' must be at least 1, got {args.n_attacks}.")
    if args.seed is not None and args.seed < 0:
        raise ConfigError(f"'--seed' must be a non-negative whole number, got {args.seed}.")
    return section.with_options(
        n_attacks=args.n_attacks, random_state=args.seed, external=args.external
    )


def _load(path: Path, what: str) -> pd.DataFrame:
    if not Path(path).is_file():
        raise DataError(f"The {what} file {str(path)!r} does not exist. Check the path.")
    try:
        frame = load_table(path).frame
    except AnonError as exc:
        raise DataError(f"The {what} table cannot be used: {exc}") from None
    if len(frame) == 0:
        raise DataError(f"The {what} table {str(path)!r} has no records.")
    return frame


def _check_input_columns(config: ReleaseConfig, frame: pd.DataFrame) -> None:
    missing = [a for a in config.roles if a not in frame.columns]
    if missing:
        raise ConfigError(
            f"'attributes' names {missing}, which are not columns of the input. Columns are: "
            f"{list(frame.columns)}."
        )


def attack_release(
    config: ReleaseConfig,
    section: AttackSection,
    *,
    released_file: Path | None = None,
    control_file: Path | None = None,
    progress: Any = None,
) -> Any:
    """The battery's :class:`~anon_core.attacks.battery.AttackReport` on the configuration's release
    (see the module docstring)."""
    # The attack stack loads only when this command runs, not with every other command.
    from anon_core.attacks.battery import (
        attack_inputs,
        dataset_hierarchies,
        frame_inputs,
        run_battery,
    )
    from anon_core.search.attack_bounded import evaluate_with_attacks

    external = _load(section.external, "external") if section.external is not None else None
    released_file = released_file or section.released
    control_file = control_file or section.control
    if (released_file is None) != (control_file is None):
        raise ConfigError(
            "Give both --released and --control (the release and the never-released records), or neither "
            "and let the configuration split its input."
        )
    if released_file is not None and control_file is not None:
        original = load_input(config).frame
        _check_input_columns(config, original)
        released = _load(released_file, "released")
        control = _load(control_file, "control")
        problem = Problem.from_config(config, original)
        inputs = frame_inputs(
            original, released, control, problem.dataset.roles, dataset_hierarchies(problem.dataset)
        )
        split = {"mode": "files", "released": str(released_file), "control": str(control_file)}
        return run_battery(
            inputs, config_section=section, external=external, split=split, progress=progress
        )
    full = load_input(config).frame
    _check_input_columns(config, full)
    part, control = split_frame(full, section.control_fraction, section.random_state)
    problem, built, _ = Problem.for_release(config, frame=part)
    for model in problem.evaluator.models:
        if isinstance(model, AttackRisk):
            model.bind(control)
    if built.transformation is not None:
        result = (
            evaluate_with_attacks(problem.evaluator, dict(built.transformation))
            if any(isinstance(m, AttackRisk) for m in problem.evaluator.models)
            else problem.evaluate(dict(built.transformation))
        )
    else:
        result = problem.search(**dict(built.search)).optimum
    if result is None or not result.satisfied:
        raise NothingReleased(
            "no transformation of the released part satisfies the privacy models within the suppression "
            "limit, so nothing would be released to attack. Relax the models or raise the limit."
            if result is None
            else "the configured transformation does not satisfy the privacy models on the released part, "
            "so 'anonymize' would not release it. Choose another transformation or remove it to search."
        )
    inputs = attack_inputs(problem.dataset, result, control)
    split = {
        "mode": "split",
        "control_fraction": section.control_fraction,
        "random_state": section.random_state,
        "transformation": dict(result.transformation),
    }
    return run_battery(
        inputs, config_section=section, external=external, split=split, progress=progress
    )


def _run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    section = _section(config, args)

    def progress(fraction: float, message: str) -> None:
        if args.verbose:
            sys.stderr.write(f"{message}: {fraction:.0%}\n")

    try:
        report = attack_release(
            config,
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
        help="attack this released table (CONFIG's input is then the original released part; needs --control)",
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
    p.add_argument("--n-attacks", type=int, default=None, help="guesses per attack (default 2000)")
    p.add_argument(
        "--seed", type=int, default=None, help="random_state of the split and the attacks"
    )
    p.set_defaults(func=_run)
