"""The phone matcher sharing work between regions finds what phonenumbers' own matcher finds."""

import phonenumbers
import pytest

from anon_core.pii import phones_fast

REGIONS = ("US", "GB", "DE", "FR")
#: Hand-written texts: numbers with a plus and a known calling code, with an unknown or a zero
#: calling code (parsed again with the region's rules), national formats of each region, an
#: international prefix without a plus, full-width plus, dates and amounts next to numbers.
TEXTS = [
    "Call +44 20 7946 0958 or +33 1 42 68 53 00 today.",
    "US office (415) 555-2671, Berlin 030 901820, Paris 01 42 68 53 00, London 020 7946 0958.",
    "Dial +1 415-555-2671 ext. 12, then +49 30 901820 and +49 (0)30 901820.",
    "Unknown codes: +999 123 4567, +0 20 7946 0958, +011 44 20 7946 0958, +00 33 1 42 68 53 00.",
    "From the US dial 011 44 20 7946 0958; from Germany 0044 20 7946 0958.",
    "Full width \uff0b44 20 7946 0958 and +４４ ２０ ７９４６ ０９５８ in digits of another script.",
    "On 2024-03-12 we paid 1,234,567.00 EUR for order 4567 8901 2345; +33 6 12 34 56 78 twice: "
    "+33 6 12 34 56 78.",
    "abc+44 20 7946 0958def +44 20 7946 0958% $+44 20 7946 0958 (+44) 20 7946 0958",
    "+44 20 7946 0958/+44 20 7946 0959 and +1 (415) 555-2671 / 555-2672",
    "",
    "no digits at all",
]


def plain(text: str, region: str) -> list[tuple]:
    found = phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID)
    return [(m.start, m.end, m.raw_string, m.number) for m in found]


@pytest.mark.parametrize("text", TEXTS)
def test_region_matchers_find_what_each_plain_matcher_finds(text):
    matchers = phones_fast.region_matchers(text, REGIONS, phonenumbers.Leniency.VALID)
    assert phones_fast.shared_plus_matcher_class() is not None  # the reviewed version is installed
    for region, matcher in zip(REGIONS, matchers, strict=True):
        found = [(m.start, m.end, m.raw_string, m.number) for m in matcher]
        assert found == plain(text, region), region


def test_the_plain_texts_hold_phones_of_several_regions():
    """The identity above is not vacuous: regions find different numbers in these texts."""
    assert len(plain(TEXTS[1], "US")) == 1 and len(plain(TEXTS[1], "DE")) >= 1
    assert plain(TEXTS[0], "FR") == plain(TEXTS[0], "US") != []


def test_known_calling_code_is_libphonenumbers_list():
    assert phones_fast.known_calling_code("+44 20 7946 0958")
    assert phones_fast.known_calling_code("+1 415")
    assert phones_fast.known_calling_code("\uff0b33 1")
    assert not phones_fast.known_calling_code("+999 1234")  # 9, 99, 999: no country's code
    assert not phones_fast.known_calling_code("+0 20 7946")
    assert not phones_fast.known_calling_code("0044 20 7946 0958")  # no plus sign
    assert not phones_fast.known_calling_code("+")


def test_another_phonenumbers_version_gets_the_plain_matcher(monkeypatch):
    monkeypatch.setattr(phones_fast, "REVIEWED_PHONENUMBERS", "0" * 16)
    phones_fast.shared_plus_matcher_class.cache_clear()
    try:
        matchers = phones_fast.region_matchers(TEXTS[0], REGIONS, phonenumbers.Leniency.VALID)
        assert all(type(m) is phonenumbers.PhoneNumberMatcher for m in matchers)
    finally:
        monkeypatch.undo()
        phones_fast.shared_plus_matcher_class.cache_clear()


def test_another_leniency_gets_the_plain_matcher():
    matchers = phones_fast.region_matchers(TEXTS[0], REGIONS, phonenumbers.Leniency.POSSIBLE)
    assert all(type(m) is phonenumbers.PhoneNumberMatcher for m in matchers)
