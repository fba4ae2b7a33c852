"""Courtesy titles and ranks of every Faker locale right before a person's name (TITLE)."""

from __future__ import annotations

import pytest

from anon_core.pii.honorifics import honorific_spans, honorifics


def _titles(text: str, person: str) -> list[str]:
    start = text.index(person)
    spans = [(start, start + len(person), "PERSON", 0.85)]
    return [text[a:b] for a, b, _, _ in sorted(honorific_spans(text, spans))]


@pytest.mark.parametrize(
    "text, person, titles",
    [
        ("I met Sr. Anna Kowalczyk yesterday.", "Anna Kowalczyk", ["Sr."]),  # Spanish
        ("Ein Brief von Frau Ida Ott kam an.", "Ida Ott", ["Frau"]),  # German
        ("Please call Sig.ra Lucia Bianchi.", "Lucia Bianchi", ["Sig.ra"]),  # Italian
        ("Lt. Col. James Reed arrived.", "James Reed", ["Lt.", "Col."]),  # two in a row
        ("I spoke with Sir Edmund Hillary.", "Edmund Hillary", ["Sir"]),  # English, not in Faker
        ("Заявление подал г-н Иван Петров.", "Иван Петров", ["г-н"]),  # Russian
        ("The report by MAJ Tom Hale is late.", "Tom Hale", ["MAJ"]),  # a rank in capitals
    ],
)
def test_a_title_right_before_a_name_is_found(text, person, titles):
    assert _titles(text, person) == titles


@pytest.mark.parametrize(
    "text, person",
    [
        ("Anna de Smet wrote.", "Smet"),  # a name particle is no title
        ("The Sir said Anna Berg left.", "Berg"),  # a title not right before the name
        ("Write to Mrs.Anna Berg.", "Anna Berg"),  # glued: the recognizers' business
        ("The Colonel's son, Anna Berg, came.", "Anna Berg"),  # a comma between
    ],
)
def test_no_title_where_none_stands_right_before_the_name(text, person):
    assert _titles(text, person) == []


def test_a_title_already_covered_is_not_reported_again():
    text = "Dr. Ann Lee"
    spans = [(0, 3, "TITLE", 0.85), (4, 11, "PERSON", 0.85)]
    assert honorific_spans(text, spans) == []


def test_nothing_without_a_person():
    assert honorific_spans("Frau Ott", [(5, 8, "LOCATION", 0.85)]) == []


def test_the_titles_come_from_every_locale_less_particles():
    titles = honorifics()
    for title in ("Sr.", "Frau", "Dott.", "Sig.ra", "pani", "MAJ", "Sir", "г-н"):
        assert title in titles
    for particle in ("de", "van", "da", "del", "du"):
        assert particle not in titles


def test_the_engine_reports_a_title_and_the_name_after_it(english):
    from tests.conftest import found_entities

    found = found_entities(english, "The report by MAJ Tom Hale is late.")
    assert found == [("TITLE", "MAJ"), ("PERSON", "Tom Hale")]
    found = found_entities(english, "I spoke with Sir Edmund Hillary.")
    assert found == [("TITLE", "Sir"), ("PERSON", "Edmund Hillary")]


def test_a_title_that_is_also_a_name_suffix_does_not_break_the_name_rules(english):
    # "Sr." is Spanish "Señor" before a name and "Senior" after one: the name rules once failed
    # with an IndexError on the run it left empty
    from tests.conftest import found_entities

    found = found_entities(english, "I met Sr. Anna Kowalczyk yesterday.")
    assert ("PERSON", "Anna Kowalczyk") in found
    assert ("TITLE", "Sr.") in found


def test_a_person_span_starting_inside_a_title_starts_after_it():
    from anon_core.pii.honorifics import persons_after_titles

    text = "Data Entry Clerk Renee Reed called."
    spans = [(0, 16, "TITLE", 0.6), (11, 27, "PERSON", 0.9)]
    assert persons_after_titles(text, spans) == [(0, 16, "TITLE", 0.6), (17, 27, "PERSON", 0.9)]
    # a person span inside the title, or one that would keep no letter, is left as it is
    assert persons_after_titles("Head Nurse", [(0, 10, "TITLE", 0.6), (5, 10, "PERSON", 0.9)]) == [
        (0, 10, "TITLE", 0.6),
        (5, 10, "PERSON", 0.9),
    ]


def test_the_engine_keeps_both_the_title_and_the_name(english):
    from tests.conftest import found_entities

    found = found_entities(english, "Data Entry Clerk Renee Reed called.")
    assert found == [("TITLE", "Data Entry Clerk"), ("PERSON", "Renee Reed")]
