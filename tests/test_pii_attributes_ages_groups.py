"""Ages said of a relative, at a death or a retirement, infants' decimal ages; religions as
nouns, "Frenchmen", nationalities in lower-case text.

Every expected span below was written by hand from the sentence, not read from the code.
"""

from __future__ import annotations

import random

import pytest

from anon_core.pii.attributes import find_ages, find_nrp
from tests.conftest import found_entities

AGES = [
    ("My son is 25.", "25"),
    ("the patient was 3.5 when she left", "3.5"),
    ("He died at 91.", "91"),
    ("She retired at 65 and moved to Kent.", "65"),
    ("Nigel will be 65 next month.", "65"),
    ("Leni is 1.5 years old.", "1.5 years old"),
    ("Baby aged 0.5, feeding well.", "0.5"),
    ("my age is 2.1", "2.1"),
    ("Sarah Kramer (age 45)", "age 45"),
    ("At the age of 14, Michael moved to Leeds.", "the age of 14"),
    ("Tom is 34 and lives in Leeds.", "34"),
    ("Maria just turned 7!", "7"),
]
NOT_AGES = [
    "The meeting will be 20 minutes.",
    "It will be 5 pm by then.",
    "The bill will be 20.",
    "He retired at 5 pm.",
    "My son is 5 minutes away.",
    "The score was 3.5 overall.",
    "Python 2.7 is old.",
    "I am 2.5 miles away.",
    "It is 5.",
    "Total was 20.",
    "Chapter 3 is 20 pages.",
    "Tom is 34 km away.",
]


@pytest.mark.parametrize(("text", "age"), AGES)
def test_ages_found(text, age):
    assert [text[f.start : f.end] for f in find_ages(text)] == [age]


@pytest.mark.parametrize("text", NOT_AGES)
def test_times_amounts_and_scores_are_not_ages(text):
    assert find_ages(text) == []


GROUPS = [
    ("Religion: Christianity", ["Christianity"]),
    ("She practices Hinduism and Judaism.", ["Hinduism", "Judaism"]),
    ("Many Frenchmen and Welshwomen came.", ["Frenchmen", "Welshwomen"]),
    ("She is a Filipina nurse.", ["Filipina"]),
    ("my wife is indonesian and i am filipino.", ["indonesian", "filipino"]),
    ("She is Cape Verdean and a Rastafari.", ["Cape Verdean", "Rastafari"]),
    ("A Motswana and two Basotho came.", ["Motswana", "Basotho"]),
    # words sharing their beginning: each found whole, the longest that fits
    (
        "Pole, Poles, Polish, Dane, Danes, Danish, Scot, Scots, Scottish, Scotsmen.",
        ["Pole", "Poles", "Polish", "Dane", "Danes", "Danish", "Scot", "Scots", "Scottish"]
        + ["Scotsmen"],
    ),
    (
        "Sri Lankans, South Africans and New Zealanders",
        ["Sri Lankans", "South Africans"] + ["New Zealanders"],
    ),
]
NOT_GROUPS = [
    "i polish my shoes and drink green tea.",  # common words of the list, in lower case
    "she speaks polish and japanese.",  # languages
    "My wife is indonesian.",  # lower case in mixed-case text: not read
]


@pytest.mark.parametrize(("text", "groups"), GROUPS)
def test_groups_found(text, groups):
    assert [text[f.start : f.end] for f in find_nrp(text)] == groups


@pytest.mark.parametrize("text", NOT_GROUPS)
def test_common_words_and_languages_are_not_groups(text):
    assert find_nrp(text) == []


def test_ages_and_groups_through_the_engine(english):
    """The model's DATE "the age of 14" and its PERSON "Welsh" give way to AGE and NRP on the
    same characters; a person's name beside them stays a person."""
    found = found_entities(english, "At the age of 14, Michael Brown moved to Leeds.")
    assert ("AGE", "the age of 14") in found and ("PERSON", "Michael Brown") in found
    assert ("NRP", "Welsh") in found_entities(english, "Her parents are Welsh.")
    # a given name that is a group word too is not taken from the person rules by the same-span
    # rule ("Sami", "Finn", "Christian")
    assert ("NRP", "Sami") not in found_entities(english, "Sami is here.")


# =============================================================================== generated set
FRAMES = [
    "My daughter is {age}.",
    "{name} died at {age} in {city}.",
    "{name} is {age} years old and lives in {city}.",
    "Aged {age}, {name} joined the club.",
    "{name} (age {age})",
    "a {age} yo patient",
]


def ages_written(rng: random.Random) -> str:
    """Ages as people write them: mostly 10-99, some 1-9, some infants' decimals, some 100+."""
    r = rng.random()
    if r < 0.75:
        return str(rng.randint(10, 99))
    if r < 0.85:
        return str(rng.randint(1, 9))
    if r < 0.95:
        return f"{rng.randint(0, 2)}.{rng.randint(1, 9)}"
    return str(rng.randint(100, 104))


def test_recall_on_generated_ages():
    """Share of generated ages found (the age inside a span found).

    Measured 1.00 (120 of 120, seed 5) when the rules were written; the sentences use the
    phrases the rules were written for, so this guards them against regressions. The floor
    0.95 leaves room for a rare clash with a name or a city.
    """
    from faker import Faker

    rng = random.Random(5)
    fake = Faker(["en_GB", "en_US"])
    fake.seed_instance(5)
    found = total = 0
    for frame in FRAMES:
        for _ in range(20):
            age = ages_written(rng)
            head, _, tail = frame.partition("{age}")
            head = head.format(name=fake.name(), city=fake.city())
            text = head + age + tail.format(name=fake.name(), city=fake.city())
            start, end = len(head), len(head) + len(age)
            total += 1
            found += any(f.start <= start and end <= f.end for f in find_ages(text))
    assert found / total >= 0.95, found / total
