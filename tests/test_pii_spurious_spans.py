"""Person, organisation and place spans that hold no name (:mod:`anon_core.pii.spurious_spans`)
and the wider generic phrases of :func:`anon_core.pii.not_entities.generic_phrase` (events,
praise, an inviting verb before the phrase).

Every expected value is written by hand from the sentence: a greeting to a role ("Dear
Customer"), a review's praise ("Great Service"), an event ("Charity Gala") hold no personal
data; a name after the same words, or a title before a common word ("Mr Cloud"), does.
"""

from __future__ import annotations

import dataclasses

import pytest

from anon_core.pii.names import gazetteer
from anon_core.pii.not_entities import generic_phrase
from anon_core.pii.spurious_spans import drop_spurious, role_words_before, spurious


@pytest.mark.parametrize(
    "span",
    ["Great Service", "Excellent Customer Service", "Premium Membership", "Friendly Staff",
     "Charity Gala", "Grand Opening", "Summer Sale", "Gold Plan", "Call Customer Service",
     "Breakfast Buffet", "Passengers", "Yours Faithfully"],
)  # fmt: skip
def test_generic_phrases_of_events_and_praise(span):
    assert generic_phrase(span, gazetteer())


@pytest.mark.parametrize(
    "span",
    [
        "Great",  # a praising word alone: nothing generic in it
        "Gala",  # an event word alone that is a given name and a surname
        "Call Smith",  # the verb, then a surname
        "Grand Hotel Wilson",  # a surname
        "Department of Health",  # "health" is no generic word
        "Silver Wilson",  # a tier word and a surname
        "Charity",  # a given name alone
        "Summer",  # a season alone may be the given name
    ],
)
def test_not_generic_phrases(span):
    assert not generic_phrase(span, gazetteer())


def _span(text: str, words: str) -> tuple[int, int]:
    start = text.index(words)
    return start, start + len(words)


@pytest.mark.parametrize(
    "text, words, entity",
    [
        ("Dear Customer, your order has shipped.", "Customer", "PERSON"),
        ("Dear Valued Customer, we are sorry for the delay.", "Valued Customer", "PERSON"),
        ("Dear Team, the meeting moved.", "Team", "PERSON"),
        ("Dear Sir or Madam, please find the invoice.", "Sir", "PERSON"),
        ("Good Morning, Passengers.", "Passengers", "PERSON"),
        ("Call Customer Service to reset it.", "Customer Service", "ORGANIZATION"),
        ("Great Service, Friendly Staff!", "Great Service", "ORGANIZATION"),
        ("Meet us at the Grand Opening.", "Grand Opening", "LOCATION"),
        ("Event: Annual Charity Gala, Grand Ballroom.", "Charity Gala", "PERSON"),
    ],
)
def test_spurious_spans(text, words, entity):
    assert spurious(text, *_span(text, words), entity)


@pytest.mark.parametrize(
    "text, words, entity",
    [
        ("Dear Anna, your order has shipped.", "Anna", "PERSON"),
        ("Dear Mr Cloud, your order has shipped.", "Cloud", "PERSON"),  # a title before it
        ("Dear Dr. Sales, thank you.", "Sales", "PERSON"),
        ("Dear Ms Page, thank you.", "Page", "PERSON"),
        ("Love from Rose.", "Rose", "PERSON"),  # a given name
        ("Ask for Hall at reception.", "Hall", "PERSON"),  # a surname alone
        ("Visit Wilson Group today.", "Wilson Group", "ORGANIZATION"),
        ("Greetings from Paris!", "Paris", "LOCATION"),
        ("The Sales Team meets on Monday.", "Monday", "DATE_TIME"),  # other types untouched
    ],
)
def test_spans_kept(text, words, entity):
    assert not spurious(text, *_span(text, words), entity)


@dataclasses.dataclass(frozen=True)
class _Found:
    start: int
    end: int
    entity: str


def test_drop_spurious_keeps_order_and_objects():
    text = "Dear Customer, Anna Kowalski from Acme Inc will call on Monday."
    spans = [
        _Found(*_span(text, "Customer"), "PERSON"),
        _Found(*_span(text, "Anna Kowalski"), "PERSON"),
        _Found(*_span(text, "Acme Inc"), "ORGANIZATION"),
        _Found(*_span(text, "Monday"), "DATE_TIME"),
    ]
    kept = drop_spurious(text, spans)
    assert kept == spans[1:]


def test_engine_drops_greeting_to_a_role(english):
    from tests.conftest import found_entities

    assert not [
        f for f in found_entities(english, "Dear Customer, your order has shipped.")
        if f[0] == "PERSON"
    ]  # fmt: skip
    assert ("PERSON", "Anna Kowalski") in found_entities(
        english, "Dear Anna Kowalski, your order has shipped."
    )
    assert not [
        f for f in found_entities(english, "Great Service, Friendly Staff, Excellent Food!")
        if f[0] in ("PERSON", "ORGANIZATION", "LOCATION")
    ]  # fmt: skip


@pytest.mark.parametrize(
    "text, words, entity",
    [
        ("We celebrate Valentine's Day every year.", "Valentine", "PERSON"),
        ("St. Patrick's Day parade starts at noon.", "St. Patrick", "LOCATION"),
        ("See you on New Year's Eve.", "Eve", "PERSON"),
        ("The shop closes early on Christmas Eve.", "Eve", "PERSON"),
        ("Dear All, the report is attached.", "All", "PERSON"),
        ("Hi Everyone, see you at the party.", "Everyone", "PERSON"),
        ("Dear Friends, thank you for coming.", "Friends", "PERSON"),
        ("Chapter 3, Section 4, Page 120 explains it.", "3, Section 4, Page 120", "STREET_ADDRESS"),
        ("Refer to Article 5, Paragraph 2.", "5, Paragraph 2", "STREET_ADDRESS"),
    ],
)
def test_feasts_everyone_and_document_parts(text, words, entity):
    assert spurious(text, *_span(text, words), entity)


@pytest.mark.parametrize(
    "text, words, entity",
    [
        ("Eve Smith called about the invoice.", "Eve Smith", "PERSON"),
        ("Eve called about the invoice.", "Eve", "PERSON"),  # no feast before it
        ("Valentine Dupont's day off is Monday.", "Valentine Dupont", "PERSON"),  # "day" lower
        ("I live at 4 Page Street, Leeds.", "4 Page Street, Leeds", "STREET_ADDRESS"),
        ("Send it to 12 Chapter Road.", "12 Chapter Road", "STREET_ADDRESS"),  # "Road": a street
        ("Ask Paige about Page 4.", "Paige", "PERSON"),
    ],
)
def test_names_beside_feasts_and_parts_kept(text, words, entity):
    assert not spurious(text, *_span(text, words), entity)


@pytest.mark.parametrize(
    "text, words, spurious_span",
    [
        ("Talk to Market Analyst about it.", "Market Analyst", True),  # nouns together
        ("The Waiter forgot our Dessert.", "Dessert", False),  # a noun alone: may be a surname
        ("I sent it to the Goldberg office.", "Goldberg", False),  # WordNet noun, no surname
        ("The Loan Officer asked for documents.", "Loan Officer", False),  # "Loan": a given name
        ("Where is the nearest Branch?", "Branch", False),  # a surname: kept, recall first
        ("Say hello to Maria Market!", "Maria Market", False),  # a given name
    ],
)
def test_nouns_together(text, words, spurious_span):
    assert spurious(text, *_span(text, words), "PERSON") is spurious_span


def test_drop_spurious_cuts_role_words_before_a_name():
    text = "Dear Valued Customer Rachel Green, your order has shipped."
    kept = drop_spurious(text, [_Found(*_span(text, "Valued Customer Rachel Green"), "PERSON")])
    assert kept == [_Found(*_span(text, "Rachel Green"), "PERSON")]


@pytest.mark.parametrize(
    "text, words, name",
    [
        ("Customer Rachel Green asked for a refund.", "Customer Rachel Green", "Rachel Green"),
        ("Dear Valued Customer Ann Lee,", "Valued Customer Ann Lee", "Ann Lee"),
        ("Account Manager Ines Quinn called.", "Account Manager Ines Quinn", "Ines Quinn"),
        # "Sales" is a surname too: the span stays whole
        (
            "Sales Manager Ines Quinn called.",
            "Sales Manager Ines Quinn",
            "Sales Manager Ines Quinn",
        ),
        ("Key Smith called.", "Key Smith", "Key Smith"),  # "Key": a given name too
        ("Customer Service", "Customer Service", "Service"),  # the last word stays
        ("Customer rachel green", "Customer rachel green", "Customer rachel green"),  # lower case
        ("Rachel Green asked.", "Rachel Green", "Rachel Green"),
    ],
)
def test_role_words_before(text, words, name):
    start, end = _span(text, words)
    assert text[role_words_before(text, start, end) : end] == name
