"""The input of a release configuration as the application layer prepares it: the table, with the
``text`` and ``pseudonymize`` sections applied, and the problem built from it."""

from __future__ import annotations

import pandas as pd

from anon_core.config import ReleaseConfig
from anon_core.errors import ConfigError
from anon_core.release.engines import choose_engine
from anon_core.release.engines.base import Progress, no_progress
from anon_core.transform.problem import Problem, load_input


def release_sections(
    frame: pd.DataFrame, config: ReleaseConfig, return_mapping: bool = False
) -> tuple[pd.DataFrame, ReleaseConfig, pd.DataFrame | None]:
    """Apply the ``text`` and ``pseudonymize`` sections (Presidio loads only when needed).

    De-identified text columns and pseudonymized identifiers are released in their rewritten
    form: a column whose role is *identifier* (dropped) becomes *insensitive* (kept) here.
    """
    from anon_core.pii import apply_release_sections

    out = apply_release_sections(frame, config, return_mapping=return_mapping)
    frame, config = out[0], out[1]
    mapping = out[2] if return_mapping else None
    return frame, config, mapping


def problem_for_release(
    config: ReleaseConfig,
    return_mapping: bool = False,
    engine: str | None = None,
    progress: Progress = no_progress,
    frame: pd.DataFrame | None = None,
) -> tuple[Problem, ReleaseConfig, pd.DataFrame | None]:
    """Load the input (or take ``frame``), apply the ``text`` and ``pseudonymize`` sections,
    build the problem.

    Returns the problem, the configuration it was built from (pseudonymized
    identifiers become insensitive there) and, when asked, the pseudonym
    mapping. Secrets come from the environment variables the sections name.
    """
    name = (
        "pandas" if frame is not None else choose_engine(engine or config.engine, config.input_path)
    )
    if name != "pandas":
        if "text" in config.sections or "pseudonymize" in config.sections:
            raise ConfigError(
                f"The 'text' and 'pseudonymize' sections run per record in memory and are not available with "
                f"the {name} engine. Use engine: pandas, or release those columns separately."
            )
        return Problem.from_source(config, name, progress=progress), config, None
    if frame is None:
        frame = load_input(config).frame
    mapping = None
    if "text" in config.sections or "pseudonymize" in config.sections:
        frame, config, mapping = release_sections(frame, config, return_mapping)
    return Problem.from_config(config, frame), config, mapping
