"""Check digits of payment card numbers (Luhn) and IBANs (ISO 13616, MOD 97-10), and the IBAN
formats of the countries whose data this workbench meets.

The IBAN formats are SWIFT's IBAN registry's BBAN formats: ``n`` digits, ``a`` upper-case
letters, ``c`` letters or digits, each with its count (``"4a14n"``: four letters, 14 digits).
"""

from __future__ import annotations

import re

#: BBAN format per country (SWIFT IBAN registry); the IBAN is country + 2 check digits + BBAN.
IBAN_BBAN_FORMATS = {
    "AT": "16n",
    "BE": "12n",
    "CH": "5n12c",
    "DE": "18n",
    "DK": "14n",
    "ES": "20n",
    "FI": "14n",
    "FR": "10n11c2n",
    "GB": "4a14n",
    "IE": "4a14n",
    "IT": "1a10n12c",
    "LU": "3n13c",
    "NL": "4a10n",
    "NO": "11n",
    "PL": "24n",
    "PT": "21n",
    "SE": "20n",
}


def luhn_check_digit(payload: str) -> str:
    """The Luhn digit that makes ``payload + digit`` valid (ISO/IEC 7812-1 annex B)."""
    total = 0
    for i, ch in enumerate(reversed(payload)):
        d = int(ch)
        if i % 2 == 0:  # doubled: every second digit counting from the check digit's left neighbour
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def luhn_valid(number: str) -> bool:
    digits = re.sub(r"\D", "", number)
    return len(digits) >= 2 and luhn_check_digit(digits[:-1]) == digits[-1]


#: Maestro's issuer prefixes (ISO/IEC 7812 IINs 50 and 56-69, and the legacy UK 0604): the
#: only cards issued with 12 digits. Faker's ``maestro`` cards have 12 digits with these prefixes.
_MAESTRO_12 = re.compile(r"(?:50|5[6-9]|6\d|0604)\d+")


def card_number_valid(number: str) -> bool:
    """Whether the digits of ``number`` can be a payment card: Luhn-valid, not one repeated digit,
    and 13-19 digits, or 12 digits with a Maestro prefix (:data:`_MAESTRO_12`)."""
    digits = re.sub(r"\D", "", number)
    if not (13 <= len(digits) <= 19 or (len(digits) == 12 and _MAESTRO_12.fullmatch(digits))):
        return False
    return len(set(digits)) > 1 and luhn_valid(digits)


def iban_remainder(rearranged: str) -> int:
    """The MOD 97-10 remainder of an alphanumeric string (letters A=10 ... Z=35)."""
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97


def iban_check_digits(country: str, bban: str) -> str:
    """ISO 13616 check digits: 98 - (BBAN + country + '00' as digits mod 97)."""
    return f"{98 - iban_remainder(bban.upper() + country.upper() + '00'):02d}"


def iban_valid(iban: str) -> bool:
    compact = re.sub(r"\s", "", iban).upper()
    return (
        len(compact) > 4
        and compact[:2].isalpha()
        and compact.isalnum()
        and iban_remainder(compact[4:] + compact[:4]) == 1
    )


def bban_pattern(country: str) -> str | None:
    """The country's BBAN as a regular expression, or None for a country not in the table."""
    fmt = IBAN_BBAN_FORMATS.get(country.upper())
    if fmt is None:
        return None
    classes = {"n": "[0-9]", "a": "[A-Z]", "c": "[A-Z0-9]"}
    return "".join(f"{classes[k]}{{{n}}}" for n, k in re.findall(r"(\d+)([nac])", fmt))


def bban_shape(country: str) -> str | None:
    """The country's BBAN as one character class per position (``"aaaannnn..."``)."""
    fmt = IBAN_BBAN_FORMATS.get(country.upper())
    if fmt is None:
        return None
    return "".join(k * int(n) for n, k in re.findall(r"(\d+)([nac])", fmt))
