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


def test_national_phone_check_order_gives_the_same_answers():
    """Asking Italy and Spain first finds a run valid exactly when the regions in their listed
    order do (the reference below), on Faker's numbers of several countries and random runs."""
    import phonenumbers
    from faker import Faker

    from anon_core.pii.recognizers import (
        MATCHER_PHONE_REGIONS,
        PHONE_REGIONS,
        national_phone_recognizer,
    )

    listed = [r for r in PHONE_REGIONS if r not in MATCHER_PHONE_REGIONS]

    def reference(pattern_text: str) -> bool | None:
        """The recognizer's check as it was: the regions in their listed order."""
        import re

        from anon_core.pii import recognizers as r

        value = pattern_text.strip()
        digits = re.sub(r"\D", "", value)
        if (
            not 8 <= len(digits) <= 13
            or r._NOT_A_PHONE.fullmatch(value)
            or r._DATE_FIRST.match(value)
            or r._THOUSANDS.fullmatch(value)
        ):
            return False
        for region in listed:
            try:
                number = phonenumbers.parse(value, region)
            except phonenumbers.NumberParseException:
                continue
            if phonenumbers.is_valid_number(number):
                return None
        return False

    recognizer = national_phone_recognizer("en")
    rng = random.Random(8)
    values = ["699 956 915", "347 123 4567", "0161 496 0753", "04 93 12 34 56", "12345678"]
    for locale in ("it_IT", "es_ES", "nl_NL", "de_AT", "sv_SE", "pl_PL", "en_IE", "fr_CH"):
        fake = Faker(locale)
        fake.seed_instance(8)
        values += [fake.phone_number() for _ in range(40)]
    values += [
        " ".join("".join(rng.choice("0123456789") for _ in range(rng.randint(2, 4))) for _ in "abc")
        for _ in range(200)
    ]
    kept = 0
    for value in values:
        answer = recognizer.validate_result(value)
        assert answer == reference(value), value
        kept += answer is None
    assert kept >= 100  # valid numbers are found, so the comparison is not empty
