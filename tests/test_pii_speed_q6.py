"""The span review replays its cut of a span from a table keyed by the span's text, type and the
replies to "does this word open a sentence here?": the same span text gets the cut its own
surroundings call for, as when the rules ran on every span (:func:`trim_span`, then
:func:`spurious`, span by span: the reference of ``tests/test_pii_speed_post.py``). Expected spans of the hand-worked
cases are read from the sentences."""

from __future__ import annotations

import random

from anon_core.pii.span_extents import refine_spans
from tests.test_pii_speed_post import refine_spelt_out as _reference


def _at(text: str, piece: str, nth: int, entity: str) -> tuple[int, int, str, float]:
    at = -1
    for _ in range(nth + 1):
        at = text.index(piece, at + 1)
    return (at, at + len(piece), entity, 0.85)


def test_the_same_span_is_cut_at_a_sentence_start_and_left_inside_a_sentence():
    # "Historic" opening the sentence before a name or a place is cut there only;
    # after "met" or "to" they stand inside the sentence and stay
    text = (
        "Historic Jane Quill spoke. We met Historic Jane Quill. Historic Brellmoor today. "
        "We went to Historic Brellmoor. Historic Jane Quill left."
    )
    spans = [
        _at(text, "Historic Jane Quill", 0, "PERSON"),
        _at(text, "Historic Jane Quill", 1, "PERSON"),
        _at(text, "Historic Brellmoor", 0, "LOCATION"),
        _at(text, "Historic Brellmoor", 1, "LOCATION"),
        _at(text, "Historic Jane Quill", 2, "PERSON"),
    ]
    out = refine_spans(text, spans)
    assert [(text[a:b], e) for a, b, e, _ in out] == [
        ("Jane Quill", "PERSON"),
        ("Historic Jane Quill", "PERSON"),
        ("Brellmoor", "LOCATION"),
        ("Historic Brellmoor", "LOCATION"),
        ("Jane Quill", "PERSON"),
    ]
    assert out == _reference(text, spans)
    # read in any order, each span is judged by its own place (no carry-over between them)
    assert refine_spans(text, spans[::-1]) == out[::-1]


_WORDS = (
    "Historic Discover Explore Sunny Lovely Great Welcome Dear Meet Call Visit The the Old "
    "Jane Quill Anna Lee Kenya Lisbon Poland Acme Corp Customer Service Warren Grace said met "
    "to in and . . , : ! ? \n Winter Deals Park Avenue General Motors Collective Ip"
).split(" ")
_KINDS = ("PERSON", "PERSON", "LOCATION", "ORGANIZATION", "DATE_TIME")


def test_generated_texts_decide_as_the_rules_run_in_full():
    rng = random.Random(61)
    for _ in range(600):
        text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 24)))
        bounds = [0] + [i + 1 for i, c in enumerate(text) if c == " "] + [len(text) + 1]
        spans = []
        for _ in range(rng.randint(0, 8)):
            if len(bounds) < 3:
                break
            a = rng.randrange(len(bounds) - 1)
            b = min(len(bounds) - 1, a + rng.randint(1, 4))
            start, end = bounds[a], bounds[b] - 1
            if start < end:
                spans.append((start, end, rng.choice(_KINDS), 0.85))
        # twice: the second pass reads every span's cut from the table the first one filled
        assert refine_spans(text, spans) == _reference(text, spans), (text, spans)
        assert refine_spans(text, spans) == _reference(text, spans), (text, spans)
