"""English sentences with foreign names, streets and towns stay English: the detector reads the
names and places, the small words of the sentence say English ("is", "his", "had", "my")."""

from __future__ import annotations

import pytest

from anon_core.pii.language import detect_language, detector_available

pytestmark = pytest.mark.skipif(not detector_available(), reason="Lingua is not installed")


@pytest.mark.parametrize(
    "text",
    [
        "Luiza is from Xignite",
        "Hakuba had given me his address: 12 Rua Cidade de Maracajá, Joinville",
        "cormac had given me his address: 36 rue de pologne, cite de l'interieur",
        "Is there a better song? Sumarliðason and Vargas were precision engineers.",
        # no small word of either language (a name and an address): unsure, so English
        "Maureen Thibault\n41086 Kiannonkatu 98\nSuite 464\nOULU\nFinland 80896",
    ],
)
def test_english_with_foreign_names_is_english(text):
    assert detect_language(text) == "en"


@pytest.mark.parametrize(
    "text, code",
    [
        ("Suzanne Carre, née le 22/09/2001 à Lebrun, est suivie par le docteur.", "fr"),
        ("Merci d'adresser le courrier à Jean Dupont, 3 rue Blanche.", "fr"),
        ("Der Patient wurde gestern in das Krankenhaus gebracht.", "de"),
        # an English name in French text: the French small words outnumber ("and" is alone)
        ("Bonjour, je suis Jack and je travaille à Lyon pour la mairie.", "fr"),
    ],
)
def test_other_languages_keep_their_detection(text, code):
    assert detect_language(text) == code
