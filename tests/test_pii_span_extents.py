"""Extents of the name, organisation and place spans (:mod:`anon_core.pii.span_extents`): the
words around a name cut off, spans that name nothing dropped. Every name here is invented or
common; each expected span is worked out by hand from the sentence."""

from __future__ import annotations

import re

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
        ("Miss Kate Griffiths wrote to us.", "Miss Kate Griffiths", "PERSON"),  # a title stays
        ("British Indian Ocean Territory is far.", "British Indian Ocean Territory", "LOCATION"),
        ("Lao People's Democratic Republic", "Lao People's Democratic Republic", "LOCATION"),
        ("Chine (Rép. pop.) is far.", "Chine (Rép. pop.)", "LOCATION"),  # a bracket between
        ("1e Exloërmond is lovely.", "1e Exloërmond", "LOCATION"),  # the span's own ends
        ("Visit Territori Francesi del sud", "Territori Francesi del sud", "LOCATION"),
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
        # one English word, no name, opening a sentence before a preposition or a noun
        ("Sparkle from the new range.", "Sparkle", "PERSON"),
        ("Whisper edition is cheaper.", "Whisper", "PERSON"),
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
        # a name before a novel, a film, a painting: their maker, a person
        ("I finished a Dickens novel last week.", "Dickens", "PERSON"),
        ("We watched the Kubrowski film again.", "Kubrowski", "PERSON"),
        ("She bought a Vantongerloo painting.", "Vantongerloo", "ORGANIZATION"),
        ("The film starring Ann Quill won.", "Ann Quill", "PERSON"),
        ("Winter Smith called.", "Winter Smith", "PERSON"),  # a season, then a surname
        ("Lisbon is lovely.", "Lisbon", "LOCATION"),  # a known place
        ("Acme Weekly Deals", "Acme Weekly Deals", "ORGANIZATION"),  # no periodical's last word
        # a name opening a sentence before a verb, a conjunction, a comma or a family noun
        ("Mark called yesterday about the refund.", "Mark", "PERSON"),
        ("Frank said the order was late.", "Frank", "PERSON"),
        ("Grace and Tom arrived.", "Grace", "PERSON"),
        ("Joy, can you call me?", "Joy", "PERSON"),
        ("Baker family moved out.", "Baker", "PERSON"),
        ("We thank Grace for the tea.", "Grace", "PERSON"),  # not opening the sentence
        # a given name or surname of the gazetteer opening a sentence: kept whatever follows
        ("Warren from Boston wrote to us.", "Warren", "PERSON"),
        ("Grace the manager signed.", "Grace", "PERSON"),
        ("Love from all of us in Weimar.", "Love", "PERSON"),
        ("Mark the date in your calendar.", "Mark", "PERSON"),
        ("Grace period ends on Friday.", "Grace", "PERSON"),
        ("Nigeria from the air.", "Nigeria", "LOCATION"),  # a country, a noun only
        ("Please show Warren the room.", "Warren", "PERSON"),  # "show" a verb before a name
        ("Warren is a big fan of the show.", "Warren", "PERSON"),
        ("Zyxel is a big fan of the show.", "Zyxel", "PERSON"),  # no genre between: no work
        # a common word in no list opening a sentence before a verb: a surname may be meant
        ("Brisk confirmed the order.", "Brisk", "PERSON"),
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


#: Sentences of customer service, travel and letters opening with an inviting verb, a greeting
#: or a common word before a name or a place; {p} is a person, {c} a town, {k} a country.
_FRAMES = (
    "Meet {p} at the front desk of our hotel.",
    "Call {p} if the parcel does not arrive.",
    "Email {p} with your questions.",
    "Dear {p}, thank you for shopping with us.",
    "Greetings from {c}! The weather here is lovely.",
    "Discover {k} with our guided tours.",
    "Enjoy {k} with the family.",
    "Historic {c} is full of museums.",
    "Wonderful {k}, we will be back.",
    "Visit {p} in {c} next month.",
    "Thanks {p}, the refund has been processed.",
    "Welcome to {c}, the friendliest town in {k}.",
)
_LEADS = ("Meet", "Call", "Email", "Dear", "Greetings", "Discover", "Enjoy", "Historic")


def _generated(seed: int = 11) -> list[tuple[str, list[tuple[int, int]]]]:
    from faker import Faker

    rows = []
    for i, locale in enumerate(("en_US", "en_GB", "de_DE", "pl_PL", "fr_FR", "it_IT")):
        fake = Faker(locale)
        fake.seed_instance(seed + i)
        for frame in _FRAMES:
            values = {"p": fake.name(), "c": fake.city(), "k": fake.country()}
            text, spans = "", []
            for part in frame.replace("{", "\0{").replace("}", "}\0").split("\0"):
                if part.startswith("{") and part.endswith("}"):
                    value = values[part[1]]
                    spans.append((len(text), len(text) + len(value)))
                    text += value
                else:
                    text += part
            rows.append((text, spans))
    return rows


def test_generated_sentences_keep_names_whole_and_leave_lead_words(english):
    """On 72 generated sentences (84 labelled names and places, about 155 words; Faker's draws
    vary a little between processes), the words around a name stay out of its span. Floors from
    runs: with the review, 142 to 145 words of 153 to 156 covered (the misses are titles such as
    "Sig." and "pani" and long country names, the same without the review), 68 of 84 spans exact
    and 1 sentence's lead word covered ("Dear Marie Dean" read as a job title); without it, 50 of
    84 exact and 20 lead words covered."""
    from anon_core.pii.scan import resolve_overlaps

    rows = _generated()
    results = english.analyze_batch([t for t, _ in rows])
    words = covered = exact = total = leads = 0
    for (text, spans), res in zip(rows, results, strict=True):
        found = [(s.start, s.end) for s in resolve_overlaps(res, text)]
        for a, b in spans:
            total += 1
            over = [(s, e) for s, e in found if s < b and a < e]
            exact += any(s == a and e in (b, b + 1) for s, e in over)
            for m in re.finditer(r"\S+", text[a:b]):
                words += 1
                covered += any(s < a + m.end() and a + m.start() < e for s, e in found)
        if text.split()[0].rstrip(",!") in _LEADS:
            leads += any(s == 0 for s, _ in found)
    assert covered >= 0.9 * words
    assert leads <= 3
    assert exact >= 0.75 * total
