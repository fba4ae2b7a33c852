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
        # a listed given name before a surname that is an English word too, where a name stands
        ("yesterday gareth hill called about the invoice.", "gareth hill"),
        ("the new tenant, carly green, pays on time.", "carly green"),
        ("gareth hill and eileen russell signed the lease.", "gareth hill"),
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
        ("whitespace characters and the sign-off were removed.", []),
        # two unknown words where no name stands (after "discussed", before "strategies")
        ("we discussed zorvad kemblitu strategies yesterday.", []),
        # code: a bracket or a colon glued to the words
        ("def zorvad(kemblitu): pass", []),
        (":param zorvad kemblitu: the size", []),
        # an English-word surname after a given name where no name stands ("gave ... apples")
        ("i gave carly green apples.", []),
        # a given name that is a place before an English-word surname
        ("the road from paris west and back", []),
        # text with capitals: the lower-case rule does not run
        ("The letter from zorvad kemblitu arrived.", []),
    ],
)
def test_lower_case_names_not_found(text, found):
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
