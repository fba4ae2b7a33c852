"""Capitalised words that name no person and no organisation (:mod:`anon_core.pii.not_entities`)
and the reviews that drop them: the NER model's person and organisation spans, the name rules'
weak names, and the organisation rules' department names.

Every expected value is written by hand from the sentence.
"""

from __future__ import annotations

import pytest

from anon_core.pii.name_review import review_entities
from anon_core.pii.names import STRONG, NameSpan, gazetteer
from anon_core.pii.not_entities import (
    common_word,
    english_not_name,
    generic_phrase,
    shouted_words,
)
from anon_core.pii.organisations import find_organisations, review_model_organisation


@pytest.mark.parametrize(
    "span",
    ["Customer Service", "the Billing Department", "Account Number", "Best Regards", "FAQ",
     "Human Resources", "Sales Department", "Password", "Order Status"],
)  # fmt: skip
def test_generic_phrases(span):
    assert generic_phrase(span, gazetteer())


@pytest.mark.parametrize(
    "span",
    [
        "Credit Karma",  # "karma" is no word of offices
        "Wilson Group",  # a surname
        "Sales",  # a surname too, alone: may be the person
        "Page",
        "Acme Inc",  # a legal form
        "Department of Health",  # "health" is not in the list
    ],
)
def test_not_generic_phrases(span):
    assert not generic_phrase(span, gazetteer())


def test_shouted_words():
    gaz = gazetteer()
    assert shouted_words("DO NOT REPLY", gaz)
    assert shouted_words("HR", gaz)
    assert not shouted_words("IBM", gaz)  # no acronym of the list: may be the firm
    assert not shouted_words("SMITH", gaz)  # a surname
    assert not shouted_words("Do Not Reply", gaz)  # not in capitals


@pytest.mark.parametrize(
    "word, common",
    [
        ("Cloud", True),  # a noun and a verb
        ("Volunteers", True),  # inflected
        ("Settings", True),  # in the list of generic words
        ("Goldberg", False),  # WordNet lists it, as a noun only: may be a surname
        ("Tales", False),  # "tale" is a noun only
        ("Baker", False),  # a surname of the gazetteer
        ("Rose", False),  # a given name
        ("Szöllösy", False),  # no English word
        ("McKinsey", False),  # a capital inside: a name's shape
    ],
)
def test_common_words(word, common):
    assert common_word(word, gazetteer()) is common


def test_english_not_name_needs_every_word():
    gaz = gazetteer()
    assert english_not_name("Customer Support", gaz)
    assert not english_not_name("Customer Ines", gaz)
    assert not english_not_name("", gaz)


def _reviewed(text, word, entity="PERSON", names=()):
    start = text.index(word)
    return [
        (e, text[a:b])
        for a, b, e, _ in review_entities(
            text,
            [(start, start + len(word), entity, 0.85)],
            list(names),
            gazetteer().common,
            gazetteer(),
        )
    ]


@pytest.mark.parametrize(
    "text, word",
    [
        ("Dear Ann, thank you for contacting Customer Support.", "Customer Support"),
        ("We moved everything to the Cloud.", "Cloud"),
        ("Open the Settings menu.", "Settings"),
        ("Order Status: shipped", "Order Status"),
        ("PLEASE CALL ME BACK", "PLEASE CALL"),
    ],
)
def test_model_persons_without_a_name_are_dropped(text, word):
    assert _reviewed(text, word) == []


@pytest.mark.parametrize(
    "text, word",
    [
        ("I wrote to Mr Cloud about the bill.", "Cloud"),  # after a title
        ("Then Tales wrote back.", "Tales"),  # a noun only: may be a surname
        ("Ask Rose about it.", "Rose"),  # a given name
        ("Ines Carpenter wrote back.", "Carpenter"),  # a surname of the gazetteer
        ("Krisztián Szöllösy called.", "Krisztián Szöllösy"),
    ],
)
def test_model_persons_with_a_name_stay(text, word):
    assert _reviewed(text, word) == [("PERSON", word)]


def test_weak_names_of_english_words_are_dropped_strong_ones_stay():
    text = "The Red Cross needs Volunteers."
    start = text.index("Volunteers")
    weak = NameSpan(start, start + len("Volunteers"), 0.5)
    assert _reviewed(text, "Red Cross", "ORGANIZATION", [weak]) == [("ORGANIZATION", "Red Cross")]
    strong = NameSpan(start, start + len("Volunteers"), STRONG)  # a cue found it
    assert ("PERSON", "Volunteers") in _reviewed(text, "Red Cross", "ORGANIZATION", [strong])


@pytest.mark.parametrize(
    "span", ["Customer Service", "Billing Department", "DO NOT REPLY", "FAQ", "Bank Account"]
)
def test_model_organisations_without_a_name_are_dropped(span):
    assert review_model_organisation(span) == ""


@pytest.mark.parametrize(
    "span", ["Credit Karma", "Wilson Group", "Customer Service Inc", "IBM", "Sales"]
)
def test_model_organisations_with_a_name_stay(span):
    assert review_model_organisation(span) != ""


@pytest.mark.parametrize(
    "text, orgs",
    [
        ("Our Sales Department is closed.", []),  # a department, no firm
        ("You can reach our Billing Department at any time.", []),
        ("The Finance Manager asked for it.", []),  # a determiner and the word alone
        ("Our Allstate Insurance Group pays.", ["Allstate Insurance Group"]),  # "Our" left out
        ("Hi, this is Paolo from the Sales Department of Bohlander.", ["Bohlander"]),
        ("He works at the Department of Health.", ["Department of Health"]),
        ("The IT Department of van der Zijl NV resets it.", ["van der Zijl NV"]),
    ],
)
def test_organisation_words_after_generic_words(text, orgs):
    assert [text[f.start : f.end] for f in find_organisations(text)] == orgs


@pytest.mark.parametrize(
    "span, before, entity",
    [
        ("Rent", "the ", ""),  # a common word (a noun and a verb) after "the"
        ("Music Video", "The ", ""),  # nouns together after "the"
        ("the Theatrical Release", "than ", ""),  # "the" inside the span
        ("Rent", "from ", "ORGANIZATION"),  # no "the": may be a firm's name
        ("Goldberg", "the ", "ORGANIZATION"),  # a noun alone: may be a surname
        ("Climate Corporation", "the ", "ORGANIZATION"),  # an organisation word
    ],
)
def test_common_english_words_after_the_are_no_organisation(span, before, entity):
    assert review_model_organisation(span, before) == entity


@pytest.mark.parametrize(
    "text, orgs",
    [
        ("Our Company offers flexible hours.", []),  # the legal form alone after "Our"
        ("Our Acme Company offers flexible hours.", ["Acme Company"]),
    ],
)
def test_a_legal_form_alone_is_no_organisation(text, orgs):
    assert [text[f.start : f.end] for f in find_organisations(text)] == orgs


def test_a_role_word_before_a_name_is_no_name():
    text = "My Landlord, Maksymilian Motak, never fixed it."
    assert _reviewed(text, "My Landlord") == []


@pytest.mark.parametrize(
    "text, run, name",
    [("Hey Maya, Happy New Year!", "Hey Maya", "Maya"), ("Yo Ann, call me", "Yo Ann", "Ann")],
)
def test_a_greeting_is_cut_from_a_name_run(text, run, name):
    start = text.index(run)
    found = review_entities(
        text, [], [NameSpan(start, start + len(run), 0.7)], gazetteer().common, gazetteer()
    )
    assert [(e, text[a:b]) for a, b, e, _ in found] == [("PERSON", name)]


@pytest.mark.parametrize(
    "span, plural",
    [
        ("Hobbits", True),  # "hobbit" is an English word
        ("Customers", True),
        ("Williams", False),  # a surname of the gazetteer
        ("Zillow", False),  # no plural
        ("Glass", False),  # "ss": no plural
        ("Otc Markets", False),  # two words
        ("McBurgers", False),  # a name's shape
    ],
)
def test_plural_words(span, plural):
    from anon_core.pii.not_entities import plural_word

    assert plural_word(span, gazetteer()) is plural


def test_a_plural_the_model_calls_an_organisation_is_dropped():
    assert review_model_organisation("Hobbits") == ""
    assert review_model_organisation("Williams") == "PERSON"  # a surname: relabelled, kept
