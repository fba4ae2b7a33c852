"""Release with any registered method, and compare methods on one yardstick.

One release (``anon-core release``): configuration (+ frame) -> text/pseudonymize sections ->
identifiers dropped -> the configured (or named) method -> released table.

The comparison (``anon-core compare``, the Compare page): the input is split once with the attack
lab's seeded control split (:func:`anon_core.attacks.split.split_frame`); every method releases the
same released part; each release then meets the same attack battery (original released part,
release, never-released control records) and the same utility yardstick (ML utility trained on the
release and tested on the control records as an original holdout; marginal and association
distances). The attack and utility runners are injectable (tests, the dashboard's cache); the
defaults call :func:`anon_core.attacks.battery.run_battery` and
:func:`anon_core.utility.yardstick.utility_yardstick`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.attacks.split import parse_attack_section, split_frame
from anon_core.config import ReleaseConfig
from anon_core.data.dataset import Role
from anon_core.data.hierarchy import Hierarchy
from anon_core.errors import AnonError, ConfigError
from anon_core.geo.location import with_location
from anon_core.methods import METHODS, method_available
from anon_core.methods.config import MethodSection, method_section, parse_method_section
from anon_core.methods.generalization import problem_for
from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    ReleaseMethod,
    drop_identifiers,
    make_context,
    make_method,
)
from anon_core.services.compare_figures import extra_attack_figures, spatial_figures
from anon_core.services.compare_target import TargetBins, target_bins
from anon_core.services.release import jsonable
from anon_core.transform.problem import load_input

log = logging.getLogger(__name__)

#: Name of the unprotected baseline (the released part copied unchanged) in a comparison.
BASELINE = "unprotected-copy"

#: (original released part, release, control part, context, random_state) -> attack figures.
AttackRunner = Callable[[pd.DataFrame, pd.DataFrame, pd.DataFrame, MethodContext, int], Mapping]
#: (original released part, holdout, release, target or None, random_state) -> utility figures.
UtilityRunner = Callable[[pd.DataFrame, pd.DataFrame, pd.DataFrame, str | None, int], Mapping]
#: Progress of one method in a comparison: (method name, fraction, message).
MethodProgress = Callable[[str, float, str], None]


# ------------------------------------------------------------------ one release
@dataclass(frozen=True)
class Release:
    """One method's release: the method, its seed, what it produced and how long it took."""

    method: ReleaseMethod
    random_state: int
    output: MethodOutput
    seconds: float
    cpu_seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method.name,
            "parameters": {k: v for k, v in self.method.spec().items() if k != "name"},
            "random_state": self.random_state,
            "privacy_guarantee": self.output.guarantee,
            "rows": int(len(self.output.table)),
            "seconds": round(self.seconds, 4),
            "cpu_seconds": round(self.cpu_seconds, 4),
            "details": jsonable(dict(self.output.details)),
        }


def prepare_input(
    config: ReleaseConfig, frame: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, ReleaseConfig]:
    """The input (read, or ``frame``) after the ``text``/``pseudonymize`` sections, and the
    configuration it belongs to (pseudonymized identifiers become insensitive there)."""
    if frame is None:
        frame = load_input(config).frame
    if "text" in config.sections or "pseudonymize" in config.sections:
        from anon_core.pii import apply_release_sections  # Presidio loads only when needed

        frame, config = apply_release_sections(frame, config)[:2]
    frame = with_location(frame, config)  # the geo section's location quasi-identifier
    missing = [c for c in config.roles if c not in frame.columns]
    if missing:
        raise ConfigError(
            f"'attributes' names {missing}, which are not columns of the input. "
            f"Columns are: {list(frame.columns)}."
        )
    return frame, config


def run_method(
    method: ReleaseMethod,
    frame: pd.DataFrame,
    config: ReleaseConfig | None,
    *,
    random_state: int = 0,
    progress: Progress | None = None,
    roles: Mapping[str, Role | str] | None = None,
) -> Release:
    """Release ``frame`` (identifiers dropped first) with ``method``, timed (wall and CPU)."""
    if method.name in METHODS:
        ok, why = method_available(method.name)
        if not ok:
            raise ConfigError(f"Method {method.name!r} is not available here: {why}.")
    given = roles if roles is not None else (config.roles if config is not None else {})
    table = drop_identifiers(frame, given)
    context = make_context(table, config, given)
    t0, c0 = time.perf_counter(), time.process_time()
    output = method.release(table, context, random_state=random_state, progress=progress)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if list(output.table.columns) != list(table.columns):
        raise ConfigError(  # pragma: no cover - a method contract violation
            f"Method {method.name!r} returned columns {list(output.table.columns)}, expected "
            f"{list(table.columns)}."
        )
    return Release(method, random_state, output, seconds, cpu)


def release_with_config(
    config: ReleaseConfig,
    frame: pd.DataFrame | None = None,
    *,
    method: str | None = None,
    progress: Progress | None = None,
) -> Release:
    """The configuration's release with its ``method`` section (``method`` names another)."""
    section = method_section(config, method)
    frame, config = prepare_input(config, frame)
    return run_method(
        section.method, frame, config, random_state=section.random_state, progress=progress
    )


def write_atomic(table: pd.DataFrame, out: str | Path, protect: Sequence[str | Path] = ()) -> Path:
    """Write ``table`` to ``out`` atomically (engines.base.write_frame: a temporary file beside it,
    then ``os.replace``; CSV column names escaped like cells); refuses a path that is one of
    ``protect`` however spelled (hard and symbolic links too) or not a regular file."""
    from anon_core.data.safe_write import check_outputs
    from anon_core.release.engines.base import write_frame

    check_outputs(
        {"The output": out},
        {f"protected file {i + 1}": p for i, p in enumerate(protect) if p is not None},
    )
    return write_frame(table, out).resolve()


# ------------------------------------------------------------------ the comparison
@dataclass(frozen=True)
class MethodComparison:
    """One method's row of a comparison (``error`` set when it could not run)."""

    name: str
    parameters: Mapping[str, Any]
    seconds: float
    cpu_seconds: float
    attacks: Mapping[str, Any]
    utility: Mapping[str, Any]
    privacy_guarantee: str
    protects: str = ""
    does_not_protect: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
    #: Plain-word remarks: a rehearsal note, or a figure that could not be measured.
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {
            "parameters": jsonable(dict(self.parameters)),
            "seconds": round(self.seconds, 4),
            "cpu_seconds": round(self.cpu_seconds, 4),
            "attacks": jsonable(dict(self.attacks)),
            "utility": jsonable(dict(self.utility)),
            "privacy_guarantee": self.privacy_guarantee,
            "protects": self.protects,
            "does_not_protect": self.does_not_protect,
            "details": jsonable(dict(self.details)),
        }
        if self.error is not None:
            out["error"] = self.error
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass(frozen=True)
class Comparison:
    """Every method's figures on the same split; ``releases`` holds the released tables."""

    methods: tuple[MethodComparison, ...]
    target: str | None
    n_released_part: int
    n_control: int
    random_state: int
    releases: Mapping[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    #: The quantile classes of a numeric target with many values (None: used as classes).
    target_bins: TargetBins | None = None

    def to_dict(self) -> dict[str, Any]:
        split: dict[str, Any] = {
            "released_part": self.n_released_part,
            "control": self.n_control,
            "random_state": self.random_state,
            "utility_target": self.target,
        }
        if self.target_bins is not None:
            split["utility_target_classes"] = self.target_bins.to_dict()
        return {"methods": {m.name: m.to_dict() for m in self.methods}, "split": split}

    def method(self, name: str) -> MethodComparison:
        for m in self.methods:
            if m.name == name:
                return m
        raise KeyError(name)


def default_methods() -> list[str]:
    """The methods a comparison runs by default: every registered method without an extra."""
    return [name for name, cls in METHODS.items() if cls.extra is None]


def utility_target(config: ReleaseConfig, frame: pd.DataFrame, target: str | None) -> str | None:
    """The ML utility's target: ``target``, else the first sensitive attribute, else None (the
    yardstick then picks the categorical column with the fewest classes)."""
    if target is not None:
        if target not in frame.columns:
            raise ConfigError(
                f"'target' is {target!r}, which is not a column. Columns are: {list(frame.columns)}."
            )
        return target
    sensitive = [c for c, r in config.roles.items() if r == Role.SENSITIVE and c in frame.columns]
    return sensitive[0] if sensitive else None


def config_hierarchies(config: ReleaseConfig, part: pd.DataFrame) -> dict[str, Hierarchy]:
    """The configuration's hierarchy of every quasi-identifier, built on the released part (the
    attacks and the ML holdout map original values to a generalized release's labels with them)."""
    problem, _ = problem_for(part, make_context(part, config))
    ds = problem.dataset
    return {q: h for q in ds.qis if (h := ds.columns[q].hierarchy) is not None}


def default_attack_runner(
    config: ReleaseConfig,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    n_attacks: int | None = None,
) -> AttackRunner:
    """The attack battery of :mod:`anon_core.attacks.battery` with the configuration's section
    (linkage too, exact or probabilistic, when the section names an ``external`` table).

    With the configuration's ``hierarchies`` a generalized release's original and control
    records are generalized to the release's levels before the attacks."""
    try:
        from anon_core.attacks.battery import run_battery
    except ImportError as exc:  # pragma: no cover - a partial installation
        raise ConfigError(f"The attack battery is not available in this build ({exc}).") from None

    section = parse_attack_section(config.sections.get("attack"), config.base_dir)
    if n_attacks is not None:
        section = section.with_options(n_attacks=n_attacks)
    external = None
    if section.external is not None:  # the section's external table: linkage joins the battery
        from anon_core.services.attacks import load_frame

        external = load_frame(section.external, "external")

    def run(original, released, control, context, random_state):
        try:
            report = run_battery(
                released=released,
                original=original,
                control=control,
                config_section=section.with_options(random_state=random_state),
                roles=context.roles,
                hierarchies=hierarchies,
                external=external,
            )
        except ImportError as exc:  # pragma: no cover - a partial installation
            raise ConfigError(f"An attack is not available in this build ({exc}).") from None
        return report.to_dict()

    return run


def default_utility_runner(
    hierarchies: Mapping[str, Hierarchy] | None = None,
    options: Mapping[str, Any] | None = None,
) -> UtilityRunner:
    """The utility yardstick of :mod:`anon_core.utility.yardstick` (ML trained on the release,
    tested on the original holdout; with ``hierarchies`` the holdout is generalized like it)."""
    try:
        from anon_core.utility.yardstick import utility_yardstick
    except ImportError as exc:  # pragma: no cover - a partial installation
        raise ConfigError(
            f"The utility yardstick is not available in this build ({exc})."
        ) from None

    def run(original, holdout, released, target, random_state):
        return utility_yardstick(
            original,
            holdout,
            released,
            target,
            hierarchies=hierarchies,
            random_state=random_state,
            **dict(options or {}),
        ).to_dict()

    return run


class UnprotectedCopy(ReleaseMethod):
    """The baseline of a comparison: the released part unchanged (not registered)."""

    name = BASELINE
    label = "Unprotected copy (baseline)"
    params = ()
    accepts = frozenset({"numeric", "categorical", "date", "text"})
    randomized = False
    guarantee = "none"
    protects = "Nothing: the original records (identifiers dropped), for reference."
    does_not_protect = "Anything: every attack sees the true records."

    def release(self, frame, context, *, random_state=None, progress=None) -> MethodOutput:
        return MethodOutput(frame.copy(), self.guarantee, {})


def _method_for(spec: str | Mapping[str, Any], configured: MethodSection | None) -> MethodSection:
    if isinstance(spec, str):
        if spec == BASELINE:
            return MethodSection(UnprotectedCopy(), 0)
        if configured is not None and configured.name == spec:
            return configured
        return parse_method_section({"name": spec})
    return parse_method_section({k: v for k, v in spec.items() if k != "label"})


def compare(
    config: ReleaseConfig,
    frame: pd.DataFrame | None = None,
    methods: Sequence[str | Mapping[str, Any]] | None = None,
    *,
    target: str | None = None,
    baseline: bool = False,
    random_state: int | None = None,
    n_attacks: int | None = None,
    attack_runner: AttackRunner | None = None,
    utility_runner: UtilityRunner | None = None,
    utility_options: Mapping[str, Any] | None = None,
    progress: MethodProgress | None = None,
    keep_releases: bool = False,
    shadow: bool = False,
) -> Comparison:
    """Run every method on the same split, then the same attacks and utility measures.

    ``methods`` are names (parameters from the configuration's ``method`` section when it names
    the same method, else the defaults) or full specs ({"name": ..., params..., "random_state"},
    optionally with a ``label`` naming the row, e.g. one per explored generalization node).
    ``baseline`` adds the unprotected copy. ``utility_options`` go to the yardstick (e.g.
    ``{"models": ["logistic_regression"]}``). A method that cannot run (missing extra, parameters
    that do not fit the data) gets an ``error`` and no figures; the others still run.
    With the default attack battery, each method's attack figures also hold the exposure of the
    most vulnerable records and, with ``shadow`` (16 re-fits per method), the shadow-model
    membership attack on synthetic and perturbative releases
    (:mod:`anon_core.services.compare_figures`).
    """
    names = list(methods) if methods is not None else default_methods()
    if not names and not baseline:
        raise ConfigError("'methods' is empty: name at least one release method.")
    raw = config.sections.get("method") if config.sections else None
    configured = parse_method_section(raw) if raw is not None else None
    sections = []
    for spec in names:
        name = spec if isinstance(spec, str) else str(spec.get("label", spec.get("name")))
        if isinstance(spec, str) and spec != BASELINE and spec not in METHODS:
            raise ConfigError(
                f"'methods' names {spec!r}, which is not a release method; choose from "
                f"{', '.join(sorted(METHODS))}."
            )
        sections.append((name, spec))
    if baseline and BASELINE not in [n for n, _ in sections]:
        sections.insert(0, (BASELINE, BASELINE))
    frame, config = prepare_input(config, frame)
    attack = parse_attack_section(config.sections.get("attack"), config.base_dir)
    seed = attack.random_state if random_state is None else int(random_state)
    table = drop_identifiers(frame, config.roles)
    target = utility_target(config, table, target)
    part, control = split_frame(table, attack.control_fraction, seed)
    bins = target_bins(part, target)
    hierarchies = (
        config_hierarchies(config, part) if attack_runner is None or utility_runner is None else {}
    )
    attacks_fn = attack_runner or default_attack_runner(config, hierarchies, n_attacks)
    utility_fn = utility_runner or default_utility_runner(hierarchies, utility_options)
    qis = [str(c) for c, r in config.roles.items() if r == Role.QUASI_IDENTIFIER]
    rows: list[MethodComparison] = []
    releases: dict[str, pd.DataFrame] = {}
    for name, spec in sections:

        def step(fraction: float, message: str, _name: str = name) -> None:
            if progress is not None:
                progress(_name, 0.6 * fraction, message)

        kind = spec if isinstance(spec, str) else str(spec.get("name"))
        cls = METHODS.get(kind, UnprotectedCopy)
        try:
            section = _method_for(spec, configured)
            if section.method.name != BASELINE:
                ok, why = method_available(section.method.name)
                if not ok:
                    raise ConfigError(why)
            seed_m = seed if isinstance(spec, str) else int(spec.get("random_state", seed))
            release, note = _rehearse(section.method, part, config, seed_m, step)
        except AnonError as exc:
            log.warning("compare: %s could not run: %s", name, exc)
            rows.append(
                MethodComparison(
                    name, {}, 0.0, 0.0, {}, {}, "n/a", cls.protects, cls.does_not_protect,
                    error=str(exc),
                )
            )  # fmt: skip
            if progress is not None:
                progress(name, 1.0, f"error: {exc}")
            continue
        released = release.output.table
        notes = [note] if note else []
        if progress is not None:
            progress(name, 0.6, "attacks")
        context = make_context(part, config)
        attacks = _measure("attacks", notes, attacks_fn, part, released, control, context, seed)
        if attack_runner is None:
            extra, extra_notes = extra_attack_figures(
                section.method, config, part, released, control, qis, seed_m, shadow
            )
            attacks.update(extra)
            notes += extra_notes
        if progress is not None:
            progress(name, 0.85, "utility")
        utility = _measure(
            "utility", notes, utility_fn, *_binned(bins, part, control, released), target, seed
        )
        spatial_attacks, spatial_utility, spatial_notes = spatial_figures(config, part, released)
        attacks.update(spatial_attacks)
        utility.update(spatial_utility)
        notes += spatial_notes
        if progress is not None:
            progress(name, 1.0, "done")
        if keep_releases:
            releases[name] = released
        info = release.to_dict()
        info["parameters"] = {k: v for k, v in section.method.spec().items() if k != "name"}
        rows.append(
            MethodComparison(
                name,
                info["parameters"],
                release.seconds,
                release.cpu_seconds,
                attacks,
                utility,
                release.output.guarantee,
                cls.protects,
                cls.does_not_protect,
                info["details"],
                notes=tuple(notes),
            )
        )
    return Comparison(tuple(rows), target, len(part), len(control), seed, releases, bins)


def _binned(bins: TargetBins | None, *frames: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    return frames if bins is None else tuple(bins.apply(f) for f in frames)


def _measure(
    what: str, notes: list[str], run: Callable[..., Mapping], *args: Any
) -> dict[str, Any]:
    """The figures of ``run(*args)``; a figure that cannot be measured (a target the release does not
    keep, a model that cannot train) becomes a note, never a failed comparison."""
    try:
        return dict(run(*args))
    except (AnonError, ValueError, ArithmeticError) as exc:
        log.warning("compare: the %s could not be measured: %s", what, exc)
        notes.append(f"The {what} could not be measured: {exc}")
        return {}


def _rehearse(
    method: ReleaseMethod,
    part: pd.DataFrame,
    config: ReleaseConfig,
    random_state: int,
    progress: Progress,
) -> tuple[Release, str | None]:
    """Release the released part with ``method``; a rehearsal note when it needed more.

    Generalization with a fixed transformation (the workspace's current one, or an explored
    node) is the transformation the full table satisfies; on the released part alone the same
    levels can leave more records in small classes than the suppression limit allows. The
    rehearsal then still applies those levels, suppresses the violating records (so the models
    hold on what is released) and says so in a note, instead of refusing the method."""
    try:
        return run_method(method, part, config, random_state=random_state, progress=progress), None
    except ConfigError:
        fixed = method.parameters.get("transformation") or config.transformation
        limit = method.parameters.get("suppression_limit")
        if method.name != "generalization" or not fixed or limit is not None:
            raise
    spec = {k: v for k, v in method.spec().items() if v is not None}
    relaxed = make_method({**spec, "suppression_limit": 1.0})
    release = run_method(relaxed, part, config, random_state=random_state, progress=progress)
    n = int(release.output.details.get("suppressed_records", 0))
    note = (
        f"Rehearsal note: on the released part ({len(part):,} records) this transformation "
        f"leaves {n:,} records ({n / max(len(part), 1):.1%}) in classes that fail the privacy "
        f"models, more than the suppression limit ({config.suppression_limit:.0%}) allows; the "
        "rehearsal suppressed them, so the models hold on the released part."
    )
    return release, note


def write_releases(comparison: Comparison, folder: str | Path, suffix: str = ".csv") -> list[Path]:
    """Write each kept release to ``folder/NAME.csv`` (atomically)."""
    folder = Path(folder)
    return [
        write_atomic(table, folder / f"{name}{suffix}")
        for name, table in comparison.releases.items()
    ]
