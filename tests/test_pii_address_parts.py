"""Extents of places and addresses: a state with the postcode after it
(:mod:`anon_core.pii.address_parts`), streets that end before the sentence's words, countries
with a parenthesis, towns in lower-case text and what may follow a town (state, postcode,
district), overlapping places joined, and a recall floor on the prose development set of
``benchmarks/bench_pii_address_prose.py``.

Every hand-written sentence is invented; the expected spans are what a person would mark.
"""

from __future__ import annotations

import pytest

from anon_core.pii.address_parts import Found, states_with_postcode
from anon_core.pii.addresses import find_addresses
from anon_core.pii.places import find_countries, find_towns, union_of_overlaps
from tests.conftest import found_entities


def _codes(text: str) -> list[str]:
    return [text[a:b] for a, b in states_with_postcode(text)]


@pytest.mark.parametrize(
    "text, codes",
    [
        ("Mail it to 4410 Larkspur Lane, Dayton, OH 45402-1123.", ["OH 45402-1123"]),
        ("The form lists Ohio 43210 as her home state.", ["Ohio 43210"]),  # a full name
        ("Deliver to Glenroy, VIC 3046 by noon.", ["VIC 3046"]),  # Australian: four digits
        ("Sydney NSW 2000", ["NSW 2000"]),
        ("Toronto, ON M5V 2T6", ["ON M5V 2T6"]),  # Canadian letters and digits
        ("Salem, OR 97301", ["OR 97301"]),  # a state that is a word, after a comma
        ("He lives in New Hampshire 03301 now.", ["New Hampshire 03301"]),
    ],
)
def test_a_state_with_its_postcode_is_found(text, codes):
    assert _codes(text) == codes


@pytest.mark.parametrize(
    "text",
    [
        "IN 12345 cases the form was late.",  # "IN" is a word: needs a comma before it
        "She was born in Ohio 2020 was a hard year.",  # four digits after a US state: a year
        "Victoria 2024 was a good year.",  # an Australian state name before a year
        "Call 555 12345 today.",  # no state before the number
        "Order 55213 contains 3 widgets.",
        "Texas12345 is a user name.",  # no space between
    ],
)
def test_numbers_without_a_state_before_them_are_left_alone(text):
    assert _codes(text) == []


def _streets(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_addresses(text)]


@pytest.mark.parametrize(
    "text, streets",
    [
        # the street ends before "in": the town after it is the town finder's
        ("The branch at 18185 Roberts Stream in Lake Lauren is closed.", ["18185 Roberts Stream"]),
        # a capitalised quantity word is a name before a street type
        ("The shop at 189 Miles Squares Apt. 496 is closed.", ["189 Miles Squares Apt. 496"]),
        # street types of Faker's English locales
        (
            "Ship to 67958 Amy Fall Apt. 303, Brownchester.",
            ["67958 Amy Fall Apt. 303, Brownchester"],
        ),
        ("I live at 371 Courtney Land.", ["371 Courtney Land"]),
    ],
)
def test_street_extents(text, streets):
    assert _streets(text) == streets


@pytest.mark.parametrize(
    "text",
    [
        "We walked 5 miles along the river.",  # a lower-case quantity word
        "The team had 3 wins in a row at home.",
    ],
)
def test_no_street_in_prose_with_numbers(text):
    assert _streets(text) == []


def test_a_country_with_a_parenthesis_is_found_whole():
    text = "She moved to Slovakia (Slovak Republic) last year."
    assert [text[f.start : f.end] for f in find_countries(text)] == ["Slovakia (Slovak Republic)"]
    text = "Lyon, Cocos (Keeling) Islands"
    assert [text[f.start : f.end] for f in find_countries(text)] == [text]


def test_a_made_up_town_in_lower_case_text_after_a_place_word():
    text = "i used to live in lake deanmouth before moving away"
    assert [text[f.start : f.end] for f in find_towns(text)] == ["lake deanmouth"]


def _towns(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_towns(text)]


@pytest.mark.parametrize(
    "text, towns",
    [
        ("We are based in Lake Ritamouth Idaho.", ["Lake Ritamouth Idaho"]),  # a state, no comma
        ("He moved to Port Jennifer, New Hampshire.", ["Port Jennifer, New Hampshire"]),
        ("The flat in Tynaarlo 3396 BU was sold.", ["Tynaarlo 3396 BU"]),  # a Dutch postcode
        ("The flat in Port Chadport 13904 was sold.", ["Port Chadport 13904"]),
        ("Numbers from Harlev 3, then the rest.", ["Harlev 3"]),  # a district at a phrase's end
        ("Flights to Sant'Andrea Di Conza are cheap.", ["Sant'Andrea Di Conza"]),  # apostrophe
        # left alone: a year, a count before a word
        ("We flew to Harlev 2019 last spring.", ["Harlev"]),
        ("The weather in Harlev 3 days ago was bad.", ["Harlev"]),
    ],
)
def test_what_follows_a_town(text, towns):
    assert _towns(text) == towns


def test_a_country_takes_a_capitalised_qualifier_in_parentheses():
    text = "She was born in Cyprus (Greek)."
    assert [text[f.start : f.end] for f in find_countries(text)] == ["Cyprus (Greek)"]
    text = "Germany (where I grew up) is far."
    assert [text[f.start : f.end] for f in find_countries(text)] == ["Germany"]


def test_overlapping_places_are_joined():
    assert union_of_overlaps([Found(0, 10, 0.9), Found(5, 20, 0.86), Found(25, 30, 0.8)]) == [
        Found(0, 20, 0.9),
        Found(25, 30, 0.8),
    ]


def test_the_engine_reports_a_town_state_and_country_as_one_place(english):
    text = "He lives in Port Samantha, Maryland, Canada."
    assert ("LOCATION", "Port Samantha, Maryland, Canada") in found_entities(english, text)


def test_the_engine_reports_a_street_and_the_town_after_it(english):
    text = "The branch at 18185 Roberts Stream in Lake Lauren is closed."
    found = found_entities(english, text)
    assert ("STREET_ADDRESS", "18185 Roberts Stream") in found
    assert ("LOCATION", "Lake Lauren") in found


def test_the_engine_reports_a_state_and_its_postcode_as_one_place(english):
    found = found_entities(english, "The form lists Florida 32801 as her home state.")
    assert ("LOCATION", "Florida 32801") in found
    found = found_entities(english, "He lives in Lake Ritamouth, Idaho 83701.")
    assert ("LOCATION", "Lake Ritamouth, Idaho 83701") in found


# ----------------------------------------------------------------------------- development set
#: Span recall (IoU >= 0.9, every type merged into one, as Presidio's evaluation does) on the
#: prose development set, 4 sentences a template, seed 37 (the rules were looked at on seeds
#: 29 and 31). Observed with every rule here: seeds 31 / 37 / 41 gave 0.985 / 0.985 / 0.975 of
#: 204 merged spans; the code before these rules gave 0.926 / 0.892 / 0.907. A floor of 0.95
#: fails on the old code and leaves 7 spans of slack for other Faker versions.
PROSE_FLOOR = 0.95
#: LOCATION span recall on the same rows (168 spans): 0.935 / 0.940 / 0.911 observed, 0.899 /
#: 0.857 / 0.869 before; the floor lies between the two at seed 37.
LOCATION_FLOOR = 0.9


def test_recall_on_the_prose_development_set():
    from benchmarks.bench_pii_address_prose import development_set
    from benchmarks.bench_pii_corpus import _skip_words, ours, span_counts

    rows = development_set(4, 37)
    found, gold, _, _ = span_counts(rows, ours([r["text"] for r in rows]), _skip_words())
    assert found["PII"] / gold["PII"] >= PROSE_FLOOR
    assert found["LOCATION"] / gold["LOCATION"] >= LOCATION_FLOOR
