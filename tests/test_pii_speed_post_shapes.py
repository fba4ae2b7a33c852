"""The reviewed shapes that let Presidio's date, IP address, MAC address, SSN and ITIN recognizers
skip a text (``PATTERN_SHAPES``): every match of every one of their patterns holds the shape, on
hand-written values and on generated ones (Faker's addresses and dates, random runs of digits,
hexadecimal letters and separators), and a recognizer with the prefilter finds what it finds
without it."""

from __future__ import annotations

import random

import pytest
import regex
from presidio_analyzer.predefined_recognizers import (
    DateRecognizer,
    IpRecognizer,
    MacAddressRecognizer,
    UsItinRecognizer,
    UsSsnRecognizer,
)

from anon_core.pii import speed
from anon_core.pii.speed_patterns import PATTERN_SHAPES, pattern_shape

CLASSES = [DateRecognizer, IpRecognizer, MacAddressRecognizer, UsSsnRecognizer, UsItinRecognizer]

HAND_WRITTEN = [
    "2024-03-12T10:30:00.123+01:00 2024-03-12T10:30:00Z 2024-03-12T10:30Z",
    "12/03/2024 3/7/24 2024/3/7 12-03-2024 31-12-2024 2024-12-31 31.12.2024 1.2.24",
    "12-JAN-2024 jan-24 DEC-2024 7-Mar 3/2024 12/24",
    "192.168.0.1 10.0.0.255/24 ::1 :: ::ffff:10.1.2.3 fe80::1%eth0 2001:db8::1 "
    "2001:0db8:85a3:0000:0000:8a2e:0370:7334 ::ffff:0:1.2.3.4 1:2:3:4:5:6:7:8 a::b",
    "01:23:45:67:89:ab 01-23-45-67-89-AB 0123.4567.89ab AA:BB:CC:DD:EE:FF",
    "078-05-1120 078 05 1120 078.05.1120 07805-1120 078-051120 078051120",
    "912-70-1234 912 70 1234 91270-1234 912-701234 912701234 999-88-1234",
    "no numbers here, just words: hello-world. a:b",
]


def _generated(seed: int, count: int) -> list[str]:
    """Texts of Faker's values and random runs of digits, hex letters and separators."""
    from faker import Faker

    fake = Faker("en_US")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    alphabet = "0123456789" * 3 + "abcdefABCDEF" + ":-./ " * 2 + "9TZ+%"
    texts = []
    for _ in range(count):
        values = [
            fake.ipv4(),
            fake.ipv4(network=True),
            fake.ipv6(),
            fake.mac_address(),
            fake.mac_address().replace(":", "-"),
            fake.date(pattern=rng.choice(["%m/%d/%Y", "%d.%m.%y", "%Y-%m-%d", "%d-%b-%Y"])),
            fake.iso8601(),
            fake.ssn(),
            fake.itin(),
            "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))),
        ]
        rng.shuffle(values)
        texts.append(" ".join(values[: rng.randint(1, len(values))]))
    return texts


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_match_holds_the_shape(cls):
    recognizer = cls()
    shape = pattern_shape(recognizer)
    assert shape is not None, "the installed Presidio's patterns are the reviewed ones"
    matched = 0
    for text in HAND_WRITTEN + _generated(7, 300):
        for pattern in recognizer.patterns:
            compiled = regex.compile(pattern.regex, recognizer.global_regex_flags)
            for m in compiled.finditer(text):
                if m.group():
                    matched += 1
                    assert shape.search(m.group()), (pattern.name, m.group())
    assert matched >= 20  # the values above are matched, so the check is not empty


def test_a_changed_pattern_gets_no_shape():
    from presidio_analyzer import Pattern

    changed = UsSsnRecognizer(patterns=[Pattern("any digits", r"\d+", 0.5)])
    assert pattern_shape(changed) is None
    assert set(PATTERN_SHAPES) == {c.__name__ for c in CLASSES}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_the_prefiltered_recognizer_finds_the_same(cls):
    plain, fast = cls(), cls()
    assert speed.add_prefilters([fast]) == 1
    texts = HAND_WRITTEN + _generated(11, 150) + ["Call me on 0161 496 0753 today.", ""]
    for text in texts:
        want = [(r.start, r.end, r.entity_type, r.score) for r in plain.analyze(text, None)]
        got = [(r.start, r.end, r.entity_type, r.score) for r in fast.analyze(text, None)]
        assert got == want, text
    # a phone, a name and an e-mail address hold none of the shapes
    assert fast.analyze("Anna Lee, 0161 496 0753, anna@example.com", None) == []


def _digit_runs(seed: int, count: int) -> list[str]:
    """Texts of runs of 5-18 digits, some after one or two letters, with spaces, dashes and
    punctuation between: long enough runs for bank accounts, passports and DEA numbers, and
    runs one digit short of them."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        pieces = []
        for _ in range(rng.randint(1, 6)):
            head = rng.choice(["", "", "A", "h", "AB", "Xy", "9", "id:"])
            digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(5, 18)))
            pieces.append(head + digits + rng.choice(["", "", ".", ",", "R", "-1", ")"]))
        texts.append(rng.choice([" ", "  ", "\n", " - "]).join(pieces))
    return texts


@pytest.mark.parametrize(
    "name", ["UsPassportRecognizer", "UsBankRecognizer", "MedicalLicenseRecognizer"]
)
def test_runs_of_long_digit_runs_find_the_same(name):
    import presidio_analyzer.predefined_recognizers as predefined

    cls = getattr(predefined, name)
    plain, fast = cls(), cls()
    assert speed.add_prefilters([fast]) == 1
    found = 0
    for text in _digit_runs(5, 400) + ["AB1234563 and 1234567 or 12345678 and C12345678"]:
        want = [(r.start, r.end, r.entity_type, r.score) for r in plain.analyze(text, None)]
        got = [(r.start, r.end, r.entity_type, r.score) for r in fast.analyze(text, None)]
        assert got == want, text
        found += len(want)
    assert found >= 20  # the recognizer finds values here, so the comparison is not empty
