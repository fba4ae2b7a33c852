"""Format-valid fake phone numbers: the original's country, length and layout.

The original's country is read from its country code (``+33 ...``, ``0033 ...``) or, written
nationally, from the first of :data:`~anon_core.pii.recognizers.PHONE_REGIONS` in which
libphonenumber (``phonenumbers``) calls it a valid number. The fake is then drawn

* from a range reserved for drama and fiction where the regulator publishes one:
  NANP (US, CA) ``NXX-555-0100`` to ``0199`` (NANPA); GB ``020 7946 0xxx`` and
  ``01xx 496 0xxx`` in eleven cities (Ofcom); FR ``01 99 00 xx xx`` (ARCEP);
* elsewhere, as a number of the same region and length that libphonenumber calls valid: the
  original's first digits (the operator or area range, shared by many subscribers) are kept and
  the rest drawn at random. Such a number is in an assigned range and may belong to someone: it
  is a realistic fake, not a reserved one.

The result keeps the original's layout (spaces, dashes, brackets) when it has as many digits;
otherwise it is written in the region's usual format. A number whose country cannot be told,
or without ``phonenumbers`` installed, keeps its shape with random digits (10 or 11 digits:
the NANP fiction range).
"""

from __future__ import annotations

import random
import re

from anon_core.pii.recognizers import PHONE_REGIONS

#: Area codes the NANP fiction numbers use (assigned geographic codes, so libphonenumber
#: validates the number; 555-01XX in any of them is reserved for fiction).
NANP_AREAS = ("201", "202", "212", "213", "303", "305", "312", "404", "415", "503", "602", "617")
#: Ofcom's drama numbers, as national significant number prefixes (each + 3 random digits).
GB_FICTION = (
    "2079460",
    "1134960",
    "1144960",
    "1154960",
    "1164960",
    "1174960",
    "1184960",
    "1214960",
    "1314960",
    "1414960",
    "1514960",
    "1614960",
)
#: ARCEP's numbers reserved for fiction (01 99 00 xx xx), national significant number prefix.
FR_FICTION = "19900"
TRIES = 40


def fill_digits(template: str, digits: str) -> str:
    """Put ``digits`` into the digit positions of ``template`` (layout kept)."""
    it = iter(digits)
    return "".join(next(it) if ch.isdigit() else ch for ch in template)


def _nanp(rng: random.Random) -> str:
    return f"{rng.choice(NANP_AREAS)}55501{rng.randint(0, 99):02d}"


def _parse(original: str):
    """(phonenumbers module, parsed number) of ``original``, or None when unknown.

    A nationally written number takes the first region where it is valid *and* written with
    that region's number of digits (its trunk prefix included): Spanish "699 956 915" is not
    read as a French mobile number without its leading 0."""
    try:
        import phonenumbers
    except ImportError:
        return None
    stripped = original.strip()
    if stripped.startswith(("+", "00")):
        text = "+" + stripped[2:] if stripped.startswith("00") else stripped
        try:
            number = phonenumbers.parse(text, None)
        except phonenumbers.NumberParseException:
            return None
        return (phonenumbers, number) if phonenumbers.is_valid_number(number) else None
    digits = re.sub(r"\D", "", original)
    for region in PHONE_REGIONS:
        try:
            number = phonenumbers.parse(original, region)
        except phonenumbers.NumberParseException:
            continue
        if not phonenumbers.is_valid_number(number):
            continue
        written = re.sub(
            r"\D", "", phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
        )
        if written == digits or (str(number.country_code) + written == digits):
            return phonenumbers, number
    return None


def _fake_nsn(ph, rng: random.Random, region: str, nsn: str) -> str | None:
    """A national significant number for ``region``: a fiction range, else a valid number
    sharing the original's first digits."""
    if region in ("US", "CA"):
        return _nanp(rng)
    if region == "GB" and len(nsn) == 10:
        prefix = GB_FICTION[0] if nsn.startswith("20") else rng.choice(GB_FICTION[1:])
        return prefix + f"{rng.randint(0, 999):03d}"
    if region == "FR" and len(nsn) == 9:
        return FR_FICTION + f"{rng.randint(0, 9999):04d}"
    keep = min(3, max(len(nsn) - 4, 1))
    code = ph.country_code_for_region(region)
    for _ in range(TRIES):
        candidate = nsn[:keep] + "".join(rng.choice("0123456789") for _ in nsn[keep:])
        if candidate == nsn:
            continue
        number = ph.parse(f"+{code}{candidate}", None)
        if ph.is_valid_number(number) and ph.region_code_for_number(number) == region:
            return candidate
    return None


def fake_phone(rng: random.Random, original: str) -> str:
    """A fake phone number of ``original``'s country and length (see the module's notes)."""
    digits = re.sub(r"\D", "", original)
    parsed = _parse(original)
    nsn = None
    if parsed is not None:
        ph, number = parsed
        region = ph.region_code_for_number(number)
        nsn = _fake_nsn(ph, rng, region, ph.national_significant_number(number))
    if nsn is None:  # country unknown: the old rules
        if len(digits) in (10, 11):
            return fill_digits(original, (digits[0] if len(digits) == 11 else "") + _nanp(rng))
        return "".join(rng.choice("0123456789") if c.isdigit() else c for c in original)
    fake = ph.parse(f"+{number.country_code}{nsn}", None)
    international = original.strip().startswith(("+", "00"))
    if international:
        written = ph.format_number(fake, ph.PhoneNumberFormat.INTERNATIONAL)
        prefix = "00" if original.strip().startswith("00") else ""
        candidate = prefix + re.sub(r"\D", "", written)
    else:
        written = ph.format_number(fake, ph.PhoneNumberFormat.NATIONAL)
        candidate = re.sub(r"\D", "", written)
        if len(digits) == len(candidate) + 1 and digits[0] == str(number.country_code):
            candidate = digits[0] + candidate  # "1 212 555 0147": NANP with its leading 1
    if len(candidate) == len(digits):
        return fill_digits(original, candidate)
    return ("00" + written[1:]) if international and original.strip().startswith("00") else written
