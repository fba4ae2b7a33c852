"""Per-word and per-span decisions remembered by the name rules, the name review and the titles:
the values are the rules' own (worked by hand below), and a full or cleared table gives the same
findings as a warm one."""

from __future__ import annotations

import pytest

from anon_core.pii import names_fast, titles
from anon_core.pii.name_review import review_entities


@pytest.mark.parametrize(
    ("word", "shape"),
    [
        # (bare, capitalised word, initial, lower-case word of 3 letters or more)
        ("Quinn's", ("Quinn", True, False, False)),  # the possessive is cut off
        ("McDonald", ("McDonald", True, False, False)),
        ("O'Neil", ("O'Neil", True, False, False)),
        ("D.", ("D.", False, True, False)),
        ("D", ("D", False, True, False)),
        ("bertram", ("bertram", False, False, True)),
        ("ab", ("ab", False, False, False)),  # too short for a lower-case name word
        ("IBAN", ("IBAN", False, False, False)),  # capitals: no capitalised word
        ("42", ("42", False, False, False)),
    ],
)
def test_word_shape_by_hand(word, shape):
    assert names_fast.word_shape(word) == shape
    assert names_fast.word_shape(word) == shape  # the remembered value is the same


def test_word_shape_table_is_bounded_and_starts_again(monkeypatch):
    monkeypatch.setattr(names_fast, "SHAPE_TABLE", 3)
    words = ["Ann", "lee", "B.", "Ola's", "kari", "Nordmann", "x"]
    shapes = [names_fast.word_shape(w) for w in words]
    assert len(names_fast._SHAPES) <= 3
    assert shapes[3] == ("Ola", True, False, False)
    assert shapes[4] == ("kari", False, False, True)
    assert [names_fast.word_shape(w) for w in words] == shapes


def test_person_span_review_is_the_same_at_any_offset():
    """The review of a span is remembered by its text: the same words at another offset give
    the same cut, moved by the offset ("Name: John Smith" keeps the words after the cue)."""
    span = "Name: John Smith"
    for prefix in ("", "Dear all. ", "xxxxxxxxx "):
        text = prefix + span
        start = len(prefix)
        got = review_entities(text, [(start, start + len(span), "PERSON", 0.85)], [])
        assert got == [(start + 6, start + len(span), "PERSON", 0.85)]


def test_person_span_cut_at_a_colon_after_a_name():
    """'Ann Lee: hello' keeps the words before the colon; the same text twice, same answer."""
    text = "Ann Lee: hello there"
    for _ in range(2):
        assert review_entities(text, [(0, 14, "PERSON", 0.85)], []) == [(0, 7, "PERSON", 0.85)]


def test_titles_with_a_table_of_one_word_equal_the_warm_table(monkeypatch):
    """The words' kinds table cleared at every new word finds what the warm table finds."""
    text = (
        "Ines Quinn, Senior Software Engineer at Acme, met the chief financial officer and "
        "Dr. Blake, a consultant physician.\nJob title: sewer pipe cleaner"
    )
    warm = titles.find_titles(text)
    assert warm  # the text holds titles
    monkeypatch.setattr(titles, "KIND_TABLE", 1)
    titles._KINDS[:] = [None, {}]
    assert titles.find_titles(text) == warm
