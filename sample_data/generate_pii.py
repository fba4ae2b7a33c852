"""Generate the labeled synthetic PII test set (columns with expected roles, texts with spans).

Run from the repository root::

    python sample_data/generate_pii.py            # writes pii_labeled.csv and pii_labels.json here
    python sample_data/generate_pii.py /tmp/out   # or somewhere else

Everything is drawn from ``random.Random(SEED)`` (its algorithms are stable across
Python versions), with built-in name lists: no Faker, no network, no real people.
Numbers follow the formats the recognizers validate: payment cards pass the Luhn
check (ISO/IEC 7812-1) with test-style issuer prefixes, IBANs carry valid ISO 13616
MOD 97-10 check digits, SSNs use assignable areas (never 000, 666 or 900-999),
phone numbers the fictional 555-01XX range, e-mails the reserved ``example.*``
domains (RFC 2606), IP addresses documentation and private ranges.

``pii_labels.json`` holds ``{"columns": {name: expected role or null}, "texts":
{column: [[[start, end, entity], ...] per row]]}}``; tests and
``benchmarks/bench_pii.py`` use :func:`generate` directly.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sys
from pathlib import Path

import pandas as pd

SEED = 20261205
ROWS = 400
CSV_FILE = "pii_labeled.csv"
LABELS_FILE = "pii_labels.json"

FIRST = [
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
    "Christopher",
    "Karen",
    "Daniel",
    "Nancy",
    "Matthew",
    "Lisa",
    "Anthony",
    "Margaret",
    "Mark",
    "Sandra",
    "Donald",
    "Ashley",
    "Steven",
    "Kimberly",
    "Paul",
    "Emily",
    "Andrew",
    "Donna",
    "Joshua",
    "Michelle",
    "Kenneth",
    "Carol",
    "Kevin",
    "Amanda",
    "Brian",
    "Melissa",
    "George",
    "Deborah",
    "Timothy",
    "Stephanie",
    "Ronald",
    "Rebecca",
    "Jason",
    "Sharon",
    "Edward",
    "Laura",
    "Jeffrey",
    "Cynthia",
    "Ryan",
    "Amy",
    "Jacob",
    "Angela",
]
LAST = [
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
    "Green",
    "Adams",
    "Nelson",
    "Baker",
    "Hall",
    "Rivera",
    "Campbell",
    "Mitchell",
    "Carter",
    "Roberts",
    "Sullivan",
    "Murphy",
    "Kelly",
    "O'Brien",
    "Foster",
    "Hughes",
    "Price",
    "Bennett",
    "Wood",
    "Barnes",
]
CITIES = [
    ("Boston", "MA"),
    ("Chicago", "IL"),
    ("Seattle", "WA"),
    ("Denver", "CO"),
    ("Austin", "TX"),
    ("Portland", "OR"),
    ("Atlanta", "GA"),
    ("Phoenix", "AZ"),
    ("Nashville", "TN"),
    ("Baltimore", "MD"),
    ("Sacramento", "CA"),
    ("Pittsburgh", "PA"),
    ("Cleveland", "OH"),
    ("Milwaukee", "WI"),
    ("Albuquerque", "NM"),
    ("Springfield", "IL"),
]
STREETS = [
    "Main",
    "Oak",
    "Pine",
    "Maple",
    "Cedar",
    "Elm",
    "Washington",
    "Lake",
    "Hill",
    "Park",
    "Lincoln",
    "Jefferson",
    "Highland",
    "Sunset",
    "Franklin",
    "River",
]
SUFFIXES = ["Street", "Avenue", "Road", "Lane", "Drive", "Court", "Boulevard", "Way"]
DIAGNOSES = [
    "Pneumonia",
    "Heart failure",
    "Sepsis",
    "Asthma",
    "COPD",
    "Appendicitis",
    "Cellulitis",
    "Hip fracture",
    "Influenza",
    "Migraine",
    "Kidney stones",
    "Gastroenteritis",
]
DEPARTMENTS = [
    "Cardiology",
    "Oncology",
    "Radiology",
    "Pediatrics",
    "Orthopedics",
    "Neurology",
    "Emergency",
]
BLOOD = ["A+", "A-", "B+", "B-", "AB+", "AB-", "O+", "O-"]
PLANS = ["Gold", "Silver", "Bronze", "Basic", "Premium"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]

#: Expected role per column (None: no personal data, the scan should not propose a role).
EXPECTED_ROLES: dict[str, str | None] = {
    "full_name": "identifier",
    "email": "identifier",
    "phone": "identifier",
    "ssn": "identifier",
    "credit_card": "identifier",
    "iban": "identifier",
    "ip_address": "identifier",
    "home_address": "identifier",
    "employee_id": "identifier",  # found with the custom recognizer EMP-\d{5}
    "zip_code": "quasi-identifier",
    "city": "quasi-identifier",
    "birth_date": "quasi-identifier",
    "visit_date": "quasi-identifier",
    "age": "quasi-identifier",
    "sex": "quasi-identifier",
    "gender": "quasi-identifier",
    "diagnosis": None,
    "department": None,
    "blood_type": None,
    "length_of_stay": None,
    "insurance_plan": None,
    "notes": "insensitive",
    "comment": "insensitive",
}
TEXT_COLUMNS = ("notes", "comment")
#: The custom recognizer the employee IDs need (as a ``text.recognizers`` entry).
EMPLOYEE_RECOGNIZER = {
    "name": "employee id",
    "entity": "EMPLOYEE_ID",
    "regex": r"\bEMP-\d{5}\b",
    "score": 0.9,
    "context": ["employee"],
}


# ----------------------------------------------------------------------------- valid numbers
def luhn_digit(payload: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(payload)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def card(rng: random.Random) -> str:
    kind = rng.choice(["visa", "mc", "amex"])
    if kind == "amex":
        payload = rng.choice(["34", "37"]) + "".join(rng.choice("0123456789") for _ in range(12))
        number = payload + luhn_digit(payload)
        groups = [number[:4], number[4:10], number[10:]]
    else:
        prefix = "4" if kind == "visa" else str(rng.randint(51, 55))
        payload = prefix + "".join(rng.choice("0123456789") for _ in range(15 - len(prefix)))
        number = payload + luhn_digit(payload)
        groups = [number[i : i + 4] for i in range(0, 16, 4)]
    return rng.choice([" ", "-", ""]).join(groups)


IBAN_FORMATS = {
    "DE": "n" * 18,
    "GB": "aaaa" + "n" * 14,
    "NL": "aaaa" + "n" * 10,
    "FR": "n" * 23,
    "ES": "n" * 20,
    "IT": "a" + "n" * 22,
}


def iban(rng: random.Random) -> str:
    country = rng.choice(sorted(IBAN_FORMATS))
    bban = "".join(
        rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") if c == "a" else rng.choice("0123456789")
        for c in IBAN_FORMATS[country]
    )
    remainder = int("".join(str(int(c, 36)) for c in bban + country + "00")) % 97
    number = f"{country}{98 - remainder:02d}{bban}"
    if rng.random() < 0.5:
        return " ".join(number[i : i + 4] for i in range(0, len(number), 4))
    return number


def ssn(rng: random.Random) -> str:
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def phone(rng: random.Random) -> str:
    area = rng.choice(["617", "312", "206", "303", "512", "503", "404", "602", "615", "410"])
    line = f"01{rng.randint(0, 99):02d}"
    return rng.choice(
        [
            f"({area}) 555-{line}",
            f"{area}-555-{line}",
            f"{area}.555.{line}",
            f"+1 {area} 555 {line}",
        ]
    )


def email(rng: random.Random, first: str, last: str) -> str:
    user = rng.choice(
        [f"{first}.{last}", f"{first[0]}{last}", f"{first}_{last}{rng.randint(1, 99)}"]
    )
    return f"{user.lower().replace(chr(39), '')}@{rng.choice(['example.org', 'example.com', 'example.net'])}"


def ip(rng: random.Random) -> str:
    return rng.choice(
        [
            f"192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            f"203.0.113.{rng.randint(1, 254)}",
            f"198.51.100.{rng.randint(1, 254)}",
        ]
    )


def address(rng: random.Random) -> tuple[str, str, str]:
    city, state = rng.choice(CITIES)
    zipcode = f"{rng.randint(1001, 99950):05d}"
    street = f"{rng.randint(1, 9999)} {rng.choice(STREETS)} {rng.choice(SUFFIXES)}"
    return f"{street}, {city}, {state} {zipcode}", city, zipcode


def day(rng: random.Random, start: int, end: int) -> dt.date:
    first = dt.date(start, 1, 1)
    return first + dt.timedelta(days=rng.randint(0, (dt.date(end, 12, 31) - first).days))


def long_date(d: dt.date) -> str:
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


# ----------------------------------------------------------------------------- texts with spans
class Text:
    """A sentence built piece by piece, recording the span of every PII piece."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[list] = []
        self.length = 0

    def add(self, piece: str, entity: str | None = None) -> Text:
        if entity:
            self.spans.append([self.length, self.length + len(piece), entity])
        self.parts.append(piece)
        self.length += len(piece)
        return self

    @property
    def text(self) -> str:
        return "".join(self.parts)


def note(rng: random.Random, person: dict) -> Text:
    t = Text()
    name = f"{person['first']} {person['last']}"
    opening = rng.randrange(4)
    if opening == 0:
        t.add("Patient ").add(name, "PERSON").add(
            f" was admitted for {person['diagnosis'].lower()}"
        )
    elif opening == 1:
        t.add("Seen today: ").add(name, "PERSON").add(", a ").add(
            f"{person['age']}-year-old", "AGE"
        )
        t.add(f" with {person['diagnosis'].lower()}")
    elif opening == 2:
        t.add("Discharge summary for ").add(name, "PERSON").add(", born ").add(
            long_date(person["birth"]), "DATE_TIME"
        )
    else:
        t.add("Dr. ").add(f"{rng.choice(FIRST)} {rng.choice(LAST)}", "PERSON").add(
            " reviewed the chart of "
        )
        t.add(name, "PERSON")
    t.add(". ")
    extras = rng.sample(range(9), k=rng.randint(1, 3))
    for e in extras:
        if e == 0:
            t.add("Reach the family at ").add(person["phone"], "PHONE_NUMBER").add(". ")
        elif e == 1:
            t.add("Results were sent to ").add(person["email"], "EMAIL_ADDRESS").add(". ")
        elif e == 2:
            t.add("SSN on file: ").add(person["ssn"], "US_SSN").add(". ")
        elif e == 3:
            t.add("Co-payment charged to card ").add(person["card"], "CREDIT_CARD").add(". ")
        elif e == 4:
            t.add("Refund to account ").add(person["iban"], "IBAN_CODE").add(". ")
        elif e == 5:
            t.add("Lives at ").add(person["address"], "STREET_ADDRESS").add(". ")
        elif e == 6:
            t.add("Follow-up visit on ").add(person["visit"].strftime("%m/%d/%Y"), "DATE_TIME").add(
                ". "
            )
        elif e == 7:
            t.add("Handled by employee ").add(person["employee"], "EMPLOYEE_ID").add(". ")
        else:
            t.add("Portal login from ").add(person["ip"], "IP_ADDRESS").add(". ")
    t.parts[-1] = t.parts[-1].rstrip()
    t.length = len(t.text)
    return t


COMMENTS = [
    "Follow-up recommended in two weeks with routine bloodwork.",
    "No complications were observed during the stay and pain is well controlled.",
    "Medication list reconciled; continue the current dose and review at the next visit.",
    "Physical therapy twice a week until mobility improves.",
    "Diet as tolerated, encourage fluids and rest for the next few days.",
    "Wound is clean and dry with no signs of infection at discharge.",
]


def comment(rng: random.Random) -> Text:
    t = Text()
    t.add(rng.choice(COMMENTS))
    return t


# ----------------------------------------------------------------------------- table
def generate(rows: int = ROWS, seed: int = SEED) -> tuple[pd.DataFrame, dict]:
    """The labeled table and its labels (``{"columns": ..., "texts": ...}``)."""
    rng = random.Random(seed)
    records = []
    texts: dict[str, list] = {c: [] for c in TEXT_COLUMNS}
    for _ in range(rows):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        sex = rng.choice(["F", "M"])
        birth = day(rng, 1930, 2006)
        visit = day(rng, 2023, 2025)
        full_address, city, zipcode = address(rng)
        person = {
            "first": first,
            "last": last,
            "birth": birth,
            "visit": visit,
            "address": full_address,
            "age": visit.year - birth.year,
            "diagnosis": rng.choice(DIAGNOSES),
            "phone": phone(rng),
            "email": email(rng, first, last),
            "ssn": ssn(rng),
            "card": card(rng),
            "iban": iban(rng),
            "ip": ip(rng),
            "employee": f"EMP-{rng.randint(10000, 99999)}",
        }
        n = note(rng, person)
        c = comment(rng)
        texts["notes"].append(n.spans)
        texts["comment"].append(c.spans)
        records.append(
            {
                "full_name": f"{first} {last}",
                "email": person["email"],
                "phone": person["phone"],
                "ssn": person["ssn"],
                "credit_card": person["card"],
                "iban": person["iban"],
                "ip_address": person["ip"],
                "home_address": full_address,
                "employee_id": person["employee"],
                "zip_code": zipcode,
                "city": city,
                "birth_date": birth.isoformat(),
                "visit_date": visit.strftime("%m/%d/%Y"),
                "age": str(person["age"]),
                "sex": sex,
                "gender": rng.choice(["female", "male"]) if rng.random() < 0.95 else "non-binary",
                "diagnosis": person["diagnosis"],
                "department": rng.choice(DEPARTMENTS),
                "blood_type": rng.choice(BLOOD),
                "length_of_stay": str(rng.randint(1, 30)),
                "insurance_plan": rng.choice(PLANS),
                "notes": n.text,
                "comment": c.text,
            }
        )
    frame = pd.DataFrame.from_records(records, columns=list(EXPECTED_ROLES))
    return frame, {"columns": dict(EXPECTED_ROLES), "texts": texts}


def main(out_dir: str | Path | None = None) -> None:
    out = Path(out_dir) if out_dir else Path(__file__).resolve().parent
    out.mkdir(parents=True, exist_ok=True)
    frame, labels = generate()
    frame.to_csv(out / CSV_FILE, index=False, encoding="utf-8", lineterminator="\n")
    (out / LABELS_FILE).write_text(
        json.dumps(labels, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    print(f"wrote {out / CSV_FILE} ({len(frame)} rows) and {out / LABELS_FILE}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
