"""No text makes de-identification raise: odd shapes around the name rules, whitespace,
control, zero-width, combining and right-to-left characters, emoji, very long words."""

from __future__ import annotations

import pytest

from anon_core.pii import deidentify_texts, validate_text_section

pytest.importorskip("spacy")

_CFG = validate_text_section({"columns": ["text"]})

_EDGE = [
    "",
    " ",
    "\n\n \n",
    "\t\t\t",
    "...",
    "!?;:,",
    "'",
    "'s",
    "-",
    ". .",
    "Mr.",
    "Sr.",
    "Jr.",
    "III",
    "O'",
    "Mc",
    "de",
    "van der",
    "Sr. Jr. III",
    "Dr. van der",
    "Mr. O’",
    "Smith, Jr.",
    ", Jr.",
    "J. J.",
    "Name:\n",
    ":John",
    "Dr. " * 300,
    "a" * 10_000,
    "Anna" * 2_500,
    "\n" * 2_000,
    "\x00\x01\x02 John Smith\x7f",
    "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029",
    "Jo\u200bhn Sm\u200dith",
    "\u200b\u200c\u200d\ufeff",
    "\u0301\u0301 Anna",
    "Ane\u0301 Garci\u0301a met Jose\u0301",
    "مرحبا أحمد محمد في القاهرة",
    "שלום דוד כהן",
    "\u202eJohn Smith\u202c",
    "😀 John 😀 Smith 🎉",
    "John Смирнов 王伟 Müller",
    "1234567890",
    "Dr.\tJohn\tSmith",
    "Ｊｏｈｎ Ｓｍｉｔｈ",
    "İstanbul İİİ",
]
_SHAPES = ["{}", "I met {} yesterday.", "{} called."]
_CASES = [(shape.format(edge)) for edge in _EDGE for shape in _SHAPES]


@pytest.mark.parametrize("text", _CASES, ids=range(len(_CASES)))
def test_odd_text_is_analysed_without_error(text):
    [result] = deidentify_texts([text], _CFG)
    assert result.original == text
    for span in result.found:
        assert 0 <= span.start < span.end <= len(text)


def test_edge_texts_in_one_batch_keep_their_order():
    results = deidentify_texts(_CASES, _CFG)
    assert [r.original for r in results] == _CASES


@pytest.mark.parametrize("text", ["", " ", "\n" * 2_000, "\t\t\t", "...", "'", "-"])
def test_nothing_is_found_in_blank_or_punctuation_only_text(text):
    [result] = deidentify_texts([text], _CFG)
    assert result.found == ()
    assert result.text == text


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I met Sr. Anna Kowalczyk yesterday.", "Anna Kowalczyk"),
        ("Sr. Miguel Rezende", "Miguel Rezende"),
    ],
)
def test_name_after_a_title_that_is_also_a_suffix(text, name):
    # once a run's initials, particles and suffixes ('Sr') were set aside the name rules
    # indexed an empty run and raised IndexError
    [result] = deidentify_texts([text], _CFG)
    start = text.index(name)
    persons = [(s.start, s.end) for s in result.found if s.entity == "PERSON"]
    assert (start, start + len(name)) in persons


@pytest.mark.parametrize(
    "text",
    [
        "Paris\r\n\r\nFrance 75001",
        "Home\n\u00a0\nFrance 75001",
        "a,\u2003,Berlin 10115",
    ],
)
def test_blank_part_of_other_whitespace_before_a_block_end(text):
    # a blank line holding only "\r" (Windows line ends) or a no-break space, before a last
    # line of a word and a postcode, made the address blocks index an empty word list
    [result] = deidentify_texts([text], _CFG)
    assert result.original == text


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_address_block_with_a_blank_line_in_windows_line_ends(newline):
    text = newline.join(["12 Main St", "", "London", "UK 12345"])
    [result] = deidentify_texts([text], _CFG)
    assert [(s.entity, s.start, s.end) for s in result.found] == [("STREET_ADDRESS", 0, len(text))]
