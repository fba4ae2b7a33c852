"""Name rules for lists, lower-case text, titles and speech verbs, and the review's boundary and
brand rules. Every name here is invented or common; expected spans are worked out by hand.

``find_names`` runs on spaCy's blank English tokenizer (no model), so each case tests the rule
alone; a few cases run the whole engine to check the rule survives the overlap resolution.
"""

from __future__ import annotations

import pytest

from anon_core.pii.name_review import review_entities
from anon_core.pii.names import MEDIUM, STRONG, WEAK, NameSpan, find_names, gazetteer
from tests.conftest import found_entities

spacy = pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def blank():
    return spacy.blank("en")


def _names(blank, text: str) -> list[str]:
    return sorted({text[n.start : n.end] for n in find_names(blank(text))})


@pytest.mark.parametrize(
    "text, expected",
    [
        # a lower-case list where most words are given names: the unknown word too
        ("they had 3: nina, vrelidsa and peter.", {"nina", "vrelidsa", "peter"}),
        # the serial comma
        ("we saw anna, peter, and vrelidsa there.", {"anna", "peter", "vrelidsa"}),
    ],
)
def test_lower_case_lists_of_given_names(blank, text, expected):
    assert expected <= set(_names(blank, text))


def test_a_lower_case_list_of_things_is_no_list_of_names(blank):
    assert _names(blank, "we bought apples, pears, bread and milk.") == []


@pytest.mark.parametrize(
    "text, name",
    [
        ("i talked to vrelidsa yesterday about the rent.", "vrelidsa"),  # in no list
        ("ask attila if the car is ready.", "attila"),  # a given name, an English word too
    ],
)
def test_lower_case_word_after_a_cue(blank, text, name):
    assert name in _names(blank, text)


def test_lower_case_cue_before_an_ordinary_word_finds_nothing(blank):
    assert _names(blank, "i talked to them yesterday and went to bed.") == []


def test_the_lower_case_cues_need_a_lower_case_text(blank):
    # capitalised text: the lower-case rules stay off ("to vrelidsa" is a typo there)
    assert "vrelidsa" not in _names(blank, "I talked to vrelidsa yesterday.")


def test_lower_case_given_name_then_a_word_in_no_list(blank):
    assert "veta kastrunek" in _names(blank, "veta kastrunek called twice.")
    assert _names(blank, "the table stood there twice.") == []


@pytest.mark.parametrize(
    "text, name",
    [
        ("Dale and White were precision engineers.", "White"),  # a surname and a common word
        ("Is it true? Park and Mann were precision engineers.", "Park"),
        ("Kastrunek and Pearson were precision engineers.", "Kastrunek"),  # in no list
        ("Kastrunek and Pearson were precision engineers.", "Pearson"),
    ],
)
def test_a_lone_surname_listed_with_a_name(blank, text, name):
    assert name in _names(blank, text)


def test_a_listed_word_followed_by_a_capitalised_word_is_no_lone_surname(blank):
    assert "White" not in _names(blank, "Dale and White House staff met.")
    assert _names(blank, "Bread and Milk were sold out.") == []


@pytest.mark.parametrize(
    "text, name",
    [
        ("I spoke with Mr Kastrunek about the bill.", "Kastrunek"),
        ("I spoke with Dr. Kastrunek about the bill.", "Kastrunek"),
        ("Bailly said the parcel never arrived.", "Bailly"),  # a surname before "said"
    ],
)
def test_a_title_or_a_speech_verb_marks_a_name(blank, text, name):
    assert name in _names(blank, text)


def test_no_title_and_no_speech_verb_no_lone_surname(blank):
    assert _names(blank, "Bailly bought the parcel.") == []
    assert _names(blank, "I spoke with Mr Big about the bill.") == []  # a common word


def test_a_name_run_replaces_the_models_shorter_name_inside_it():
    text = "User: Agnes Kastrunek"
    out = review_entities(text, [(6, 11, "PERSON", 0.85)], [NameSpan(6, 21, MEDIUM)])
    assert out == [(6, 21, "PERSON", 0.85)]


def test_a_name_inside_the_models_longer_name_adds_nothing():
    text = "Agnes Kastrunek"
    out = review_entities(text, [(0, 15, "PERSON", 0.85)], [NameSpan(0, 5, MEDIUM)])
    assert out == [(0, 15, "PERSON", 0.85)]


@pytest.mark.parametrize("word", ["Datamarket", "Hellowallet", "Powerstation"])
def test_two_english_words_run_together_are_a_brand(word):
    text = f"{word} hired a new cook."
    out = review_entities(text, [(0, len(word), "PERSON", 0.85)], [], gaz=gazetteer())
    assert out == [(0, len(word), "ORGANIZATION", 0.85)]


@pytest.mark.parametrize("word", ["Goldberg", "Kastrunek", "Blackwood", "Datamarketing-Smith"])
def test_surnames_are_no_brands(word):
    text = f"{word} hired a new cook."
    out = review_entities(text, [(0, len(word), "PERSON", 0.85)], [], gaz=gazetteer())
    assert out == [(0, len(word), "PERSON", 0.85)]


def test_a_lower_case_full_name_tags_its_other_mentions():
    text = "the verses of eric g. kastrunek were sung. early kastrunek was better."
    out = review_entities(text, [(14, 31, "PERSON", 0.85)], [], gaz=gazetteer())
    assert (49, 58, "PERSON", STRONG) in out
    # a single lower-case word found is no full name: its other mentions stay as they are
    text = "kastrunek sang. early kastrunek was better."
    out = review_entities(text, [(0, 9, "PERSON", 0.85)], [], gaz=gazetteer())
    assert out == [(0, 9, "PERSON", 0.85)]


def test_repeated_mentions_keep_word_edges():
    text = "Agnes Kastrunek wrote. Kastruneks and Kastrunek-Lee differ; Kastrunek agreed."
    out = review_entities(text, [(0, 15, "PERSON", 0.85)], [], gaz=gazetteer())
    assert sorted(out) == [(0, 15, "PERSON", 0.85), (60, 69, "PERSON", STRONG)]


@pytest.mark.parametrize(
    "text, name",
    [
        ("they had 3: nina, vrelidsa and peter.", "vrelidsa"),
        ("Dale and White were precision engineers.", "White"),
        ("Bailly said the parcel never arrived.", "Bailly"),
    ],
)
def test_the_rules_survive_the_engine(english, text, name):
    assert name in [t for _, t in found_entities(english, text)]


def test_weak_is_the_lower_case_score():
    assert WEAK < MEDIUM < STRONG


def _reviewed(text: str, word: str) -> list[tuple[str, str]]:
    """The review of a model PERSON span on ``word`` (first occurrence): (entity, text)."""
    start = text.index(word)
    out = review_entities(text, [(start, start + len(word), "PERSON", 0.85)], [], gaz=gazetteer())
    return [(e, text[a:b]) for a, b, e, _ in out]


@pytest.mark.parametrize(
    "text, town",
    [
        ("Suzanne Carre, née le 22/09/2001 à Lebrun, est suivie.", "Lebrun"),  # bare "à"
        ("Mme Hamel habite à Louis depuis 2001.", "Louis"),  # a place cue: even a given name
        ("Signé : Ines Leroy, Grondin, le 20/09/2001", "Grondin"),  # ", X, le <date>"
        ("Réunion à Pascal le 3 mai avec la direction.", "Pascal"),  # "à X le <date>"
        ("Les enfants sont inscrits à l'école de Masson.", "Masson"),
    ],
)
def test_a_french_place_cue_wins_over_the_surname(text, town):
    assert _reviewed(text, town) == [("LOCATION", town)]


def test_saint_joins_the_town():
    text = "Signé : Ines Leroy, Saint Roger, le 19/01/1992"
    assert _reviewed(text, "Roger") == [("LOCATION", "Saint Roger")]


@pytest.mark.parametrize(
    "text, name",
    [
        ("Merci d'adresser le courrier à Jean Dupont, 3 rue Blanche.", "Jean Dupont"),  # 2 words
        ("J'ai parlé à Louis hier soir.", "Louis"),  # a given name after a bare "à"
        ("Le dossier de Mme Hamel a été transmis.", "Hamel"),  # "de" alone is no place cue
        ("Signé : Ines Leroy, le 20/09/2001", "Ines Leroy"),  # no comma before the name
    ],
)
def test_french_names_without_a_place_cue_stay_persons(text, name):
    assert _reviewed(text, name) == [("PERSON", name)]


def test_an_english_word_after_a_capitalised_word_is_no_person():
    # the model's "Tales" of "Cautionary Tales": the title of a work
    text = "They sang the verses from Edi Vrelkovic's Cautionary Tales. Was it good?"
    assert _reviewed(text, "Tales") == []


@pytest.mark.parametrize(
    "text, word",
    [
        ("I wrote to Mr Tales about the bill.", "Tales"),  # after a title
        ("Then Tales wrote back.", "Tales"),  # no capitalised word before
        ("Ines Carpenter wrote back.", "Carpenter"),  # a surname of the gazetteer
    ],
)
def test_an_english_word_stays_a_person_after_a_title_or_alone(text, word):
    assert _reviewed(text, word) == [("PERSON", word)]


def test_a_name_run_replaces_the_models_organisation_inside_it():
    text = "User: Agnes Kastrunek"
    out = review_entities(text, [(6, 11, "ORGANIZATION", 0.85)], [NameSpan(6, 21, MEDIUM)])
    assert out == [(6, 21, "PERSON", MEDIUM)]
    # a weak name run does not: the model's label stays
    out = review_entities(text, [(6, 11, "ORGANIZATION", 0.85)], [NameSpan(6, 21, WEAK)])
    assert out == [(6, 11, "ORGANIZATION", 0.85)]


def test_a_model_name_ends_at_its_last_latin_word():
    text = "by Darijo Vrelkovic \u05d2\u20ac go figure"
    out = review_entities(text, [(3, 22, "PERSON", 0.85)], [])
    assert out == [(3, 19, "PERSON", 0.85)]


def test_a_given_name_and_a_surname_like_place_word(blank):
    assert "Fletcher Hill" in _names(blank, ">Fletcher Hill\n>Suite 727")
    assert _names(blank, ">Kastrunek Hill\n>Suite 727") == []  # no given name: a place


def test_a_given_name_that_is_a_place_in_a_lower_case_list(blank):
    assert "chad" in _names(blank, "they had 3: silvana, chad and caleb.")


def _generated_names(locales: list[str], n: int, seed: int) -> list[tuple[str, str]]:
    from faker import Faker

    fake = Faker(locales)
    fake.seed_instance(seed)
    out: list[tuple[str, str]] = []
    while len(out) < n:
        first, last = fake.first_name(), fake.last_name()
        if first.isalpha() and last.isalpha():
            out.append((first, last))
    return out


#: Sentences written for the rules above; the slot checked is the name of a locale the gazetteer
#: is built without (uf, us: Hungarian, Czech, Finnish, Croatian, Lithuanian), beside names of
#: locales it holds (sf, ss: English, German, French).
_GENERATED = (
    ("they had 3: {sf}, {uf} and {sf2}.", "uf"),
    ("i talked to {uf} yesterday.", "uf"),
    ("I spoke with Mr {us} about it.", "us"),
    ("{ss} said the parcel never arrived.", "ss"),
    ("{us} and {ss} were engineers.", "us"),
    ("{sf} {usl} called twice.", "usl"),
)


@pytest.mark.parametrize("template, slot", _GENERATED)
def test_recall_floor_on_names_the_gazetteer_has_not_seen(blank, template, slot):
    unseen_locales = ("hu", "cs", "fi", "tr", "hr", "sk", "sl", "lt", "lv", "et", "ro")
    gaz = gazetteer(unseen_locales)
    unseen = _generated_names(["hu_HU", "cs_CZ", "fi_FI", "hr_HR", "lt_LT"], 60, 5)
    seen = _generated_names(["en_US", "de_DE", "fr_FR"], 60, 6)
    hits = 0
    for i, ((uf, us), (sf, ss)) in enumerate(zip(unseen, seen, strict=True)):
        values = {
            "uf": uf.lower(), "us": us, "usl": us.lower(), "ss": ss, "sf": sf.lower(),
            "sf2": seen[(i + 1) % len(seen)][0].lower(),
        }  # fmt: skip
        text = template.format(**values)
        found = [text[n.start : n.end] for n in find_names(blank(text), gaz)]
        hits += any(values[slot] in f.split() for f in found)
    # Floor from a run on these seeds (Faker 40.63): 60 of 60 for the list, title and "said"
    # sentences, 58 of 60 for the others (a generated name that is an English word or a place:
    # the rules leave those alone by design). 54 of 60 (90%) leaves room for a Faker upgrade
    # changing a few names, and still fails if a rule stops working (it falls to near 0).
    assert hits >= 54, (template, hits)


def test_a_lower_case_list_with_one_given_name_and_words_in_no_list(blank):
    assert {"olga", "vrelidsa", "kastrunek"} <= set(
        _names(blank, "they had 3: olga, vrelidsa and kastrunek.")
    )
    # one given name among English words is no list of names
    found = set(_names(blank, "we had 3: olga, bread and cheese."))
    assert not {"bread", "cheese"} & found


@pytest.mark.parametrize(
    "text, name",
    [
        ("selma is from a small firm.", "selma"),  # a given name (a place too) as the subject
        ("vrelidsa had given the keys back.", "vrelidsa"),  # a word in no list
    ],
)
def test_a_lower_case_subject_before_is_or_had(blank, text, name):
    assert name in _names(blank, text)


def test_a_lower_case_english_subject_is_no_name(blank):
    assert _names(blank, "water is cold. bread had gone stale.") == []


def test_a_model_name_ends_at_a_spaced_dash():
    # the model's "Lori Miller - Corporate": a name holds no " - "; the title after it is a title
    text = "Lori Miller - Corporate investment banker"
    out = review_entities(text, [(0, 23, "PERSON", 0.85)], [])
    assert [(e, text[a:b]) for a, b, e, _ in out] == [("PERSON", "Lori Miller")]
    # a cue word before the dash: the name is after it
    text = "Name - Ines Quinn"
    out = review_entities(text, [(0, len(text), "PERSON", 0.85)], [])
    assert [(e, text[a:b]) for a, b, e, _ in out] == [("PERSON", "Ines Quinn")]
