"""The attack battery: every configured attack on one release, as one typed report.

Singling out (univariate and multivariate), linkability, inference per secret column, linkage
with an external table (when one is given) and DCR membership inference, each with the same seed.
The attacks compare the release with the records that were released (``original``) and records
of the same population that never were (``control``). For a generalized release both are first
generalized with the release's own transformation (:func:`attack_inputs`); otherwise the
attacks' predicates, written in released labels, would match nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from anon_core.attacks.battery_steps import BatteryPlan
from anon_core.attacks.column_types import align_types, numeric_columns
from anon_core.attacks.linkage import LinkageResult, shared_qis
from anon_core.attacks.membership import MembershipResult
from anon_core.attacks.probabilistic_linkage import ProbabilisticLinkageResult
from anon_core.attacks.registry import ATTACKS
from anon_core.attacks.release_rows import drop_suppressed, rows_align
from anon_core.attacks.results import AttackResult
from anon_core.attacks.split import AttackSection, default_aux_columns, split_frame
from anon_core.data.dataset import Dataset, Role
from anon_core.data.frequency import FrequencyTable
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import to_labels
from anon_core.errors import ConfigError, DataError
from anon_core.release.apply import SUPPRESSED, apply_transformation
from anon_core.search.evaluate import Evaluator, TransformationResult

log = logging.getLogger(__name__)

Progress = Callable[[float, str], None]


def _no_progress(fraction: float, message: str) -> None:  # noqa: ARG001
    return None


# ------------------------------------------------------------------ inputs
@dataclass(frozen=True, eq=False)
class AttackInputs:
    """The three tables every attack reads, with the same columns, plus what linkage needs.

    ``original`` and ``control`` are generalized like the release when ``levels`` is set (a
    full-domain generalization); ``released_ids`` aligns the released rows with the input's
    identifier column (for the truth of linkage matches) when the input has one.
    """

    original: pd.DataFrame
    released: pd.DataFrame
    control: pd.DataFrame
    qis: tuple[str, ...]
    sensitive: tuple[str, ...]
    hierarchies: Mapping[str, Hierarchy] = field(default_factory=dict)
    levels: Mapping[str, int] | None = None
    released_ids: Mapping[str, np.ndarray] = field(default_factory=dict)
    unknown_control_values: Mapping[str, int] = field(default_factory=dict)


def generalize_like_release(
    frame: pd.DataFrame,
    levels: Mapping[str, int],
    roles: Mapping[str, Role | str],
    hierarchies: Mapping[str, Hierarchy],
) -> tuple[pd.DataFrame, dict[str, int]]:
    """``frame`` with each quasi-identifier generalized to its level in ``levels``; identifiers dropped.

    Quasi-identifiers absent from ``levels`` stay raw. Values a hierarchy lacks (possible for
    control records) keep their raw label, so they match no generalized value; their count per
    column is returned.
    """
    out: dict[str, Any] = {}
    unknown: dict[str, int] = {}
    for col in frame.columns:
        role = Role(roles.get(str(col), Role.INSENSITIVE))
        if role == Role.IDENTIFIER:
            continue
        if role != Role.QUASI_IDENTIFIER or str(col) not in levels:
            out[col] = frame[col].to_numpy()
            continue
        hierarchy = hierarchies.get(str(col))
        level = int(levels[str(col)])
        labels = to_labels(frame[col]).astype(str)
        if hierarchy is None or level == 0:
            out[col] = labels.astype(object)
            continue
        index = pd.Index(hierarchy.table[:, 0].astype(str))
        pos = index.get_indexer(pd.Index(labels))
        missing = pos < 0
        generalized = np.asarray(hierarchy.table[:, level], dtype=object)[np.where(missing, 0, pos)]
        generalized = generalized.astype(str).astype(object)
        generalized[missing] = labels[missing]
        if missing.any():
            unknown[str(col)] = int(missing.sum())
        out[col] = generalized
    return pd.DataFrame(out, index=frame.index).reset_index(drop=True), unknown


def dataset_hierarchies(dataset: Dataset) -> dict[str, Hierarchy]:
    """The quasi-identifiers' hierarchies of a dataset (given or default)."""
    return {
        q: dataset.columns[q].hierarchy
        for q in dataset.qis
        if dataset.columns[q].hierarchy is not None
    }


def attack_inputs(
    dataset: Dataset, result: TransformationResult, control: pd.DataFrame
) -> AttackInputs:
    """Inputs of the battery for a full-domain generalization ``result`` of ``dataset``.

    The release is the transformation applied with suppressed records removed; ``original`` is
    every record of the dataset generalized the same way (suppressed ones included: they are still
    records an attacker's predicate may single out), ``control`` likewise.
    """
    if dataset.grouped:
        raise ConfigError(
            "The attacks read records, but this table was grouped by a scale engine; run them on the "
            "pandas engine (or a sample of the file)."
        )
    if len(control) == 0:
        raise DataError(
            "The control set is empty: the attacks need records that were never released. Raise "
            "'attack.control_fraction' or give a non-empty 'attack.control' file."
        )
    needed = [c for c in dataset.frame.columns if dataset.roles[str(c)] != Role.IDENTIFIER]
    missing = [c for c in needed if c not in control.columns]
    if missing:
        raise ConfigError(
            f"The control records lack column(s) {missing} of the input; give them the input's columns."
        )
    levels = dict(result.transformation)
    released = apply_transformation(dataset, result, "remove")
    hierarchies = dataset_hierarchies(dataset)
    original, _ = generalize_like_release(dataset.frame, levels, dataset.roles, hierarchies)
    control_g, unknown = generalize_like_release(
        control[needed], levels, dataset.roles, hierarchies
    )
    if unknown:
        log.warning("control values outside the hierarchies (kept raw): %s", unknown)
    numeric = numeric_columns(dataset.frame, released.columns)
    original, released, control_g = align_types(
        [original[released.columns], released, control_g[released.columns]], numeric
    )
    kept = ~result.suppressed[result.table.record_class()]
    ids = {
        c: dataset.frame[c].to_numpy()[kept]
        for c, r in dataset.roles.items()
        if r == Role.IDENTIFIER
    }
    return AttackInputs(
        original=original,
        released=released,
        control=control_g,
        qis=tuple(dataset.qis),
        sensitive=tuple(dataset.sensitive),
        hierarchies=hierarchies,
        levels=levels,
        released_ids=ids,
        unknown_control_values=unknown,
    )


def infer_levels(
    released: pd.DataFrame, hierarchies: Mapping[str, Hierarchy], qis: Sequence[str]
) -> dict[str, int | None]:
    """Per quasi-identifier, the lowest hierarchy level whose labels hold every released value
    (``*`` aside), or None (e.g. Mondrian ranges): how a released file was generalized.

    A column released entirely as ``*`` is fully generalized: its level is the lowest one whose
    labels are all ``*`` (the hierarchy's top), not level 0 (which would leave the original and
    control values raw, so that they match nothing).
    """
    out: dict[str, int | None] = {}
    for q in qis:
        values = set(to_labels(released[q]).astype(str)) - {SUPPRESSED}
        hierarchy = hierarchies.get(q)
        out[q] = None
        if hierarchy is None:
            continue
        if not values and len(released):
            out[q] = next(
                (
                    h
                    for h in range(hierarchy.height)
                    if set(hierarchy.table[:, h].astype(str)) == {SUPPRESSED}
                ),
                hierarchy.height - 1,
            )
            continue
        for h in range(hierarchy.height):
            if values <= set(hierarchy.table[:, h].astype(str)):
                out[q] = h
                break
    return out


def frame_inputs(
    original: pd.DataFrame,
    released: pd.DataFrame,
    control: pd.DataFrame,
    roles: Mapping[str, Role | str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> AttackInputs:
    """Inputs for a release made elsewhere (a file, another release method) from ``original``.

    Identifier columns are dropped. With ``hierarchies``, the level of each quasi-identifier is
    read off the released labels (:func:`infer_levels`) and the original and control records are
    generalized to it; quasi-identifiers whose labels fit no single level (Mondrian ranges,
    synthetic or perturbed values) stay raw, and linkage then matches raw values against the
    released labels. Without hierarchies the three tables are compared as given. Column types
    follow the input (:func:`~anon_core.attacks.column_types.align_types`). When the release
    keeps the input's rows in order (:func:`rows_align`), the input's identifiers are the
    released records' (``released_ids``), so linkage knows the truth of a match.
    """
    if len(control) == 0:
        raise DataError(
            "The control set is empty: the attacks need records that were never released. Give a "
            "non-empty control table."
        )
    roles = {str(c): Role(r) for c, r in roles.items()}
    columns = [c for c in released.columns if roles.get(str(c)) != Role.IDENTIFIER]
    for name, frame in (("original", original), ("control", control)):
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ConfigError(
                f"The released table has column(s) {missing} that the {name} table lacks; the three "
                "tables must share the released columns."
            )
    qis = [c for c in columns if roles.get(str(c)) == Role.QUASI_IDENTIFIER]
    hierarchies = dict(hierarchies or {})
    inferred = infer_levels(released, hierarchies, qis) if hierarchies else {}
    levels = {q: lv for q, lv in inferred.items() if lv is not None}
    original_g, _ = generalize_like_release(original[columns], levels, roles, hierarchies)
    control_g, unknown = generalize_like_release(control[columns], levels, roles, hierarchies)
    full_domain = bool(qis) and all(inferred.get(q) is not None for q in qis)
    numeric = numeric_columns(original, columns)
    original_g, released_t, control_g = align_types(
        [original_g, released[columns].reset_index(drop=True), control_g], numeric
    )
    ids = {}
    if full_domain and rows_align(original_g, released_t, qis):
        # The release keeps the input's rows in order (suppressed ones as '*'): the input's
        # identifiers tell whose record each released row is, so linkage knows the truth.
        ids = {
            str(c): original[c].to_numpy()
            for c in original.columns
            if roles.get(str(c)) == Role.IDENTIFIER
        }
    if full_domain and not all(levels[q] == hierarchies[q].height - 1 for q in qis):
        # Suppressed records carry nothing to attack: dropped, as a release made here is attacked.
        released_t, ids = drop_suppressed(released_t, qis, ids)
    return AttackInputs(
        original=original_g,
        released=released_t,
        control=control_g,
        qis=tuple(qis),
        sensitive=tuple(c for c in columns if roles.get(str(c)) == Role.SENSITIVE),
        hierarchies=hierarchies,
        released_ids=ids,
        levels=levels if full_domain else None,
        unknown_control_values=unknown,
    )


# ------------------------------------------------------------------ report
@dataclass(frozen=True)
class AttackReport:
    """Every attack's result on one release, with the seed, n_attacks and the split used."""

    singling_out: Mapping[str, AttackResult]
    linkability: AttackResult | None
    inference: Mapping[str, AttackResult]
    linkage: LinkageResult | ProbabilisticLinkageResult | None
    membership: MembershipResult | None
    n_attacks: int
    random_state: int
    split: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The ``anon-core attack`` JSON; sections without inputs are omitted."""
        out: dict[str, Any] = {}
        if self.singling_out:
            out["singling_out"] = {k: v.to_dict() for k, v in self.singling_out.items()}
        if self.linkability is not None:
            out["linkability"] = self.linkability.to_dict()
        if self.inference:
            out["inference"] = {k: v.to_dict() for k, v in self.inference.items()}
        if self.linkage is not None:
            out["linkage"] = self.linkage.to_dict()
        if self.membership is not None:
            out["membership"] = self.membership.to_dict()
        return out

    def details(self) -> dict[str, Any]:
        """Seeds, n_attacks, the split and the extra figures of linkage and membership."""
        out: dict[str, Any] = {
            "n_attacks": self.n_attacks,
            "random_state": self.random_state,
            "split": dict(self.split),
        }
        if self.linkage is not None:
            out["linkage"] = self.linkage.details()
        if self.membership is not None:
            out["membership"] = self.membership.details()
        return out

    def rows(self) -> list[dict[str, Any]]:
        """One row per anonymeter-style attack (name, risk, interval, three rates), for tables and charts."""
        rows = []
        named = [(f"singling out ({k})", v) for k, v in self.singling_out.items()]
        if self.linkability is not None:
            named.append(("linkability", self.linkability))
        named += [(f"inference ({k})", v) for k, v in self.inference.items()]
        for name, r in named:
            rows.append(
                {
                    "attack": name,
                    "risk": r.risk,
                    "ci_low": r.ci[0],
                    "ci_high": r.ci[1],
                    "attack_rate": r.attack_rate.value,
                    "attack_error": r.attack_rate.error,
                    "control_rate": r.control_rate.value,
                    "control_error": r.control_rate.error,
                    "baseline_rate": r.baseline_rate.value,
                    "baseline_error": r.baseline_rate.error,
                    "n_attacks": r.n_attacks,
                }
            )
        return rows


def _check_columns(kind: str, names: Sequence[str], columns: Sequence[str]) -> None:
    unknown = [c for c in names if c not in columns]
    if unknown:
        raise ConfigError(
            f"'attack.{kind}' names {unknown}, which are not released columns; columns are {list(columns)}."
        )


def run_battery(
    inputs: AttackInputs | None = None,
    *,
    released: pd.DataFrame | None = None,
    original: pd.DataFrame | None = None,
    control: pd.DataFrame | None = None,
    config_section: AttackSection | None = None,
    roles: Mapping[str, Role | str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    external: pd.DataFrame | None = None,
    split: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> AttackReport:
    """Run every configured attack with ``config_section``'s seed and n_attacks.

    Give ``inputs`` (from :func:`attack_inputs` for a generalization of a Problem's dataset), or
    the three frames with the columns' ``roles`` (and optionally ``hierarchies``, see
    :func:`frame_inputs`). Linkability runs when there are two groups of columns
    (``aux_columns`` or two or more quasi-identifiers), inference for each secret (``secret`` or
    the sensitive attributes), linkage when ``external`` is given; singling out and membership
    always run.
    """
    section = config_section or AttackSection()
    if inputs is None:
        if released is None or original is None or control is None:
            raise ConfigError(
                "run_battery needs either 'inputs' or the three tables 'released', 'original' and 'control'."
            )
        inputs = frame_inputs(original, released, control, roles or {}, hierarchies)
    report = progress or _no_progress
    columns = list(inputs.released.columns)
    if len(inputs.control) == 0:
        raise DataError(
            "The control set is empty: the attacks need records that were never released. Raise "
            "'attack.control_fraction' or give a non-empty control file."
        )
    if len(inputs.released) == 0:
        raise DataError(
            "The release has no records (every record was suppressed): there is nothing to attack."
        )
    secrets = list(section.secret) if section.secret is not None else list(inputs.sensitive)
    _check_columns("secret", secrets, columns)
    aux = section.aux_columns
    if aux is not None:
        _check_columns("aux_columns", [*aux[0], *aux[1]], columns)
    elif len(inputs.qis) >= 2:
        aux = default_aux_columns(inputs.qis)
    if external is not None:
        if section.id_column is not None and section.id_column not in external.columns:
            raise ConfigError(
                f"'attack.id_column' {section.id_column!r} is not a column of the external table; "
                f"its columns are {list(external.columns)}."
            )
        shared_qis(external, inputs.qis, section.id_column)
    seed, n = section.random_state, section.n_attacks
    original, released, control = inputs.original, inputs.released, inputs.control
    plan = BatteryPlan(
        original=original,
        released=released,
        control=control,
        qis=tuple(inputs.qis),
        secrets=tuple(secrets),
        aux=aux,
        n_attacks=n,
        random_state=seed,
        external=external,
        id_column=section.id_column,
        linkage_mode=section.linkage_mode,
        hierarchies=inputs.hierarchies,
        levels=inputs.levels,
        released_ids=inputs.released_ids,
    )
    # every registered attack that declares battery steps, in registration order
    steps = [s for spec in ATTACKS.values() if spec.battery for s in spec.battery(plan)]
    results: dict[str, Any] = {"singling_out": {}, "inference": {}}
    for i, one in enumerate(steps):
        report(i / len(steps), one.label)

        def sub(fraction: float, message: str = "", i: int = i, label: str = one.label) -> None:
            report(min(1.0, (i + float(fraction)) / len(steps)), message or label)

        out = one.run(sub)
        if one.key is None:
            results[one.report_field] = out
        else:
            results[one.report_field][one.key] = out
    report(1.0, "attacks done")
    split_info = {
        "released_records": len(released),
        "original_records": len(original),
        "control_records": len(control),
        **dict(split or {}),
    }
    if inputs.unknown_control_values:
        split_info["control_values_outside_hierarchies"] = dict(inputs.unknown_control_values)
    return AttackReport(
        singling_out=results["singling_out"],
        linkability=results.get("linkability"),
        inference=results["inference"],
        linkage=results.get("linkage"),
        membership=results.get("membership"),
        n_attacks=n,
        random_state=seed,
        split=split_info,
    )


def attack_split(
    frame: pd.DataFrame,
    roles: Mapping[str, Role | str],
    hierarchies: Mapping[str, Hierarchy],
    levels: Mapping[str, int],
    section: AttackSection,
    *,
    models: Sequence[Any] = (),
    suppression_limit: float = 0.0,
    metric: Any = None,
    external: pd.DataFrame | None = None,
    progress: Progress | None = None,
) -> tuple[AttackReport, TransformationResult]:
    """Split ``frame`` as ``section`` says, release the part with ``levels`` and attack it.

    The transformation is evaluated on the released part with ``models`` and the suppression
    limit (classes that fail a model are suppressed as the release would suppress them; the
    ``attack-risk`` models, which need this very battery, are left out). A transformation that
    does not satisfy them is attacked with every class released (what it would leak). ``hierarchies``
    should cover the whole ``frame``, so control values generalize too. Returns the report and the
    evaluated transformation (its ``satisfied`` says whether it would be released).
    """
    part, control = split_frame(frame, section.control_fraction, section.random_state)
    dataset = Dataset(part, roles, hierarchies)
    evaluator = Evaluator(
        FrequencyTable(dataset),
        [m for m in models if not m.needs_records],
        suppression_limit,
        metric,
    )
    result = evaluator.evaluate(dict(levels))
    # A transformation that fails its models is attacked as it would leak: every class released
    # (the suppression it needs exceeds the limit), as `anon-core risk --force` reports it.
    attacked = (
        result
        if result.satisfied
        else replace(result, suppressed=np.zeros(len(result.suppressed), dtype=bool))
    )
    inputs = attack_inputs(dataset, attacked, control)
    split = {
        "mode": "split",
        "control_fraction": section.control_fraction,
        "random_state": section.random_state,
        "transformation": dict(result.transformation),
    }
    report = run_battery(
        inputs, config_section=section, external=external, split=split, progress=progress
    )
    return report, result
