"""Firms in signature and contact blocks and in lower case (:mod:`anon_core.pii.org_lines`).

Hand-written find / don't-find texts (every expected span written by hand from the text), and a
recall floor on signature blocks filled with Faker's values of ten locales.
"""

from __future__ import annotations

import pytest

from anon_core.pii.attributes import Found
from anon_core.pii.org_lines import find_block_organisations, firm_shape
from anon_core.pii.organisations import find_organisations, fit_around_persons
from tests.conftest import found_entities

FIND = [
    # a firm line between a name or title line and an address line, in any case
    (
        "naomi ryan\nsewer pipe cleaner\nhubbard, fox and gillespie\n3747 fourth avenue",
        ["hubbard, fox and gillespie"],
    ),
    ("Stewart Evans\nData Scientist\nWhite-Campbell\n7 Lewis Pine", ["White-Campbell"]),
    ("jake brown\n>petroleum engineer\n>thomas-weeks\n>level 7 6 brian siding", ["thomas-weeks"]),
    ("Maya Forster\n>Becker & Stolz Kg\n>Frühwirthweg 198", ["Becker & Stolz Kg"]),
    ("Ingrid Simonsen\n>Solberg As\n>Bøesvingen 3, 0332 Sanderhamn", ["Solberg As"]),
    ("Laurie Carlson\nLexicographer\nCollins Llc\n24538 Hunter Spurs", ["Collins Llc"]),
    ("paolo hande\nflorist\nwilms gmbh\nmelissa-mohaupt-platz 2", ["wilms gmbh"]),
    ("Ron Holst\nTegner\nmyhre og sønner\nHøyensgade 824", ["myhre og sønner"]),
    ("Jane Roe\nEditor\nKelley Group\n12 Main Street", ["Kelley Group"]),
    # a firm between commas of a block that goes on to an address
    (
        "john robertson, sports therapist, ward, hartman and hampton, 5/44 powell court",
        ["ward, hartman and hampton"],
    ),
    ("mervi niemelä, graafikko, rajala ry, malminkartanonkatu 405", ["rajala ry"]),
    # a firm line's legal forms are not cut as a clause ("as" of "as oy")
    (
        "veijo nurmi\ntaideamanuenssi\nniemelä salminen as oy\n17421 vöyri",
        ["niemelä salminen as oy"],
    ),
    # a legal form no English word is spelt as, in lower case, anywhere
    ("i work for bruno s.r.l. since 2019.", ["bruno s.r.l."]),
    ("i work for römer tlustek ohg mbh since 2019.", ["römer tlustek ohg mbh"]),
    ("we signed with schrempf & humer gmbh yesterday.", ["schrempf & humer gmbh"]),
    # surnames joined as firms are, in lower case, after a cue
    ("i work for kingston-mcbride since 2019.", ["kingston-mcbride"]),
    ("she came from pineda, ortiz and nielsen in may.", ["pineda, ortiz and nielsen"]),
    # a surname and "group" or "and sons" after a cue, in lower case
    ("my cousin works at kelley group in leeds", ["kelley group"]),
    ("we signed with myhre og sønner yesterday.", ["myhre og sønner"]),
]
NOT_FOUND = [
    "Green, Brown and White\nare the colours\nof the flag",  # English words listed
    "see you\nrock-solid\nsoon",  # two English words joined
    "Jean-Pierre\nMarie\nParis",  # a compound given name alone on a line
    "White-Campbell",  # a line alone: no block around it
    "the bag weighs 5 kg and costs less",  # "kg" only ends a firm line
    "we sat as a group and talked",  # "as", "group": words, not legal forms mid-sentence
    "Thanks and regards\nSales and Marketing\nTerms and Conditions",  # English word pairs
    "we talked about well-being at work",  # English words after a preposition
    "Mary and John\nwent home\nlate",  # two given names, no firm
    "anna smith, nurse, ward 5, floor 2",  # one surname between commas is no firm shape
    "we met with the group at noon",  # "group" after a common word
    "she came from home group meetings",  # "home" is a common word
]


@pytest.mark.parametrize(("text", "orgs"), FIND)
def test_block_organisations_found(text, orgs):
    assert sorted({text[f.start : f.end] for f in find_organisations(text)}) == orgs


@pytest.mark.parametrize("text", NOT_FOUND)
def test_not_block_organisations(text):
    assert find_block_organisations(text) == []


@pytest.mark.parametrize(
    ("line", "firm"),
    [
        ("Hawkins, Richardson and Santana", True),
        ("weeks-rivas", True),
        ("Gundersen BA", True),
        ("Banca Privada Pallarès y asociados S.A.", True),
        ("Jean-Pierre", False),
        ("Data Scientist", False),
        ("Research and Development", False),
        ("Ella Snider", False),  # a person's name: no join, no legal form
    ],
)
def test_firm_shape(line, firm):
    assert firm_shape(line) is firm


def test_a_lower_case_firm_is_kept_when_no_name_cuts_it():
    """An uncut find in lower case stays (before, only spans with a capital did), and a firm's
    first letter "s" is not taken for the "'s" of a possessive."""
    text = "we signed with schrempf & humer gmbh yesterday."
    found = Found(15, 36, "ORGANIZATION", 0.86)
    assert fit_around_persons(found, [(15, 23)], text) == found
    text = "--\nmatěj tůma\n>sýkora a.s.\n>vstupní 154"
    found = Found(15, 26, "ORGANIZATION", 0.86)
    assert fit_around_persons(found, [(3, 13)], text) == found


def test_a_signature_block_through_the_engine(english):
    text = "Best regards,\njake brown\n>petroleum engineer\n>thomas-weeks\n>level 7 6 brian siding"
    assert ("ORGANIZATION", "thomas-weeks") in found_entities(english, text)


def test_recall_on_generated_signature_blocks():
    """Share of firm lines of Faker signature blocks (name, job, company, address; ten locales;
    original, lower and Title case; lines joined by a new line or a quoted one) found whole.

    Measured 91 of 120 on seed 29 (42 of 120 without this module's rules) and 87 of 120 on
    seed 7: the misses are single surnames ("Mach", "Lemaire") that nothing tells from a person,
    and firms opened by a word of a locale ("gabinety wujec"). The floor 0.6 guards against
    regressions.
    """
    from faker import Faker

    locales = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "da_DK", "sv_SE")
    total = found = 0
    for locale in (*locales, "pl_PL"):
        fake = Faker(locale)
        fake.seed_instance(29)
        for i in range(12):
            company = fake.company()
            company = (company, company.lower(), company.title())[i % 3]
            sep = ("\n", "\n>")[i % 2]
            head = sep.join([fake.name(), fake.job()]) + sep
            text = head + company + sep + fake.address().replace("\n", sep)
            spans = {(f.start, f.end) for f in find_organisations(text)}
            total += 1
            found += (len(head), len(head) + len(company)) in spans
    assert found / total >= 0.6, found / total


@pytest.mark.parametrize(
    ("text", "persons", "orgs"),
    [
        # after a name line, before another name line or an address line
        (
            "Oline Mikaelsen\n>Roadify Transit\n>Oline Mikaelsen\n>772 ul. Narewska 94",
            [(0, 15), (34, 49)],
            ["Roadify Transit"],
        ),
        ("Ann Lee\nBlue Harbor Analytics\n12 Main Street", [(0, 7)], ["Blue Harbor Analytics"]),
        # the name repeated around it, the first taken for something else
        (
            "Gyala Antall\nFrontier Maps\nGyala Antall\n3369 Clarke Avenue",
            [(27, 39)],
            ["Frontier Maps"],
        ),
        # after a name and a job title line, before an address line
        (
            "Naomi Ryan\nSewer pipe cleaner\nHubbard Fox\n3747 Fourth Avenue",
            [(0, 10)],
            ["Hubbard Fox"],
        ),
        # the street before its number
        (
            "wiebke weber\nchirurgiemechaniker\naustermühle\npechelallee 3287",
            [(0, 12)],
            ["austermühle"],
        ),
    ],
)
def test_firm_lines_beside_names(text, persons, orgs):
    from anon_core.pii.org_lines import firm_lines_beside_names

    assert [text[f.start : f.end] for f in firm_lines_beside_names(text, persons)] == orgs


@pytest.mark.parametrize(
    ("text", "persons"),
    [
        ("John Smith\nBest Regards\n12 Main Street", [(0, 10)]),  # common words only
        ("Anna Weber\nCustomer Service\n12 Main Street", [(0, 10)]),  # words of offices
        ("Anna Weber\nData Scientist\n12 Main Street", [(0, 10)]),  # a job title
        ("Anna Weber\nFrontier Maps\nsee you", [(0, 10)]),  # no name or address after it
        ("Frontier Maps\nAnna Weber\n12 Main Street", [(14, 24)]),  # no name before it
        ("Anna Weber\nAcme Maps 2\n12 Main Street", [(0, 10)]),  # a digit: no firm line
        ("Anna Weber\nNurse\nSee You Soon\nRoom 5", [(0, 10)]),  # common words only
    ],
)
def test_no_firm_lines_beside_names(text, persons):
    from anon_core.pii.org_lines import firm_lines_beside_names

    assert firm_lines_beside_names(text, persons) == []
