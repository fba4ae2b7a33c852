"""The phone matchers sharing the region-independent steps (the candidate scan, the date and
time stamp skips, the checks before parsing) find what phonenumbers' own matcher finds."""

import random

import phonenumbers
import pytest

from anon_core.pii import phones_fast

REGIONS = ("US", "GB", "DE", "FR")
#: Hand-written texts for the shared steps: slash dates and time stamps (skipped), page
#: references, unmatched brackets, letters and currency signs around a number (rejected before
#: parsing), a second number after a slash (trimmed), and numbers of each region around them.
TEXTS = [
    "Seen 12/03/2024 and 3/4/21, then call 030 901820 or (415) 555-2671.",
    "Logged 2024-03-12 10:30 and 2024-03-12 10 then 020 7946 0958 at 20240312 09:15.",
    "See pages 12-15 (2003) and 1234-5678 (12); phone 01 42 68 53 00.",
    "Broken (030 901820 and 030) 901820 and [415] 555-2671 and (415) 555-2671.",
    "abc0309018203 0309018203def €030 901820 030 901820% £020 7946 0958 x020 7946 0958",
    "020 7946 0958 / 020 7946 0959 and 415-555-2671/2672 and 030 901820; 030 901821",
    "+44 20 7946 0958, 0044 20 7946 0958, 011 44 20 7946 0958 and 06 12 34 56 78.",
]


def plain(text: str, region: str) -> tuple[list[tuple], int]:
    matcher = phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID)
    found = [(m.start, m.end, m.raw_string, m.number) for m in matcher]
    return found, matcher._max_tries


def shared(text: str, interleaved: bool = False) -> dict[str, tuple[list[tuple], int]]:
    matchers = phones_fast.region_matchers(text, REGIONS, phonenumbers.Leniency.VALID)
    assert all(type(m) is not phonenumbers.PhoneNumberMatcher for m in matchers)
    found: dict[str, list[tuple]] = {region: [] for region in REGIONS}
    if interleaved:  # the regions' matchers in turn, one match each
        iterators = [iter(m) for m in matchers]
        live = list(zip(REGIONS, iterators, strict=True))
        while live:
            for region, it in list(live):
                match = next(it, None)
                if match is None:
                    live.remove((region, it))
                else:
                    found[region].append((match.start, match.end, match.raw_string, match.number))
    else:
        for region, matcher in zip(REGIONS, matchers, strict=True):
            found[region] = [(m.start, m.end, m.raw_string, m.number) for m in matcher]
    return {r: (found[r], m._max_tries) for r, m in zip(REGIONS, matchers, strict=True)}


@pytest.mark.parametrize("text", TEXTS)
def test_shared_steps_find_what_each_plain_matcher_finds(text):
    for interleaved in (False, True):
        got = shared(text, interleaved)
        for region in REGIONS:
            assert got[region] == plain(text, region), (region, interleaved)


def test_the_hand_written_texts_exercise_the_shared_steps():
    """Not vacuous: numbers are found, and the skips and checks reject some candidates."""
    assert [m[2] for m in plain(TEXTS[0], "DE")[0]] == ["030 901820"]
    assert [m[2] for m in plain(TEXTS[0], "US")[0]] == ["(415) 555-2671"]
    # the time stamp followed by ":30" is skipped, the one without minutes is not
    assert [m[2] for m in plain(TEXTS[1], "US")[0]] == ["2024-03-12 10"]
    assert [m[2] for m in plain(TEXTS[1], "GB")[0]] == ["020 7946 0958"]
    assert plain(TEXTS[4], "DE")[0] == []  # each number touches a letter or a sign
    assert plain(TEXTS[3], "US")[1] < 65535  # some candidates failed (the tries counted)


def _generated(rng: random.Random) -> str:
    pieces = [
        "030 901820", "(415) 555-2671", "020 7946 0958", "01 42 68 53 00", "+44 20 7946 0958",
        "12/03/2024", "2024-03-12 10", ":30", "12-15 (2003", "abc", "€", "%", "/", " ", ", ",
        "(", ")", "0", "1", "7", "00", "+", "x", "ext. 12", "\n", "Tel.", "9876543210",
    ]  # fmt: skip
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))


def test_shared_steps_on_generated_texts():
    rng = random.Random(29)
    for _ in range(300):
        text = _generated(rng)
        got = shared(text, interleaved=rng.random() < 0.5)
        for region in REGIONS:
            assert got[region] == plain(text, region), (text, region)
