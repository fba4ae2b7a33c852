"""The anonymizer's fast path (``replace_spans``) gives presidio-anonymizer's own output.

The oracle is presidio-anonymizer's ``AnonymizerEngine.anonymize`` itself, called the way
``deidentify_texts`` called it before, on the same spans; two cases are also worked by hand.
"""

from __future__ import annotations

import pytest

pytest.importorskip("presidio_anonymizer")

from presidio_anonymizer import AnonymizerEngine  # noqa: E402
from presidio_anonymizer.entities import (  # noqa: E402
    ConflictResolutionStrategy,
    OperatorConfig,
    RecognizerResult,
)

from anon_core.pii.scan import Span  # noqa: E402
from anon_core.pii.text import replace_spans  # noqa: E402

ENGINE = AnonymizerEngine()


def _presidio(text, spans, operators):
    done = ENGINE.anonymize(
        text=text,
        analyzer_results=[RecognizerResult(s.entity, s.start, s.end, s.score) for s in spans],
        operators=dict(operators),
        conflict_resolution=ConflictResolutionStrategy.REMOVE_INTERSECTIONS,
    )
    items = sorted(
        (Span(i.start, i.end, i.entity_type, 0.0, i.operator) for i in done.items),
        key=lambda s: s.start,
    )
    return done.text, tuple(items)


def _spans(text, *pieces):
    """Spans of each (word, entity) in ``text``, searched left to right."""
    out, at = [], 0
    for word, entity in pieces:
        start = text.index(word, at)
        out.append(Span(start, start + len(word), entity, 0.85))
        at = start + len(word)
    return out


OPERATORS = {
    "DEFAULT": OperatorConfig("replace", {}),
    "PHONE_NUMBER": OperatorConfig(
        "mask", {"masking_char": "*", "chars_to_mask": 4, "from_end": True}
    ),
    "EMAIL_ADDRESS": OperatorConfig("custom", {"lambda": lambda v: v[::-1]}),
    "LOCATION": OperatorConfig("replace", {"new_value": "somewhere"}),
    "DATE_TIME": OperatorConfig("redact", {}),
    "NRP": OperatorConfig("keep", {}),
    "URL": OperatorConfig("hash", {"hash_type": "sha256", "salt": "0123456789abcdef0123"}),
}

CASES = [
    ("My name is Ann Lee.", [("Ann", "PERSON"), ("Lee", "PERSON")]),
    (
        "Ann  Lee and Bo\tKim",
        [("Ann", "PERSON"), ("Lee", "PERSON"), ("Bo", "PERSON"), ("Kim", "PERSON")],
    ),
    ("AnnLee", [("Ann", "PERSON"), ("Lee", "PERSON")]),
    ("Ann \nLee", [("Ann", "PERSON"), ("Lee", "PERSON")]),
    ("Ann \n\nLee", [("Ann", "PERSON"), ("Lee", "PERSON")]),
    ("Ann Paris", [("Ann", "PERSON"), ("Paris", "LOCATION")]),
    (
        "Call 020 7946 0958 or write to ann@example.org, in Zürich on 3 May; Swiss; http://x.io",
        [
            ("020 7946 0958", "PHONE_NUMBER"),
            ("ann@example.org", "EMAIL_ADDRESS"),
            ("Zürich", "LOCATION"),
            ("3 May", "DATE_TIME"),
            ("Swiss", "NRP"),
            ("http://x.io", "URL"),
        ],
    ),
    ("Émile Zoë 😀 Ørsted", [("Émile", "PERSON"), ("Zoë", "PERSON"), ("Ørsted", "PERSON")]),
    ("x", [("x", "ZIP")]),
]


@pytest.mark.parametrize("text,pieces", CASES)
def test_the_same_text_and_replacements_as_presidio(text, pieces):
    spans = _spans(text, *pieces)
    assert replace_spans(ENGINE, text, spans, OPERATORS, {}) == _presidio(text, spans, OPERATORS)


def test_worked_by_hand():
    text = "My name is Ann Lee, from Paris."
    spans = _spans(text, ("Ann", "PERSON"), ("Lee", "PERSON"), ("Paris", "LOCATION"))
    out, replaced = replace_spans(ENGINE, text, spans, OPERATORS, {})
    assert out == "My name is <PERSON>, from somewhere."
    assert replaced == (
        Span(11, 19, "PERSON", 0.0, "replace"),
        Span(26, 35, "LOCATION", 0.0, "replace"),
    )


def test_operators_reused_across_texts():
    validated: dict = {}
    for text in ("Ann met Bo", "Bo met Ann in Rome"):
        spans = [s for s in _spans(text, ("Ann" if text[0] == "A" else "Bo", "PERSON"))]
        assert replace_spans(ENGINE, text, spans, OPERATORS, validated) == _presidio(
            text, spans, OPERATORS
        )
    assert set(validated) == {"PERSON"}


@pytest.mark.parametrize(
    "spans",
    [
        [Span(0, 3, "PERSON"), Span(2, 5, "PERSON")],  # overlapping
        [Span(4, 7, "PERSON"), Span(0, 3, "PERSON")],  # not sorted
        [Span(0, 3, "PERSON"), Span(0, 7, "PERSON")],  # contained
        [Span(3, 3, "PERSON")],  # empty
        [Span(0, 99, "PERSON")],  # past the end
        [Span(0, 3, "")],  # no type
    ],
)
def test_other_spans_left_to_presidio(spans):
    assert replace_spans(ENGINE, "Ann Lee", spans, OPERATORS, {}) is None


def test_an_invalid_operator_fails_as_in_presidio():
    bad = {"DEFAULT": OperatorConfig("custom", {"lambda": "not callable"})}
    spans = _spans("Ann Lee", ("Ann", "PERSON"))
    with pytest.raises(Exception) as ours:
        replace_spans(ENGINE, "Ann Lee", spans, bad, {})
    with pytest.raises(Exception) as theirs:
        _presidio("Ann Lee", spans, bad)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)
