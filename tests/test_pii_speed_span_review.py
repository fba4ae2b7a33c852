"""The span review and the title search decide each span as before, though they now work out what
a span's own text decides once per distinct text (bounded caches) and search a narrower window
for titles: the same span text in two places of a text is judged by its own surroundings.
Expected spans are worked out by hand from the sentences."""

from __future__ import annotations

from anon_core.pii.honorifics import honorific_spans
from anon_core.pii.span_extents import refine_spans


def _spans(text: str, pieces: list[tuple[str, int, str]]) -> list[tuple[int, int, str, float]]:
    """(start, end, entity, 0.85) of the ``nth`` occurrence of each piece."""
    out = []
    for piece, nth, entity in pieces:
        at = -1
        for _ in range(nth + 1):
            at = text.index(piece, at + 1)
        out.append((at, at + len(piece), entity, 0.85))
    return out


def _texts(text: str, spans: list[tuple[int, int, str, float]]) -> list[tuple[str, str]]:
    return [(text[a:b], entity) for a, b, entity, _ in spans]


def test_a_title_of_a_work_and_the_same_word_elsewhere():
    # "Inception" after "the film" is a work's title; later, with no work noun around, it stays
    text = "We watched the film Inception twice. Later Inception called back about the offer."
    spans = _spans(text, [("Inception", 0, "ORGANIZATION"), ("Inception", 1, "ORGANIZATION")])
    out = refine_spans(text, spans)
    assert out == [spans[1]]
    # the second span alone, then the first: the decision is not carried from one to the other
    assert refine_spans(text, [spans[1]]) == [spans[1]]
    assert refine_spans(text, [spans[0]]) == []


def test_a_common_word_is_cut_only_where_it_opens_the_sentence():
    # "Historic" opening a sentence before a person is no part of the name; inside a sentence
    # after a verb it is left (the rule needs the sentence's start)
    text = "Historic Jane Quill spoke first. We met Historic Jane Quill later."
    spans = _spans(
        text, [("Historic Jane Quill", 0, "PERSON"), ("Historic Jane Quill", 1, "PERSON")]
    )
    out = refine_spans(text, spans)
    assert _texts(text, out) == [("Jane Quill", "PERSON"), ("Historic Jane Quill", "PERSON")]
    assert refine_spans(text, spans[::-1]) == out[::-1]


def test_a_greeting_alone_is_dropped_unless_a_title_comes_before():
    text = "Welcome to the shop. Ask for Mr Welcome at the desk."
    spans = _spans(text, [("Welcome", 0, "PERSON"), ("Welcome", 1, "PERSON")])
    assert refine_spans(text, spans) == [spans[1]]


def test_titles_before_a_name_at_any_distance_the_rules_allow():
    # a long rank of four words, a title before a line break, and a title too far from the name
    text = "POL SEN SGT MAJ Anna Lee met Dr. \nJon Berg and Dr.x Ola Lind."
    spans = _spans(
        text, [("Anna Lee", 0, "PERSON"), ("Jon Berg", 0, "PERSON"), ("Ola Lind", 0, "PERSON")]
    )
    found = [(text[a:b], entity) for a, b, entity, _ in honorific_spans(text, spans)]
    assert found == [("POL SEN SGT MAJ", "TITLE"), ("Dr.", "TITLE")]


def test_no_title_without_spaces_before_the_name():
    text = "Prof.Anna Lee and Dr.-Jon Berg"
    spans = _spans(text, [("Anna Lee", 0, "PERSON"), ("Jon Berg", 0, "PERSON")])
    assert honorific_spans(text, spans) == []
