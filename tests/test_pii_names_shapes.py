"""Name shapes the run rules extend: hyphened surnames, suffixes, particles, initials, names in
capitals, inner capitals ("McDonald"), and English words before a name that are no part of it.

Expected spans are written by hand from the sentences; the gazetteer is Faker's (every locale).
"""

from __future__ import annotations

import pytest

spacy = pytest.importorskip("spacy")

from anon_core.pii.name_shapes import extend_name, extend_start  # noqa: E402
from anon_core.pii.titles import find_honorifics  # noqa: E402
from tests.conftest import names_found  # noqa: E402

_names = names_found  # the names the name rules find, distinct and sorted


@pytest.mark.parametrize(
    "text, name",
    [
        # a second surname joined by a hyphen (spaCy splits "-" off)
        ("Ernestas Gaičiūnas-Ginzburgas joined the board.", "Ernestas Gaičiūnas-Ginzburgas"),
        # suffixes: generational and degrees, with or without a comma
        ("Ask John Smith Jr. to sign.", "John Smith Jr."),
        ("Ask Bjarni Haddad Sr.", "Bjarni Haddad Sr."),  # the dot ending the sentence too
        ("Nedas Žukauskas III signed the lease.", "Nedas Žukauskas III"),
        ("Ask Jip Ernst, PhD, to sign.", "Jip Ernst, PhD"),
        # particles inside a name
        ("From: Fenne van den Bergh", "Fenne van den Bergh"),
        ("Send it to Luiz da Silva today.", "Luiz da Silva"),
        # initials before a surname
        ("The memo from J. R. Smith arrived.", "J. R. Smith"),
        # an inner capital
        ("Send it to Ana McDonald today.", "Ana McDonald"),
        # an English word in no name list before the name is no part of it
        ("Payee Victoria Crin Georgescu", "Victoria Crin Georgescu"),
        # Vietnamese letters beyond Latin Extended-A ("ư", "ạ", "ỗ")
        ("Signed: Hamza Quang Thư Phạm", "Hamza Quang Thư Phạm"),
        ("We met Anh Đỗ at noon.", "Anh Đỗ"),
        # three lower-case words: a given name, a second one, a surname
        ("santino gabriel aguirre called about the bill", "santino gabriel aguirre"),
    ],
)
def test_the_whole_name_is_found(text, name):
    found = _names(text)
    assert name in found, found
    # and no shorter piece of it beside it
    assert not [f for f in found if f != name and f in name], found


@pytest.mark.parametrize(
    "text, name",
    [
        ("ANA SILVA - ACCOUNT HOLDER", "ANA SILVA"),
        ("Account holder: KAIQUE NASCIMENTO", "KAIQUE NASCIMENTO"),
        ("PAY TO JOHN SMITH", "JOHN SMITH"),
    ],
)
def test_a_name_in_capitals_is_found(text, name):
    assert name in _names(text)


@pytest.mark.parametrize(
    "text",
    [
        "ACCOUNT HOLDER - PLEASE SIGN BELOW",  # English words, no given name first
        "PARIS HILTON HOTEL",  # a hotel word in the run of capitals
        "GRACE PERIOD ENDS SOON",  # "period" is no surname
        "PAYMENT DUE - FINAL NOTICE",
    ],
)
def test_words_in_capitals_are_no_name(text):
    assert _names(text) == []


def test_a_heading_before_a_colon_is_no_speaker():
    # "Attendees" and "Witness" are English words in no name list; "Heather" is a given name
    assert _names("Attendees: the whole team") == []
    assert _names("Witness: the driver") == []
    assert _names("Heather: I'm on my way.") == ["Heather"]


def test_a_given_name_that_is_an_english_word_is_kept():
    # "Dusty" and "Amber" are English words and given names: not stripped as leading words
    assert "Dusty Kovač" in _names("We met Dusty Kovač at noon.")
    assert "Amber Nwosu" in _names("We met Amber Nwosu at noon.")


@pytest.mark.parametrize(
    "text, end",
    [
        ("Ann Lee Jr. came", len("Ann Lee Jr.")),
        ("Ann Lee, MD, came", len("Ann Lee, MD")),
        ("Ann Lee II came", len("Ann Lee II")),
        ("Ann Lee-Smith came", len("Ann Lee-Smith")),
        ("Ann Lee-Smith Jr came", len("Ann Lee-Smith Jr")),
        ("Ann Lee Iris came", len("Ann Lee")),  # "I..." is no suffix
        ("Ann Lee IIIrd came", len("Ann Lee")),
        ("Ann Lee MDs came", len("Ann Lee")),
        ("Ann Lee-based", len("Ann Lee")),  # a lower-case word after the hyphen
        ("Ann Lee, Mdina", len("Ann Lee")),
    ],
)
def test_extend_name(text, end):
    assert extend_name(text, len("Ann Lee")) == end


@pytest.mark.parametrize(
    "text, start",
    [
        ("by J. R. Smith", len("by ")),
        ("by J. Smith", len("by ")),
        ("by JR Smith", len("by JR ")),  # no dots: not initials by this rule
        ("in 4.B. Smith", len("in 4.B. ")),  # a section number, not an initial
        ("A. Smith", 0),
    ],
)
def test_extend_start(text, start):
    assert extend_start(text, text.index("Smith")) == start


def test_a_courtesy_title_before_a_name_with_a_letter_beyond_latin_1():
    text = "We spoke with Dr. Şıxlı this morning."
    assert [(text[f.start : f.end], f.entity) for f in find_honorifics(text)] == [("Dr.", "TITLE")]


@pytest.mark.parametrize(
    "text, title",
    [
        # a title opening the line before a name
        ("Programmer Teresa Amber Woodward will lead the project.", "Programmer"),
        ("Surveyor Piergiuseppe Cicala will lead the project.", "Surveyor"),
        # a title between commas after a name with a letter beyond Latin-1
        ("Marie Žáková, Administrator, called this morning.", "Administrator"),
    ],
)
def test_a_title_beside_a_name(text, title):
    from anon_core.pii.titles import find_titles

    assert title in [text[f.start : f.end] for f in find_titles(text)]


@pytest.mark.parametrize(
    "text",
    [
        "Teacher Appreciation Week starts Monday.",  # English words after the job word
        "Manager Tools Pro is an app.",
    ],
)
def test_a_job_word_before_capitalised_english_words_is_no_title(text):
    from anon_core.pii.titles import find_titles

    assert find_titles(text) == []


def test_a_job_word_after_capitalised_words_opening_the_line_is_no_title_before_a_name():
    # a firm's name and a job word before the name: "Compared Care songwriter" is no title
    from anon_core.pii.titles import find_titles

    text = "Compared Care songwriter Zoe Young employs corporate lingo."
    assert [f for f in find_titles(text) if f.start == 0] == []
