"""Extents of the name, organisation and place spans (:mod:`anon_core.pii.span_extents`): the
words around a name cut off, spans that name nothing dropped. Every name here is invented or
common; each expected span is worked out by hand from the sentence."""

from __future__ import annotations

import pytest

from anon_core.pii.names import gazetteer
from anon_core.pii.span_extents import refine_spans, spurious, trim_span


def _trim(text: str, span: str, entity: str) -> tuple[str, str] | None:
    start = text.index(span)
    out = trim_span(text, start, start + len(span), entity, gazetteer())
    return None if out is None else (text[out[0] : out[1]], out[2])


def _spurious(text: str, span: str, entity: str) -> bool:
    start = text.index(span)
    return spurious(text, start, start + len(span), entity, gazetteer())


@pytest.mark.parametrize(
    "text, span, entity, expected",
    [
        # an inviting verb or a greeting before the name
        ("Meet Iwo Dobroń at the front desk.", "Meet Iwo Dobroń", "PERSON", "Iwo Dobroń"),
        ("Dear Maria Gonzalez, thank you.", "Dear Maria Gonzalez", "PERSON", "Maria Gonzalez"),
        ("Thanks again Peter Vrelid for dinner.", "Thanks again Peter Vrelid", "PERSON", None),
        ("Email Leon Chojna with your questions.", "Email Leon Chojna", "PERSON", "Leon Chojna"),
        ("Hello, Greetings Ann Quill here.", "Greetings Ann Quill", "PERSON", "Ann Quill"),
        # a verb opening the sentence before a place the model calls an organisation
        ("Discover Kenya with our tours.", "Discover Kenya", "ORGANIZATION", "Kenya"),
        ("Travel Bulgarije on a budget.", "Travel Bulgarije", "ORGANIZATION", "Bulgarije"),
        # any common word opening the sentence before a person or a place
        ("Historic Ostróda is full of museums.", "Historic Ostróda", "PERSON", "Ostróda"),
        ("Wonderful Botswana, we will be back.", "Wonderful Botswana", "PERSON", "Botswana"),
        # "the" before a name
        ("We met the Quillfords yesterday.", "the Quillfords", "PERSON", "Quillfords"),
        # lower-case words after a capitalised name
        ("Later Jacob Miller said no.", "Jacob Miller said", "PERSON", "Jacob Miller"),
        ("Ana de Souza replied.", "Ana de Souza replied", "PERSON", "Ana de Souza"),
    ],
)
def test_words_around_a_name_are_cut(text, span, entity, expected):
    got = _trim(text, span, entity)
    if expected is None:  # "again" is no lead word: the span stays as the model gave it
        assert got == (span, entity)
    else:
        assert got is not None and got[0] == expected


@pytest.mark.parametrize(
    "text, span, entity",
    [
        ("Will Smith arrived late.", "Will Smith", "PERSON"),  # a given name that is a verb
        ("Grant Thompson called.", "Grant Thompson", "PERSON"),
        ("Hope Baker wrote back.", "Hope Baker", "PERSON"),
        ("Bad Kissingen is a spa town.", "Bad Kissingen", "LOCATION"),  # a known town, whole
        ("New Carol is a small town.", "New Carol", "LOCATION"),  # a town's first word
        ("Park Avenue is busy.", "Park Avenue", "LOCATION"),  # a verb opening a street's name
        ("General Motors recalled cars.", "General Motors", "ORGANIZATION"),  # a firm's adjective
        ("Collective Ip is our start-up.", "Collective Ip", "PERSON"),  # a word before two letters
        ("meet anna kowalski today.", "anna kowalski", "PERSON"),  # nothing to cut
        ("we stayed at Historic Ostróda Inn.", "Historic Ostróda Inn", "ORGANIZATION"),
        ("Dear Will", "Will", "PERSON"),
    ],
)
def test_names_and_places_are_kept_whole(text, span, entity):
    assert _trim(text, span, entity) == (span, entity)


def test_a_span_running_over_a_known_place_is_the_place():
    # "lovely" is a common word, Lisbon a known town: the place alone, typed as a place
    assert _trim("We loved Lovely Lisbon.", "Lovely Lisbon", "PERSON") == ("Lisbon", "LOCATION")
    assert _trim("Cheap flights Poland", "Cheap flights Poland", "ORGANIZATION") == (
        "Poland",
        "LOCATION",
    )


def test_a_name_before_a_place_is_no_common_word():
    assert _trim("We met Anna Lisbon.", "Anna Lisbon", "PERSON") == ("Anna Lisbon", "PERSON")


@pytest.mark.parametrize(
    "text, span, entity",
    [
        ("Subscribe to our newsletter.", "Subscribe", "ORGANIZATION"),  # a word opening a sentence
        ("The film Inception was released on DVD.", "Inception", "PERSON"),  # after a work noun
        ("Read the newspaper Le Monde for news.", "Le Monde", "ORGANIZATION"),
        ('I loved the song "Yesterday Blues" a lot.', "Yesterday Blues", "PERSON"),  # in quotes
        ("Subscribe to Vogue magazine today.", "Vogue", "ORGANIZATION"),  # before a work noun
        ("Zoolander is a 2017 Polish action-comedy film.", "Zoolander", "ORGANIZATION"),
        ("Titanic was an epic romance film.", "Titanic", "PERSON"),
        ("Entertainment Weekly ranked the album first.", "Entertainment Weekly", "ORGANIZATION"),
        ("Winter Deals are back!", "Winter Deals", "PERSON"),
        ("Check out our new Spring Collection.", "Spring Collection", "ORGANIZATION"),
    ],
)
def test_spans_naming_nothing_personal_are_dropped(text, span, entity):
    assert _spurious(text, span, entity)


@pytest.mark.parametrize(
    "text, span, entity",
    [
        ("It later became Adaptive in 2001.", "Adaptive", "ORGANIZATION"),  # a firm mid-sentence
        ("Ask Mr Cloud about it.", "Cloud", "PERSON"),  # after a title
        ("Zoolander is a film director.", "Zoolander", "PERSON"),  # a trade, not a work
        ("The film director Anna Quill spoke.", "Anna Quill", "PERSON"),
        ("Jane Eyre is a novel.", "Jane Eyre", "PERSON"),  # a given name: a person may be meant
        ("The film starring Ann Quill won.", "Ann Quill", "PERSON"),
        ("Winter Smith called.", "Winter Smith", "PERSON"),  # a season, then a surname
        ("Lisbon is lovely.", "Lisbon", "LOCATION"),  # a known place
        ("Acme Weekly Deals", "Acme Weekly Deals", "ORGANIZATION"),  # no periodical's last word
    ],
)
def test_names_and_firms_are_not_dropped(text, span, entity):
    assert not _spurious(text, span, entity)


def test_refine_spans_leaves_other_types_alone():
    text = "Meet Iwo Dobroń on 3 May 2021."
    spans = [(0, 15, "PERSON", 0.85), (19, 29, "DATE_TIME", 0.85)]
    assert refine_spans(text, spans) == [(5, 15, "PERSON", 0.85), (19, 29, "DATE_TIME", 0.85)]


def test_the_whole_engine_reports_the_name_alone(english):
    from tests.conftest import found_entities

    found = found_entities(english, "Meet Iwo Dobroń at the front desk of our hotel.")
    assert ("PERSON", "Iwo Dobroń") in found
    assert not any("Meet" in t for _, t in found)
    assert found_entities(english, "Zoolander is a 2017 Polish action-comedy film.") == [
        ("DATE_TIME", "2017"),
        ("NRP", "Polish"),
    ]
