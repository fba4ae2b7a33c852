"""Generate the synthetic geocoded patient table ``geo_patients.csv`` (home locations).

Run from the repository root::

    python sample_data/generate_geo.py            # writes geo_patients.csv here
    python sample_data/generate_geo.py /tmp/out   # or somewhere else

Every row is drawn from ``numpy.random.default_rng(SEED)``: homes clustered around six
fictional towns (Gaussian spread of 0.6 to 1.6 km around each centre, in a rural area of about
60 x 60 km around 52.1 N, 5.1 E) plus a rural scatter, each with an age, a sex and a diagnosis.
No real person or address; the town names are invented. Tests and ``benchmarks/bench_geo.py``
call :func:`generate` directly (any number of rows).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20261126
ROWS = 2_500
CSV_FILE = "geo_patients.csv"
EARTH_RADIUS_M = 6_371_008.8

#: (name, latitude, longitude, spread in metres, share of the patients)
TOWNS = (
    ("Aldervale", 52.090, 5.120, 1_600.0, 0.30),
    ("Brookmere", 52.260, 4.950, 1_100.0, 0.18),
    ("Cindersby", 51.930, 5.330, 900.0, 0.15),
    ("Dunhollow", 52.180, 5.420, 800.0, 0.12),
    ("Eastwick Fen", 51.980, 4.830, 700.0, 0.10),
    ("Farrowgate", 52.330, 5.250, 600.0, 0.07),
)
RURAL_SHARE = 0.08
RURAL_BOX = (51.85, 52.40, 4.75, 5.50)  # lat min, lat max, lon min, lon max
DIAGNOSES = (
    "Asthma",
    "Diabetes",
    "Hypertension",
    "COPD",
    "Depression",
    "Heart failure",
    "Fracture",
    "Pneumonia",
)


def generate(rows: int = ROWS, seed: int = SEED) -> pd.DataFrame:
    """The table: patient_id, lat, lon, town, age, sex, diagnosis (``rows`` rows)."""
    rng = np.random.default_rng(seed)
    shares = np.array([t[4] for t in TOWNS] + [RURAL_SHARE])
    shares = shares / shares.sum()
    which = rng.choice(len(shares), size=rows, p=shares)
    lat, lon = np.empty(rows), np.empty(rows)
    town = np.empty(rows, dtype=object)
    for i, (name, tlat, tlon, spread, _) in enumerate(TOWNS):
        m = which == i
        north = rng.normal(0.0, spread, m.sum())
        east = rng.normal(0.0, spread, m.sum())
        lat[m] = tlat + np.degrees(north / EARTH_RADIUS_M)
        lon[m] = tlon + np.degrees(east / (EARTH_RADIUS_M * np.cos(np.radians(tlat))))
        town[m] = name
    m = which == len(TOWNS)
    lat[m] = rng.uniform(RURAL_BOX[0], RURAL_BOX[1], m.sum())
    lon[m] = rng.uniform(RURAL_BOX[2], RURAL_BOX[3], m.sum())
    town[m] = "rural"
    age = np.clip(rng.gamma(4.0, 11.0, rows), 0, 99).astype(int)
    sex = np.where(rng.uniform(size=rows) < 0.51, "F", "M")
    # diagnosis frequencies depend on age (older: more heart failure and COPD)
    old = age >= 60
    base = np.array([0.16, 0.14, 0.16, 0.08, 0.14, 0.06, 0.14, 0.12])
    older = np.array([0.06, 0.18, 0.22, 0.14, 0.06, 0.16, 0.08, 0.10])
    u = rng.uniform(size=rows)
    cum_young, cum_old = np.cumsum(base / base.sum()), np.cumsum(older / older.sum())
    idx = np.where(old, np.searchsorted(cum_old, u), np.searchsorted(cum_young, u))
    diagnosis = np.array(DIAGNOSES, dtype=object)[np.minimum(idx, len(DIAGNOSES) - 1)]
    return pd.DataFrame(
        {
            "patient_id": [f"P{i:05d}" for i in range(1, rows + 1)],
            "lat": np.round(lat, 6),
            "lon": np.round(lon, 6),
            "town": town,
            "age": age,
            "sex": sex,
            "diagnosis": diagnosis,
        }
    )


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).parent
    out.mkdir(parents=True, exist_ok=True)
    target = out / CSV_FILE
    tmp = target.with_suffix(".csv.tmp")
    generate().to_csv(tmp, index=False, lineterminator="\n")
    tmp.replace(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
