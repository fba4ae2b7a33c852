"""Dates, ages and groups that are about no person (:func:`anon_core.pii.dates.not_a_day`,
:mod:`anon_core.pii.attribute_roles`).

Every sentence is hand-written. Dropped: weekdays in the plural or in a range (opening hours),
a weekday or holiday naming a thing ("Sunday newspaper", "Christmas sale"), an age bracket
("kids under 12"), a part of a work ("season 2"), lengths of time joined by "and", the age of
a thing ("The building is 47 years old") and a nationality naming a thing or a language
("French press", "the English version"). Kept: the dates, ages and groups of people beside them.
"""

from __future__ import annotations

import pytest

from anon_core.pii.attribute_roles import age_of_a_thing, names_a_thing
from anon_core.pii.attributes import find_ages, find_nrp
from anon_core.pii.dates import date_span_ok, not_a_day
from tests.conftest import found_entities


def _span_ok(text: str, value: str) -> bool:
    start = text.index(value)
    return date_span_ok(text, start, start + len(value))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The clinic is open on Saturdays.", "Saturdays"),  # plural: every week
        ("Office hours: Monday to Friday, 9:00 - 17:00.", "Monday"),  # a range of weekdays
        ("Office hours: Monday to Friday, 9:00 - 17:00.", "Friday"),
        ("Office hours: Monday to Friday, 9:00 - 17:00.", "Monday to Friday"),
        ("Open Mon-Fri only.", "Mon-Fri"),
        (
            "I would like to cancel my Sunday newspaper delivery.",
            "Sunday",
        ),  # a weekday naming a thing
        ("He reads the Sunday Times.", "Sunday"),
        ("Black Friday deals are live now.", "Friday"),  # a shopping event
        ("Our Christmas sale starts soon.", "Christmas"),  # a holiday naming a thing
        ("Our Easter opening hours are different.", "Easter opening hours"),
        ("The children's menu is for kids under 12.", "under 12"),  # an age bracket
        ("The product is suitable for ages 3 and up.", "ages 3"),
        ("Episode 5 of season 2 was great.", "Episode 5 of season 2"),  # a part of a work
        ("The flight takes 11 hours and 20 minutes.", "11 hours and 20 minutes"),  # durations
        ("Please process my refund within 5 business days.", "5 business days"),
        ("I called you earlier today.", "earlier today"),  # relative to now
        ("She turned 59 last month.", "59 last month"),  # an age joined to a relative period
        ("Please call between 9 and 5.", "between 9 and 5"),  # hours of a working day
        ("My account ending 1234 was charged.", "ending 1234"),  # the last digits of a card
        ("My card ending in 1987 was charged.", "1987"),
        ("My PIN is 1987.", "1987"),
        ("I'm in the 30-39 age bracket.", "30-39"),  # no day and month either way
        ("The support line is open 24/7.", "24/7"),
        ("Week 3 of the diet was hard.", "Week 3"),  # a week of a plan
    ],
)
def test_days_of_no_person_are_dropped(text, value):
    assert not _span_ok(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Every Monday we meet.", "Monday"),  # a weekday a sentence names stays a date
        ("I saw him on Sunday morning.", "Sunday morning"),
        ("I want to book a table for Friday night.", "Friday"),
        ("I was born on Christmas Day 1980.", "Christmas Day 1980"),
        ("Merry Christmas to all of you.", "Christmas"),  # a holiday alone stays
        ("The rent rose from 2019 to 2020.", "2019 to 2020"),  # a range of years
        ("I pay month to month since 1999.", "1999"),  # no weekday range in "month to month"
        ("Our fiscal year ends in June.", "June"),
        ("The meeting is on Monday, March 3.", "Monday, March 3"),
        ("We have lived here since 1941 and 1945.", "1941 and 1945"),  # years, no durations
        ("I was there between 2019 and 2021.", "between 2019 and 2021"),  # years, no hours
        ("Sid was 1987 born.", "1987"),  # "id" inside a word is no identifier
        ("It is due 12-25.", "12-25"),  # a month and a day
        ("Payment due 25/12.", "25/12"),  # a day and a month
        ("In the year 2000 we moved.", "the year 2000"),
        ("It was Monday, day 3 of the trip.", "Monday"),
    ],
)
def test_days_beside_them_stay_dates(text, value):
    assert _span_ok(text, value)


def test_not_a_day_reads_the_words_around_the_span():
    text = "Shop on Monday to Friday; the sale ends Monday."
    first, last = text.index("Monday"), text.rindex("Monday")
    assert not_a_day(text, first, first + 6)  # inside the range
    assert not not_a_day(text, last, last + 6)  # alone: a day


def _ages(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_ages(text)]


@pytest.mark.parametrize(
    "text",
    [
        "The building is 47 years old and needs repairs.",
        "The whisky is 12 years old.",
        "Our company is 25 years old this year.",
        "The cheese is aged 18 months.",
        "We sell a 12-year-old whisky.",
        "It is 5 years old.",
        "The product is suitable for ages 3 and up.",
        "Toys for ages 8-12.",
    ],
)
def test_ages_of_things_and_age_ranges_are_no_ages(text):
    assert _ages(text) == []


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("I am 47 years old.", "47 years old"),
        ("Tom is 47 years old.", "47 years old"),
        ("The patient is 47 years old.", "47 years old"),
        ("My car is old and I am 45.", "45"),  # the thing is not what the age is about
        ("A 34-year-old man drove a 10-year-old car.", "34-year-old"),
        ("She turned 59 last month.", "59"),
        ("The baby, aged 18 months, slept.", "18"),
        ("Age: 34", "34"),
    ],
)
def test_ages_of_people_beside_things_are_found(text, age):
    assert _ages(text) == [age]


def test_age_of_a_thing_looks_before_and_after_the_number():
    text = "The house is 90 years old; a 90-year-old house."
    first, last = text.index("90"), text.rindex("90")
    assert age_of_a_thing(text, first, first + 2)
    assert age_of_a_thing(text, last, last + 2)
    text = "My son is 9."
    assert not age_of_a_thing(text, text.index("9"), text.index("9") + 1)


def _groups(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_nrp(text)]


@pytest.mark.parametrize(
    "text",
    [
        "I bought a French press and an espresso machine.",
        "We ordered an English breakfast and two coffees.",
        "The German shepherd barked all night.",
        "The Dutch oven is on sale.",
        "I am calling about my American Express card.",
        "Please send me the English version of the contract.",
        "She is a native Spanish speaker.",
        "Is there a French translation?",
        "we ordered an english breakfast.",  # all lower case
    ],
)
def test_nationalities_naming_things_or_languages_are_no_groups(text):
    assert _groups(text) == []


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("He is a French citizen.", "French"),
        ("The French are proud of their cheese.", "French"),
        ("Zoolander is a 2005 French action-comedy film.", "French"),  # labelled corpora mark it
        ("The American expressed concern.", "American"),
        ("My English colleague is a Dutch national.", "English"),
        ("The Greek family ordered a salad.", "Greek"),
    ],
)
def test_nationalities_of_people_and_works_stay_groups(text, group):
    assert _groups(text)[0] == group


def test_names_a_thing_needs_the_thing_right_after_the_word():
    text = "French press"
    assert names_a_thing(text, "french", 6, True)
    text = "French people press on"
    assert not names_a_thing(text, "french", 6, True)
    text = "English version"
    assert names_a_thing(text, "english", 7, True)
    assert not names_a_thing(text, "english", 7, False)  # a language noun counts only for one


@pytest.mark.parametrize(
    "text",
    [
        "Our Christmas sale starts soon, don't miss it!",
        "Office hours: Monday to Friday, 9:00 - 17:00.",
        "The flight takes 11 hours and 20 minutes.",
        "The building is 47 years old and needs repairs.",
        "Episode 5 of season 2 was great.",
    ],
)
def test_sentences_with_no_person_hold_no_date_or_age(english, text):
    kinds = {kind for kind, _ in found_entities(english, text)}
    assert not kinds & {"DATE_TIME", "AGE"}


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("She turned 59 last month.", "AGE", "59"),  # no longer inside the model's date
        ("Open Monday to Friday since 1987-03-02.", "DATE_TIME", "1987-03-02"),
        ("I am 62 years old and my house is 80 years old.", "AGE", "62 years old"),
    ],
)
def test_people_beside_them_are_found(english, text, kind, value):
    assert (kind, value) in found_entities(english, text)


#: Sentences in the corpus's style holding a labelled Faker date or age of a person and a
#: thing's date, age or group that must stay untagged.
GENERATED = (
    ("Our Christmas sale ends on {date}.", "DATE_TIME"),
    ("The building is 47 years old; I was born on {date}.", "DATE_TIME"),
    ("Open Monday to Friday. My appointment is on {dow}.", "DATE_TIME"),
    ("The whisky is 12 years old and my father is {age}.", "AGE"),
    ("Toys for ages 3 and up, ordered on {date}.", "DATE_TIME"),
)


def test_generated_dates_and_ages_are_found_beside_things(english):
    # 50 sentences: 10 draws of each. Measured when written: 50 of 50 values found with exactly
    # their own span and no other DATE_TIME, AGE or NRP span; with the date and age rules of
    # the commit before these ones, 0 of 50 (every sentence also held the thing's date or age).
    # The floor, 90%, leaves room for the model reading a value differently in a newer build.
    from faker import Faker

    fake = Faker("en_US")
    fake.seed_instance(8)
    fill = {
        "date": lambda: fake.date(),
        "dow": fake.day_of_week,
        "age": lambda: str(fake.random_int(20, 90)),
    }
    exact = 0
    for _ in range(10):
        for template, kind in GENERATED:
            key = template.split("{")[1].split("}")[0]
            value = fill[key]()
            text = template.replace("{" + key + "}", value)
            found = [
                (k, v) for k, v in found_entities(english, text) if k in ("DATE_TIME", "AGE", "NRP")
            ]
            exact += found == [(kind, value)]
    assert exact >= 0.9 * 50, f"{exact} of 50"


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("my neighbour is polish and very kind.", "polish"),
        ("he is a danish citizen living abroad.", "danish"),
        ("the english community met yesterday.", "english"),
        ("she is a proud catholic.", "catholic"),
        ("my wife is french.", "french"),
    ],
)
def test_common_words_are_groups_in_lower_case_text_after_a_person_cue(text, group):
    assert _groups(text) == [group]


@pytest.mark.parametrize(
    "text",
    [
        "i polish the silver every week.",  # a verb
        "we ordered an english breakfast.",  # a thing
        "i speak english at home.",  # a language
        "the grass is green and wet.",  # "green" is left out: mostly a colour
        "My neighbour is polish.",  # not all lower case: the capitalised lists decide
    ],
)
def test_common_words_without_a_person_cue_are_no_groups(text):
    assert _groups(text) == []


class _Result:
    """A Presidio result as the NER recognizer returns it (what resolve_overlaps reads)."""

    def __init__(self, text: str, value: str, entity: str = "NRP", score: float = 0.85):
        self.start = text.index(value)
        self.end = self.start + len(value)
        self.entity_type = entity
        self.score = score


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I bought a French press for the office.", "French"),
        ("Please send me the English version of the manual.", "English"),
        ("We had an English breakfast at the hotel.", "English"),
        ("The German shepherd barked all night.", "German"),
    ],
)
def test_a_model_group_span_naming_a_thing_is_dropped(text, value):
    from anon_core.pii.scan import resolve_overlaps

    assert resolve_overlaps([_Result(text, value)], text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The patient is French and lives in Lyon.", "French"),
        ("Our new neighbour is English.", "English"),
        ("A German engineer fixed the press.", "German"),
    ],
)
def test_a_model_group_span_naming_people_is_kept(text, value):
    from anon_core.pii.scan import resolve_overlaps

    kept = resolve_overlaps([_Result(text, value)], text)
    assert [(s.start, s.end, s.entity) for s in kept] == [
        (text.index(value), text.index(value) + len(value), "NRP")
    ]
