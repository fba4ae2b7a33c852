"""Names found by where they stand (:mod:`anon_core.pii.name_context`): two or three name words
in text written all in lower case, and a lone surname opening a sentence before a verb.

Expected spans are written by hand from the sentences; the gazetteer is Faker's (every locale).
"Zorvad Kemblitu" is made up: in no name list and no English word.
"""

from __future__ import annotations

import pytest

spacy = pytest.importorskip("spacy")

from anon_core.pii.name_context import context_names  # noqa: E402
from anon_core.pii.name_review import review_entities  # noqa: E402
from anon_core.pii.names import NOT_NAME_WORDS, find_names, gazetteer  # noqa: E402


def _names(text: str) -> list[str]:
    doc = spacy.blank("en")(text)
    return sorted({text[n.start : n.end] for n in find_names(doc)})


def _context(text: str, english: bool = True) -> list[str]:
    return [text[a:b] for a, b in context_names(text, gazetteer(), NOT_NAME_WORDS, english)]


@pytest.mark.parametrize(
    "text, name",
    [
        # a listed given name and a listed surname, neither an English word: anywhere
        ("the payment was made by sergio hughes on monday.", "sergio hughes"),
        ("eszter biró works as a pharmacist.", "eszter biró"),
        # two words no list knows, where a name stands: after "from", before "arrived"
        ("the letter from zorvad kemblitu arrived on tuesday.", "zorvad kemblitu"),
        # a line of its own opening an address block
        (
            "zorvad kemblitu\nmedical physicist\nbeard and sons\n187 lambert highway",
            "zorvad kemblitu",
        ),
        ("the new tenant, zorvad kemblitu, pays on time.", "zorvad kemblitu"),
        ("i met zorvad kemblitu at the station.", "zorvad kemblitu"),
        ("hello, this is zorvad kemblitu from the bank.", "zorvad kemblitu"),
        ("please email zorvad kemblitu for the keys.", "zorvad kemblitu"),
        # a listed given name before a surname that is an English word too, where a name stands
        ("yesterday gareth hill called about the invoice.", "gareth hill"),
        ("the new tenant, carly green, pays on time.", "carly green"),
        ("gareth hill and eileen russell signed the lease.", "gareth hill"),
        # particles between the words, a given name of two listed parts joined by a hyphen
        ("the new tenant, georges de smet, pays on time.", "georges de smet"),
        ("please send the forms to caio da costa, 12 main street", "caio da costa"),
        ("yesterday anna-liisa ojala called about the invoice.", "anna-liisa ojala"),
        # a given name that is an English word, a listed surname that is none, where a name stands
        ("hope oshodi (naval architect)", "hope oshodi"),
    ],
)
def test_lower_case_names_found(text, name):
    assert name in _context(text)
    assert name in _names(text)


@pytest.mark.parametrize(
    "text, found",
    [
        # English words, plurals and words joined by a hyphen with an English part
        ("the letter from the bank arrived on tuesday.", []),
        ("the aes keys, the fars rows and the sets:", []),
        # irregular and other inflected forms ("went", "having", "copies", "formatted")
        ("and then mdav went, and so on.", []),
        ("is having copies of the formatted traceback for the log.", []),
        ("whitespace characters and the sign-off were removed.", []),
        # two unknown words where no name stands (after "discussed", before "strategies")
        ("we discussed zorvad kemblitu strategies yesterday.", []),
        # code: a bracket or a colon glued to the words
        ("def zorvad(kemblitu): pass", []),
        (":param zorvad kemblitu: the size", []),
        # an English-word surname after a given name where no name stands ("gave ... apples")
        ("i gave carly green apples.", []),
        # an English-word given name before a listed surname where no name stands
        ("we hope oshodi street stays open.", []),
        # a particle alone is no name word ("the van driver")
        ("the van driver arrived at noon.", []),
        # a given name that is a place before an English-word surname
        ("the road from paris west and back", []),
        # text with capitals: the lower-case rule does not run
        ("The letter from zorvad kemblitu arrived.", []),
    ],
)
def test_lower_case_names_not_found(text, found):
    assert _context(text) == found


@pytest.mark.parametrize(
    "text, found",
    [
        # a line of a surname, a comma and a given name, above a job title
        ("virtanen, pirjo\nnurse", ["virtanen, pirjo"]),
        ("zorvad, pirjo\ngraphic designer", ["zorvad, pirjo"]),  # a word in no list, a given name
        ("green, fernando\njewellery designer", ["green, fernando"]),  # an English-word surname
        # two words in no list, English words, one line only, or more words on the line
        ("json, yaml\nformats", []),
        ("apples, pears\nand more", []),
        ("virtanen, pirjo", []),
        ("virtanen, pirjo and more\nnurse", []),
    ],
)
def test_comma_lines(text, found):
    assert _context(text) == found


def test_lower_case_names_english_only():
    """A text in another language: its words are no English words, so no rule runs."""
    assert _context("la lettre de zorvad kemblitu est arrivée.", english=False) == []


def test_lower_case_name_beats_the_models_piece():
    """The model's organisation "sergio" inside the lower-case name found: the whole name is the
    person (the name is no longer a weak one that the model's piece outranks)."""
    text = "the payment was made by sergio hughes on monday."
    doc = spacy.blank("en")(text)
    reviewed = review_entities(
        text, [(24, 30, "ORGANIZATION", 0.85)], find_names(doc), gazetteer().common, gazetteer()
    )
    assert (24, 37, "PERSON") in [(a, b, e) for a, b, e, _ in reviewed]


@pytest.mark.parametrize(
    "text, found",
    [
        ("Almeida has moved to Porto.", ["Almeida"]),
        ("The contract ended. Soares was told on Monday.", ["Soares"]),  # not "soar" + "es"
        ("Paris is lovely in spring.", []),  # a place
        ("White has won the game.", []),  # an English word
        ("Victoria has moved to Leeds.", []),  # a given name
        ("We met Almeida has moved", []),  # no sentence start
        ("almeida has moved to porto.", []),  # lower case: the pair rule's text, one word
    ],
)
def test_opening_surnames(text, found):
    assert _context(text) == found


@pytest.mark.parametrize(
    "text, found",
    [
        # a sentence written in title case: a given name then a surname inside the long run
        ("Follow Up With Patricia Desrosiers In A Couple Of Months.", ["Patricia Desrosiers"]),
        ("Local Man Rudi Kraus Wins The Award", ["Rudi Kraus"]),
        ("I Met Cathy Stuart At The Station.", ["Cathy Stuart"]),  # "stuart" is in WordNet
        ("I Met Tyler Rose At The Station.", []),  # both English words (and "rose" common)
        # common or English words only; a run of four words is the run rules' own
        ("The Grace Period Ends On Monday Morning", []),
        ("Measured On The Evaluation Corpus Of Presidio", []),
        ("We met Patricia Desrosiers today.", []),
    ],
)
def test_title_case_names(text, found):
    assert _context(text) == found


#: Frames for the generated set below, in lower case like the corpus's lower-cased sentences.
_FRAMES = (
    "the letter from {n} arrived on tuesday.",
    "{n}\nmedical physicist\nbeard and sons",
    "i met {n} at the station.",
    "the new tenant, {n}, pays on time.",
    "{n} and {m} signed the lease.",
    "yesterday {n} called about the invoice.",
)
_LOCALES = (
    "fi_FI",
    "et_EE",
    "hu_HU",
    "pl_PL",
    "pt_BR",
    "tr_TR",
    "yo_NG",
    "de_DE",
    "es_ES",
    "nl_NL",
)


def test_lower_case_names_of_locales_left_out():
    """Word recall of lower-case Faker names of ten locales that the gazetteer leaves out, so
    most of their words are in no list. A run gave 386 of 442 words (0.87) with these rules and
    212 (0.48) without them; the floor 0.8 leaves room for another Faker release's names."""
    faker = pytest.importorskip("faker")
    gaz = gazetteer(tuple(loc[:2] for loc in _LOCALES))
    nlp = spacy.blank("en")
    total = found = 0
    for loc in _LOCALES:
        fake = faker.Faker(loc)
        fake.seed_instance(29)
        for frame in _FRAMES:
            for _ in range(3):
                n, m = (f"{fake.first_name()} {fake.last_name()}".lower() for _ in range(2))
                text = frame.format(n=n, m=m)
                spans = find_names(nlp(text), gaz)
                for name in [n, m] if "{m}" in frame else [n]:
                    at = text.index(name)
                    for w in name.split():
                        a = at + name.index(w)
                        total += 1
                        found += any(s.start < a + len(w) and a < s.end for s in spans)
    assert total > 400
    assert found / total >= 0.8, (found, total)
