"""Generate the synthetic sample tables shipped with the privacy risk workbench.

Run from the repository root::

    python sample_data/generate.py

It writes ``hospital_discharge.csv`` and ``census_income.csv`` next to this
script. Everything is drawn from a fixed seed, so re-running reproduces the
committed files byte for byte (with the same numpy version). No network access,
no real people: names, e-mails, phone numbers and records are all made up.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20261121
HOSPITAL_ROWS = 2000
CENSUS_ROWS = 5000
HOSPITAL_FILE = "hospital_discharge.csv"
CENSUS_FILE = "census_income.csv"

# ----------------------------------------------------------------------------- helpers


def _weights(values: list[float] | np.ndarray) -> np.ndarray:
    w = np.asarray(values, dtype=float)
    return w / w.sum()


def _zipf(n: int, exponent: float = 1.0) -> np.ndarray:
    """Skewed probabilities 1/rank**exponent over n items."""
    return _weights(1.0 / np.arange(1, n + 1) ** exponent)


def _choice_rows(rng: np.random.Generator, probs: np.ndarray) -> np.ndarray:
    """Draw one index per row from row-specific probabilities (rows sum to 1)."""
    cdf = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
    u = rng.random(len(probs))
    return np.minimum((cdf < u[:, None]).sum(axis=1), probs.shape[1] - 1)


def _softmax_rows(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    frame.to_csv(path, index=False, encoding="utf-8", lineterminator="\n")


# ----------------------------------------------------------------------------- hospital

FIRST_NAMES_F = [
    "Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica",
    "Sarah", "Karen", "Nancy", "Lisa", "Margaret", "Sandra", "Ashley", "Emily", "Donna",
    "Michelle", "Carol", "Amanda", "Melissa", "Deborah", "Laura", "Rebecca", "Sophia",
    "Olivia", "Grace", "Hannah", "Chloe", "Maria", "Aisha", "Mei", "Priya", "Fatima",
]  # fmt: skip
FIRST_NAMES_M = [
    "James", "Robert", "John", "Michael", "David", "William", "Richard", "Joseph", "Thomas",
    "Charles", "Daniel", "Matthew", "Anthony", "Mark", "Steven", "Paul", "Andrew", "Joshua",
    "Kevin", "Brian", "George", "Edward", "Ryan", "Jacob", "Ethan", "Noah", "Liam", "Lucas",
    "Carlos", "Luis", "Wei", "Arjun", "Omar", "Kwame",
]  # fmt: skip
LAST_NAMES = [
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez",
    "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor",
    "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez",
    "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King", "Wright",
    "Scott", "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker",
    "Carter", "Mitchell", "Murphy", "Sullivan", "Kelly", "Chen", "Patel", "Kim", "Cohen",
    "Okafor", "Fitzgerald", "Walsh",
]  # fmt: skip
EMAIL_DOMAINS = ["example.org", "example.com", "example.net", "mail.example.org"]
AREA_CODES = ["617", "857", "781", "339", "508", "978"]
# Boston-area ZIP codes, most frequent first (all start with 0).
HOSPITAL_ZIPS = [
    "02139", "02115", "02118", "02130", "02134", "02138", "02114", "02116", "02119", "02120",
    "02121", "02122", "02124", "02125", "02126", "02127", "02128", "02129", "02131", "02132",
    "02135", "02136", "02140", "02141", "02143", "02144", "02145", "02148", "02149", "02150",
    "02151", "02152", "02155", "02445", "02446", "02458", "02459", "02474", "01801", "01701",
]  # fmt: skip

# (name, phrase used in notes, relative weight per age band: child, adult, older, mean stay)
DIAGNOSES = [
    ("Pneumonia", "pneumonia", (10, 8, 14), 5.0),
    ("Heart failure", "heart failure", (0.2, 5, 14), 6.0),
    ("Sepsis", "sepsis", (3, 5, 9), 8.0),
    ("COPD exacerbation", "a COPD exacerbation", (0.1, 4, 9), 5.0),
    ("Type 2 diabetes", "poorly controlled type 2 diabetes", (0.5, 7, 6), 4.0),
    ("Acute myocardial infarction", "an acute myocardial infarction", (0.05, 4, 7), 5.0),
    ("Stroke", "an ischemic stroke", (0.1, 3, 7), 7.0),
    ("Hip fracture", "a hip fracture", (0.3, 1.5, 7), 7.0),
    ("Urinary tract infection", "a urinary tract infection", (3, 5, 7), 3.5),
    ("Cellulitis", "cellulitis of the lower leg", (3, 6, 4), 4.0),
    ("Atrial fibrillation", "atrial fibrillation", (0.1, 3, 7), 3.5),
    ("Acute kidney injury", "an acute kidney injury", (0.5, 3, 5), 5.0),
    ("Appendicitis", "acute appendicitis", (12, 7, 1), 2.5),
    ("Asthma exacerbation", "an asthma exacerbation", (18, 5, 1), 2.5),
    ("Bronchiolitis", "bronchiolitis", (22, 0.1, 0.1), 3.0),
]

# Note templates; {name} is always mentioned, some add contact details.
NOTES_PLAIN = [
    "Patient {name} admitted with {dx} and discharged home in stable condition after {los} days.",
    "{name} was treated for {dx} and will follow up with primary care within two weeks.",
    "{name} tolerated treatment for {dx} well and was discharged to a rehabilitation facility.",
    "Discharge instructions for {dx} were reviewed with {name}, who voiced understanding.",
    "Patient {name} is ambulating independently; no further inpatient needs identified.",
]
NOTES_PHONE = [
    "Patient {name} discharged home; follow up call at {phone}.",
    "Family of {name} asked for an update on {dx}; callback number on file is {phone}.",
    "Home nursing to contact {name} at {phone} within 48 hours of discharge.",
]
NOTES_EMAIL = [
    "Discharge summary sent to {email} at the request of {name}.",
    "Follow up visit for {name} booked; reminder goes to {email} one day ahead.",
]
NOTES_BOTH = [
    "Spoke with {name} about medication changes; reachable at {phone} or {email}.",
]


def _hospital_age(rng: np.random.Generator, n: int) -> np.ndarray:
    ages = np.arange(96)
    w = np.where(ages < 18, 0.6, 0.6 + (ages - 18) * 0.035)
    w[:2] = 2.5  # newborns and infants
    w[65:86] = 2.4
    w[86:] = np.linspace(2.2, 0.4, 10)
    return rng.choice(ages, size=n, p=_weights(w))


def make_hospital(rng: np.random.Generator, n: int = HOSPITAL_ROWS) -> pd.DataFrame:
    sex = rng.choice(np.array(["F", "M"]), size=n, p=[0.52, 0.48])
    first = np.where(
        sex == "F",
        rng.choice(np.array(FIRST_NAMES_F), size=n, p=_zipf(len(FIRST_NAMES_F), 0.6)),
        rng.choice(np.array(FIRST_NAMES_M), size=n, p=_zipf(len(FIRST_NAMES_M), 0.6)),
    )
    last = rng.choice(np.array(LAST_NAMES), size=n, p=_zipf(len(LAST_NAMES), 0.5))
    name = pd.Series(first) + " " + pd.Series(last)

    # e-mail: three local-part styles, optional digits, reserved example domains
    f_low, l_low = pd.Series(first).str.lower(), pd.Series(last).str.lower()
    style = rng.integers(0, 3, size=n)
    local = np.select(
        [style == 0, style == 1],
        [f_low + "." + l_low, f_low.str[0] + l_low],
        default=f_low + "_" + l_low,
    )
    digits = rng.integers(1, 100, size=n).astype(str)
    local = np.where(rng.random(n) < 0.4, local + digits, local)
    email = pd.Series(local) + "@" + rng.choice(np.array(EMAIL_DOMAINS), size=n, p=_zipf(4, 1.0))

    # phone: fictional 555-01XX numbers, about 1% missing
    area = rng.choice(np.array(AREA_CODES), size=n, p=_zipf(len(AREA_CODES), 0.8))
    line = pd.Series(rng.integers(100, 200, size=n)).map("{:04d}".format)
    phone = "(" + pd.Series(area) + ") 555-" + line
    phone = phone.where(rng.random(n) >= 0.01)

    zip_code = rng.choice(np.array(HOSPITAL_ZIPS), size=n, p=_zipf(len(HOSPITAL_ZIPS), 0.9))

    admission = np.datetime64("2025-01-01") + rng.integers(0, 365, size=n).astype("timedelta64[D]")
    age = _hospital_age(rng, n)
    age_days = np.floor(age * 365.25 + rng.random(n) * 364).astype(np.int64)
    birth = admission - age_days.astype("timedelta64[D]")

    band = np.digitize(age, [18, 65])  # 0 child, 1 adult, 2 older
    band_w = np.array([d[2] for d in DIAGNOSES], dtype=float).T  # (3, 15)
    dx_idx = _choice_rows(rng, band_w[band])
    dx_names = np.array([d[0] for d in DIAGNOSES])
    dx_phrase = np.array([d[1] for d in DIAGNOSES])
    mean_stay = np.array([d[3] for d in DIAGNOSES])[dx_idx] * np.where(age >= 75, 1.3, 1.0)
    los = np.minimum(rng.geometric(1.0 / mean_stay), 30)
    los_col = pd.array(los, dtype="Int64")
    los_col[rng.random(n) < 0.01] = pd.NA

    # notes: template choice is vectorized; filling a few thousand short strings loops
    kind = rng.choice(4, size=n, p=[0.5, 0.25, 0.17, 0.08])
    kind = np.where(phone.isna() & np.isin(kind, [1, 3]), 0, kind)
    pick = rng.integers(0, 1000, size=n)
    pools = [NOTES_PLAIN, NOTES_PHONE, NOTES_EMAIL, NOTES_BOTH]
    notes = [
        pools[k][p % len(pools[k])].format(name=nm, dx=dx, los=ls, phone=ph, email=em)
        for k, p, nm, dx, ls, ph, em in zip(
            kind, pick, name, dx_phrase[dx_idx], los, phone, email, strict=True
        )
    ]

    return pd.DataFrame(
        {
            "patient_name": name,
            "email": email,
            "phone": phone,
            "zip_code": zip_code,
            "birth_date": np.datetime_as_string(birth, unit="D"),
            "sex": sex,
            "admission_date": np.datetime_as_string(admission, unit="D"),
            "diagnosis": dx_names[dx_idx],
            "length_of_stay": los_col,
            "notes": notes,
        }
    )


# ----------------------------------------------------------------------------- census

RACES = ["White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"]
RACE_P = [0.80, 0.11, 0.045, 0.015, 0.03]
MARITAL = [
    "Married-civ-spouse", "Never-married", "Divorced", "Separated", "Widowed",
    "Married-spouse-absent", "Married-AF-spouse",
]  # fmt: skip
MARITAL_AGES = [17, 25, 35, 50, 65, 90]
MARITAL_SHARES = [  # one row per MARITAL entry, one share per age knot
    [0.01, 0.25, 0.55, 0.60, 0.60, 0.35],
    [0.98, 0.65, 0.25, 0.10, 0.06, 0.05],
    [0.002, 0.05, 0.12, 0.19, 0.17, 0.10],
    [0.003, 0.03, 0.04, 0.04, 0.03, 0.01],
    [0.0005, 0.002, 0.005, 0.03, 0.12, 0.47],
    [0.003, 0.015, 0.015, 0.015, 0.012, 0.01],
    [0.0005, 0.004, 0.002, 0.0005, 0.0002, 0.0001],
]
# (label, years of schooling, base share)
EDUCATION = [
    ("Grade-school", 6, 0.04),
    ("Some-HS", 10, 0.09),
    ("HS-grad", 12, 0.32),
    ("Some-college", 13, 0.22),
    ("Assoc-voc", 14, 0.045),
    ("Assoc-acdm", 14, 0.035),
    ("Bachelors", 16, 0.165),
    ("Masters", 18, 0.055),
    ("Prof-school", 19, 0.015),
    ("Doctorate", 20, 0.012),
]
# (label, base weight, affinity to schooling, income effect)
OCCUPATIONS = [
    ("Prof-specialty", 0.13, 0.25, 0.6),
    ("Exec-managerial", 0.13, 0.15, 0.8),
    ("Craft-repair", 0.13, -0.08, 0.0),
    ("Adm-clerical", 0.12, 0.00, -0.4),
    ("Sales", 0.12, 0.03, 0.1),
    ("Other-service", 0.10, -0.12, -1.0),
    ("Machine-op-inspct", 0.07, -0.12, -0.4),
    ("Transport-moving", 0.05, -0.10, -0.2),
    ("Handlers-cleaners", 0.045, -0.15, -0.9),
    ("Farming-fishing", 0.035, -0.15, -0.8),
    ("Tech-support", 0.03, 0.08, 0.3),
    ("Protective-serv", 0.025, 0.00, 0.3),
]
WORKCLASS = ["Private", "Self-emp-not-inc", "Self-emp-inc", "Local-gov", "State-gov", "Federal-gov"]
WORKCLASS_P = [0.74, 0.08, 0.035, 0.07, 0.045, 0.03]
REGIONS = ["United-States", "Latin-America", "Asia", "Europe", "Caribbean", "Africa"]
REGION_P = [0.89, 0.04, 0.03, 0.02, 0.015, 0.005]
# ZIP codes across the US, several with a leading zero (New England, NJ).
CENSUS_ZIPS = [
    "10001", "60601", "90012", "77002", "02139", "19104", "94103", "30303", "98101", "85004",
    "75201", "20001", "33101", "48201", "55401", "80202", "97201", "06510", "07030", "11201",
    "28202", "37203", "43215", "46204", "53703", "63101", "64105", "70112", "78701", "84101",
    "89101", "96813", "99501", "27601", "29201", "35203", "40202", "50309", "52240", "57104",
    "58102", "59601", "68102", "66101", "72201", "38103", "23219", "21201", "15213", "14201",
    "12207", "44114", "45202", "49503", "01002", "03101", "04101", "05401", "08540", "87501",
]  # fmt: skip


def make_census(rng: np.random.Generator, n: int = CENSUS_ROWS) -> pd.DataFrame:
    age = np.clip(np.round(17 + rng.gamma(2.2, 10.0, size=n)), 17, 90).astype(int)
    sex = rng.choice(np.array(["Male", "Female"]), size=n, p=[0.6, 0.4])
    race = rng.choice(np.array(RACES), size=n, p=RACE_P)

    edu_base = np.log(np.array([e[2] for e in EDUCATION]))
    edu_years = np.array([e[1] for e in EDUCATION], dtype=float)
    # teenagers have not finished school yet
    young = np.clip((22 - age) / 5.0, 0, 1)[:, None]
    edu_idx = _choice_rows(
        rng, _softmax_rows(edu_base[None, :] - young * 0.35 * np.maximum(edu_years - 12, 0))
    )
    school = edu_years[edu_idx]

    occ_base = np.log(np.array([o[1] for o in OCCUPATIONS]))
    occ_aff = np.array([o[2] for o in OCCUPATIONS])
    occ_idx = _choice_rows(rng, _softmax_rows(occ_base[None, :] + np.outer(school - 12, occ_aff)))

    workclass = rng.choice(np.array(WORKCLASS), size=n, p=WORKCLASS_P)

    # marital status depends on age: shares interpolated between age knots
    marital_p = np.column_stack([np.interp(age, MARITAL_AGES, shares) for shares in MARITAL_SHARES])
    marital_idx = _choice_rows(rng, marital_p)
    marital = np.array(MARITAL)[marital_idx]

    hours = np.where(
        rng.random(n) < 0.45, 40, np.round(rng.normal(41, 12, size=n) + 3 * (sex == "Male"))
    )
    hours = np.where(age >= 68, np.round(hours * 0.6), hours)
    hours = np.clip(hours, 1, 99).astype(int)

    region = rng.choice(np.array(REGIONS), size=n, p=REGION_P)
    zip_code = rng.choice(np.array(CENSUS_ZIPS), size=n, p=_zipf(len(CENSUS_ZIPS), 0.8))

    occ_effect = np.array([o[3] for o in OCCUPATIONS])[occ_idx]
    married = np.isin(marital_idx, [0, 6])
    logit = (
        -3.5
        + 0.45 * (school - 12)
        + 0.075 * (np.minimum(age, 55) - 38)
        - 0.06 * np.maximum(age - 60, 0)
        + 0.045 * (hours - 40)
        + 0.45 * (sex == "Male")
        + 1.9 * married
        + occ_effect
        + 0.4 * (workclass == "Self-emp-inc")
    )
    rich = rng.random(n) < 1.0 / (1.0 + np.exp(-logit))

    return pd.DataFrame(
        {
            "age": age,
            "sex": sex,
            "race": race,
            "marital_status": marital,
            "education": np.array([e[0] for e in EDUCATION])[edu_idx],
            "occupation": np.array([o[0] for o in OCCUPATIONS])[occ_idx],
            "workclass": workclass,
            "hours_per_week": hours,
            "native_region": region,
            "zip_code": zip_code,
            "income": np.where(rich, ">50K", "<=50K"),
        }
    )


# ----------------------------------------------------------------------------- main


def main(out_dir: str | Path | None = None) -> list[Path]:
    """Write both sample tables into ``out_dir`` (default: this folder)."""
    out = Path(out_dir) if out_dir is not None else Path(__file__).resolve().parent
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    hospital = make_hospital(rng)
    census = make_census(rng)
    paths = [out / HOSPITAL_FILE, out / CENSUS_FILE]
    _write_csv(hospital, paths[0])
    _write_csv(census, paths[1])
    return paths


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else None):
        print(f"wrote {written} ({written.stat().st_size / 1024:.0f} KiB)")  # noqa: T201
