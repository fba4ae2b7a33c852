"""Spatial risk and utility in the evidence and on the Compare chart, from hand-worked cases.

The case: a 10 x 10 lattice of people 100 m apart on the equator, released moved 100 m north.
By hand: every displacement is 100 m (median and 95th percentile 100 m); the released lattice is
the same lattice, so its Clark-Evans index is that of a lattice (mean nearest distance s over
0.5 sqrt((9 s)^2 / 100) = 20/9) and Ripley's L does not change; the released point of each person
below the top row lands exactly on the person above (so the attacker's nearest original is the
wrong one, and one original point is closer than the true home: spatial k = 1), while the top row
(10 people) has nobody above (nearest is the true home: re-identified, spatial k = 0).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anon_core.config import parse_config
from anon_core.geo.section import parse_geo_section
from anon_core.services.compare import compare
from anon_core.services.compare_figures import SPATIAL_FIGURES, figure_explanation, figure_label
from anon_core.services.geo_evidence import UTILITY_NAMES, geo_figures

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_data"))
from generate_geo import generate  # noqa: E402

R = 6_371_008.8
PER_DEG = math.pi * R / 180.0
GEO = {"latitude": "lat", "longitude": "lon"}


def lattice(north_m: float = 0.0) -> pd.DataFrame:
    i, j = np.meshgrid(np.arange(10), np.arange(10), indexing="ij")
    return pd.DataFrame(
        {
            "lat": (i.ravel() * 100.0 + north_m) / PER_DEG,
            "lon": j.ravel() * 100.0 / PER_DEG,
        }
    )


def test_hand_worked_lattice_moved_100_m_north():
    figures, details = geo_figures(parse_geo_section(GEO), lattice(), lattice(100.0))
    value = {k: f["value"] for k, f in figures.items()}
    assert value["displacement_median_m"] == pytest.approx(100.0, rel=1e-6)
    assert value["displacement_p95_m"] == pytest.approx(100.0, rel=1e-6)
    assert value["nn_index_release"] == pytest.approx(20 / 9, rel=2e-3)
    assert value["ripley_l_max_diff_m"] == pytest.approx(0.0, abs=1e-6)
    assert value["hotspot_recovery"] == 1.0  # one cluster, its centre moved 100 m (< 500 m)
    assert value["nn_reidentification"] == pytest.approx(0.1)
    assert value["spatial_k_min"] == 0 and value["spatial_k_share_below"] == 1.0
    # the stated range of radii and the original's index are in the explanations
    assert "radii from 9 to 225 m" in figures["ripley_l_max_diff_m"]["explain"]
    assert "(2.22" in figures["nn_index_release"]["explain"]
    assert details["utility"]["ripley"]["radii_m"][0] == pytest.approx(9.0, rel=1e-3)
    for name in UTILITY_NAMES:
        assert figures[name]["kind"] == "spatial utility" and figures[name]["explain"]


def test_spatial_figures_say_why_when_rows_are_not_paired():
    section = parse_geo_section(GEO)
    figures, details = geo_figures(section, lattice(), lattice().iloc[:50])
    assert details is None
    assert all("not the input's rows" in f["why"] for f in figures.values())
    assert set(figures) >= set(UTILITY_NAMES)


def test_every_spatial_chart_figure_has_words_units_and_a_line_of_explanation():
    for key in SPATIAL_FIGURES:
        label, meaning = figure_label(key), figure_explanation(key)
        assert label.startswith("Spatial: ") and "(" in label and meaning.endswith(".")
    assert "metres" in figure_label("spatial.displacement_median_m")
    assert "metres" in figure_label("spatial.ripley_l_max_diff_m")
    assert "1 % to 25 %" in figure_explanation("spatial.ripley_l_max_diff_m")


def test_compare_puts_spatial_risk_and_utility_on_the_chart():
    frame = generate(900, seed=3)
    roles = {
        "patient_id": {"role": "identifier"},
        "lat": {"role": "quasi-identifier"},
        "lon": {"role": "quasi-identifier"},
        "town": {"role": "insensitive"},
        "age": {"role": "quasi-identifier"},
        "sex": {"role": "quasi-identifier"},
        "diagnosis": {"role": "sensitive"},
    }
    config = parse_config(
        {"attributes": roles, "privacy_models": [{"model": "k-anonymity", "k": 2}], "geo": GEO}
    )
    result = compare(
        config,
        frame,
        [{"name": "geomask-donut", "min_distance_m": 100, "max_distance_m": 200}],
        baseline=True,
        attack_runner=lambda *a: {},
        utility_runner=lambda *a: {},
    )
    copy, donut = result.method("unprotected-copy"), result.method("geomask-donut")
    # the unprotected copy: every point is its own nearest original, nothing moved
    assert copy.attacks["spatial"] == {"nn_reidentification": 1.0, "spatial_k_share_below": 1.0}
    assert copy.utility["spatial"]["displacement_median_m"] == 0.0
    assert copy.utility["spatial"]["ripley_l_max_diff_m"] == 0.0
    # the donut: every displacement in [100, 200] m, so the median and 95th percentile too
    moved = donut.utility["spatial"]
    assert (
        100.0 - 1e-6
        <= moved["displacement_median_m"]
        <= moved["displacement_p95_m"]
        <= 200.0 + 1e-6
    )
    assert donut.attacks["spatial"]["nn_reidentification"] < 1.0
    for m in (copy, donut):
        keys = {f"spatial.{k}" for k in {**m.attacks["spatial"], **m.utility["spatial"]}}
        assert keys <= set(SPATIAL_FIGURES)
