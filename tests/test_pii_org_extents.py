"""Where the NER model's organisation spans start and end (:func:`trim_organisation`), and the
organisation extents through the engine on sentences filled with Faker's company names.

Expected extents are written by hand from the sentence; the recall floor is derived from a run
and justified below.
"""

from __future__ import annotations

import pytest

from anon_core.pii.organisations import trim_organisation
from anon_core.pii.scan import resolve_overlaps


@pytest.mark.parametrize(
    "span, kept",
    [
        ("Company: Verdier S.A.S.", "Verdier S.A.S."),  # a cue and a colon before
        ("the Invoice to Stichting de Roo", "Stichting de Roo"),  # generic words, "to"
        ("Customer Success at Wilson Group", "Wilson Group"),
        ("the Sales Department of Hamilton Inc.", "Hamilton Inc."),  # two words before "of"
        ("The IT Department of van der Zijl NV", "van der Zijl NV"),
        ("Larsson & Davidsson AB, the Software Update", "Larsson & Davidsson AB"),  # a clause
        ("Pazdan-Karyś s.c. is on Maternity Leave", "Pazdan-Karyś s.c."),
        # the name itself
        ("The Department of Health", "The Department of Health"),  # one word before "of"
        ("University of Leeds", "University of Leeds"),
        ("Bank of America", "Bank of America"),
        ("Valdés y asociados S.A.", "Valdés y asociados S.A."),  # lower-case words of a firm
        ("Fazekas és társa Kft.", "Fazekas és társa Kft."),
        ("Hawkins, Richardson and Santana", "Hawkins, Richardson and Santana"),
    ],
)
def test_trimmed_extents(span, kept):
    start, end = trim_organisation(span, 0, len(span))
    assert span[start:end] == kept


def test_a_span_of_a_clause_only_is_emptied():
    start, end = trim_organisation("x is here", 1, 9)  # " is here": nothing before the clause
    assert start == end


# =============================================================================== generated set
#: Sentences written for this test: the company with "the" before it, "'s" after it, a comma
#: and a clause after it, generic capitalised words before it.
TEMPLATES = [
    "Please forward the Invoice to {company} by Friday.",
    "The IT Department of {company} will reset your Password.",
    "According to {company}, the Software Update fixes the Bug.",
    "The Project Manager at {company} is on Maternity Leave.",
    "{company}'s new CEO starts in March.",
    "I work in Customer Success at {company}.",
    "The Customer Service team at {company} will call you back.",
]
LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "da_DK", "sv_SE")


def _sentences(seed: int = 11, per_locale: int = 14):
    from faker import Faker

    out = []
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(seed)
        for i in range(per_locale):
            company = fake.company()
            head, _, tail = TEMPLATES[i % len(TEMPLATES)].partition("{company}")
            out.append((head + company + tail, len(head), len(head) + len(company)))
    return out


def _chars(text, start, end):
    return {i for i in range(start, end) if text[i].isalnum()}


def test_company_extents_on_generated_sentences(english):
    """Share of Faker company names whose ORGANIZATION span has a character IoU >= 0.9, and
    share of sentences with an ORGANIZATION or PERSON span over the generic capitalised words
    around the company ("Invoice", "IT Department", "Software Update", "Customer Service").

    Measured on 126 sentences (seed 11): 0.75 of the names found with the right extent (most
    of the rest are company names made of surnames, "Stevenson, Santos and Dean", "Millet",
    read as persons, which the type-agnostic count does not mind, and Spanish legal forms the
    list does not hold), and no sentence with a person or organisation span outside the
    company. The floors 0.65 and 0.05 guard the trimming and the generic-word review.
    """
    sentences = _sentences()
    results = english.analyze_batch([t for t, _, _ in sentences])
    right, generic = 0, 0
    for (text, start, end), res in zip(sentences, results, strict=True):
        spans = [s for s in resolve_overlaps(res, text) if s.entity == "ORGANIZATION"]
        gold = _chars(text, start, end)
        guess = set().union(
            *(_chars(text, s.start, s.end) for s in spans if s.start < end and start < s.end)
        )
        right += bool(guess) and len(gold & guess) / len(gold | guess) >= 0.9
        outside = [
            s
            for s in resolve_overlaps(res, text)
            if s.entity in ("ORGANIZATION", "PERSON") and (s.end <= start or s.start >= end)
        ]
        generic += bool(outside)
    assert right / len(sentences) >= 0.65, right / len(sentences)
    assert generic / len(sentences) <= 0.05, generic / len(sentences)
