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


@pytest.mark.parametrize(
    "text, phone",
    [
        ("Call the Helsinki office on (+358) 666193451 today.", "(+358) 666193451"),
        ("Telefon: 03668/14538401, ab acht Uhr.", "03668/14538401"),
        ("Please call me at 9290810033 tomorrow.", "9290810033"),
        ("Ring me on 69 91 02 37 tomorrow.", "69 91 02 37"),  # the model reads a date in it
        ("You can reach me at 04.67.29.89.65 anytime.", "04.67.29.89.65"),  # "04.67.29" first
        ("I tried 495-461-1139 twice but nobody answered.", "495-461-1139"),  # 3-3-4, no cue
        ("86 9217-4218 is the number of the front desk.", "86 9217-4218"),
    ],
)
def test_bracketed_country_codes_slashes_unbroken_digits_and_folded_dates_are_found(
    english, text, phone
):
    assert ("PHONE_NUMBER", phone) in found_entities(english, text)


@pytest.mark.parametrize(
    "text",
    [
        "Call us on Monday, reference 20240312.",  # a compact date
        "Please call before 2024-03-12 10:30.",  # a date, then a time
        "The hotline was busy in 2019-2020 and in 2021 2022 2023.",  # years
        "Quote 29908100331 when you write to us.",  # unbroken digits, no phone cue
    ],
)
def test_dates_years_and_uncued_digit_runs_are_no_phones(english, text):
    assert "PHONE_NUMBER" not in {e for e, _ in found_entities(english, text)}


@pytest.mark.parametrize(
    "text, phone",
    [
        ("Please call me at +(370) 85167527 tomorrow.", "+(370) 85167527"),  # "+(" opening
        ("My phone number is +71(6)2021832200.", "+71(6)2021832200"),  # digits pass Luhn
        ("Try +43 792860909446 again later.", "+43 792860909446"),  # 12 digits in one group
        ("I tried 1-183-087-4161 twice but nobody answered.", "1-183-087-4161"),  # trunk 1, no cue
        ("Anyway, 8 (912) 345-06-06 belongs to the landlord.", "8 (912) 345-06-06"),  # trunk 8
        ("Details: 114-4269420; the rest is in the file.", "114-4269420"),  # 3-7, no cue
        ("Text me at 81980578179 when you land.", "81980578179"),  # "text me": a strong cue
    ],
)
def test_trunk_prefixes_long_groups_and_text_me_are_found(english, text, phone):
    assert ("PHONE_NUMBER", phone) in found_entities(english, text)


@pytest.mark.parametrize(
    "text",
    [
        "Logged at 2008-12-04 15:59:41.775200 by the server.",  # seconds and microseconds
        "The text of order 81980578179 is attached.",  # "text" without me/us: no strong cue
        "Room 8 (of 12) was booked.",  # a bracket after a number, too few digits
    ],
)
def test_timestamps_and_uncued_runs_are_no_phones(english, text):
    assert "PHONE_NUMBER" not in {e for e, _ in found_entities(english, text)}


@pytest.mark.parametrize(
    "text, phone",
    [
        ("My number is 1150008063.", "1150008063"),  # "number", 10 digits, no identifier word
        ("You can text 11500080634 anytime.", "11500080634"),
        ("number: 5150008063", "5150008063"),
    ],
)
def test_unbroken_national_numbers_after_a_weak_cue_are_found(english, text, phone):
    assert ("PHONE_NUMBER", phone) in found_entities(english, text)


@pytest.mark.parametrize(
    "text",
    [
        "His account number is 1150008063.",
        "Order number 1150008063 shipped on time.",
        "The policy number is 1150008063 since May.",
        "Your customer no. 1150008063 is on the invoice.",
    ],
)
def test_unbroken_numbers_near_an_identifier_word_are_no_phones(english, text):
    assert "PHONE_NUMBER" not in {e for e, _ in found_entities(english, text)}


#: Regions whose national formats the metadata-generated set takes (libphonenumber's example
#: fixed-line and mobile numbers of each, last four digits redrawn until valid again).
METADATA_REGIONS = (
    "US CA GB IE FR DE ES IT NL BE CH AT SE PL PT FI DK NO CZ SK HU RO GR BG HR SI EE LV LT AU "
    "NZ IN BR MX AR CL CO JP KR CN RU UA TR IL ZA PH TH ID IS LU MT CY"
).split()
#: Sentences written for the set: the first with a cue word, the others without.
METADATA_SENTENCES = (
    "My phone number is {}.",
    "I tried {} twice but nobody answered.",
    "The form lists {} next to her name.",
    "Anyway, {} belongs to the landlord.",
)


def test_national_and_international_formats_of_fifty_regions_are_covered(english):
    # 312 numbers: per region and number type, two national and one international form, mostly
    # without a cue word. Measured when written: 308 of 312 covered (the misses: 7-digit
    # Estonian and Icelandic numbers and an Argentine "011 15-..." with no cue); before the
    # trunk-before-bracket ("8 (912) ..."), "+(370)" and long-group rules 304 of 312. The
    # floor, 97%, leaves room for metadata changes in a newer phonenumbers.
    import random

    import phonenumbers as pn
    from phonenumbers import PhoneNumberType

    from anon_core.pii.scan import resolve_overlaps

    rnd = random.Random(7)
    cases = []
    for k, region in enumerate(METADATA_REGIONS):
        for kind in (PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE):
            example = pn.example_number_for_type(region, kind)
            if example is None:
                continue
            national = str(example.national_number)
            for i in range(3):
                for _ in range(50):
                    digits = "".join(rnd.choice("0123456789") for _ in range(4))
                    number = pn.parse(f"+{example.country_code}{national[:-4]}{digits}", None)
                    if pn.is_valid_number(number):
                        break
                form = (
                    pn.PhoneNumberFormat.NATIONAL if i < 2 else pn.PhoneNumberFormat.INTERNATIONAL
                )
                value = pn.format_number(number, form)
                sentence = METADATA_SENTENCES[0 if i == 1 else 1 + (k + kind) % 3]
                cases.append((sentence.format(value), value))
    results = english.analyze_batch([t for t, _ in cases])
    covered = 0
    for (text, number), res in zip(cases, results, strict=True):
        at = text.index(number)
        spans = [s for s in resolve_overlaps(res, text) if s.entity == "PHONE_NUMBER"]
        covered += any(s.start <= at and at + len(number) <= s.end for s in spans)
    assert len(cases) >= 300
    assert covered >= 0.97 * len(cases), f"{covered} of {len(cases)}"


#: Faker locales whose phone_number() formats the generated set takes.
PHONE_LOCALES = (
    "en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL", "pt_PT", "sv_SE",
    "da_DK", "fi_FI", "en_AU", "en_IN", "en_CA", "de_AT", "de_CH", "nl_BE", "fr_CH", "no_NO",
    "cs_CZ", "hu_HU", "ro_RO", "el_GR", "pt_BR", "es_MX", "en_NZ", "en_IE", "hr_HR", "sk_SK",
)  # fmt: skip
#: Sentences with a phone cue word, before or after the number.
PHONE_SENTENCES = (
    "Please call me at {} tomorrow.",
    "My phone number is {}.",
    "{} is the number of the front desk.",
    "You can reach Anna on {} after six.",
    "Ring {} if the parcel is late.",
    "Her mobile: {}, her office line is unknown.",
    "fax {} (accounts)",
    "Tel. {}",
)


def test_generated_phone_numbers_of_thirty_locales_are_covered(english):
    # 240 numbers: 8 per locale, each in a sentence with a cue word. Measured when written: 240
    # of 240 covered (before the bracketed country code, slash, unbroken-digit and folded-date
    # rules: 226). The floor, 98%, leaves room for formats a newer Faker adds.
    from faker import Faker

    from anon_core.pii.scan import resolve_overlaps

    cases = []
    for k, locale in enumerate(PHONE_LOCALES):
        fake = Faker(locale)
        fake.seed_instance(29)
        for i in range(8):
            number = fake.phone_number()
            cases.append((PHONE_SENTENCES[(i + k) % len(PHONE_SENTENCES)].format(number), number))
    results = english.analyze_batch([t for t, _ in cases])
    covered = 0
    for (text, number), res in zip(cases, results, strict=True):
        at = text.index(number)
        spans = [s for s in resolve_overlaps(res, text) if s.entity == "PHONE_NUMBER"]
        covered += any(s.start <= at and at + len(number) <= s.end for s in spans)
    assert covered >= 0.98 * len(cases), f"{covered} of {len(cases)}"
