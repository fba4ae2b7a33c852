"""Phone numbers found by their layout and a cue word, and numbers that must stay untouched.

Every sentence is hand-written, the numbers invented. The "found" formats (extensions, dots,
brackets, country codes with a trunk "(0)", numbers outside any assigned range) passed the
analyzer before the layout recognizer; the "left alone" sentences hold a date, an amount,
a card number, a ZIP code, an SSN and a time, each next to a phone cue word.
"""

from __future__ import annotations

import pytest

from anon_core.pii.recognizers import phone_layout_value_ok
from tests.conftest import found_entities


@pytest.mark.parametrize(
    "text, phone",
    [
        ("Please call me at 962.203.8876x4471 tomorrow.", "962.203.8876x4471"),
        ("Her desk line is (766)555-0148x302, ask for the clerk.", "(766)555-0148x302"),
        ("My number is +49(0) 016613186.", "+49(0) 016613186"),
        ("Please call me on 03 41 58 27 09 tomorrow.", "03 41 58 27 09"),
        ("Reach me on +3196-4418207 after six.", "+3196-4418207"),
        ("You can call 1 (197) 640-1195 any day.", "1 (197) 640-1195"),
        ("Tel 21 3304-7716 for the reception.", "21 3304-7716"),
        ("The clinic's number is (00471) 836920.", "(00471) 836920"),
        ("Call 612 845 309 ext. 27 if nobody answers.", "612 845 309 ext. 27"),
        ("Contact the office at (007) 5183926 during the week.", "(007) 5183926"),
    ],
)
def test_phone_layouts_arefound_entities(english, text, phone):
    assert ("PHONE_NUMBER", phone) in found_entities(english, text)


@pytest.mark.parametrize(
    "text",
    [
        "Please call before the hearing on 12-03-2024.",
        "The phone bill came to 1 234 567 in total.",
        "Call the bank: the number of visitors was 12.345.678 last year.",
        "Call us, quoting card 4539 1488 0343 6467.",
        "Phone the office in ZIP 94107 or 94107-1234.",
        "Call back at 10:30 on Monday.",
        "Her phone plan lists SSN 123-45-6789.",
        "The meeting room holds 120 people.",
    ],
)
def test_non_phones_next_to_phone_words_stay_untagged(english, text):
    assert not [v for kind, v in found_entities(english, text) if kind == "PHONE_NUMBER"]


@pytest.mark.parametrize(
    "value, ok",
    [
        ("962.203.8876x4471", True),  # 10 digits, extension not counted
        ("+33 1 23 45 67 89", True),
        ("12 34 56", False),  # 6 digits: too short
        ("4155550148", False),  # no separator, bracket or plus sign
        ("1234 5678 9012 3456 78", False),  # 18 digits: too long
        ("12.03.2024", False),  # date
        ("1 234 567", False),  # thousands grouping
        ("3782 822463 10005", False),  # 15 digits passing Luhn: an American Express card
        ("123-45-6789", False),  # SSN
        ("192.168.10.20", False),  # IPv4
    ],
)
def test_phone_layout_value_rules(value, ok):
    assert phone_layout_value_ok(value) is ok
