"""Name shapes of the shape rules: a month that is a given name too before a surname ("April
Taylor"), Irish surnames with their particle ("Mac Giolla Mhóir", "Ó MADAIDHIN") and the Irish
"O'" in a name in capitals ("O'HIGGINS").

Expected spans are written by hand from the sentences; the gazetteer is Faker's (every locale).
"""

from __future__ import annotations

import pytest

spacy = pytest.importorskip("spacy")

from tests.conftest import names_found  # noqa: E402

_names = names_found  # the names the name rules find, distinct and sorted


@pytest.mark.parametrize(
    "text, name",
    [
        # a month that is a given name too, then a surname of the gazetteer
        ("The team is April Taylor, Joshua Haynes and Linda Monroe.", "April Taylor"),
        ("I met June Smith today.", "June Smith"),
        ("May Lee's car is outside.", "May Lee"),
        ("NAME: APRIL CAMPBELL", "APRIL CAMPBELL"),
        # Irish surnames with their particle, after a given name
        (">Rowena Mac Giolla Mhóir\n>Otc Markets", "Rowena Mac Giolla Mhóir"),
        ("Graham Mac an Déisigh called.", "Graham Mac an Déisigh"),
        ("Pierce Mac Eiteagáin", "Pierce Mac Eiteagáin"),
        ("ATTN: NOELEEN Ó MADAIDHIN", "NOELEEN Ó MADAIDHIN"),
        # the Irish O' in a name written in capitals
        ("ATTN: KRISTOPHER O'HIGGINS", "KRISTOPHER O'HIGGINS"),
    ],
)
def test_the_whole_name_is_found(text, name):
    assert name in _names(text)


@pytest.mark.parametrize(
    "text, word",
    [
        # a month after a date word, before a word that is no surname, or before a longer run
        ("May I ask you something?", "May"),
        ("We moved in April Taylor left soon after.", "April"),
        ("Since June Taylor has been away.", "June"),
        ("April Showers bring May flowers.", "April"),
        ("The shop on June Smith Street is closed.", "June"),
        # an Irish particle without a given name before it
        ("I bought a Mac Pro yesterday.", "Mac"),
    ],
)
def test_a_month_or_particle_is_no_name_here(text, word):
    assert not any(word in n for n in _names(text))
