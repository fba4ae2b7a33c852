"""Dates the NER model misses or cuts: machine-written dates with their time as one span
("2022-11-07T17:44:42.150687"), dates with a weekday or month name in the languages Faker
writes ("dimanche, Juillet 26", "marzo 28, 1976", "styczeń 2023"); and what is no date: a day
named relative to today, a four-digit number that is an amount or a number.

Every expected span below was written by hand from the sentence, not read from the code.
"""

from __future__ import annotations

import pytest

from anon_core.pii.dates import cut_from_number, date_span_ok, find_dates, find_named_dates
from tests.conftest import found_entities

NUMERIC = [
    ("Seen on 2022-11-07T17:44:42.150687.", ["2022-11-07T17:44:42.150687"]),
    ("It was signed on 1976-03-16 08:32:09.387558.", ["1976-03-16 08:32:09.387558"]),
    ("Born 1990-05-06T07:08:09Z in Oslo", ["1990-05-06T07:08:09Z"]),
    ("at 2004-05-17 01:27:12+02:00 sharp", ["2004-05-17 01:27:12+02:00"]),
    ("Appointment on 03/04/2021 10:32 AM with Dr. Lee", ["03/04/2021 10:32 AM"]),
    ("Due 2021-03-04.", ["2021-03-04"]),
]
NOT_NUMERIC = [
    "Payment due 2021-13-45.",  # no month 13
    "The ID is 2021-03-04-7781.",  # a code that starts like a date
    "Version 2.3.4 released at 10:30.",
    "Call 0049-30-1234567.",
]


@pytest.mark.parametrize(("text", "spans"), NUMERIC)
def test_numeric_dates_with_their_time_are_one_span(text, spans):
    assert [text[f.start : f.end] for f in find_dates(text)] == spans


@pytest.mark.parametrize("text", NOT_NUMERIC)
def test_codes_and_versions_are_no_numeric_dates(text):
    assert find_dates(text) == []


NAMED = [
    ("See you on dimanche, Juillet 26.", ["dimanche, Juillet 26"]),
    ("The meeting is on czwartek.", ["czwartek"]),
    ("In styczeń 2023 Andrzej moved.", ["styczeń 2023"]),
    ("Born marzo 28, 1976 in Bocenago", ["marzo 28, 1976"]),
    ("She arrived on samedi, Août 6th.", ["samedi, Août 6th"]),
    ("I'll see you in maggio.", ["maggio"]),
    ("We met on Tuesday.", ["Tuesday"]),
    ("am 26. Oktober 1980 geboren", ["26. Oktober 1980"]),
    ("on the 4th of July 1990", ["the 4th of July 1990"]),
    ("Saint Anouk, Septembre 24, 1996", ["Septembre 24, 1996"]),
]
NOT_NAMED = [
    "You may go.",
    "Plácido Domingo sang.",
    "The Mars rover landed.",
    "Juni Smith called.",
    "I will march on.",
    "Mayo Clinic opened.",
    "Sobota Street",
]


@pytest.mark.parametrize(("text", "spans"), NAMED)
def test_weekday_and_month_names_of_several_languages(text, spans):
    assert [text[f.start : f.end] for f in find_named_dates(text)] == spans


@pytest.mark.parametrize("text", NOT_NAMED)
def test_words_and_names_spelled_like_months_are_no_dates(text):
    assert find_named_dates(text) == []


def test_a_weekday_alone_counts_only_in_english_text():
    text = "Merci de rappeler Louise au 02 18 93 59 60 avant vendredi."
    assert find_named_dates(text, "fr") == []
    text = "Né le 24 septembre 1996 à Lyon."
    assert [text[f.start : f.end] for f in find_named_dates(text, "fr")] == ["24 septembre 1996"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Yvonne is turning 3 tomorrow.", "3 tomorrow"),
        ("See you tomorrow.", "tomorrow"),
        ("Call extension 2045.", "2045"),
        ("He paid 1999 dollars.", "1999"),
        ("Room 2010 is free.", "2010"),
        ("The museum opens at 10 am daily.", "10 am daily"),
        ("It's the 21st century.", "the 21st century"),
        ("in the early twentieth century", "the early twentieth century"),
        ("on the first Friday of every month", "the first Friday of every month"),
    ],
)
def test_relative_days_numbers_centuries_and_routines_are_no_dates(text, value):
    start = text.index(value)
    assert not date_span_ok(text, start, start + len(value))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("He was born in 1985 in Leeds.", "1985"),
        ("In 2019, 20 people came.", "2019"),
        ("We met on the first Friday of March.", "the first Friday of March"),
        ("Every Monday we meet.", "Monday"),
    ],
)
def test_years_stay_dates(text, value):
    start = text.index(value)
    assert date_span_ok(text, start, start + len(value))


def test_seconds_with_a_fraction_are_no_phone_number():
    text = "signed 2004-05-17 01:27:12.416759"
    start = text.index("01:27")
    assert not cut_from_number(text, start, len(text))
    text = "Call 12.416759 now"  # the same digits alone are a number
    assert cut_from_number(text, 5, 14)


def test_the_engine_keeps_the_whole_timestamp_and_the_weekday(english):
    text = "It was signed on 1976-03-16 08:32:09.387558."
    assert found_entities(english, text) == [("DATE_TIME", "1976-03-16 08:32:09.387558")]
    text = "Call me Sunday, please."
    assert ("DATE_TIME", "Sunday") in found_entities(english, text)
