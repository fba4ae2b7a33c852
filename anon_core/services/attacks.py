"""The attack battery on a configuration's release: the service behind ``anon-core attack``, the
Attacks section of the release report and ``verify``.

Without released/control files the input is split as the configuration's ``attack`` section says
(seeded ``control_fraction``), the released part is anonymized as configured (its transformation,
else the search; an ``attack-risk`` model gets the control part), and the battery attacks that
release. With both files, the released file is the protected release, attacked as given
(anonymeter's ``syn``); the configuration's input holds the original records that were released,
before protection (``ori``); the control file holds records that were never released. Column types
of the released and control files follow the input's (a file is read as text).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.attacks.split import AttackSection, split_frame
from anon_core.config import ReleaseConfig
from anon_core.data.io import load_table
from anon_core.errors import AnonError, ConfigError, DataError
from anon_core.geo.location import with_location
from anon_core.privacy.attack_risk import AttackRisk
from anon_core.services.inputs import problem_for_release
from anon_core.transform.choose import choose
from anon_core.transform.problem import Problem, load_input


class NothingReleased(Exception):
    """The configuration releases nothing (no transformation satisfies its models)."""


def load_frame(path: Path, what: str) -> pd.DataFrame:
    """A table the attacks read (released, control, external), with one clear message when unusable."""
    if not Path(path).is_file():
        raise DataError(f"The {what} file {str(path)!r} does not exist. Check the path.")
    try:
        frame = load_table(path).frame
    except AnonError as exc:
        raise DataError(f"The {what} table cannot be used: {exc}") from None
    if len(frame) == 0:
        raise DataError(f"The {what} table {str(path)!r} has no records.")
    return frame


def check_input_columns(config: ReleaseConfig, frame: pd.DataFrame) -> None:
    """Every attribute the configuration names is a column of the input."""
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

    external = load_frame(section.external, "external") if section.external is not None else None
    released_file = released_file or section.released
    control_file = control_file or section.control
    if (released_file is None) != (control_file is None):
        raise ConfigError(
            "Give both --released and --control (the release and the never-released records), or neither "
            "and let the configuration split its input."
        )
    if released_file is not None and control_file is not None:
        original = with_location(load_input(config).frame, config)  # the geo section's location
        check_input_columns(config, original)
        released = load_frame(released_file, "released")
        control = load_frame(control_file, "control")
        problem = Problem.from_config(config, original)
        inputs = frame_inputs(
            original, released, control, problem.dataset.roles, dataset_hierarchies(problem.dataset)
        )
        split = {"mode": "files", "released": str(released_file), "control": str(control_file)}
        return run_battery(
            inputs, config_section=section, external=external, split=split, progress=progress
        )
    full = with_location(load_input(config).frame, config)  # the geo section's location
    check_input_columns(config, full)
    part, control = split_frame(full, section.control_fraction, section.random_state)
    problem, built, _ = problem_for_release(config, frame=part)
    for model in problem.evaluator.models:
        if isinstance(model, AttackRisk):
            model.bind(control)
    result, _, _ = choose(problem, built.transformation, built.search)
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
