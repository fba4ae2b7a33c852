"""Names of Faker's many locales in the frames of real documents: in capitals with a given name
or a surname that is also a common word, a given name that is an English word before a surname,
Irish "O'" and "Ó", Romanian "ș"/"ț", and two name pieces found apart joined into one.

Expected spans are written by hand from the sentences; the gazetteer is Faker's (every locale).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

spacy = pytest.importorskip("spacy")

from anon_core.pii.name_review import review_entities  # noqa: E402
from anon_core.pii.name_shapes import merge_overlapping  # noqa: E402
from anon_core.pii.names import NameSpan  # noqa: E402
from tests.conftest import names_found  # noqa: E402

_names = names_found  # the names the name rules find, distinct and sorted


@pytest.mark.parametrize(
    "text, name",
    [
        # capitals: "pierre" is a French word (common), "hermann" a surname
        ("NAME: PIERRE HERMANN", "PIERRE HERMANN"),
        # capitals: a given name, and a surname that is an English word, the two alone
        ("NAME: LESLIE BEST", "LESLIE BEST"),
        # capitals: a given name, and a word in no list and no English word
        ("NAME: ALEKSANDER KOSZ", "ALEKSANDER KOSZ"),
        # a given name that is an English word, then a surname: alone on a line, in a list,
        # after a sign-off
        ("Peace Ekwueme\n\n20789 Main Street, Suite 4", "Peace Ekwueme"),
        ("The team is Margaret Adams and Peace Okafor.", "Peace Okafor"),
        ("Thanks, Hope Oyekan", "Hope Oyekan"),
        # Irish "O'" and "Ó", Romanian "ș"
        (">Mairead O'Driscoll\n>Otc Markets", "Mairead O'Driscoll"),
        (">Corinna Ó Macháin\n>Otc Markets", "Corinna Ó Macháin"),
        (">Tiberia Nemeș\n>Otc Markets", "Tiberia Nemeș"),
        # a hyphened given name: the pieces found apart are joined
        (">Heinz-Joachim Rose\n>Otc Markets", "Heinz-Joachim Rose"),
    ],
)
def test_the_whole_name_is_found(text, name):
    found = _names(text)
    assert name in found, found


@pytest.mark.parametrize(
    "text",
    [
        "GRACE PERIOD ENDS SOON",  # "soon" is listed as a surname, but in a run of four words
        "ROMAN EMPIRE HISTORY",  # "roman" a common word, "empire" no surname
        "BEST PRICE GUARANTEED",  # no given name first
        "April showers bring May flowers.",  # a month and no surname after it
        "Hope Street is closed.",  # "Street": a place word
    ],
)
def test_words_that_name_nobody(text):
    assert _names(text) == []


def test_overlapping_pieces_are_joined_with_the_higher_score():
    spans = [
        SimpleNamespace(start=10, end=20, score=0.7),
        SimpleNamespace(start=0, end=12, score=0.9),
    ]
    spans.append(SimpleNamespace(start=20, end=25, score=0.5))  # touching, not overlapping
    assert merge_overlapping(spans) == [(0, 20, 0.9), (20, 25, 0.5)]


def test_a_model_name_covering_a_stronger_run_takes_its_score():
    # the model's "Georgia Storey" (0.85) covers the run "Georgia Storey" (0.9): the span keeps
    # the model's extent with 0.9, so a place rule's "Thanks, Georgia" (0.86) no longer wins
    text = "Thanks, Georgia Storey"
    out = review_entities(text, [(8, 22, "PERSON", 0.85)], [NameSpan(8, 22, 0.9)])
    assert out == [(8, 22, "PERSON", 0.9)]


@pytest.mark.parametrize(
    "text, name",
    [
        # lower case: a given name, a middle initial, a word in no English word list
        ("leidy t muris\nlabor relations director", "leidy t muris"),
    ],
)
def test_a_lower_case_name_with_a_middle_initial(text, name):
    assert name in _names(text)


@pytest.mark.parametrize(
    "text",
    ["maria a lot of work", "tell maria a story about paris"],  # "a" before an English word
)
def test_a_given_name_before_an_article_and_an_english_word_is_no_full_name(text):
    assert not [n for n in _names(text) if " a " in n]


def test_words_in_capitals_no_list_knows_after_a_name_cue_are_a_name():
    # made-up words in no name list (the capitals rule needs a listed given name)
    assert "DERGOR LOKOPEL" in _names("NAME: DERGOR LOKOPEL")


@pytest.mark.parametrize(
    "text",
    [
        "File name: README",  # one word in capitals alone
        "Name: UNKNOWN",  # an English word
        "Product name: USB CABLE",  # "CABLE" an English word ends the run: "USB" alone
    ],
)
def test_words_in_capitals_after_a_name_cue_that_name_nobody(text):
    assert _names(text) == []
