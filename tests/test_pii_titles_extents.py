"""Job titles next to a name: the title's extent, not the name's words, and no title in plain text.

Every expected span below was written by hand from the sentence, not read from the code. The
generated set uses Faker's own English job list (the titles Faker ships), placed in sentence
frames written for this test with Faker's names and companies.
"""

from __future__ import annotations

import random

import pytest

from anon_core.pii.titles import find_titles

FIND = [
    # a job after "our" / "the" with a name right after it, in lower case too
    ("I spoke to our translator John Jones yesterday.", ["translator"]),
    ("I spoke to our sewer pipe cleaner Denise Carpenter today.", ["sewer pipe cleaner"]),
    ("Ask our labor relations director Maria Lopez.", ["labor relations director"]),
    # "is the new ... at": one lower-case job word before a firm
    ("Laura Hayes is the new archivist at Castillo-Durham.", ["archivist"]),
    ("Sam Cole was the current surveyor at Reid Ltd.", ["surveyor"]),
    # a run ending in a job word does not take the name after it ("Carpenter", "Porter")
    ("I spoke to our Youth Worker Denise Carpenter yesterday.", ["Youth Worker"]),
    ("Our Housing manager/officer Melanie Porter called.", ["Housing manager/officer"]),
    ("our Night Shift Supervisor Denise Carpenter left.", ["Night Shift Supervisor"]),
    # Faker's comma and bracket forms beside a name
    ("Ann Lee, Engineer, civil (contracting), said no.", ["Engineer, civil (contracting)"]),
    ("Please welcome Ann Lee (Research scientist (medical)).", ["Research scientist (medical)"]),
    (
        "Regards,\nAnn Lee\nengineer, civil (contracting)\nAcme Inc.",
        ["engineer, civil (contracting)"],
    ),
    # English job words in no Faker list as a last word, beside a name
    ("Contact: Ann Lee, deputy sheriff\n", ["deputy sheriff"]),
    ("Ann Lee (Tour Guide) met us.", ["Tour Guide"]),
    ("Regards,\nAnn Lee\nTeam Leader\nAcme Inc.", ["Team Leader"]),
    ("Ann Lee, qa tester, said no.", ["qa tester"]),
    ("Kevin Lowe works as a project lead in the city.", ["project lead"]),
    ("Contact: Ann Lee, IT support specialist\n", ["IT support specialist"]),
    ("Job title: Head Of Sales", ["Head Of Sales"]),
    # a name, a comma and an article before the title ("the", "our", "a")
    ("Laura Hayes, the sewer pipe cleaner, said no.", ["sewer pipe cleaner"]),
    ("meet laura hayes, our labor relations director.", ["labor relations director"]),
    ("Hi, I'm Laura Hayes, a line cook in Ohio.", ["line cook"]),
    # a title under a name line before "at", and between bars
    ("Laura Hayes\nsewer pipe cleaner at Acme Inc.", ["sewer pipe cleaner"]),
    ("Laura Hayes | Account Manager | Acme Inc.", ["Account Manager"]),
    # a title after "our new" before "is" and a name; "the" title, a comma, a name in lower case
    ("Our new sewer pipe cleaner is Laura Hayes.", ["sewer pipe cleaner"]),
    ("the account manager, laura hayes, called.", ["account manager"]),
    # a title of several words opening a line before a given name, its words after the first
    # all in one case (not "Compared Care songwriter Zoe Young")
    ("Sewer Pipe Cleaner Laura Hayes will lead the meeting.", ["Sewer Pipe Cleaner"]),
    ("Labor relations director Laura Hayes will lead.", ["Labor relations director"]),
    # after a name and a comma before "at", in lower case
    ("i am laura hayes, account manager at acme inc.", ["account manager"]),
    # "Of" in Title Case, and no name taken into the "of" phrase
    ("Ann Lee, Vice President Of Operations, said no.", ["Vice President Of Operations"]),
    ("I spoke to our Vice President Of Operations Laura Hayes.", ["Vice President Of Operations"]),
    ("Job title: Director of Human Resources", ["Director of Human Resources"]),
    # a surname-like word inside a Title Case title is no name ("Sales" is a surname)
    ("Regards,\nAnn Lee\nRegional Sales Manager\nAcme Inc.", ["Regional Sales Manager"]),
]

NOT_FIND = [
    "the doctor said it was fine.",
    "Please see the manager before noon.",
    "He was the new boy at school.",
    "He is the new owner of the car.",
    "It will be used as the handler for option value pre-processing.",
    "as the new assistant to the director",
    "I told the manager about it.",
    "The guide is on page four.",
    "Ask the judge.",
    "Who will lead the team this week?",
    "She took the lead in the second half.",
    "In the end, the manager said no.",
    "Yesterday, the driver, who was late, called.",
    "After lunch, our accountant at the office called.",
    "Our new driver is late again.",
    "Vazquez-Riggs songwriter Jarmila Chloupkova employs corporate lingo.",
    "Estately songwriter Michele Ostrem employs corporate lingo.",
    "the manager, however, disagreed.",
    "Is it support you need?",
]


@pytest.mark.parametrize(("text", "expected"), FIND)
def test_title_beside_a_name_has_its_own_extent(text: str, expected: list[str]) -> None:
    assert [text[f.start : f.end] for f in find_titles(text) if f.entity == "TITLE"] == expected


@pytest.mark.parametrize("text", NOT_FIND + [t.lower() for t in NOT_FIND])
def test_job_words_in_plain_sentences_are_no_titles(text: str) -> None:
    assert find_titles(text) == []


FRAMES = (
    "{n}, {j}, said the plan was late.",
    "Please welcome {n} ({j}) to the team.",
    "I spoke to our {j} {n} yesterday.",
    "{n} works as a {j} in the city.",
    "{n} is the new {j} at {c}.",
    "Best regards,\n{n}\n{j}\n{c}",
)


def test_faker_jobs_beside_names_in_three_cases() -> None:
    """Every English Faker job in a random frame and case; the job's exact span is found.

    On seed 7 all 639 were found exactly (626 without the "our job Name", "the new job at"
    and "job word not ending a name" rules); the floor 0.99 leaves six misses of room for
    other name draws and sits above the 0.980 of the rules before.
    """
    from faker import Faker
    from faker.providers.job.en_US import Provider

    fake = Faker("en_US")
    fake.seed_instance(7)
    rng = random.Random(7)
    hits = 0
    for job in Provider.jobs:
        j = rng.choice([job, job.lower(), job.title()])
        frame = rng.choice(FRAMES)
        # a name without a prefix or suffix ("Dr.", "MD"): those are other recognizers' spans
        n = f"{fake.first_name()} {fake.last_name()}"
        text = frame.format(n=n, j=j, c=fake.company())
        start = text.index(
            j, text.index(n) + len(n) if frame.index("{n}") < frame.index("{j}") else 0
        )
        spans = [(f.start, f.end) for f in find_titles(text) if f.entity == "TITLE"]
        hits += (start, start + len(j)) in spans
    assert hits / len(Provider.jobs) >= 0.99
