"""DATE_TIME spans of the NER model kept or dropped (:mod:`anon_core.pii.dates`).

Every sentence is hand-written, the dates invented. Kept: numeric dates, a date with its time,
weekdays, months with a year, years and ranges of years. Dropped: clock times alone, durations,
decades, quarters, seasons, recurring days, and pieces of a phone number.
"""

from __future__ import annotations

import pytest

from anon_core.pii.dates import cut_from_number, date_span_ok, trim_date_span
from tests.conftest import found_entities


def _ok(value: str) -> bool:
    return date_span_ok(value, 0, len(value))


@pytest.mark.parametrize(
    "value",
    ["1994", "1937-08-24", "12/03/2024", "Monday", "March 1971", "1941 to 1945", "Christmas"],
)
def test_dates_weekdays_and_years_are_kept(value):
    assert _ok(value)


@pytest.mark.parametrize(
    "value",
    [
        "3pm",
        "5:30 pm",
        "19:30",
        "8 a.m.",
        "around noon",
        "4:12 in the morning",
        "10:45 this morning",
        "7 tonight",
        "hours 14:00-16:00",  # clock times, alone
        "every 12 months",
        "open 365 days",
        "a period of 5 years",
        "30 days of",
        "four days a week",
        "2 hours",  # durations
        "the 1990s",
        "the late '80s",
        "Q3",
        "last spring",
        "the summer holidays",
        "The 2nd of the month",  # decades, quarters, seasons, a recurring day
    ],
)
def test_times_durations_and_vague_periods_are_dropped(value):
    assert not _ok(value)


def test_a_time_right_after_a_numeric_date_is_part_of_it():
    text = "Logged 1995-06-14 03:25:42 by the system."
    assert date_span_ok(text, text.index("03:25"), text.index(" by"))
    text = "Admitted on 2020-10-13 at 11:40 pm."  # after "at": the date is the date
    assert not date_span_ok(text, text.index("11:40"), text.index("."))


@pytest.mark.parametrize(
    "text, piece, cut",
    [
        ("Leave a message at (0306) 999 0400 before noon.", "0400 before noon", True),
        ("Call 08-931 07 83 soon.", "08-931", True),
        ("Born 1995-06-14 03:25:42 here.", "1995-06-14", False),  # a date and its hour
        ("The hotline was busy in 2019 2020 2021.", "2019", False),  # years
        ("Room 12 on the 3rd floor.", "12", False),  # a short number
    ],
)
def test_pieces_of_long_numbers(text, piece, cut):
    start = text.index(piece)
    assert cut_from_number(text, start, start + len(piece)) is cut


@pytest.mark.parametrize(
    "text, date",
    [
        ("I was born on 1918-07-03 and moved here three years later.", "1918-07-03"),
        ("The appointment was moved to Sunday at 3pm.", "Sunday"),
        ("She graduated in 2004 and has worked nights ever since.", "2004"),
        ("The contract was signed in March 1971 for a period of 5 years.", "March 1971"),
    ],
)
def test_dates_next_to_times_and_durations_are_found_alone(english, text, date):
    dates = [v for kind, v in found_entities(english, text) if kind == "DATE_TIME"]
    assert dates == [date]


@pytest.mark.parametrize(
    "text",
    [
        "The flight leaves at 06:45 and lands around noon local time.",
        "I work the night shift four days a week, usually until 2am.",
        "He has been a member for years, renewing every 12 months.",
        "In the 1990s the family lived abroad.",
        "Room 1204 on the 3rd floor, visiting hours 14:00-16:00.",
        "It is a 24/7 hotline, open 365 days a year.",
    ],
)
def test_times_and_durations_in_sentences_are_no_dates(english, text):
    assert "DATE_TIME" not in {kind for kind, _ in found_entities(english, text)}


def test_a_phone_wins_over_the_date_the_model_reads_in_its_last_digits(english):
    text = "Leave a message at (0306) 999 0400 before noon."
    assert found_entities(english, text) == [("PHONE_NUMBER", "(0306) 999 0400")]


@pytest.mark.parametrize(
    "value, date",
    [
        ("30 days of 1937-08-24", "1937-08-24"),  # a leading duration and its joining word
        ("30 years this 1970", "1970"),
        ("every 12 months since 2019", "2019"),
        ("7:15 every Monday", "every Monday"),  # a leading clock time
        ("Monday at 3pm", "Monday"),  # a trailing clock time after a weekday
        ("March 3, 10:30", "March 3"),
        ("Monday 9:00-11:00", "Monday"),
        ("2020-10-13 at 11:40 pm", "2020-10-13"),  # after "at" the time is no part of the date
        ("1995-06-14 03:25:42", "1995-06-14 03:25:42"),  # one space: a timestamp, kept whole
        ("March 1971", "March 1971"),  # nothing to trim
        ("the summer of 1970", "1970"),  # a season before its year
        ("summer", "summer"),  # nothing follows: left to the filter
    ],
)
def test_leading_durations_and_trailing_clock_times_are_trimmed(value, date):
    text = f"On {value} we met."
    start, end = trim_date_span(text, 3, 3 + len(value))
    assert text[start:end] == date


def test_the_trimmed_date_is_what_the_de_identification_replaces(english):
    for text in (
        "Payment is due within 30 days of 1937-08-24.",  # the model's one span, trimmed
        "The payment is due 30 days of 2021-03-04, or call us.",  # two spans, one a duration
    ):
        dates = [v for kind, v in found_entities(english, text) if kind == "DATE_TIME"]
        assert dates == [text.split(" of ")[1][:10]]


#: Sentences holding a date of the kinds presidio-research labels (Faker's date_of_birth,
#: day_of_week, year) next to a clock time or a duration that must stay untagged.
DATE_SENTENCES = (
    "I was born on {dob} and moved here three years later.",
    "We spoke for 45 minutes on {dow}.",
    "She graduated in {year} and has worked nights since, until 2am.",
    "Please send the forms by {dob}; the office closes at 5:30 pm.",
    "The warranty runs for 24 months from {dob}.",
    "See you on {dow} at 19:30!",
)


def test_generated_dates_are_found_and_times_beside_them_are_not(english):
    # 60 sentences: 10 draws of each. Measured when written: 60 of 60 dates found with exactly
    # their own span, no other DATE_TIME (before the rules of anon_core.pii.dates: 30 of 60
    # sentences also held a time or a duration). The floor, 95%, leaves room for the model
    # reading a date differently in a newer spaCy build.
    from faker import Faker

    fake = Faker("en_US")
    fake.seed_instance(29)
    fill = {"dob": fake.date_of_birth, "dow": fake.day_of_week, "year": fake.year}
    exact = 0
    for _ in range(10):
        for template in DATE_SENTENCES:
            key = template.split("{")[1].split("}")[0]
            value = str(fill[key]())
            text = template.replace("{" + key + "}", value)
            dates = [v for kind, v in found_entities(english, text) if kind == "DATE_TIME"]
            exact += dates == [value]
    assert exact >= 0.95 * 60, f"{exact} of 60"
