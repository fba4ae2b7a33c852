"""Names after cue words, in lower-case text, as speakers and as repeated mentions; the model's
person and place spans reviewed; and words a careless rule would take for a name.

Every sentence is hand-written, the names invented or chosen so that the small English model
misses them. Each "found" sentence was missed before these rules (checked on the commit before
them); each "left alone" sentence holds a word a careless rule would tag: a role before a colon,
a phone cue, a station, a city after "to", lower-case English words that are given names too.
"""

from __future__ import annotations

import pytest

from anon_core.pii.name_lists import english_words
from anon_core.pii.name_review import review_entities
from anon_core.pii.names import (
    MEDIUM,
    STRONG,
    NameSpan,
    gazetteer,
)
from tests.conftest import found_entities


@pytest.mark.parametrize(
    "text, name",
    [
        ("What is your last name? Dravokel", "Dravokel"),  # after "name?"
        ("Surname: de Vries", "de Vries"),  # a particle opens the name
        ('Kasimir: "Who are you?"\nHeather:"I am your neighbour".', "Heather"),  # a speaker
        ("the true gender of bertram has been under debate for years.", "bertram"),
        ("i talked to tibor yesterday about the rent.", "tibor"),
        ("follow up with benjamin a seiler next week.", "benjamin a seiler"),
        ("It was a done thing between him and Franciska's kid.", "Franciska"),  # model: a place
        ("Magnus spent a year at the bakery.", "Magnus"),  # model: a place
        ("cormac had given cormac his address.", "cormac"),  # model: one long lower-case span
        ("Thank you, Dobrenka, for the flowers.", "Dobrenka"),  # model: a place; in no list
        ("Our new nurse, Gelvina, starts on Monday.", "Gelvina"),  # model: a place; in no list
    ],
)
def test_names_after_cues_in_lower_case_and_mislabelled_are_found(english, text, name):
    assert ("PERSON", name) in found_entities(english, text)


def test_a_surname_is_found_again_wherever_it_stands(english):
    text = "Songs by Dalvin K. Morastova are sad; early Morastova is better."
    found = found_entities(english, text)
    assert ("PERSON", "Dalvin K. Morastova") in found
    assert ("PERSON", "Morastova") in found  # the model called the second one a place


@pytest.mark.parametrize(
    "text",
    [
        "Bot: What's the name on the account?",  # a role, not a speaker's name
        "Agent: How can I help?\nCustomer: My card is blocked.",
        "Tel. 86/372 3669",  # a phone cue the model calls a person
        "Victoria Station was closed.",  # a place
        "The train to Paris leaves at noon.",  # a city that is a given name too
        "She moved to Houston in 2019.",  # a surname and a city, after "to"
        "we hope the bill will be paid by june.",  # lower case: "bill" is an English word
        "please mark the boxes with a red pen.",
        "Vitamin D Level is low.",  # a capital letter between two words is no middle initial
        "National Van Lines is the brainchild of our founders.",  # "Lines": an organisation
    ],
)
def test_words_that_are_no_names_stay_untagged(english, text):
    assert "PERSON" not in {e for e, _ in found_entities(english, text)}


# ----------------------------------------------------------------------------- review, no model
def test_review_cuts_a_person_at_a_colon_and_drops_identifier_words():
    text = 'Heather:"I\'m here". Tel'
    out = review_entities(text, [(0, 12, "PERSON", 0.85), (20, 23, "PERSON", 0.85)], [])
    assert out == [(0, 7, "PERSON", 0.85)]


def test_review_keeps_the_name_after_a_cue_and_a_colon():
    text = "Name:Ines Quinn"
    assert review_entities(text, [(0, 15, "PERSON", 0.85)], []) == [(5, 15, "PERSON", 0.85)]


def test_review_cuts_a_lower_case_person_at_a_common_word_only_in_lower_case():
    common = frozenset({"had", "and"})
    text = "cormac had given"
    assert review_entities(text, [(0, 16, "PERSON", 0.85)], [], common) == [(0, 6, "PERSON", 0.85)]
    text = "John and Mary Smith"  # capitalised: the model's span is kept whole
    assert review_entities(text, [(0, 19, "PERSON", 0.85)], [], common) == [(0, 19, "PERSON", 0.85)]


def test_review_turns_a_station_into_a_place_but_keeps_fletcher_hill():
    text = "Victoria Station or Fletcher Hill"
    out = review_entities(text, [(0, 16, "PERSON", 0.85), (20, 33, "PERSON", 0.85)], [])
    assert out == [(0, 16, "LOCATION", 0.85), (20, 33, "PERSON", 0.85)]


def test_review_turns_a_one_word_place_that_is_a_name_into_a_person():
    gaz = gazetteer()
    assert gaz.is_given("Magnus") and "magnus" not in gaz.places
    assert "paris" in gaz.places  # from the time zone database (Europe/Paris)
    text = "Magnus flew to Paris"
    out = review_entities(
        text, [(0, 6, "LOCATION", 0.85), (15, 20, "LOCATION", 0.85)], [], gaz.common, gaz
    )
    assert (0, 6, "PERSON", STRONG) in out and (15, 20, "LOCATION", 0.85) in out


def test_review_strips_a_possessive_before_claiming_an_organization_for_a_name():
    # the model: ORGANIZATION "Faina D. Yefremova's"; the name run: "Faina D. Yefremova"
    text = "verses from Faina D. Yefremova's tales"
    out = review_entities(
        text, [(12, 32, "ORGANIZATION", 0.85)], [NameSpan(12, 30, MEDIUM)], frozenset()
    )
    assert out == [(12, 30, "PERSON", 0.85)]


def test_review_drops_a_date_holding_a_phone_number():
    text = "ring 69 91 02 37 tomorrow, not on 12.03.2024 at 10:30"
    out = review_entities(text, [(5, 25, "DATE_TIME", 0.85), (34, 53, "DATE_TIME", 0.85)], [])
    assert out == [(34, 53, "DATE_TIME", 0.85)]


def test_english_words_come_from_the_installed_english_pipeline():
    words = english_words()
    if not words:
        pytest.skip("no spaCy English pipeline with lemmatizer tables installed")
    assert {"bill", "mark", "grace", "hunter"} <= words
    assert not {"bertram", "tibor", "frederikke"} & words


# ----------------------------------------------------------------------------- generated set
NAME_LOCALES = (
    "en_US",
    "de_DE",
    "fr_FR",
    "es_ES",
    "it_IT",
    "nl_NL",
    "sv_SE",
    "da_DK",
    "fi_FI",
    "pt_PT",
)
#: Sentences written for this test; {F} a given name, {L} a surname of the same locale.
NAME_SENTENCES = (
    "{F} {L} called about the invoice.",
    "{F} is very reliable, you can count on her.",
    "What is your last name? {L}",
    "Name: {F} {L}\nDate of birth: 12/03/1981",
    "{F}'s car was parked outside.",
    "{F}: Where are you?\nAnna: At home.",
    "Kind regards,\n{F} {L}\nSales manager",
    "please forward this to {f} {l} today.",
    "Ask {F} {L} about it; {L} knows the details.",
    "Thanks to {F} K. {L} for the photos.",
    "Is there a better song than the one by {F} {L}?",
    "The account holder is {F} {L}.",
)


def _generated_names() -> list[tuple[str, list[tuple[int, int]]]]:
    import re

    from faker import Faker

    out = []
    for k in range(60):
        fake = Faker(NAME_LOCALES[k % len(NAME_LOCALES)])
        fake.seed_instance(k)
        first, last = fake.first_name(), fake.last_name()
        values = {"F": first, "L": last, "f": first.lower(), "l": last.lower()}
        template = NAME_SENTENCES[k % len(NAME_SENTENCES)]
        text, spans, pos = "", [], 0
        for m in re.finditer(r"\{(\w)\}", template):
            text += template[pos : m.start()]
            spans.append((len(text), len(text) + len(values[m.group(1)])))
            text += values[m.group(1)]
            pos = m.end()
        out.append((text + template[pos:], spans))
    return out


def test_generated_names_of_ten_locales_are_covered(english):
    # 60 sentences, 107 name words (Faker's names: in the gazetteer, so this measures the rules
    # around it, not unseen names). Measured when written: 106 of 107 name words covered by a
    # found span (before the cue, lower-case, speaker and repeated-mention rules: 102, 95.3%).
    # The floor, 97%, allows two more misses for a newer Faker's names.
    import re

    from anon_core.pii.scan import resolve_overlaps

    cases = _generated_names()
    results = english.analyze_batch([t for t, _ in cases])
    total = covered = 0
    for (text, spans), res in zip(cases, results, strict=True):
        found = [(s.start, s.end) for s in resolve_overlaps(res, text)]
        for a, b in spans:
            for w in re.finditer(r"[^\W\d_]+", text[a:b]):
                total += 1
                covered += any(x <= a + w.start() and a + w.end() <= y for x, y in found)
    assert covered >= 0.97 * total, f"{covered} of {total}"


# ----------------------------------------------------------------------------- names no list knows
#: Names invented for this test (checked below to be in no list), where a name stands: listed,
#: after a verb. On the commit before the rule the engine left each of them verbatim (the small
#: model tags only "Randujo", as an organisation, which the rule leaves to it).
UNKNOWN_NAMES = [
    ("I met Margrota at the conference.", ["Margrota"]),
    ("Please add Pavrik, Kelomees and Randujo to the mailing list.", ["Pavrik", "Kelomees"]),
]


@pytest.mark.parametrize(("text", "names"), UNKNOWN_NAMES)
def test_a_capitalised_word_in_no_list_is_a_name(english, text, names):
    gaz, words = gazetteer(), english_words()
    if not words:
        pytest.skip("no spaCy English pipeline with lemmatizer tables installed")
    for name in names:  # the premise: no list knows these words
        assert not gaz.is_name(name) and name.lower() not in words | gaz.places
    found = found_entities(english, text)
    for name in names:
        assert ("PERSON", name) in found, found


@pytest.mark.parametrize(
    "text",
    [
        "Greetings from Toronto!",  # an inflected English word ("greeting"), a known city
        "Visit Paris in May.",  # a place of the lists
        "The NASA team met at noon.",  # all capitals: an acronym
        "Order the Model X200 today.",  # digits
    ],
)
def test_words_of_the_lists_are_not_taken_for_unknown_names(english, text):
    assert "PERSON" not in {e for e, _ in found_entities(english, text)}


def test_unknown_name_run_needs_every_word_unknown_or_a_name():
    from anon_core.pii.name_lists import unknown_name_run

    if not english_words():
        pytest.skip("no spaCy English pipeline with lemmatizer tables installed")
    known = {"reet"}.__contains__  # a stand-in gazetteer: "Reet" is a given name
    common = frozenset({"the"})
    assert unknown_name_run(["Reet", "Kasvomets"], known, common)  # a name and an unknown word
    assert unknown_name_run(["Kasvomets"], known, common)
    assert not unknown_name_run(["Reet"], known, common)  # a known name: the gazetteer's rules
    assert not unknown_name_run(["Kasvomets", "Bridge"], known, common)  # "bridge": a word
    assert not unknown_name_run(["Kasvomets", "Street"], known, common)  # a place word
    assert not unknown_name_run(["The", "Kasvomets"], known, common)  # a common word
    assert not unknown_name_run(["Berlin"], known, common)  # a place of the lists
    assert not unknown_name_run(["Reet"], lambda w: False, common)  # a place alone
    assert not unknown_name_run(["Ab", "Cd", "Ef", "Gh"], known, common)  # four words: too long
