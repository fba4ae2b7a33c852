"""PII discovery: Presidio over a sample of each column, proposing roles; spans and overlaps."""

from __future__ import annotations

import logging
import re
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from anon_core.errors import PrivacyWarning
from anon_core.pii.attribute_roles import group_span_names_a_thing
from anon_core.pii.checksums import card_number_valid
from anon_core.pii.dates import date_span_ok, trim_date_span
from anon_core.pii.engine import (
    DEFAULT_MODEL,
    PiiEngine,
    RecognizerSpec,
    build_recognizers,
    load_engine,
)
from anon_core.pii.honorifics import honorific_spans, persons_after_titles
from anon_core.pii.settings import (
    DEFAULT_SCORE_THRESHOLD,
    IDENTIFIER,
    IDENTIFIER_ENTITIES,
    QUASI_IDENTIFIER,
    QUASI_IDENTIFIER_ENTITIES,
    check_columns,
)
from anon_core.pii.span_extents import refine_spans
from anon_core.pii.spurious_spans import drop_spurious_tuples
from anon_core.pii.web_addresses import EXACT_ENTITIES, cut_at_exact_entities
from anon_core.validation import (
    check_float,
    check_int,
)

log = logging.getLogger(__name__)


# =============================================================================== spans and overlaps
@dataclass(frozen=True)
class Span:
    start: int
    end: int
    entity: str
    score: float = 0.0
    operator: str | None = None


_NUMBER_WORDS = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|several|few|many|the)"
_DURATION = re.compile(
    r"(?:(?:the\s+)?(?:last|past|next|following|previous|same)\s+)?(?:"
    + _NUMBER_WORDS
    + r"[\s-]+)*(?:more\s+)?"
    r"(?:days?|weeks?|months?|years?|hours?|minutes?|nights?|decades?)(?:[\s-]+(?:ago|later|earlier|old))?"
    r"|today|tonight|yesterday|tomorrow|daily|weekly|monthly|yearly|annually|now|overnight|morning|evening|night",
    re.IGNORECASE,
)
_IP_SHAPE = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_DATE_SHAPE = re.compile(r"[A-Za-z]|\d[/.:-]\d|\b(?:1[89]|20)\d\d\b")


def _card_like(value: str) -> bool:
    """Whether ``value`` holds a payment card number (single spaces or hyphens between groups)
    that the card recognizer accepts: :func:`~anon_core.pii.checksums.card_number_valid`."""
    return any(card_number_valid(m.group(0)) for m in _CARD_RUN.finditer(value))


_CARD_RUN = re.compile(r"(?<!\d)\d(?:[ -]?\d){11,18}(?!\d)")
_NUMBER_WORD = re.compile(r"(?:^|\s)\+\d")


def _plausible(span: Span, text: str) -> bool:
    """Drop the statistical model's DATE_TIME hits that are not dates of a person.

    spaCy's DATE label also covers durations and relative times ("7 days", "today",
    "45-year-old") and tags bare codes such as ZIP codes or IP addresses; HIPAA Safe
    Harbor counts only dates (and ages over 89) as identifying, so these are not
    reported. A name, place or nationality without a single letter (the small model
    sometimes calls "06/29/2024" a place) is not one either.
    """
    return _plausible_at(text, span.start, span.end, span.entity)


def _plausible_at(text: str, start: int, end: int, entity: str) -> bool:
    """:func:`_plausible` of the ``entity`` span ``text[start:end]``."""
    value = text[start:end].strip()
    if entity in ("PERSON", "LOCATION", "NRP"):
        # a word starting with a digit or '+' is no part of a name or place: the model tagged
        # "el +34" (Spanish "the" and a country code) a place, which would hide the phone number
        if entity == "NRP" and group_span_names_a_thing(text, start, end):
            return False  # "French press", "the English version": a thing or a language
        return any(map(str.isalpha, value)) and not _NUMBER_WORD.search(value)
    if entity != "DATE_TIME":
        return True
    if _card_like(value):
        return False  # a span holding a card number is no date: the card's span must win
    if not date_span_ok(text, start, end):
        return False  # a clock time, a duration, a decade or season, a piece of a phone
    return (
        not _DURATION.fullmatch(value)
        and not _IP_SHAPE.fullmatch(value)
        and bool(_DATE_SHAPE.search(value))
    )


def resolve_overlaps(results: Iterable[Any], text: str | None = None) -> list[Span]:
    """Non-overlapping spans: contained spans dropped, then the higher score (longer on ties) wins.

    Mirrors presidio-anonymizer's conflict handling (contained results removed,
    intersections resolved by score) but drops instead of trimming. With ``text``,
    implausible DATE_TIME hits are removed first (:func:`_plausible`).

    The spans are plain ``(start, end, entity, score)`` tuples until the kept ones are made
    :class:`Span` objects: a tuple compares and sorts as the span with the same fields does,
    so every step decides as it would on spans (a frozen dataclass costs a call per field to
    build, and most spans are rebuilt by several steps or dropped).
    """
    spans = [(r.start, r.end, r.entity_type, float(r.score)) for r in results]
    if text is not None:
        spans = [s for s in spans if _plausible_at(text, s[0], s[1], s[2])]
        # names and places without the words around them; titles of works and the like dropped
        spans = refine_spans(text, spans)
        if any(s[2] in EXACT_ENTITIES for s in spans):  # no address runs into a phone
            spans = cut_at_exact_entities(text, spans)
        spans = persons_after_titles(text, spans)  # a name run into a job title: after it
        spans = [  # a date without a leading duration or a trailing clock time
            (*trim_date_span(text, s[0], s[1]), s[2], s[3]) if s[2] == "DATE_TIME" else s
            for s in spans
        ]
        spans = drop_spurious_tuples(text, spans)  # "Dear Customer", "Great Service": no name
    spans.sort(key=lambda s: (s[0] - s[1], -s[3], s[0]))
    kept: list[tuple[int, int, str, float]] = []
    for span in spans:
        start, end, _, score = span
        clash = [k for k in kept if start < k[1] and k[0] < end]
        if not clash:
            kept.append(span)
        elif all(k[0] <= start and end <= k[1] for k in clash):
            continue  # contained in a longer span
        elif all(score > k[3] for k in clash):
            kept = [k for k in kept if k not in clash] + [span]
    if text is not None and any(k[2] == "PERSON" for k in kept):  # "Sr. Anna", "Frau Ott"
        kept += honorific_spans(text, kept)
    kept.sort(key=lambda s: s[0])
    return [Span(*k) for k in kept]


# =============================================================================== scan
@dataclass(frozen=True)
class ColumnScan:
    """What the scan found in one column: no cell values, only types, shares and scores."""

    name: str
    sampled: int
    entities: dict[str, float]  # entity type -> share of sampled values containing it
    entity_scores: dict[str, float]  # entity type -> mean score
    suggested_role: str | None
    score: float
    reason: str
    free_text: bool
    entity: str | None = None  # the entity that decided the role


@dataclass(frozen=True)
class ScanReport:
    columns: dict[str, ColumnScan]
    sample_size: int
    random_state: int
    nlp_loaded: bool
    notice: str | None
    seconds: float

    def proposed_roles(self) -> dict[str, str]:
        """Columns with a proposal and the role proposed."""
        return {
            n: c.suggested_role for n, c in self.columns.items() if c.suggested_role is not None
        }


#: Roles from most to least protective: an identifier is dropped, a quasi-identifier generalized,
#: a sensitive or insensitive column released as it is.
PROTECTION_ORDER = (IDENTIFIER, QUASI_IDENTIFIER, "sensitive", "insensitive")


def lowers_protection(current: str, proposed: str) -> bool:
    """Whether changing a column's role from ``current`` to ``proposed`` releases more of it."""
    rank = {r: i for i, r in enumerate(PROTECTION_ORDER)}
    return rank.get(proposed, len(rank)) > rank.get(current, len(rank))


def _role_of(entity: str, custom_roles: Mapping[str, str]) -> str | None:
    if entity in custom_roles:
        return custom_roles[entity]
    if entity in IDENTIFIER_ENTITIES:
        return IDENTIFIER
    if entity in QUASI_IDENTIFIER_ENTITIES:
        return QUASI_IDENTIFIER
    return None


def _context_words(column: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", str(column).lower()) if w]


def _sample(series: pd.Series, sample_size: int, random_state: int) -> pd.Series:
    values = series.dropna()
    if values.dtype == object:
        values = values[values.astype(str).str.strip() != ""]
    if len(values) > sample_size:
        values = values.sample(n=sample_size, random_state=random_state)
    return values.astype(str)


def _scan_column(
    name: str,
    values: pd.Series,
    engine: PiiEngine,
    ad_hoc: list[Any],
    custom_roles: Mapping[str, str],
    score_threshold: float,
    min_share: float,
    batch_size: int,
) -> ColumnScan:
    n = len(values)
    if n == 0:
        return ColumnScan(name, 0, {}, {}, None, 0.0, "no values to scan (all missing)", False)
    counts = values.value_counts(sort=False)
    distinct = [str(v) for v in counts.index]
    weights = counts.to_numpy()
    results = engine.analyze_batch(
        distinct,
        context=_context_words(name),
        ad_hoc=ad_hoc,
        score_threshold=score_threshold,
        batch_size=batch_size,
    )
    found: dict[str, float] = {}
    scores: dict[str, list[float]] = {}
    dominant: dict[str, float] = {}
    dominant_scores: dict[str, list[float]] = {}
    lengths = words = 0.0
    for text, weight, res in zip(distinct, weights, results, strict=True):
        stripped = text.strip()
        lengths += weight * len(stripped)
        words += weight * len(stripped.split())
        spans = resolve_overlaps(res, text)
        for entity in {s.entity for s in spans}:
            found[entity] = found.get(entity, 0.0) + weight
        for s in spans:
            scores.setdefault(s.entity, []).append(s.score)
        if spans:
            best = max(spans, key=lambda s: (s.end - s.start, s.score))
            coverage = (best.end - best.start) / max(len(stripped), 1)
            if coverage >= 0.5:
                dominant[best.entity] = dominant.get(best.entity, 0.0) + weight
                dominant_scores.setdefault(best.entity, []).append(best.score)
    free_text = bool(
        lengths / n > 30 and words / n >= 4
    )  # anon_core.data.io.infer_kind's rule for TEXT
    shares = {
        e: round(float(c) / n, 4) for e, c in sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))
    }
    mean_scores = {e: round(float(sum(v)) / len(v), 4) for e, v in scores.items()}
    ranked = sorted(
        ((c, e) for e, c in dominant.items() if _role_of(e, custom_roles)), reverse=True
    )
    if ranked and ranked[0][0] / n >= min_share:
        count, entity = ranked[0]
        role = _role_of(entity, custom_roles)
        score = sum(dominant_scores[entity]) / len(dominant_scores[entity])
        reason = f"{entity} makes up {float(count) / n:.0%} of {n} sampled values (mean score {score:.2f})"
        return ColumnScan(
            name, n, shares, mean_scores, role, round(score, 4), reason, free_text, entity
        )
    pii = {e: s for e, s in shares.items() if _role_of(e, custom_roles)}
    if free_text:
        # Free text is released only de-identified: the proposal keeps it out of the release
        # (identifier) until the text section de-identifies it; never a bare "insensitive".
        if pii:
            listing = ", ".join(f"{e} {s:.0%}" for e, s in list(pii.items())[:4])
            top = next(iter(pii))
            reason = (
                f"free text containing PII ({listing}): dropped from the release until it is "
                "de-identified (text section)"
            )
            return ColumnScan(
                name, n, shares, mean_scores, IDENTIFIER, mean_scores[top], reason, True, top
            )
        return ColumnScan(
            name,
            n,
            shares,
            mean_scores,
            IDENTIFIER,
            0.0,
            "free text (no PII found in the sample, which does not prove there is none): dropped "
            "from the release until it is de-identified (text section)",
            True,
        )
    if pii:
        top = next(iter(pii))
        reason = f"no entity dominates (most frequent: {top} in {pii[top]:.0%} of values, below {min_share:.0%})"
    else:
        reason = "no personal data recognised in the sample"
    return ColumnScan(name, n, shares, mean_scores, None, 0.0, reason, free_text)


def scan_table(
    frame: pd.DataFrame,
    sample_size: int = 100,
    random_state: int = 0,
    *,
    columns: Sequence[str] | None = None,
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    min_share: float = 0.3,
    recognizers: Sequence[RecognizerSpec] = (),
    model: str | None = DEFAULT_MODEL,
    engine: PiiEngine | None = None,
    batch_size: int = 128,
) -> ScanReport:
    """Scan a sample of every column for PII and propose a role per column.

    Only ``sample_size`` non-missing values per column are analysed (drawn with
    ``random_state``, so the same table gives the same report); identical sampled
    values are analysed once. A column whose values are mostly one entity (the
    entity covering at least half of a value, in at least ``min_share`` of the
    sampled values) gets that entity's role; free text gets *identifier* (released only once the
    ``text`` section de-identifies it) and the PII it contains; otherwise no proposal (``None``).
    """
    sample_size = check_int("sample_size", sample_size, minimum=1)
    random_state = check_int("random_state", random_state, minimum=0)
    score_threshold = check_float("score_threshold", score_threshold, 0.0, 1.0)
    min_share = check_float("min_share", min_share, 0.0, 1.0, min_inclusive=False)
    if columns is not None:
        check_columns("columns", columns, frame)
    started = time.perf_counter()
    engine = engine or load_engine(model)
    if engine.notice:
        warnings.warn(engine.notice, PrivacyWarning, stacklevel=2)
    ad_hoc = build_recognizers(recognizers)
    custom_roles = {r.entity: r.role for r in recognizers}
    out = {}
    for col in columns if columns is not None else list(frame.columns):
        values = _sample(frame[col], sample_size, random_state)
        out[str(col)] = _scan_column(
            str(col), values, engine, ad_hoc, custom_roles, score_threshold, min_share, batch_size
        )
    seconds = time.perf_counter() - started
    log.info("PII scan of %d columns (sample %d) in %.2f s", len(out), sample_size, seconds)
    return ScanReport(out, sample_size, random_state, engine.nlp_loaded, engine.notice, seconds)


def scan_report_dict(report: ScanReport) -> dict[str, Any]:
    """``{"columns": {name: {"entities": {type: share}, "suggested_role": role, "score": float, ...}}}``.

    Extra keys per column: ``entity_scores`` (mean score per type), ``entity`` (the
    one that decided), ``reason``, ``sampled``, ``free_text``. No cell values.
    """
    return {
        "columns": {
            name: {
                "entities": dict(c.entities),
                "suggested_role": c.suggested_role,
                "score": float(c.score),
                "entity_scores": dict(c.entity_scores),
                "entity": c.entity,
                "reason": c.reason,
                "sampled": c.sampled,
                "free_text": bool(c.free_text),
            }
            for name, c in report.columns.items()
        }
    }
