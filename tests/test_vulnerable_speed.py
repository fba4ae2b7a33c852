"""The fast k-th-neighbour ranking of vulnerable records gives today's ranking exactly: against a
brute-force pure-Python Gower computation, against scikit-learn's nearest neighbours on the
one-hot rows (the ranking's previous implementation), and on a table worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anon_core.attacks.gower_kernel import kth_distances, nearest_rows
from anon_core.attacks.vulnerable import MixedEncoder, knn_distances, vulnerable_records

PATHS = [True, False]  # the compiled kernel and the numpy path


def _gower(a: dict, b: dict, numeric: dict[str, tuple[float, float]], cats: list[str]) -> float:
    """The module doc's rule, written out: a category 0/1 (missing is a label of its own); a
    number |x - y| / range, a missing number at -1 on the scaled axis."""
    d = 0.0
    for col in a:
        if col in cats:
            d += 0.0 if a[col] == b[col] else 1.0
        else:
            lo, span = numeric[col]

            def scaled(v, lo=lo, span=span):
                return (
                    -1.0
                    if v is None or (isinstance(v, float) and math.isnan(v))
                    else (v - lo) / span
                )

            d += abs(scaled(a[col]) - scaled(b[col]))
    return d


def _brute_force(frame: pd.DataFrame, k: int, cats: list[str]) -> tuple[list[float], list[int]]:
    rows = [
        {c: (None if pd.isna(v) else v) for c, v in r.items()} for r in frame.to_dict("records")
    ]
    numeric = {}
    for col in frame.columns:
        if col not in cats:
            present = [r[col] for r in rows if r[col] is not None]
            span = max(present) - min(present)
            numeric[col] = (min(present), span if span > 0 else 1.0)
    scores = []
    for i, r in enumerate(rows):
        others = sorted(_gower(r, s, numeric, cats) for j, s in enumerate(rows) if j != i)
        scores.append(others[k - 1])
    order = sorted(range(len(rows)), key=lambda i: (-scores[i], i))
    return scores, order


def _mixed(n: int, seed: int, dyadic: bool) -> pd.DataFrame:
    """Mixed columns with many equal records and missing values; ``dyadic``: numbers on a range
    of 8 in steps of 1 or 1/2, so every sum is exact in any order."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 9, n).astype(float) if dyadic else np.round(rng.normal(40, 13, n), 1)
    pay = rng.integers(0, 17, n) / 2.0 if dyadic else rng.integers(0, 7, n) / 3.0
    frame = pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "age": age,
            "job": rng.choice(["a", "b", "c", None], n),
            "pay": pay,
        }
    )
    frame.loc[rng.random(n) < 0.05, "age"] = np.nan
    if dyadic:
        frame.loc[0, "age"], frame.loc[1, "age"] = 0.0, 8.0  # the range is exactly 8
        frame.loc[0, "pay"], frame.loc[1, "pay"] = 0.0, 8.0
    return frame


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize("k", [1, 3, 5])
def test_ranking_equals_a_brute_force_gower_computation(compiled, k):
    frame = _mixed(300, seed=k, dyadic=True)
    expected_scores, expected_order = _brute_force(frame, k, ["sex", "job"])
    assert len(set(expected_scores)) < 100  # many ties: their order is by position
    enc = MixedEncoder([frame], list(frame.columns))
    x, is_cat = enc.columns_matrix(frame)
    scores = kth_distances(x, is_cat, k, compiled=compiled)
    assert scores.tolist() == expected_scores
    assert np.lexsort((np.arange(len(scores)), -scores)).tolist() == expected_order
    if compiled:
        v = vulnerable_records(frame, k=k, top=5)
        assert v.scores.tolist() == expected_scores and v.order.tolist() == expected_order


def test_a_wide_table_ranks_through_the_kernel_as_the_brute_force_computation():
    frame = _mixed(300, seed=9, dyadic=True)
    frame["code"] = np.random.default_rng(9).choice([f"c{i}" for i in range(20)], len(frame))
    assert MixedEncoder([frame], list(frame.columns)).width > 15  # not scikit-learn's KD-tree
    expected_scores, expected_order = _brute_force(frame, 3, ["sex", "job", "code"])
    v = vulnerable_records(frame, k=3, top=5)
    assert v.scores.tolist() == expected_scores and v.order.tolist() == expected_order


@pytest.mark.parametrize("compiled", PATHS)
@pytest.mark.parametrize(("seed", "wide"), [(0, False), (1, False), (2, True)])
def test_ranking_equals_nearest_neighbours_on_the_one_hot_rows_bit_for_bit(compiled, seed, wide):
    """Numbers that are not exact in binary: the sums must be added in the same order as the
    L1 distance of the encoded rows, so equal scores stay equal and unequal ones unequal.
    ``wide``: more than 256 encoded columns (a sparse matrix for scikit-learn)."""
    frame = _mixed(400, seed=seed, dyadic=False)
    if wide:
        frame["code"] = np.random.default_rng(seed).integers(0, 2000, len(frame)).astype(str)
    enc = MixedEncoder([frame], list(frame.columns))
    assert enc.dense is not wide
    dist, _ = knn_distances(enc.transform(frame), 4)
    x, is_cat = enc.columns_matrix(frame)
    assert np.array_equal(kth_distances(x, is_cat, 4, compiled=compiled), dist[:, -1])


# Worked by hand: age's range is 40 (20..60), so ages scale to 0, 0, 1/4, 1/2, 1.
#   pair distances: 0-1: 0; 0-2, 1-2: 1/4; 0-3, 1-3: 1/2 + 1; 0-4, 1-4: 1 + 1;
#   2-3: 1/4 + 1; 2-4: 3/4 + 1; 3-4: 1/2
HAND = pd.DataFrame({"age": [20, 20, 30, 40, 60], "sex": ["F", "F", "F", "M", "M"]})
HAND_SCORES = {
    # k=1: the nearest other record
    1: ([0.0, 0.0, 0.25, 0.5, 0.5], [3, 4, 2, 0, 1]),
    # k=2: record 0's others are 0, 1/4, 3/2, 2; record 3's are 1/2, 5/4, 3/2, 3/2
    2: ([0.25, 0.25, 0.25, 1.25, 1.75], [4, 3, 0, 1, 2]),
}


@pytest.mark.parametrize("k", [1, 2])
def test_hand_worked_table_today_and_now(k):
    scores, order = HAND_SCORES[k]
    enc = MixedEncoder([HAND], ["age", "sex"])
    # today's implementation (nearest neighbours on the one-hot rows) gives the hand's values
    dist, _ = knn_distances(enc.transform(HAND), k)
    assert dist[:, -1].tolist() == scores
    x, is_cat = enc.columns_matrix(HAND)
    for compiled in PATHS:
        assert kth_distances(x, is_cat, k, compiled=compiled).tolist() == scores
    v = vulnerable_records(HAND, k=k, top=5)
    assert (v.scores.tolist(), v.order.tolist()) == (scores, order)


def test_hand_worked_columns_that_make_the_top_records_rare():
    v = vulnerable_records(HAND, k=2, top=2)
    # record 4's two nearest: 3 (age 1/2 apart) and 2 (age 3/4, sex 1): age 5/8 > sex 1/2
    # record 3's two nearest: 4 (age 1/2) and 2 (age 1/4, sex 1): sex 1/2 > age 3/8
    assert [(r.position, r.columns) for r in v.top] == [(4, ("age", "sex")), (3, ("sex", "age"))]


def test_a_tie_at_the_kth_neighbour_explains_with_the_earlier_record():
    """The compiled path's neighbours (encodings wider than 15 columns): among rows tied at the
    k-th distance the earlier ones, as scikit-learn's brute-force search keeps them."""
    # record 0 is 1 away from record 1 (on c) and from record 2 (on d); record 4 equals 0
    table = pd.DataFrame({"c": ["A", "B", "A", "Z", "A"], "d": ["P", "P", "Q", "Z", "P"]})
    enc = MixedEncoder([table], ["c", "d"])
    x, is_cat = enc.columns_matrix(table)
    assert nearest_rows(x, is_cat, 0, 1).tolist() == [4]  # the equal record first
    assert nearest_rows(x, is_cat, 0, 2).tolist() == [4, 1]  # then the earlier of 1 and 2
    assert nearest_rows(x, is_cat, 4, 2).tolist() == [4, 1]  # 0 (equal) is left out, not 4
    # record 2 (A, Q): 0 and 4 are 1 away, 1 and 3 are 2 away: the earlier, 1, is the third
    assert nearest_rows(x, is_cat, 2, 3).tolist() == [0, 4, 1]


def test_every_record_equal_scores_zero():
    table = pd.DataFrame({"a": ["x"] * 6, "n": [1.5] * 6})
    for compiled in PATHS:
        enc = MixedEncoder([table], ["a", "n"])
        x, is_cat = enc.columns_matrix(table)
        assert kth_distances(x, is_cat, 5, compiled=compiled).tolist() == [0.0] * 6


@pytest.mark.parametrize("compiled", PATHS)
def test_a_differing_category_adds_two_halves_as_the_one_hot_distance_does(compiled):
    """The one-hot L1 distance adds 1/2 for each differing indicator: after a number that is
    not exact in binary, (1/12 + 1/2) + 1/2 rounds to 1.0833333333333335, not 1/12 + 1 =
    1.0833333333333333; an equal score from another pair must not tie with it."""
    table = pd.DataFrame({"x": [0.0, 1.0, 12.0], "c": ["A", "B", "C"]})
    expected = (1 / 12 + 0.5) + 0.5
    assert expected != 1 / 12 + 1.0
    enc = MixedEncoder([table], ["x", "c"])
    x, is_cat = enc.columns_matrix(table)
    got = kth_distances(x, is_cat, 1, compiled=compiled)
    assert got[0] == expected and got[1] == expected
    assert knn_distances(enc.transform(table), 1)[0][0, -1] == expected


# ------------------------------------------------------------------ in the default evidence
def _session():
    from anon_core.services.session import Session

    rng = np.random.default_rng(3)
    n = 200
    data = pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "sex": rng.choice(["F", "M"], n),
            "job": rng.choice(["a", "b", "c"], n),
            "income": rng.choice(["low", "high"], n),
        }
    )
    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "job": {"role": "quasi-identifier"},
            "income": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "method": {"name": "noise", "noise": 1.0, "columns": ["age"]},
        "attack": {"n_attacks": 50, "control_fraction": 0.5},
    }
    return Session.open(config, data, base_dir=".")


def test_the_default_evidence_counts_the_most_vulnerable_records():
    session = _session()
    release = session.release(scope="part")
    ev = session.evidence(release, utility=False)
    # the rehearsal's part holds 100 of the 200 records: 1% of them rounds up to one record
    exposed = ev.attacks["vulnerable_exposure"]
    assert exposed["n_records"] == 1 and set(exposed["inferred_by_secret"]) == {"income"}
    assert ev.options["exposure"] is True
    assert [n for n in ev.notes if n.startswith("of the 1 most vulnerable records (1%)")]
    # left out only when asked (the recommendation's trials, a dossier recorded without it)
    plain = session.evidence(release, utility=False, exposure=False)
    assert "vulnerable_exposure" not in plain.attacks and "exposure" not in plain.options


@pytest.mark.slow
def test_evaluate_page_measures_the_exposure_and_explains_it():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = Path(__file__).resolve().parents[1] / "app.py"
    at = AppTest.from_file(str(app), default_timeout=600)
    at.run()
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception, at.exception
    assert not any(c.value.startswith("🎯 Most vulnerable records") for c in at.caption)
    [b for b in at.button if b.label.startswith("🧪 Measure the evidence")][0].click().run()
    assert not at.exception, at.exception
    ws = at.session_state["workspace"]
    evidence, _ = at.session_state["_derived"][("evidence", ws.config_key())]
    assert evidence.options["exposure"] is True
    n = evidence.attacks["vulnerable_exposure"]["n_records"]
    release = at.session_state["_derived"][("release-value", ws.config_key())]
    assert n == -(-release.rehearsal.n_released_part // 100)  # 1%, rounded up
    assert [w for w in at.warning if w.value.startswith(f"of the {n} most vulnerable records")]
    assert [c for c in at.caption if c.value.startswith("🎯 Most vulnerable records")]
