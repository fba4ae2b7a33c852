"""The overlap resolution on plain tuples keeps, drops and moves the same spans as the version on
``Span`` objects it replaced (kept below as the slow reference), on hand-written sentences with
the expected spans worked out by hand and on generated texts full of names, titles, greetings,
phones and dates with random overlapping results."""

from __future__ import annotations

import dataclasses
import random
from collections import namedtuple

from anon_core.pii.honorifics import honorific_spans, persons_after_titles
from anon_core.pii.scan import Span, _plausible, resolve_overlaps
from anon_core.pii.span_extents import refine_spans
from anon_core.pii.spurious_spans import drop_spurious, drop_spurious_tuples
from anon_core.pii.web_addresses import EXACT_ENTITIES, cut_at_exact_entities

Result = namedtuple("Result", "start end entity_type score")


def _reference(results, text=None):
    """``resolve_overlaps`` as it was: every step on ``Span`` objects."""
    from anon_core.pii.dates import trim_date_span

    spans = [Span(r.start, r.end, r.entity_type, float(r.score)) for r in results]
    if text is not None:
        spans = [s for s in spans if _plausible(s, text)]
        spans = [
            Span(*r)
            for r in refine_spans(text, [(s.start, s.end, s.entity, s.score) for s in spans])
        ]
        if any(s.entity in EXACT_ENTITIES for s in spans):
            cut = cut_at_exact_entities(text, [(s.start, s.end, s.entity, s.score) for s in spans])
            spans = [Span(*c) for c in cut]
        spans = [
            Span(*t)
            for t in persons_after_titles(
                text, [(s.start, s.end, s.entity, s.score) for s in spans]
            )
        ]
        spans = [
            Span(*trim_date_span(text, s.start, s.end), s.entity, s.score)
            if s.entity == "DATE_TIME"
            else s
            for s in spans
        ]
        spans = drop_spurious(text, spans)
    spans.sort(key=lambda s: (-(s.end - s.start), -s.score, s.start))
    kept: list[Span] = []
    for span in spans:
        clash = [k for k in kept if span.start < k.end and k.start < span.end]
        if not clash:
            kept.append(span)
        elif all(k.start <= span.start and span.end <= k.end for k in clash):
            continue
        elif all(span.score > k.score for k in clash):
            kept = [k for k in kept if k not in clash] + [span]
    if text is not None and any(k.entity == "PERSON" for k in kept):
        kept += [
            Span(*t)
            for t in honorific_spans(text, [(k.start, k.end, k.entity, k.score) for k in kept])
        ]
    return sorted(kept, key=lambda s: s.start)


def _at(text: str, piece: str, entity: str, score: float, nth: int = 0) -> Result:
    at = -1
    for _ in range(nth + 1):
        at = text.index(piece, at + 1)
    return Result(at, at + len(piece), entity, score)


def test_hand_written_sentences():
    text = "Dear Customer, call Dr. Anna Lee on 0161 496 0753 before 12/03/2024. Dear All"
    results = [
        _at(text, "Dear Customer", "PERSON", 0.85),  # a greeting and an office word: dropped
        _at(text, "Anna Lee", "PERSON", 0.85),
        _at(text, "Lee on 0161", "LOCATION", 0.5),  # overlaps the name and the phone, lower
        _at(text, "0161 496 0753", "PHONE_NUMBER", 0.9),
        _at(text, "496", "DATE_TIME", 0.85),  # inside the phone: contained, dropped
        _at(text, "12/03/2024", "DATE_TIME", 0.85),
        _at(text, "All", "PERSON", 0.85),  # "Dear All": everyone, no name
    ]
    out = resolve_overlaps(results, text)
    assert [(text[s.start : s.end], s.entity) for s in out] == [
        ("Dr.", "TITLE"),
        ("Anna Lee", "PERSON"),
        ("0161 496 0753", "PHONE_NUMBER"),
        ("12/03/2024", "DATE_TIME"),
    ]
    assert all(type(s) is Span for s in out)
    assert out == _reference(results, text)


def test_ties_and_the_longer_span_without_a_text():
    # without a text only the overlap rule runs: longer first, then the higher score
    results = [Result(0, 5, "A", 0.5), Result(3, 9, "B", 0.6), Result(0, 9, "C", 0.4)]
    assert resolve_overlaps(results) == [Span(0, 9, "C", 0.4)]
    # "A" is longer and read first, "B" overlaps it with a higher score and replaces it
    results = [Result(0, 5, "A", 0.5), Result(3, 7, "B", 0.6), Result(8, 9, "C", 0.4)]
    assert resolve_overlaps(results) == [Span(3, 7, "B", 0.6), Span(8, 9, "C", 0.4)]
    assert resolve_overlaps(results) == _reference(results)


def test_drop_spurious_on_tuples_matches_the_dataclass_version():
    text = "Valued Customer Rachel Green met Customer Service at Chapter 3, Page 120."
    spans = [
        (0, 28, "PERSON", 0.85),  # role words before the name: starts at "Rachel"
        (33, 49, "ORGANIZATION", 0.85),  # generic words only: dropped
        (53, 72, "LOCATION", 0.85),  # parts of a document: dropped
        (0, 6, "EMAIL_ADDRESS", 0.5),  # another type: kept as it is
    ]
    out = drop_spurious_tuples(text, spans)
    assert out == [(16, 28, "PERSON", 0.85), (0, 6, "EMAIL_ADDRESS", 0.5)]
    as_spans = drop_spurious(text, [Span(*s) for s in spans])
    assert [dataclasses.astuple(s)[:4] for s in as_spans] == out


_WORDS = (
    "Dear Hi Welcome Mr Mrs Dr. Prof. Anna Lee Jacob Miller Rachel Green Customer Service "
    "Great Valued the film Inception Lisbon Sunny Paris New York Acme Corp said met called "
    "on at in and of Chapter Page 3 120 12/03/2024 2024-03-12 0161 496 0753 +44 20 7946 0958 "
    "anna@example.com www.example.org 7 days today French press Sales Manager Data Entry Clerk "
    "Valentine's Day New Year's Eve Everyone All Zoolander is a 2017 comedy film , . \n"
).split(" ")
_TYPES = (
    "PERSON",
    "PERSON",
    "LOCATION",
    "ORGANIZATION",
    "DATE_TIME",
    "NRP",
    "TITLE",
    "PHONE_NUMBER",
    "EMAIL_ADDRESS",
    "URL",
    "STREET_ADDRESS",
    "US_BANK_NUMBER",
)


def test_generated_texts_give_the_same_spans_as_the_reference():
    rng = random.Random(29)
    for _ in range(400):
        text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 30)))
        bounds = [0] + [i + 1 for i, c in enumerate(text) if c == " "] + [len(text) + 1]
        results = []
        for _ in range(rng.randint(0, 12)):
            a, b = sorted(rng.sample(range(len(bounds)), 2)) if len(bounds) > 2 else (0, 1)
            start, end = bounds[a], bounds[b] - 1
            if start >= end:
                continue
            score = rng.choice((0.05, 0.3, 0.4, 0.6, 0.85, 0.85, 0.9, 1.0))
            results.append(Result(start, end, rng.choice(_TYPES), score))
        assert resolve_overlaps(results, text) == _reference(results, text), (text, results)
        assert resolve_overlaps(results) == _reference(results)


def _old_spurious(text: str, start: int, end: int, entity: str) -> bool:
    """``spurious_spans.spurious`` as it was: the title before a person looked for first."""
    from anon_core.pii import spurious_spans as ss

    if entity in ss._PLACE_TYPES and ss._document_parts(text, start, end):
        return True
    if entity not in ss._NAMED_TYPES:
        return False
    span = text[start:end]
    if not ss._LETTERS.search(span):
        return False
    if ss._FEAST_AFTER.match(text, end) or (
        span == "Eve" and ss._EVE.search(text[max(0, start - 20) : start])
    ):
        return True
    titled = entity == "PERSON" and bool(ss._TITLE_BEFORE.search(text[max(0, start - 12) : start]))
    return ss._words_no_name(span, entity, titled)


def refine_spelt_out(text, spans):
    """``refine_spans`` spelt out: :func:`trim_span`, then :func:`spurious`, span by span."""
    from anon_core.pii.names import gazetteer
    from anon_core.pii.span_extents import KINDS, spurious, trim_span

    gaz, out = gazetteer(), []
    for start, end, entity, score in spans:
        if entity in KINDS:
            start, end, entity = trim_span(text, start, end, entity, gaz)
            if spurious(text, start, end, entity, gaz):
                continue
        out.append((start, end, entity, score))
    return out


def test_span_review_and_spurious_spans_decide_as_spelt_out():
    from anon_core.pii.spurious_spans import spurious

    rng = random.Random(30)
    for _ in range(400):
        text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 30)))
        bounds = [0] + [i + 1 for i, c in enumerate(text) if c == " "] + [len(text) + 1]
        spans = []
        for _ in range(rng.randint(0, 10)):
            a, b = sorted(rng.sample(range(len(bounds)), 2)) if len(bounds) > 2 else (0, 1)
            start, end = bounds[a], bounds[b] - 1
            if start < end:
                spans.append((start, end, rng.choice(_TYPES), 0.85))
        assert refine_spans(text, spans) == refine_spelt_out(text, spans), (text, spans)
        for start, end, entity, _ in spans:
            want = _old_spurious(text, start, end, entity)
            assert spurious(text, start, end, entity) == want, (text, start, end, entity)
    # hand-worked: a title keeps the office words as a person, "Dear All" is no one
    text = "Dear Customer Service, Mr Cloud and Dear All"
    assert spurious(text, 5, 21, "PERSON") and not spurious(text, 26, 31, "PERSON")
    assert spurious(text, 41, 44, "PERSON")
