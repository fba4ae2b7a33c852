"""Job titles found by their head word, beside a name or after a cue, and courtesy titles.

Every expected span below was written by hand from the sentence, not read from the code. The
generated set at the end uses titles and sentences written for this test (none taken from an
evaluation corpus), with Faker's names and companies.
"""

from __future__ import annotations

import random

import pytest

from anon_core.pii.titles import find_honorifics, find_titles
from tests.conftest import found_entities

FIND = [
    # a cue, then one job word or a phrase ending in one
    ("Position: Recruiter", ["Recruiter"]),
    ("He was hired as a payroll clerk in 2019.", ["payroll clerk"]),
    ("My job title is Night shift supervisor.", ["Night shift supervisor"]),
    # beside a name: a dash, brackets, a comma then "at", a name after "our ...,"
    ("Dana Weeks - Clinical psychologist", ["Clinical psychologist"]),
    ("Ricky Fernandez (Receptionist) signed the form.", ["Receptionist"]),
    ("Beth Webster (Billing specialist, Brown Ltd)", ["Billing specialist"]),
    ("Diane Howell, construction laborer at Abbott PLC, said no.", ["construction laborer"]),
    ("Please contact our Auditor, Ilias Wieloch.", ["Auditor"]),
    ("best regards,\nmallory legros, pharmacist", ["pharmacist"]),
    ("Regards,\nAndrew Olson\nKitchen porter, Benoit S.A.", ["Kitchen porter"]),
    # "is a", "is the", "as a": one job word too
    ("I'm a welder and I love it.", ["welder"]),
    ("She is the event coordinator of Acme.", ["event coordinator"]),
    # a capital after "the" in mid-sentence
    ("The Groundskeeper called me back.", ["Groundskeeper"]),
    # head words taking an "of" phrase
    ("Occupation: Vice president of sales", ["Vice president of sales"]),
    ("Job title: Director of Human Resources", ["Director of Human Resources"]),
    ("The Head of marketing called.", ["Head of marketing"]),
    ("Istvan Bonbach is the Deputy director of Henderson, Kerr and Woods.", ["Deputy director"]),
    # "and" inside a title, before a lower-case word
    ("Job title: Heating and air conditioning mechanic", ["Heating and air conditioning mechanic"]),
    # a job ending after modifiers ("-ist", "-keeper")
    ("Korinna Hood\nMedical transcriptionist\nChauvin SA", ["Medical transcriptionist"]),
    # courtesy titles before a name
    ("Dear Dr. Morse,", ["Dr."]),
    ("Please call Ms Thomas at 4 pm.", ["Ms"]),
]
NOT_FOUND = [
    "Alvir spent a year at Weeks-Rivas as the assistant to Alvir Pusaver.",  # a role, "the"
    "He hit his head on the door.",  # "head" without "of"
    "The bus driver called me back.",  # a job word after "the", in lower case: no one's title
    "He is a good driver.",  # "a good ..." is no title
    "She is a Buddhist.",  # a belief (NRP), not a job ending in "-ist"
    "I got my ms. in chemistry.",  # "ms." before a lower-case word in mixed-case text
    "Give the report to the manager, please.",
    "John and Mary Baker\nAcme Ltd",  # "and" before a capital joins names, not a title
]


@pytest.mark.parametrize(("text", "titles"), FIND)
def test_titles_found(text, titles):
    assert [text[f.start : f.end] for f in find_titles(text)] == titles


@pytest.mark.parametrize("text", NOT_FOUND)
def test_roles_and_common_words_are_not_titles(text):
    assert find_titles(text) == []


def test_lower_case_honorifics_only_in_lower_case_text():
    assert [(f.start, f.end) for f in find_honorifics("prof. mace will see you now.")] == [(0, 5)]
    assert find_honorifics("Prof. in name only, ms. in hand") == []


def test_titles_through_the_engine(english):
    """A title the model calls a person on the same characters stays a title; a two-word
    person on its own line stays a person."""
    assert ("TITLE", "Recruiter") in found_entities(english, "Position: Recruiter")
    found = found_entities(english, "Juliette Farmer\nMassage therapist\nFuentes Ltd")
    assert ("PERSON", "Juliette Farmer") in found
    assert ("TITLE", "Massage therapist") in found


# =============================================================================== generated set
#: Job titles written for this test: head words with modifiers, in no Faker list as written.
JOBS = """Billing specialist|Warehouse supervisor|Senior accountant|Staff nurse|Shift manager
Orchard worker|Ticket agent|Pipeline welder|Payroll administrator|Hospice chaplain
Museum curator|Ski instructor|Kitchen porter|Courier|Zookeeper|Beekeeper|Event coordinator
Claims processor|Dental assistant|Radiographer|Podiatrist|Embalmer|Head of procurement
Director of nursing|Deputy director|Store clerk|Parking attendant|Loan processor
Tax inspector|Customs officer|Park ranger|Lab manager|Data scientist|IT technician"""
FRAMES = [
    "{name} has worked as a {job} for six years.",
    "Title: {job}",
    "Regards,\n{name}\n{job}, {company}",
    "{name} is the {job} of {company}.",
    "Contact: {name}, {job}",
    "{name} ({job}, {company})",
    "{name} - {job}",
    "She became a {job} in 2019.",
]


def generated_titles(seed: int = 7, per_frame: int = 15):
    """(text, start, end) of the job title in sentences filled with Faker's names."""
    from faker import Faker

    rng = random.Random(seed)
    fake = Faker(["en_GB", "de_DE", "fr_FR"])
    fake.seed_instance(seed)
    jobs = [j for line in JOBS.splitlines() for j in line.split("|")]
    out = []
    for frame in FRAMES:
        for _ in range(per_frame):
            job = rng.choice(jobs)
            job = job.lower() if rng.random() < 0.2 else job
            head, _, tail = frame.partition("{job}")
            head = head.format(name=fake.name())
            text = head + job + tail.format(company=fake.company())
            out.append((text, len(head), len(head) + len(job)))
    return out


def test_recall_on_generated_titles():
    """Share of generated titles found exactly (the span is the title, nothing more).

    Measured 0.983 (118 of 120, seed 7) when these rules were written; the sentences use the
    contexts the rules were written for, so this guards them against regressions rather than
    measuring recall on unseen text. The floor 0.9 leaves room for a change in Faker's lists.
    """
    sentences = generated_titles()
    found = sum(
        any((f.start, f.end) == (start, end) for f in find_titles(text))
        for text, start, end in sentences
    )
    assert found / len(sentences) >= 0.9, found / len(sentences)
