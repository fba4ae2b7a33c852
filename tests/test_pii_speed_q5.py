"""Cheaper paths to the same places and streets: the post-box gate of the street finder
(:func:`anon_core.pii.addresses_fast.may_hold_box`) and the country-or-town recognizer's one
re-casing of each text, each compared with the code it stands for."""

from __future__ import annotations

import random

import pytest
import regex

from anon_core.pii import addresses, places
from anon_core.pii.address_parts import Found, states_with_postcode
from anon_core.pii.addresses_fast import BOX_PIECES, BOX_PIECES_CASED, may_hold_box


def _box_pattern():
    return addresses._patterns()["core"][6]


def test_every_case_blind_match_of_a_piece_letter_folds_to_it():
    """The gate's premise, over all of Unicode: a character the pattern's case-blind match takes
    for a letter of :data:`BOX_PIECES` case-folds to that letter (the long s "ſ" is an "s";
    ``str.lower`` would keep it, ``str.casefold`` does not)."""
    letters = sorted({c for piece in BOX_PIECES for c in piece if c.isalpha()})
    any_letter = regex.compile("(?i)[" + "".join(letters) + "]")
    taken = [chr(cp) for cp in range(0x110000) if any_letter.fullmatch(chr(cp))]
    assert "ſ" in taken and "B" in taken  # the check reads what it claims to
    for c in taken:
        for x in letters:
            if regex.fullmatch("(?i)" + x, c):
                assert c.casefold() == x, (c, x)


BOXES = [
    "P.O. Box 242",
    "PO BOX 7",
    "po box 19",
    "Postbox 53",
    "Postfach 12 34",
    "POSTFACH 9",
    "PSC 6477, Box 2981",
    "psc 12",
    "Apartado de Correos 7",
    "APARTADO 12",
    "casella postale 5",
    "Boîte postale 3",
    "BP 12",
    "b.p. 45",
    "B.P 3",
    "Unit 12",
    "USNS Smith",
    "USCGC Healy",
    "caſella poſtale 5",  # a long s read as an s by the case-blind match
    "Send it to P.O. Box 242, Springfield.",
]
NO_BOXES = [
    "",
    "Room 12, 3rd floor",
    "unit 12",  # "Unit" is case-sensitive
    "uss Enterprise",
    "a box of 12 apples",  # a piece is there: the gate lets the pattern decide
    "Nothing to see here 12 times.",
]


@pytest.mark.parametrize("text", BOXES)
def test_gate_lets_every_post_box_through(text):
    assert _box_pattern().search(text) is not None  # the pattern does match these
    assert may_hold_box(text)


def test_gate_shuts_text_without_any_piece():
    assert not may_hold_box("Ann Lee lives at 12 Main Street, Springfield 12345.")
    assert not may_hold_box("Room 12, 3rd floor")
    assert may_hold_box("a box of 12 apples")
    assert may_hold_box("USD 12")  # "US": the pattern decides
    assert set(BOX_PIECES_CASED) == {"Unit", "US"}


def _generated(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    pieces = [
        "P.O.", "Box", "box", "BOX", "po", "Post", "post", "fach", "FACH", "Apartado", "de",
        "Correos", "casella", "postale", "Boîte", "psc", "PSC", "B.P.", "bp", "b.p", "Unit",
        "unit", "USNS", "USS", "US", "Smith", "ſ", "ß", "12", "3", "2981", ",", "\n", "\t",
        "Main", "Street", "ok", "İ",
    ]  # fmt: skip
    out = []
    for _ in range(n):
        words = [rng.choice(pieces) for _ in range(rng.randint(1, 8))]
        seps = [rng.choice([" ", " ", "", "\t", ", "]) for _ in words]
        out.append("".join(w + s for w, s in zip(words, seps, strict=True)))
    return out


def test_gate_never_shuts_a_text_the_pattern_matches_generated():
    texts = _generated(7, 4000) + BOXES + NO_BOXES
    matched = 0
    for text in texts:
        if _box_pattern().search(text) is not None:
            matched += 1
            assert may_hold_box(text), text
    assert matched > 200  # the generated texts do hold post boxes


def test_street_cores_and_addresses_same_as_without_the_gate(monkeypatch):
    texts = _generated(11, 1500) + BOXES + NO_BOXES
    texts += [
        "Write to Ann Lee, P.O. Box 242, Springfield, IL 62701.",
        "Flat 8\nDay Summit",
        "She lives at 12 Kramer Court and works at Via Tasso 129.",
    ]
    pats = addresses._patterns()
    gated = [(list(addresses._cores(t, pats)), addresses.find_addresses(t)) for t in texts]
    monkeypatch.setattr(addresses, "may_hold_box", lambda text: True)  # the scan as it was
    plain = [(list(addresses._cores(t, pats)), addresses.find_addresses(t)) for t in texts]
    assert gated == plain
    assert sum(bool(c) for c, _ in gated) > 150


PLACE_TEXTS = [
    "paris, france",
    "i moved to lippstadt last year",
    "PARIS, FRANCE",
    "Everettside, Canada is where Bruce Stafford, Germany said hi.",
    "It rained in Harlev. Roccaforzata is lovely.",
    "Beverly Hills, CA 90210 and Lake Ritamouth Idaho",
    "Port Samantha, Maryland, Canada",
    "Kristina, Chad and Caleb went to Jordan.",
    "from lake deanmouth to Lewisfort",
    "",
]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_country_recognizer_same_as_its_finders_each_re_casing(language):
    """The recognizer re-cases each text once for the country and the town finders: the same
    spans as the public finders, each re-casing the text itself."""
    recognizer = places.country_recognizer(language)
    english = language == "en"
    for text in PLACE_TEXTS + _generated(3, 200):
        found = places.find_countries(text) + places.find_town_states(text)
        found += places.find_towns(text, english=english)
        found += [Found(a, b, places.COUNTRY_SCORE) for a, b in states_with_postcode(text)]
        expected = [(f.start, f.end, f.score) for f in places.union_of_overlaps(found)]
        got = [(r.start, r.end, r.score) for r in recognizer.analyze(text, ["LOCATION"])]
        assert got == expected, text
    spans = {
        text: [text[r.start : r.end] for r in recognizer.analyze(text, ["LOCATION"])]
        for text in PLACE_TEXTS[:2]
    }
    assert spans["paris, france"] == ["paris, france"]  # found on the re-cased text
    if english:
        assert spans["i moved to lippstadt last year"] == ["lippstadt"]
