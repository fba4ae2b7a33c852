"""Deterministic, format-valid fake values and keyed pseudonyms (no network, no Faker).

A fake is drawn from a ``random.Random`` seeded with HMAC-SHA256(seed, entity type,
original value) (RFC 2104), so the same value always gets the same fake within a
release and across runs with the same seed, and different seeds give unrelated
fakes. A fake never equals its original. Formats follow the published rules:

* payment card numbers: the original's length and brand (its first two digits; 4 when unknown)
  and the Luhn check digit (ISO/IEC 7812-1). ISO/IEC 7812 reserves no range for fiction: a fake
  can coincide with an issued number (it has no expiry date or security code);
* IBANs: the original's country, the country's BBAN format and length from SWIFT's IBAN
  registry (:mod:`anon_core.pii.checksums`), check digits by ISO 13616 / ISO 7064 MOD 97-10
  (letters A=10 ... Z=35, ``98 - (n mod 97)``), and the national check digits of BE and FR;
* US SSNs: area 001-665 or 667-899, group 01-99, serial 0001-9999 (SSA's randomization rules);
* phone numbers: the original's country and length, from a fiction range where one is
  published (:mod:`anon_core.pii.fake_phone`), the original's layout kept;
* e-mail addresses: reserved ``example.*`` domains (RFC 2606);
* IP addresses: documentation ranges 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 (RFC 5737)
  and 2001:db8::/32 (RFC 3849).

Keyed pseudonyms (:func:`hmac_token`) are HMAC-SHA256 of the value under the user's
key, hex-encoded and truncated (NIST SP 800-107r1 5.3.3 allows truncation to at
least 64 bits for HMAC).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import random
import re
import string

from anon_core.pii.checksums import (  # noqa: F401 - luhn_valid, iban_valid re-exported
    bban_shape,
    iban_check_digits,
    iban_valid,
    luhn_check_digit,
    luhn_valid,
)
from anon_core.pii.fake_phone import fake_phone, fill_digits

FIRST_NAMES = (
    "James",
    "Mary",
    "Robert",
    "Patricia",
    "John",
    "Jennifer",
    "Michael",
    "Linda",
    "David",
    "Elizabeth",
    "William",
    "Barbara",
    "Richard",
    "Susan",
    "Joseph",
    "Jessica",
    "Thomas",
    "Sarah",
    "Charles",
    "Karen",
    "Daniel",
    "Nancy",
    "Matthew",
    "Lisa",
    "Anthony",
    "Betty",
    "Mark",
    "Sandra",
    "Steven",
    "Ashley",
    "Andrew",
    "Emily",
    "Joshua",
    "Donna",
    "Kevin",
    "Michelle",
    "Brian",
    "Carol",
    "George",
    "Amanda",
)
LAST_NAMES = (
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Garcia",
    "Miller",
    "Davis",
    "Rodriguez",
    "Martinez",
    "Hernandez",
    "Lopez",
    "Gonzalez",
    "Wilson",
    "Anderson",
    "Thomas",
    "Taylor",
    "Moore",
    "Jackson",
    "Martin",
    "Lee",
    "Perez",
    "Thompson",
    "White",
    "Harris",
    "Sanchez",
    "Clark",
    "Ramirez",
    "Lewis",
    "Robinson",
    "Walker",
    "Young",
    "Allen",
    "King",
    "Wright",
    "Scott",
    "Torres",
    "Nguyen",
    "Hill",
    "Flores",
)
CITIES = (
    "Springfield",
    "Riverton",
    "Fairview",
    "Greenville",
    "Franklin",
    "Clinton",
    "Georgetown",
    "Salem",
    "Madison",
    "Arlington",
    "Ashland",
    "Milton",
    "Oakland",
    "Dover",
    "Hudson",
)
STREETS = ("Main", "Oak", "Pine", "Maple", "Cedar", "Elm", "Washington", "Lake", "Hill", "Park")
STREET_SUFFIXES = ("Street", "Avenue", "Road", "Lane", "Drive")
STATES = ("MA", "NY", "CA", "TX", "IL", "OH", "WA", "OR", "PA", "FL")
EMAIL_DOMAINS = ("example.org", "example.com", "example.net")


def _rng(seed: int, entity: str, value: str) -> random.Random:
    digest = hmac.new(str(seed).encode(), f"{entity}\x00{value}".encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _same_shape(rng: random.Random, text: str, keep_letters: bool = False) -> str:
    """Digits to random digits, letters to random letters of the same case, the rest kept."""
    out = []
    for ch in text:
        if ch.isdigit():
            out.append(rng.choice(string.digits))
        elif ch.isalpha() and not keep_letters:
            out.append(
                rng.choice(string.ascii_uppercase if ch.isupper() else string.ascii_lowercase)
            )
        else:
            out.append(ch)
    return "".join(out)


def _person(rng: random.Random, original: str) -> str:
    parts = original.split()
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    return last if len(parts) == 1 else f"{first} {last}"


def _email(rng: random.Random, original: str) -> str:
    sep = rng.choice([".", "_"])
    return (
        f"{rng.choice(FIRST_NAMES).lower()}{sep}{rng.choice(LAST_NAMES).lower()}{rng.randint(1, 99)}@"
        f"{rng.choice(EMAIL_DOMAINS)}"
    )


def _ssn(rng: random.Random, original: str) -> str:
    area = rng.choice([a for a in range(1, 900) if a != 666])
    number = f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
    digits = re.sub(r"\D", "", original)
    return (
        fill_digits(original, number)
        if len(digits) == 9
        else f"{number[:3]}-{number[3:5]}-{number[5:]}"
    )


def _card(rng: random.Random, original: str) -> str:
    digits = re.sub(r"\D", "", original)
    n = len(digits) if 13 <= len(digits) <= 19 else 16
    # the brand (first two digits: Visa 4x, Mastercard 51-55/22-27, Amex 34/37, ...) is kept
    prefix = digits[:2] if len(digits) == n and digits[:1] in ("2", "3", "4", "5", "6") else "4"
    payload = prefix + "".join(rng.choice(string.digits) for _ in range(n - 1 - len(prefix)))
    number = payload + luhn_check_digit(payload)
    return fill_digits(original, number) if len(digits) == n else number


_RIB_LETTERS = {c: str(1 + (i % 9) + (i >= 18)) for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}


def _national_check(country: str, bban: str) -> str:
    """Set the national check digits inside the BBAN where the rule is public and simple:
    BE (first ten digits mod 97, 97 for 0) and FR (the RIB key)."""
    if country == "BE" and bban.isdigit() and len(bban) == 12:
        check = int(bban[:10]) % 97 or 97
        return f"{bban[:10]}{check:02d}"
    if country == "FR" and len(bban) == 23:
        # letters count as digits: A,J=1 B,K,S=2 ... I,R,Z=9 (RIB rules)
        as_digits = "".join(_RIB_LETTERS.get(c, c) for c in bban[:21])
        key = (
            97
            - (89 * int(as_digits[:5]) + 15 * int(as_digits[5:10]) + 3 * int(as_digits[10:21])) % 97
        )
        return f"{bban[:21]}{key:02d}"
    return bban


def _iban(rng: random.Random, original: str) -> str:
    compact = re.sub(r"\s", "", original).upper()
    country = compact[:2] if compact[:2].isalpha() else "DE"
    body = compact[4:]
    shape = bban_shape(country)
    if shape is None:  # a country not in the table: the original's shape
        bban = _same_shape(rng, body or "0" * 18).upper()
    else:  # the registry's format; "c" positions take the original's kind of character
        out = []
        for i, kind in enumerate(shape):
            was = body[i] if i < len(body) else "0"
            letter = kind == "a" or (kind == "c" and was.isalpha())
            out.append(rng.choice(string.ascii_uppercase if letter else string.digits))
        bban = _national_check(country, "".join(out))
    number = country + iban_check_digits(country, bban) + bban
    if " " in original:
        return " ".join(number[i : i + 4] for i in range(0, len(number), 4))
    return number


def _ip(rng: random.Random, original: str) -> str:
    if ":" in original:
        return f"2001:db8::{rng.randint(0, 0xFFFF):x}:{rng.randint(0, 0xFFFF):x}"
    net = rng.choice(["192.0.2", "198.51.100", "203.0.113"])
    return f"{net}.{rng.randint(1, 254)}"


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_US_DATE = re.compile(r"\d{1,2}/\d{1,2}/\d{4}")
_LONG_DATE = re.compile(r"[A-Z][a-z]+ \d{1,2}, \d{4}")


def _date(rng: random.Random, original: str) -> str:
    day = dt.date(1940, 1, 1) + dt.timedelta(days=rng.randint(0, 30000))
    text = original.strip()
    if _ISO_DATE.fullmatch(text):
        return day.isoformat()
    if _US_DATE.fullmatch(text):
        return f"{day.month}/{day.day}/{day.year}"
    if _LONG_DATE.fullmatch(text):
        return f"{day.strftime('%B')} {day.day}, {day.year}"
    return "<DATE_TIME>"


def _location(rng: random.Random, original: str) -> str:
    return rng.choice(CITIES)


def _address(rng: random.Random, original: str) -> str:
    return (
        f"{rng.randint(1, 9999)} {rng.choice(STREETS)} {rng.choice(STREET_SUFFIXES)}, {rng.choice(CITIES)}, "
        f"{rng.choice(STATES)} {rng.randint(1000, 99999):05d}"
    )


def _zip(rng: random.Random, original: str) -> str:
    return _same_shape(rng, original)


def _age(rng: random.Random, original: str) -> str:
    return re.sub(r"\d+", lambda m: str(rng.randint(18, 90)), original, count=1)


def _url(rng: random.Random, original: str) -> str:
    return f"https://{rng.choice(EMAIL_DOMAINS)}/{''.join(rng.choice(string.ascii_lowercase) for _ in range(8))}"


FAKERS = {
    "PERSON": _person,
    "EMAIL_ADDRESS": _email,
    "PHONE_NUMBER": fake_phone,
    "US_SSN": _ssn,
    "CREDIT_CARD": _card,
    "IBAN_CODE": _iban,
    "IP_ADDRESS": _ip,
    "DATE_TIME": _date,
    "LOCATION": _location,
    "STREET_ADDRESS": _address,
    "ZIP_CODE": _zip,
    "AGE": _age,
    "URL": _url,
}


def fake_value(entity: str, original: str, seed: int = 0) -> str:
    """A format-valid fake for ``original`` of type ``entity``, the same for the same input and seed.

    Types without a dedicated generator keep the layout: digits become other digits;
    letters are kept in identifiers that contain digits (``EMP-12345`` -> ``EMP-80317``)
    and replaced otherwise.
    """
    rng = _rng(seed, entity, original)
    maker = FAKERS.get(entity)
    fake = original
    for _ in range(8):  # a fake equal to its original would leak it: draw again (rare)
        if maker is not None:
            fake = maker(rng, original)
        else:
            fake = _same_shape(rng, original, keep_letters=any(c.isdigit() for c in original))
        if fake != original:
            break
    return fake


def hmac_token(value: str, key: bytes, length: int = 16, prefix: str = "") -> str:
    """``prefix`` + the first ``length`` hex digits of HMAC-SHA256(key, value)."""
    return prefix + hmac.new(key, value.encode("utf-8"), hashlib.sha256).hexdigest()[:length]
