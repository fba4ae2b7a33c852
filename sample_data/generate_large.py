"""Generate Adult-like census tables of any size, chunk by chunk, as Parquet or CSV.

Usage from the repository root::

    python sample_data/generate_large.py --rows 10M --out /tmp/adult_10m.parquet
    python sample_data/generate_large.py --rows 1M --out /tmp/adult_1m.csv --seed 7

The table has the schema of the UCI *Adult* extract used by ARX (``adult.csv``:
``sex, age, race, marital-status, education, native-country, workclass,
occupation, salary-class``) and every value is a leaf of the matching ARX
hierarchy ``adult_hierarchy_<column>.csv``, so those hierarchies apply to the
generated data unchanged. Nothing is read at run time: the category names are
written out below, and every probability and effect is **hand-chosen** (round
numbers, adjusted by eye so that the overall shares roughly resemble Adult's: about
67% male, 91% born in the United-States, 25% ``>50K``, ...). Nothing is estimated
from the real data by code, and no real record is copied.

Columns are not independent: marital status depends on age and sex; education on
age (young people have not finished school yet) and on the country of birth;
native country on race; occupation on education, sex and youth; workclass on
occupation; and ``salary-class`` is a Bernoulli draw from a logistic model of
education, age, sex, marital status, occupation and workclass.

Determinism: chunk ``i`` is drawn from ``numpy.random.default_rng([seed, i])``,
so a given ``(n_rows, seed, chunk_rows)`` always gives the same table (with the
same numpy version). Changing ``chunk_rows`` changes the rows. The optional
missing values are drawn after everything else, so ``missing_rate > 0`` blanks
cells of the very table that ``missing_rate = 0`` gives.

Memory stays bounded by the chunk size: each chunk is generated from small
conditional probability tables with vectorized numpy (no per-row Python) and
written as one Parquet row group, or appended to the CSV, before the next one.
"""

from __future__ import annotations

import argparse
import math
import operator
import os
import sys
import time
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

DEFAULT_SEED = 2026
DEFAULT_CHUNK_ROWS = 1_000_000
COLUMNS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
]
#: Columns that ``missing_rate`` may blank (``workclass`` and ``occupation`` together).
MISSING_COLUMNS = ["workclass", "occupation", "native-country"]
FORMATS = ("parquet", "csv")

# ----------------------------------------------------------------------------- helpers


class _Table:
    """A conditional distribution P(category | group) that samples many rows at once.

    Walker's alias method, one alias table per group: a row of group ``g`` takes one
    uniform ``u``, looks at cell ``j = floor(u * K)`` and keeps ``j`` if the fractional
    part of ``u * K`` is below ``prob[g, j]``, else takes ``alias[g, j]``. That is a few
    vectorized gathers per column, with no (n, K) temporary and no per-row Python.
    """

    def __init__(self, probs: np.ndarray | list) -> None:
        p = np.atleast_2d(np.asarray(probs, dtype=float))
        if p.ndim != 2 or (p < 0).any() or not (p.sum(axis=1) > 0).all():
            raise ValueError("probability rows must be non-negative with a positive sum")
        self.probs = p / p.sum(axis=1, keepdims=True)
        self.n_groups, self.n_categories = p.shape
        prob = np.ones_like(self.probs)
        alias = np.tile(np.arange(self.n_categories), (self.n_groups, 1))
        for g, row in enumerate(self.probs):
            self._vose(row * self.n_categories, prob[g], alias[g])
        # the alias tables must give back exactly the same distribution
        k = self.n_categories
        implied = prob / k
        for g in range(self.n_groups):
            np.add.at(implied[g], alias[g], (1.0 - prob[g]) / k)
        assert np.allclose(implied, self.probs, atol=1e-12), "alias table construction failed"
        assert not ((self.probs == 0) & (prob > 0)).any(), "zero-probability category reachable"
        self._prob = prob.ravel()
        self._alias = alias.ravel().astype(np.int16)

    @staticmethod
    def _vose(scaled: np.ndarray, prob: np.ndarray, alias: np.ndarray) -> None:
        scaled = scaled.copy()
        small = [i for i, v in enumerate(scaled) if v < 1.0]
        large = [i for i, v in enumerate(scaled) if v >= 1.0]
        while small and large:
            s, big = small.pop(), large.pop()
            prob[s], alias[s] = scaled[s], big
            scaled[big] -= 1.0 - scaled[s]
            (small if scaled[big] < 1.0 else large).append(big)
        for i in small + large:  # rounding leftovers, all with a scaled value of about 1
            prob[i] = 1.0

    def draw(self, rng: np.random.Generator, group: np.ndarray | int, n: int) -> np.ndarray:
        k = self.n_categories
        x = rng.random(n) * k
        j = np.minimum(x.astype(np.int16), k - 1)  # u * k can round up to k
        cell = np.asarray(group, dtype=np.int64) * k + j
        return np.where(x - j < self._prob[cell], j, self._alias[cell])


# ----------------------------------------------------------------------------- domains
# Category names are the leaves of ARX's Adult hierarchies (adult_hierarchy_*.csv).
# All shares and effects are hand-chosen round numbers, not estimated from data.

SEX = ["Male", "Female"]
SEX_P = [0.67, 0.33]

AGE_MIN, AGE_MAX = 17, 90  # inside the ARX age hierarchy's leaves (1-100)
AGES = np.arange(AGE_MIN, AGE_MAX + 1)
AGE_KNOTS = [17, 19, 23, 30, 38, 46, 55, 62, 70, 80, 90]
AGE_KNOT_WEIGHTS = [1.4, 2.1, 2.7, 2.9, 2.8, 2.3, 1.45, 0.75, 0.28, 0.08, 0.015]

RACES = ["White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"]
RACE_P = [0.855, 0.095, 0.030, 0.010, 0.010]

MARITAL = [
    "Married-civ-spouse", "Never-married", "Divorced", "Separated", "Widowed",
    "Married-spouse-absent", "Married-AF-spouse",
]  # fmt: skip
MARITAL_AGES = [17, 21, 25, 30, 40, 50, 60, 70, 90]
MARITAL_SHARES = [  # one row per MARITAL entry, one share per age knot (men)
    [0.005, 0.12, 0.38, 0.62, 0.74, 0.78, 0.80, 0.76, 0.60],
    [0.990, 0.85, 0.55, 0.28, 0.12, 0.06, 0.04, 0.03, 0.03],
    [0.001, 0.01, 0.04, 0.07, 0.10, 0.12, 0.11, 0.09, 0.06],
    [0.001, 0.008, 0.015, 0.022, 0.025, 0.022, 0.018, 0.015, 0.008],
    [0.0001, 0.0005, 0.001, 0.002, 0.006, 0.015, 0.04, 0.12, 0.32],
    [0.002, 0.008, 0.012, 0.014, 0.014, 0.014, 0.013, 0.012, 0.01],
    [0.0002, 0.002, 0.002, 0.001, 0.0005, 0.0002, 0.0001, 0.0001, 0.0001],
]
# Adult counts one "Married-civ-spouse" per household, mostly the husband, so
# women in it are far more often unmarried, divorced or widowed.
MARITAL_FEMALE = [0.22, 1.35, 2.3, 2.4, 4.0, 1.5, 1.0]

# (label, education-num, hand-chosen share, usual age of completion)
EDUCATION = [
    ("Preschool", 1, 0.0015, 0),
    ("1st-4th", 2, 0.005, 0),
    ("5th-6th", 3, 0.010, 0),
    ("7th-8th", 4, 0.018, 0),
    ("9th", 5, 0.015, 15),
    ("10th", 6, 0.026, 16),
    ("11th", 7, 0.032, 17),
    ("12th", 8, 0.012, 18),
    ("HS-grad", 9, 0.32, 18),
    ("Some-college", 10, 0.21, 19),
    ("Assoc-voc", 11, 0.045, 20),
    ("Assoc-acdm", 12, 0.035, 20),
    ("Bachelors", 13, 0.18, 22),
    ("Masters", 14, 0.06, 24),
    ("Prof-school", 15, 0.02, 25),
    ("Doctorate", 16, 0.014, 27),
]

NATIVE_COUNTRIES = [
    "United-States", "Mexico", "Philippines", "Germany", "Puerto-Rico", "Canada",
    "El-Salvador", "India", "Cuba", "England", "Jamaica", "South", "China", "Italy",
    "Dominican-Republic", "Vietnam", "Guatemala", "Japan", "Poland", "Columbia", "Taiwan",
    "Haiti", "Iran", "Portugal", "Nicaragua", "Peru", "France", "Greece", "Ecuador",
    "Ireland", "Hong", "Cambodia", "Trinadad&Tobago", "Laos", "Thailand", "Yugoslavia",
    "Outlying-US(Guam-USVI-etc)", "Honduras", "Hungary", "Scotland", "Holand-Netherlands",
]  # fmt: skip
# Country of birth by race (unlisted countries have probability 0 for that race).
COUNTRY_BY_RACE = {
    "White": {
        "United-States": 0.935,
        "Mexico": 0.021,
        "Germany": 0.005,
        "Canada": 0.004,
        "El-Salvador": 0.0035,
        "Cuba": 0.0035,
        "England": 0.003,
        "Puerto-Rico": 0.0025,
        "Italy": 0.0027,
        "Poland": 0.0022,
        "Columbia": 0.0018,
        "Guatemala": 0.0018,
        "Iran": 0.0014,
        "Portugal": 0.0012,
        "Greece": 0.0011,
        "Nicaragua": 0.001,
        "Dominican-Republic": 0.001,
        "France": 0.0009,
        "Ireland": 0.0008,
        "Peru": 0.0008,
        "Ecuador": 0.0008,
        "Yugoslavia": 0.0005,
        "Hungary": 0.0004,
        "Scotland": 0.0004,
        "Honduras": 0.0004,
        "Outlying-US(Guam-USVI-etc)": 0.0002,
        "Holand-Netherlands": 0.00004,
    },
    "Black": {
        "United-States": 0.94,
        "Jamaica": 0.022,
        "Haiti": 0.012,
        "Trinadad&Tobago": 0.005,
        "Dominican-Republic": 0.004,
        "Puerto-Rico": 0.003,
        "Cuba": 0.002,
        "England": 0.002,
        "Outlying-US(Guam-USVI-etc)": 0.002,
        "Columbia": 0.001,
        "Honduras": 0.001,
        "Canada": 0.001,
        "France": 0.0005,
    },
    "Asian-Pac-Islander": {
        "United-States": 0.40,
        "Philippines": 0.17,
        "India": 0.09,
        "China": 0.07,
        "South": 0.07,
        "Vietnam": 0.06,
        "Japan": 0.04,
        "Taiwan": 0.04,
        "Hong": 0.018,
        "Cambodia": 0.016,
        "Laos": 0.016,
        "Thailand": 0.016,
        "Outlying-US(Guam-USVI-etc)": 0.01,
        "Iran": 0.004,
        "England": 0.002,
        "Canada": 0.002,
    },
    "Amer-Indian-Eskimo": {
        "United-States": 0.96,
        "Mexico": 0.015,
        "Canada": 0.008,
        "Guatemala": 0.004,
        "Peru": 0.004,
        "Ecuador": 0.004,
        "Columbia": 0.003,
        "Honduras": 0.002,
    },
    "Other": {
        "United-States": 0.55,
        "Mexico": 0.15,
        "Puerto-Rico": 0.07,
        "Dominican-Republic": 0.05,
        "El-Salvador": 0.03,
        "Columbia": 0.03,
        "Ecuador": 0.02,
        "Peru": 0.02,
        "India": 0.02,
        "Guatemala": 0.015,
        "Nicaragua": 0.015,
        "Iran": 0.01,
        "Cuba": 0.01,
        "Honduras": 0.01,
    },
}
# Education shifts by country of birth: 0 = as above, 1 = less schooling, 2 = more.
LOW_SCHOOLING = {
    "Mexico", "El-Salvador", "Guatemala", "Honduras", "Nicaragua", "Dominican-Republic",
    "Haiti", "Puerto-Rico", "Columbia", "Ecuador", "Peru", "Portugal", "Cambodia", "Laos",
    "Vietnam", "Outlying-US(Guam-USVI-etc)",
}  # fmt: skip
HIGH_SCHOOLING = {"India", "Iran", "Taiwan", "China", "Japan", "Hong", "France", "England"}

# (label, share, affinity to schooling, x women, x under 25, salary effect)
OCCUPATIONS = [
    ("Prof-specialty", 0.07, 0.42, 1.4, 0.4, 0.6),
    ("Exec-managerial", 0.14, 0.2, 0.9, 0.35, 0.85),
    ("Craft-repair", 0.25, -0.1, 0.12, 0.9, 0.0),
    ("Adm-clerical", 0.095, 0.05, 2.6, 1.3, -0.4),
    ("Sales", 0.125, 0.05, 1.1, 1.5, 0.1),
    ("Other-service", 0.08, -0.22, 2.4, 2.2, -1.1),
    ("Machine-op-inspct", 0.085, -0.22, 0.9, 1.0, -0.4),
    ("Transport-moving", 0.095, -0.18, 0.12, 0.8, -0.2),
    ("Handlers-cleaners", 0.06, -0.28, 0.35, 2.0, -0.9),
    ("Farming-fishing", 0.05, -0.28, 0.2, 1.2, -0.9),
    ("Tech-support", 0.03, 0.10, 1.3, 1.0, 0.3),
    ("Protective-serv", 0.034, 0.0, 0.3, 0.7, 0.3),
    ("Priv-house-serv", 0.002, -0.35, 8.0, 1.5, -1.5),
    ("Armed-Forces", 0.0004, 0.0, 0.1, 2.0, 0.0),
]

WORKCLASS = [
    "Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov",
    "Without-pay", "Never-worked",
]  # fmt: skip
# Workclass shares by occupation (same order as WORKCLASS). "Never-worked" has no
# occupation in Adult, so it is never drawn here.
WORKCLASS_BY_OCCUPATION = {
    "Prof-specialty": [0.60, 0.09, 0.03, 0.04, 0.13, 0.11, 0.0002, 0.0],
    "Exec-managerial": [0.70, 0.07, 0.10, 0.05, 0.045, 0.035, 0.0002, 0.0],
    "Craft-repair": [0.80, 0.11, 0.025, 0.02, 0.03, 0.015, 0.0003, 0.0],
    "Adm-clerical": [0.76, 0.012, 0.005, 0.08, 0.08, 0.063, 0.0005, 0.0],
    "Sales": [0.80, 0.10, 0.08, 0.003, 0.005, 0.004, 0.0003, 0.0],
    "Other-service": [0.83, 0.05, 0.01, 0.01, 0.06, 0.04, 0.001, 0.0],
    "Machine-op-inspct": [0.93, 0.025, 0.01, 0.01, 0.01, 0.01, 0.0005, 0.0],
    "Transport-moving": [0.82, 0.07, 0.02, 0.01, 0.06, 0.02, 0.0005, 0.0],
    "Handlers-cleaners": [0.90, 0.02, 0.005, 0.02, 0.04, 0.01, 0.001, 0.0],
    "Farming-fishing": [0.47, 0.38, 0.05, 0.01, 0.03, 0.04, 0.01, 0.0],
    "Tech-support": [0.83, 0.02, 0.01, 0.05, 0.04, 0.05, 0.0002, 0.0],
    "Protective-serv": [0.30, 0.01, 0.005, 0.10, 0.45, 0.135, 0.0, 0.0],
    "Priv-house-serv": [0.97, 0.02, 0.0, 0.0, 0.0, 0.0, 0.005, 0.0],
    "Armed-Forces": [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
}
WORKCLASS_SALARY = [0.0, -0.25, 0.6, 0.45, 0.1, 0.0, -3.0, -3.0]

SALARY = ["<=50K", ">50K"]
# Logistic model of P(>50K); the intercept was tuned by hand for about 25% ">50K".
SALARY_INTERCEPT = -3.15
SALARY_PER_SCHOOL_YEAR = 0.38  # per step of education-num above HS-grad (9)
SALARY_AGE_SLOPE = 0.06  # per year of age up to 50
SALARY_YOUNG_SLOPE = -0.15  # extra, per year of age below 25
SALARY_OLD_SLOPE = -0.06  # per year of age above 58
SALARY_MALE = 0.4
SALARY_MARRIED = 1.9  # Married-civ-spouse and Married-AF-spouse

# ----------------------------------------------------------------------------- tables
# Built once at import; every per-row draw is a lookup into these.

_SEX_T = _Table([SEX_P])
_AGE_T = _Table([np.interp(AGES, AGE_KNOTS, AGE_KNOT_WEIGHTS)])
_RACE_T = _Table([RACE_P])


def _marital_table() -> _Table:
    base = np.column_stack([np.interp(AGES, MARITAL_AGES, s) for s in MARITAL_SHARES])
    rows = np.stack([base, base * np.asarray(MARITAL_FEMALE)], axis=1)  # (age, sex, K)
    return _Table(rows.reshape(-1, len(MARITAL)))


def _education_table() -> _Table:
    share = np.array([e[2] for e in EDUCATION])
    num = np.array([e[1] for e in EDUCATION], dtype=float)
    done = np.array([e[3] for e in EDUCATION], dtype=float)
    age = AGES[:, None].astype(float)
    w = share[None, :] * np.exp(-1.6 * np.maximum(done[None, :] - age, 0))
    # the young are still at school: the grade they are in is common, dropouts rare
    in_progress = (age <= 22) & (done[None, :] >= age - 1) & (done[None, :] <= age)
    w = w * np.where(in_progress, 4.0, 1.0) * np.where((age <= 25) & (num <= 4), 0.3, 1.0)
    # older cohorts left school earlier
    w = w * np.where(num <= 8, 1 + 0.05 * np.maximum(age - 45, 0), 1.0)
    w = w * np.where(num >= 13, np.exp(-0.02 * np.maximum(age - 55, 0)), 1.0)
    low = w * np.exp(-0.35 * (num - 9))[None, :]
    high = w * np.exp(0.3 * np.clip(num - 9, -3, None))[None, :]
    return _Table(np.stack([w, low, high], axis=1).reshape(-1, len(EDUCATION)))


def _country_table() -> tuple[_Table, np.ndarray]:
    pos = {c: i for i, c in enumerate(NATIVE_COUNTRIES)}
    rows = np.zeros((len(RACES), len(NATIVE_COUNTRIES)))
    for r, race in enumerate(RACES):
        for country, share in COUNTRY_BY_RACE[race].items():
            rows[r, pos[country]] = share
    group = np.array(
        [1 if c in LOW_SCHOOLING else 2 if c in HIGH_SCHOOLING else 0 for c in NATIVE_COUNTRIES],
        dtype=np.int64,
    )
    return _Table(rows), group


def _occupation_table() -> _Table:
    share = np.array([o[1] for o in OCCUPATIONS])
    affinity = np.array([o[2] for o in OCCUPATIONS])
    female = np.array([o[3] for o in OCCUPATIONS])
    young = np.array([o[4] for o in OCCUPATIONS])
    school = np.array([e[1] for e in EDUCATION], dtype=float) - 9
    w = share[None, :] * np.exp(np.outer(school, affinity))  # (education, K)
    rows = np.empty((len(EDUCATION), 2, 2, len(OCCUPATIONS)))  # (education, sex, under 25, K)
    rows[:, 0, 0] = w
    rows[:, 0, 1] = w * young
    rows[:, 1, 0] = w * female
    rows[:, 1, 1] = w * female * young
    return _Table(rows.reshape(-1, len(OCCUPATIONS)))


def _workclass_table() -> _Table:
    return _Table(np.array([WORKCLASS_BY_OCCUPATION[o[0]] for o in OCCUPATIONS]))


_MARITAL_T = _marital_table()
_EDUCATION_T = _education_table()
_COUNTRY_T, _COUNTRY_SCHOOL_GROUP = _country_table()
_OCCUPATION_T = _occupation_table()
_WORKCLASS_T = _workclass_table()
_EDU_NUM = np.array([e[1] for e in EDUCATION], dtype=float)
_OCC_SALARY = np.array([o[5] for o in OCCUPATIONS])
_WC_SALARY = np.array(WORKCLASS_SALARY)
_MARRIED = np.isin(np.array(MARITAL), ["Married-civ-spouse", "Married-AF-spouse"])

#: Labels of each categorical column, indexed by the generated codes.
LABELS: dict[str, list[str]] = {
    "sex": SEX,
    "race": RACES,
    "marital-status": MARITAL,
    "education": [e[0] for e in EDUCATION],
    "native-country": NATIVE_COUNTRIES,
    "workclass": WORKCLASS,
    "occupation": [o[0] for o in OCCUPATIONS],
    "salary-class": SALARY,
}
# one extra None at the end: the code len(labels) stands for a missing value
_OBJECT_LABELS = {c: np.array([*v, None], dtype=object) for c, v in LABELS.items()}
_ARROW_LABELS = {c: pa.array(v, type=pa.string()) for c, v in LABELS.items()}


def _schema(text: pa.DataType) -> pa.Schema:
    return pa.schema(
        [pa.field(c, pa.int64() if c == "age" else text, nullable=c in MISSING_COLUMNS)
         for c in COLUMNS]
    )  # fmt: skip


#: Schema of the written files: plain strings, ``age`` int64.
ARROW_SCHEMA = _schema(pa.string())
# Chunks are handed to the writers dictionary-encoded (codes + labels), which spares
# Parquet the hashing of every string; the files still hold plain string columns.
_DICT_SCHEMA = _schema(pa.dictionary(pa.int16(), pa.string()))

# ----------------------------------------------------------------------------- generation


def _generate_codes(
    rng: np.random.Generator, n: int, missing_rate: float = 0.0
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Draw one chunk as integer codes into LABELS, plus masks of blanked cells."""
    sex = _SEX_T.draw(rng, 0, n)  # 0 Male, 1 Female
    age_i = _AGE_T.draw(rng, 0, n)
    race = _RACE_T.draw(rng, 0, n)
    country = _COUNTRY_T.draw(rng, race, n)
    marital = _MARITAL_T.draw(rng, age_i * 2 + sex, n)
    education = _EDUCATION_T.draw(rng, age_i * 3 + _COUNTRY_SCHOOL_GROUP[country], n)
    age = AGES[age_i]
    young = age < 25
    occupation = _OCCUPATION_T.draw(rng, (education.astype(np.int64) * 2 + sex) * 2 + young, n)
    workclass = _WORKCLASS_T.draw(rng, occupation, n)

    logit = (
        SALARY_INTERCEPT
        + SALARY_PER_SCHOOL_YEAR * (_EDU_NUM[education] - 9)
        + SALARY_AGE_SLOPE * (np.minimum(age, 50) - 38)
        + SALARY_YOUNG_SLOPE * np.maximum(25 - age, 0)
        + SALARY_OLD_SLOPE * np.maximum(age - 58, 0)
        + SALARY_MALE * (sex == 0)
        + SALARY_MARRIED * _MARRIED[marital]
        + _OCC_SALARY[occupation]
        + _WC_SALARY[workclass]
    )
    rich = (rng.random(n) * (1.0 + np.exp(-logit)) < 1.0).astype(np.int16)

    codes = {
        "sex": sex,
        "age": age.astype(np.int64),
        "race": race,
        "marital-status": marital,
        "education": education,
        "native-country": country,
        "workclass": workclass,
        "occupation": occupation,
        "salary-class": rich,
    }
    masks: dict[str, np.ndarray] = {}
    if missing_rate > 0:  # drawn last, so the other cells do not depend on the rate
        work = rng.random(n) < missing_rate
        masks = {
            "workclass": work,
            "occupation": work,
            "native-country": rng.random(n) < missing_rate,
        }
    return codes, masks


def _to_frame(codes: dict[str, np.ndarray], masks: dict[str, np.ndarray]) -> pd.DataFrame:
    data = {}
    for col in COLUMNS:
        c = codes[col]
        if col == "age":
            data[col] = c
            continue
        labels = _OBJECT_LABELS[col]
        if col in masks:
            c = np.where(masks[col], len(labels) - 1, c)
        data[col] = labels[c]
    return pd.DataFrame(data, columns=COLUMNS)


def _to_arrow(codes: dict[str, np.ndarray], masks: dict[str, np.ndarray]) -> pa.Table:
    """The chunk as an Arrow table of dictionary-encoded columns (see _DICT_SCHEMA)."""
    arrays = []
    for col in COLUMNS:
        c = codes[col]
        if col == "age":
            arrays.append(pa.array(c, type=pa.int64()))
            continue
        idx = pa.array(c.astype(np.int16, copy=False), mask=masks.get(col))
        arrays.append(pa.DictionaryArray.from_arrays(idx, _ARROW_LABELS[col]))
    return pa.Table.from_arrays(arrays, schema=_DICT_SCHEMA)


def _as_count(name: str, value: object) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if (
        isinstance(value, float | np.floating)
        and math.isfinite(value)
        and float(value).is_integer()
    ):
        value = int(value)
    try:
        count = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be a whole number, not {value!r}") from None
    if count < 1:
        raise ValueError(f"{name} must be at least 1, got {count}")
    return count


def _check_args(
    n_rows: object, seed: object, chunk_rows: object, missing_rate: object
) -> tuple[int, int, int, float]:
    n = _as_count("n_rows", n_rows)
    chunk = _as_count("chunk_rows", chunk_rows)
    if isinstance(seed, bool):
        raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
    try:
        s = operator.index(seed)
    except TypeError:
        raise ValueError(f"seed must be a non-negative integer, not {seed!r}") from None
    if s < 0:
        raise ValueError(f"seed must be a non-negative integer, got {s}")
    try:
        rate = float(missing_rate)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"missing_rate must be a number in [0, 1), not {missing_rate!r}") from None
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"missing_rate must be in [0, 1) (0 = no missing values), got {rate}")
    return n, s, chunk, rate


def _iter_codes(
    n_rows: int, seed: int, chunk_rows: int, missing_rate: float
) -> Iterator[tuple[dict[str, np.ndarray], dict[str, np.ndarray]]]:
    for i, start in enumerate(range(0, n_rows, chunk_rows)):
        n = min(chunk_rows, n_rows - start)
        yield _generate_codes(np.random.default_rng([seed, i]), n, missing_rate)


def iter_chunks(
    n_rows: int,
    seed: int = DEFAULT_SEED,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    missing_rate: float = 0.0,
) -> Iterator[pd.DataFrame]:
    """Yield the table as DataFrames of ``chunk_rows`` rows (the last may be shorter).

    Columns follow :data:`COLUMNS`; ``age`` is int64, the others hold Python strings
    (``None`` where ``missing_rate`` blanked a cell). Chunk ``i`` is drawn from
    ``numpy.random.default_rng([seed, i])``. Arguments are checked before the first chunk.
    """
    n, s, chunk, rate = _check_args(n_rows, seed, chunk_rows, missing_rate)

    def chunks() -> Iterator[pd.DataFrame]:
        for codes, masks in _iter_codes(n, s, chunk, rate):
            yield _to_frame(codes, masks)

    return chunks()


# ----------------------------------------------------------------------------- writing


def _resolve_format(path: Path, fmt: str | None) -> str:
    if fmt is None:
        suffix = path.suffix.lower().lstrip(".")
        if suffix not in FORMATS:
            raise ValueError(
                f"cannot infer the format of {str(path)!r} from its suffix; "
                "use a .parquet or .csv name or pass fmt='parquet' or fmt='csv'"
            )
        return suffix
    if not isinstance(fmt, str) or fmt.lower() not in FORMATS:
        raise ValueError(f"fmt must be 'parquet' or 'csv' (or None to infer), not {fmt!r}")
    return fmt.lower()


def write(
    path: str | os.PathLike[str],
    n_rows: int,
    fmt: str | None = None,
    seed: int = DEFAULT_SEED,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    missing_rate: float = 0.0,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write ``n_rows`` generated rows to ``path`` and return it.

    The content is exactly that of :func:`iter_chunks` with the same arguments.
    Parquet gets one row group per chunk (string columns, ``age`` int64, nulls for
    blanked cells); CSV is comma separated UTF-8 with a header, blanked cells empty.
    The file is written under a temporary name in the same folder and renamed at the
    end, so an interrupted run leaves no partial file. ``progress(rows_written,
    n_rows)`` is called after each chunk.
    """
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    n, s, chunk, rate = _check_args(n_rows, seed, chunk_rows, missing_rate)
    out = Path(path)
    kind = _resolve_format(out, fmt)
    if out.is_dir():
        raise ValueError(f"{str(out)!r} is a folder; give a file name")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    written = 0
    try:
        with open(tmp, "wb") as sink:
            if kind == "parquet":
                # store_schema=False: readers see the Parquet string type, not a dictionary
                writer = pq.ParquetWriter(sink, _DICT_SCHEMA, store_schema=False)
            else:
                # Arrow quotes header names; write a plain header. No value needs quotes
                # (quoting_style="none" raises rather than write a malformed cell).
                sink.write((",".join(COLUMNS) + "\n").encode("utf-8"))
                options = pacsv.WriteOptions(include_header=False, quoting_style="none")
                writer = pacsv.CSVWriter(sink, _DICT_SCHEMA, write_options=options)
            with writer:
                for codes, masks in _iter_codes(n, s, chunk, rate):
                    table = _to_arrow(codes, masks)
                    if kind == "parquet":
                        writer.write_table(table, row_group_size=len(table))
                    else:
                        writer.write_table(table)
                    written += len(table)
                    if progress is not None:
                        progress(written, n)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return out


# ----------------------------------------------------------------------------- CLI

_SUFFIXES = {"k": 10**3, "m": 10**6, "g": 10**9, "b": 10**9}


def parse_rows(text: str) -> int:
    """Parse a row count such as ``10000000``, ``10_000_000``, ``10M``, ``1.5M`` or ``500k``."""
    raw = text.strip().replace("_", "").replace(",", "")
    factor = 1
    if raw and raw[-1].lower() in _SUFFIXES:
        factor = _SUFFIXES[raw[-1].lower()]
        raw = raw[:-1]
    try:
        value = Decimal(raw) * factor
    except InvalidOperation:
        raise ValueError(
            f"not a row count: {text!r} (examples: 1000000, 10M, 1.5M, 500k)"
        ) from None
    if not value.is_finite() or value != value.to_integral_value() or value < 1:
        raise ValueError(f"row count must be a whole number >= 1, got {text!r}")
    return int(value)


def _fmt_rate(rows_per_s: float) -> str:
    if rows_per_s >= 1e6:
        return f"{rows_per_s / 1e6:.2f}M"
    return f"{rows_per_s / 1e3:.0f}k" if rows_per_s >= 1e4 else f"{rows_per_s:.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write a seeded, Adult-like table of any size (Parquet or CSV), chunk by chunk."
    )

    def rows_arg(text: str) -> int:
        try:
            return parse_rows(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parser.add_argument(
        "--rows", type=rows_arg, required=True, help="rows, e.g. 1000000, 10M, 500k"
    )
    parser.add_argument("--out", type=Path, required=True, help="output file (.parquet or .csv)")
    parser.add_argument(
        "--format", choices=FORMATS, default=None, help="default: from --out suffix"
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"default {DEFAULT_SEED}")
    parser.add_argument(
        "--chunk-rows", type=rows_arg, default=DEFAULT_CHUNK_ROWS, help="rows per chunk / row group"
    )
    parser.add_argument(
        "--missing-rate",
        type=float,
        default=0.0,
        help="share of blanked workclass+occupation and native-country cells, in [0, 1)",
    )
    args = parser.parse_args(argv)

    start = time.perf_counter()
    last = [0.0]

    def report(done: int, total: int) -> None:
        now = time.perf_counter() - start
        if done == total or now - last[0] >= 0.5:
            last[0] = now
            print(
                f"{done:,}/{total:,} rows ({100 * done / total:.0f}%), "
                f"{_fmt_rate(done / max(now, 1e-9))} rows/s",
                file=sys.stderr,
                flush=True,
            )

    try:
        out = write(
            args.out,
            args.rows,
            fmt=args.format,
            seed=args.seed,
            chunk_rows=args.chunk_rows,
            missing_rate=args.missing_rate,
            progress=report,
        )
    except ValueError as exc:
        parser.error(str(exc))
    elapsed = time.perf_counter() - start
    size = out.stat().st_size
    print(
        f"{out} {args.rows:,} rows, {size / 1024**2:.1f} MiB, {elapsed:.2f} s "
        f"({_fmt_rate(args.rows / max(elapsed, 1e-9))} rows/s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
