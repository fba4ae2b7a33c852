"""The phone extras recognizer reads its slashed and unbroken layouts only in texts holding a
slash or ten digits in a row (what each layout needs) and finds what it found reading them in
every text: hand-written numbers and generated texts compared with the loop it replaced."""

from __future__ import annotations

import random

from anon_core.pii import phone_layouts
from anon_core.pii.phone_layouts import glued_phone_spans, phone_extras_recognizer


def _reference(text: str) -> list[tuple[int, int, float]]:
    """The recognizer's three layouts, each pattern read over the whole text."""
    out = [(m.start(), m.end(), 0.6) for m in phone_layouts._NANP_SLASH.finditer(text)]
    out += [(a, b, 0.9) for a, b in glued_phone_spans(text)]
    out += [
        (m.start(), m.end(), 0.6)
        for m in phone_layouts._UNBROKEN_NATIONAL.finditer(text)
        if phone_layouts.uncued_national_phone(text, m.start(), m.end())
    ]
    return out


def _found(text: str) -> list[tuple[int, int, float]]:
    recognizer = phone_extras_recognizer("en")
    return [(r.start, r.end, r.score) for r in recognizer.analyze(text, ["PHONE_NUMBER"])]


def test_hand_written_layouts():
    text = "Desk 555-123-4567/4568, call083-4567-890 or 2025550143 today."
    assert [text[a:b] for a, b, _ in _found(text)] == [
        "555-123-4567/4568",
        "083-4567-890",
        "2025550143",
    ]
    assert _found("Nine digits 202555014 and 12/03/2024, no phone.") == []


def test_generated_texts_find_the_same():
    rng = random.Random(3)
    pieces = [
        "call",
        "Tel",
        "phone",
        "555-123-4567",
        "(202) 555-0143",
        "/4568",
        "/",
        "2025550143",
        "12025550143",
        "202555014",
        "Invoice",
        "total",
        "083-4567-890",
        "+44",
        "x",
        ".",
        "-",
        "7",
    ]
    found = 0
    for _ in range(600):
        text = "".join(rng.choice(pieces) + rng.choice(["", "", " ", ", "]) for _ in range(8))
        assert _found(text) == _reference(text), text
        found += len(_reference(text))
    assert found >= 100  # numbers are found, so the comparison is not empty
