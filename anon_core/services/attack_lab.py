"""What the Attacks page shows beyond the battery's report, on the workspace's rehearsal (the
input split into a released part and never-released control records, as
:mod:`anon_core.services.rehearsal` splits it):

* the linkage mode's one line (which mode ran and how the two differ), and the probabilistic
  linkage figures as rows a chart or a table reads (:func:`linkage_view`);
* a seeded noisy external table for a demonstration (:func:`noisy_external`): records of the
  released part and of the control part with typos, shifted numbers, swapped dates, missing
  fields and other codings (:func:`anon_core.attacks.noisy_aux.noisy_aux`), with the input's
  unique identifier when it has one, so that the truth of a match is known;
* the risk profile of the most vulnerable records of the released part
  (:func:`vulnerable_profile`): their rank and outlier score, the columns that make them rare,
  the labels the release shows for those columns and the size of their released class. Never a
  value the release does not show.

The functions take the workspace (its table, roles, hierarchies, models, suppression limit and
metric); the workspace ranks above this layer and is never imported here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from anon_core.attacks.linkage import LinkageResult
from anon_core.attacks.probabilistic_linkage import THRESHOLDS, ProbabilisticLinkageResult
from anon_core.attacks.split import LINKAGE_MODES, AttackSection, split_frame
from anon_core.data.dataset import Dataset, Role
from anon_core.data.frequency import FrequencyTable
from anon_core.errors import ConfigError
from anon_core.privacy.models import make_model
from anon_core.quality.metrics import make_metric
from anon_core.release.apply import SUPPRESSED, apply_transformation
from anon_core.search.evaluate import Evaluator

__all__ = [
    "LINKAGE_MODES",
    "LINKAGE_MODE_LINES",
    "PROBABILISTIC_LINES",
    "THRESHOLDS",
    "LinkageView",
    "NoisyExternal",
    "VulnerableProfile",
    "linkage_view",
    "noisy_external",
    "vulnerable_profile",
]

#: Which linkage mode ran and how the two differ, one line each (the page shows the one that ran).
LINKAGE_MODE_LINES = {
    "exact": (
        "Exact linkage ran: an external record links only when its values, generalized like the "
        "release, equal a released label, so a typo, an age off by one or a missing field loses "
        "the person; probabilistic linkage tolerates such noise and weighs each field's "
        "agreement, so it is the stronger attack on real external data."
    ),
    "probabilistic": (
        "Probabilistic (Fellegi–Sunter) linkage ran: it compares field by field with tolerances "
        "(typos, nearby numbers, labels that contain the value), learns without labels how much "
        "each agreement weighs and gives every external record a probability for its best match, "
        "so noisy external data still links where exact linkage (equal generalized values only) "
        "finds nobody."
    ),
}

#: One line per probabilistic linkage figure.
PROBABILISTIC_LINES = {
    "best_match": (
        "Per external record, the probability that its best-matching released record is the "
        "same person (the posterior of the Fellegi–Sunter model): near 1, the attacker is sure."
    ),
    "expected": (
        "Expected re-identifications: the sum over external records of the probability given to "
        "the person's true released record (when a shared identifier tells the truth), else the "
        "attacker's expected successes (the sum of the best matches' probabilities)."
    ),
    "thresholds": (
        "Claiming every best match whose probability reaches the threshold: precision is the "
        "share of claims that name the right person, recall the share of released people in the "
        "external table who are named."
    ),
    "curve": (
        "External records whose best match reaches each threshold: how many the attacker claims "
        "at each level of certainty."
    ),
    "no_truth": (
        "Precision and recall need the truth: give the external table the input's identifier "
        "column (unique values) so each record's true released record is known."
    ),
}


@dataclass(frozen=True)
class LinkageView:
    """The linkage figures as the page shows them, for either mode."""

    mode: str
    line: str
    external_records: int
    matched_records: int
    expected_reidentified: float
    truth_known: bool
    best_match_probability: tuple[float, ...] = ()
    thresholds: tuple[Mapping[str, Any], ...] = ()
    curve: tuple[Mapping[str, Any], ...] = ()


def linkage_view(result: LinkageResult | ProbabilisticLinkageResult) -> LinkageView:
    """The page's view of a linkage result: the mode's line, the figures, and for probabilistic
    linkage the best-match probabilities, the rows at :data:`THRESHOLDS` (precision and recall
    when the truth is known, else None) and the matches-against-threshold curve."""
    if isinstance(result, ProbabilisticLinkageResult):
        return LinkageView(
            mode="probabilistic",
            line=LINKAGE_MODE_LINES["probabilistic"],
            external_records=result.external_records,
            matched_records=result.matched_records,
            expected_reidentified=float(result.expected_reidentified),
            truth_known=bool(result.truth_known),
            best_match_probability=tuple(result.best_match_probability),
            thresholds=tuple(dict(result.at_thresholds[str(t)]) for t in THRESHOLDS),
            curve=tuple(dict(c) for c in result.curve),
        )
    return LinkageView(
        mode="exact",
        line=LINKAGE_MODE_LINES["exact"],
        external_records=result.external_records,
        matched_records=result.matched_records,
        expected_reidentified=float(result.expected_reidentified),
        truth_known=bool(result.truth_known),
    )


# ------------------------------------------------------------------ demonstration external table
#: Records of the demonstration's external table at most (two thirds released, one third not).
DEMO_RECORDS = 600


@dataclass(frozen=True)
class NoisyExternal:
    """A demonstration external table and what it holds (counts and column names only)."""

    frame: pd.DataFrame
    id_column: str | None
    released_people: int
    other_people: int

    def describe(self) -> str:
        truth = (
            f"the identifier {self.id_column!r} tells the truth of each match"
            if self.id_column
            else "the input has no identifier with unique values, so the truth is not known"
        )
        return (
            f"A seeded noisy copy of {self.released_people:,} records of the released part and "
            f"{self.other_people:,} never-released records: about 5% of text cells with a typo, "
            "5% of numbers off by 1–2, 5% of dates with day and month swapped, 2% missing and 2% "
            f"coded otherwise; {truth}."
        )


def _unique_identifier(frame: pd.DataFrame, roles: Mapping[str, Any]) -> str | None:
    for col, role in roles.items():
        if Role(role) == Role.IDENTIFIER and col in frame.columns:
            values = frame[col]
            if values.notna().all() and not values.duplicated().any():
                return str(col)
    return None


def noisy_external(ws: Any, section: AttackSection, n: int = DEMO_RECORDS) -> NoisyExternal:
    """A seeded noisy external table over the workspace's quasi-identifiers (and its first
    identifier column with unique values): two thirds of its records from the rehearsal's
    released part, one third from the never-released control part (same split and seed as the
    attacks), at most ``n`` records."""
    from anon_core.attacks.noisy_aux import noisy_aux

    qis = [q for q in ws.qis if q in ws.frame.columns]
    if not qis:
        raise ConfigError("The external table needs quasi-identifiers: mark some first.")
    part, control = split_frame(ws.frame, section.control_fraction, section.random_state)
    rng = np.random.default_rng(section.random_state)
    n_in = min(len(part), max(1, (2 * int(n)) // 3))
    n_out = min(len(control), max(0, int(n) - n_in))
    chosen = pd.concat(
        [
            part.iloc[np.sort(rng.choice(len(part), n_in, replace=False))],
            control.iloc[np.sort(rng.choice(len(control), n_out, replace=False))],
        ],
        ignore_index=True,
    )
    id_column = _unique_identifier(ws.frame, ws.roles)
    frame = noisy_aux(
        chosen, qis, random_state=section.random_state, keep=[id_column] if id_column else []
    )
    return NoisyExternal(frame, id_column, n_in, n_out)


# ------------------------------------------------------------------ vulnerable records
@dataclass(frozen=True)
class VulnerableProfile:
    """The most vulnerable records of the rehearsal's released part: per record its rank, score,
    the columns that make it rare, the labels the release shows for them and its released class
    size (0 when suppressed); and, of the 1% most vulnerable, how many are alone in their
    released class and how many are suppressed."""

    rows: tuple[Mapping[str, Any], ...]
    method: str
    k: int
    columns: tuple[str, ...]
    top_share_records: int
    top_share_alone: int
    top_share_suppressed: int

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.rows))


def _released_classes(released: pd.DataFrame, qis: list[str]) -> np.ndarray:
    """Per released row (suppressed ones as ``*``), the number of non-suppressed rows sharing its
    quasi-identifier labels; 0 for a suppressed row."""
    labels = released[qis].astype(str)
    suppressed = (labels == SUPPRESSED).all(axis=1).to_numpy()
    key = pd.MultiIndex.from_frame(labels)
    codes, _ = pd.factorize(key)
    counts = np.bincount(codes[~suppressed], minlength=int(codes.max()) + 1 if len(codes) else 0)
    return np.where(suppressed, 0, counts[codes])


def vulnerable_profile(
    ws: Any, levels: Mapping[str, int], section: AttackSection, top: int = 10
) -> VulnerableProfile:
    """The risk profile of the ``top`` most vulnerable records of the rehearsal's released part
    (the attacks' split and seed), ranked by the Gower distance to their 5th nearest neighbour
    over the quasi-identifiers (Meeus et al.), released with ``levels`` as the attacks release
    it (failing classes suppressed when the transformation satisfies the models, else every
    class released)."""
    from anon_core.attacks.vulnerable import vulnerable_records

    qis = [q for q in ws.qis if q in ws.frame.columns]
    if not qis:
        raise ConfigError(
            "The vulnerable records are ranked by quasi-identifiers: mark some first."
        )
    part, _ = split_frame(ws.frame, section.control_fraction, section.random_state)
    if len(part) < 2:
        raise ConfigError("The released part has fewer than 2 records: there is nothing to rank.")
    dataset = Dataset(part, ws.roles, ws.hierarchies())
    models = [make_model(m) for m in ws.models]
    evaluator = Evaluator(
        FrequencyTable(dataset),
        [m for m in models if not m.needs_records],
        ws.suppression_limit,
        make_metric(ws.metric),
    )
    result = evaluator.evaluate(dict(levels))
    if not result.satisfied:  # attacked as it would leak, as the battery's rehearsal does
        result = replace(result, suppressed=np.zeros(len(result.suppressed), dtype=bool))
    released = apply_transformation(dataset, result, "mask").reset_index(drop=True)
    sizes = _released_classes(released, qis)
    k = min(5, len(part) - 1)
    n_share = max(1, math.ceil(0.01 * len(part)))
    vul = vulnerable_records(part, qis, k=k, top=int(top), max_columns=3)
    rows = []
    for rank, record in enumerate(vul.top, start=1):
        size = int(sizes[record.position])
        shown = "; ".join(
            f"{c} = {released.at[record.position, c]}" for c in record.columns if c in released
        )
        rows.append(
            {
                "rank": rank,
                "outlier score": round(float(record.score), 3),
                "rare in": ", ".join(record.columns) or "(no single column)",
                "the release shows": "suppressed" if size == 0 else shown,
                "released class size": size,
                "re-identification risk": 0.0 if size == 0 else 1.0 / size,
            }
        )
    most = vul.most(n_share)
    return VulnerableProfile(
        rows=tuple(rows),
        method=vul.method,
        k=k,
        columns=tuple(qis),
        top_share_records=int(len(most)),
        top_share_alone=int((sizes[most] == 1).sum()),
        top_share_suppressed=int((sizes[most] == 0).sum()),
    )
