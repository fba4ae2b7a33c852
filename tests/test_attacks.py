"""The anonymeter-style attacks: hand-worked cases, closed-form statistics, independent counts.

Expected values come from the closed-form Wilson interval, from counting matches with pandas
row by row, from brute-force distances and from tables built so the answer is known.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anon_core.attacks import ATTACKS, get_attack, inference, linkability, singling_out
from anon_core.attacks.encoding import encode_tables
from anon_core.attacks.neighbors import nearest
from anon_core.attacks.predicates import (
    EQ,
    GE,
    GT,
    IS_NULL,
    LE,
    LT,
    NE,
    NOT_NULL,
    Predicates,
    TableIndex,
)
from anon_core.attacks.results import AttackResult, SuccessRate
from anon_core.attacks.size_correction import expected_singling_out
from anon_core.attacks.stats import residual_risk, success_rate, wilson_interval
from anon_core.errors import ConfigError

Z95 = 1.959963984540054  # the 97.5% standard normal quantile


# ------------------------------------------------------------------ statistics
@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (30, 100), (100, 100), (1, 2000)])
def test_wilson_interval_matches_the_closed_form(k, n):
    p = k / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 / (1 + Z95**2 / n) * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n))
    rate = success_rate(k, n)
    assert rate.value == pytest.approx(centre, rel=1e-12)
    assert rate.error == pytest.approx(half, rel=1e-12)
    assert (rate.n_success, rate.n_total) == (k, n)
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(max(0.0, centre - half), abs=1e-12)
    assert hi == pytest.approx(min(1.0, centre + half), abs=1e-12)


def test_wilson_interval_at_another_confidence():
    z = 2.5758293035489004  # 99.5% quantile: 99% two-sided
    rate = success_rate(40, 200, confidence=0.99)
    assert rate.error == pytest.approx(
        z / (200 + z * z) * math.sqrt(40 * 160 / 200 + z * z / 4), rel=1e-12
    )


def test_residual_risk_propagates_both_intervals():
    a, c = success_rate(50, 100), success_rate(10, 100)
    risk, (lo, hi) = residual_risk(a, c)
    expected = (a.value - c.value) / (1 - c.value)
    error = math.sqrt(
        (a.error / (1 - c.value)) ** 2 + (c.error * (1 - a.value) / (1 - c.value) ** 2) ** 2
    )
    assert risk == pytest.approx(expected, rel=1e-12)
    assert (lo, hi) == pytest.approx((expected - error, expected + error), rel=1e-12)


def test_residual_risk_is_bounded_to_zero_and_one():
    risk, ci = residual_risk(success_rate(5, 100), success_rate(40, 100))
    assert risk == 0.0 and ci[0] == 0.0 and 0.0 <= ci[1] <= 1.0
    risk, ci = residual_risk(success_rate(100, 100), success_rate(0, 100))
    assert 0.0 < risk <= 1.0 and ci[1] <= 1.0


def test_result_to_dict_has_the_cli_keys_and_the_detail():
    rate = SuccessRate(0.5, 0.1, 5, 10)
    result = AttackResult(
        "inference", 0.2, (0.1, 0.3), rate, rate, rate, 10, detail={"secret": "s"}
    )
    assert result.to_dict() == {
        "risk": 0.2,
        "ci": [0.1, 0.3],
        "attack_rate": 0.5,
        "control_rate": 0.5,
        "baseline_rate": 0.5,
        "n_attacks": 10,
        "secret": "s",
    }
    assert rate.to_dict() == {"value": 0.5, "error": 0.1, "n_success": 5, "n_total": 10}


def test_control_size_expectation_is_the_hypergeometric_probability():
    counts = np.array([1, 1, 2, 5, 0])
    n, s = 40, 13
    expected = sum(m * math.comb(n - m, s - 1) / math.comb(n, s) for m in counts if m > 0)
    assert expected_singling_out(counts, n, np.array([s]))[0] == pytest.approx(expected)
    # the whole table: exactly the predicates that match once
    assert expected_singling_out(counts, n, np.array([n]))[0] == pytest.approx(2.0)


# ------------------------------------------------------ predicate counts (oracle: pandas)
def _pandas_count(frame: pd.DataFrame, terms) -> int:
    mask = pd.Series(True, index=frame.index)
    for column, op, value in terms:
        x = frame[column]
        null = x.isna()
        if op == IS_NULL:
            mask &= null
        elif op == NOT_NULL:
            mask &= ~null
        else:
            compare = {
                EQ: lambda a, b: a == b,
                NE: lambda a, b: a != b,
                LT: lambda a, b: a < b,
                GT: lambda a, b: a > b,
                LE: lambda a, b: a <= b,
                GE: lambda a, b: a >= b,
            }[op]
            mask &= ~null & x.where(~null, value).map(lambda a, v=value, f=compare: bool(f(a, v)))
    return int(mask.sum())


def test_predicate_counts_match_pandas_on_mixed_columns_with_missing_values():
    rng = np.random.default_rng(4)
    n = 150
    frame = pd.DataFrame(
        {
            "num": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 12, n).astype(float)),
            "cat": pd.Series(rng.choice(["a", "b", "c", None], n), dtype=object),
            "int": rng.integers(0, 5, n),
            "txt": pd.Series(rng.choice(["x", "y"], n), dtype=object),
        }
    )
    enc = encode_tables([frame], list(frame.columns))
    m = 300
    cols = np.sort(np.argsort(rng.random((m, 4)), axis=1)[:, :3], axis=1)
    ops = np.empty(cols.shape, dtype=np.int8)
    vals = np.empty(cols.shape, dtype=np.int64)
    for j in range(4):
        at = cols == j
        choices = [EQ, NE, LT, GT, LE, GE, IS_NULL, NOT_NULL] if enc.numeric[j] else [EQ, NE]
        ops[at] = rng.choice(choices, at.sum())
        vals[at] = rng.integers(0, len(enc.levels[j]), at.sum())
    vals[(ops == IS_NULL) | (ops == NOT_NULL)] = -1
    predicates = Predicates(cols, ops, vals)
    # every predicate compared with every row, and sorted lookups wherever they apply
    dense = TableIndex(enc.codes[0], enc.radices, sort_at=10**9).count(predicates)
    sorted_ = TableIndex(enc.codes[0], enc.radices, sort_at=1).count(predicates)
    singles = TableIndex(enc.codes[0], enc.radices).singles(predicates)
    for q in range(m):
        terms = [
            (enc.columns[c], int(o), None if v < 0 else enc.levels[c][v])
            for c, o, v in zip(cols[q], ops[q], vals[q], strict=True)
        ]
        expected = _pandas_count(frame, terms)
        assert dense[q] == expected, terms
        assert sorted_[q] == expected, terms
        assert singles[q] == (expected == 1), terms


def test_singles_rules_out_by_samples_and_counts_the_rest_exactly():
    """On a table large enough for the row samples (sizes 128 and up): a predicate matching two
    rows of a sample matches two or more rows, and the rest are counted; checked against pandas."""
    rng = np.random.default_rng(8)
    n = 30_000
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 40, n).astype(float),
            "b": rng.choice(list("pqrstu"), n),
            "c": rng.integers(0, 3000, n).astype(float),
        }
    )
    enc = encode_tables([frame], list(frame.columns))
    m = 400
    rows = rng.integers(0, n, m)
    cols = np.tile(np.array([0, 1, 2]), (m, 1))
    vals = enc.codes[0][rows][:, [0, 1, 2]]
    ops = np.array([GE, EQ, LE], dtype=np.int8)[None, :].repeat(m, axis=0)
    ops[rng.random(m) < 0.5, 2] = EQ  # some very selective, some matching hundreds of rows
    singles = TableIndex(enc.codes[0], enc.radices).singles(Predicates(cols, ops, vals))
    a, b, c = (frame[k].to_numpy() for k in ("a", "b", "c"))
    for q in range(m):
        va, vb, vc = (enc.levels[j][vals[q, j]] for j in range(3))
        last = c <= vc if ops[q, 2] == LE else c == vc
        count = int(((a >= va) & (b == vb) & last).sum())
        assert singles[q] == (count == 1), (q, count)
    assert 0 < singles.sum() < m  # both outcomes occur


# --------------------------------------------------- nearest neighbours (oracle: brute force)
def test_nearest_released_record_minimises_the_gower_distance():
    rng = np.random.default_rng(1)
    released = pd.DataFrame(
        {"x": rng.integers(0, 50, 300).astype(float), "c": rng.choice(list("abcd"), 300)}
    )
    targets = pd.DataFrame(
        {"x": rng.integers(0, 60, 80).astype(float), "c": rng.choice(list("abcde"), 80)}
    )
    enc = encode_tables([targets, released], ["x", "c"])
    span = 59.0 - 0.0  # x ranges over 0..59 in both tables together
    span = max(targets.x.max(), released.x.max()) - min(targets.x.min(), released.x.min())
    found = nearest(enc, 0, np.arange(80), 1, np.array([0, 1]), 3, rng)
    for i, row in targets.iterrows():
        dist = (released.x - row.x).abs() / span + (released.c != row.c)
        best = np.sort(dist.to_numpy())[:3]
        assert np.allclose(dist.to_numpy()[found[i]], best), i


def test_ties_are_broken_at_random_but_reproducibly():
    released = pd.DataFrame({"c": ["a"] * 50})
    enc = encode_tables([released.iloc[:1], released], ["c"])
    picks = {
        int(nearest(enc, 0, np.array([0]), 1, np.array([0]), 1, np.random.default_rng(s))[0, 0])
        for s in range(20)
    }
    assert len(picks) > 5
    again = nearest(enc, 0, np.array([0]), 1, np.array([0]), 1, np.random.default_rng(3))
    assert (
        again[0, 0]
        == nearest(enc, 0, np.array([0]), 1, np.array([0]), 1, np.random.default_rng(3))[0, 0]
    )


# --------------------------------------------------------------- hand-worked attacks
def _unique_table(n: int, prefix: str, seed: int) -> pd.DataFrame:
    """Every record unique on x and on w; y and z repeat."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "x": [f"{prefix}x{i}" for i in range(n)],
            "y": [f"y{i % 10}" for i in range(n)],
            "w": [f"{prefix}w{j}" for j in rng.permutation(n)],
            "z": [f"z{i % 13}" for i in range(n)],
        }
    )


def test_identical_release_singles_out_and_links_nearly_everyone():
    original = _unique_table(300, "o", 0)
    control = _unique_table(300, "c", 1)
    so = singling_out(original, original, control, n_attacks=200, n_cols=2, random_state=0)
    assert so.attack_rate.n_success == 200  # every predicate holds x or w: one record each
    assert so.control_rate.n_success == 0
    assert so.risk > 0.97 and so.ci[0] > 0.95
    link = linkability(
        original,
        original,
        control,
        aux_columns=(["x", "y"], ["w", "z"]),
        n_attacks=200,
        random_state=0,
    )
    assert link.attack_rate.n_success == 200  # both halves find the record itself
    assert link.risk > 0.97 and link.risk > link.control_rate.value + 0.9


def test_release_of_only_stars_has_no_singling_out_risk():
    original = _unique_table(300, "o", 0)
    control = _unique_table(200, "c", 1)
    stars = pd.DataFrame("*", index=range(300), columns=original.columns)
    for mode in ("univariate", "multivariate"):
        raw = singling_out(
            original, stars, control, mode=mode, n_attacks=100, max_attempts=5000, random_state=0
        )
        assert raw.risk == 0.0 and raw.attack_rate.n_success == 0
        # the caller generalizes the original and control records the same way: all '*'
        star_control = pd.DataFrame("*", index=range(200), columns=original.columns)
        general = singling_out(
            stars, stars, star_control, mode=mode, n_attacks=100, max_attempts=5000, random_state=0
        )
        assert general.risk == 0.0


def test_inference_of_an_independent_secret_is_about_zero():
    rng = np.random.default_rng(7)

    def draw(n):
        return pd.DataFrame(
            {
                "a": rng.choice(list("abcdef"), n),
                "b": rng.integers(0, 30, n),
                "secret": rng.choice(["s1", "s2", "s3"], n),
            }
        )

    original, released, control = draw(1500), draw(1500), draw(1500)
    result = inference(original, released, control, secret="secret", n_attacks=1000, random_state=0)
    assert result.ci[0] == 0.0 and result.risk < 0.1
    assert abs(result.attack_rate.value - 1 / 3) < 0.06  # no better than guessing
    assert result.detail["secret"] == "secret" and result.detail["regression"] is False


def test_inference_recovers_a_secret_copied_into_the_release():
    original = _unique_table(300, "o", 0).assign(secret=[f"s{i % 7}" for i in range(300)])
    control = _unique_table(300, "c", 1).assign(secret=[f"s{i % 7}" for i in range(300)])
    result = inference(
        original,
        original,
        control,
        secret="secret",
        aux_columns=["x"],
        n_attacks=300,
        random_state=0,
    )
    assert result.attack_rate.n_success == 300
    assert result.risk > 0.9


def test_numeric_secret_is_guessed_within_five_percent():
    original = pd.DataFrame({"k": [f"k{i}" for i in range(100)], "v": np.arange(100.0) + 100})
    released = original.assign(v=original.v * 1.04)  # 4% off: still right
    control = pd.DataFrame({"k": [f"c{i}" for i in range(100)], "v": np.arange(100.0) + 100})
    close = inference(original, released, control, secret="v", n_attacks=100, random_state=0)
    assert close.detail["regression"] is True and close.attack_rate.n_success == 100
    far = inference(
        original,
        original.assign(v=original.v * 1.2),
        control,
        secret="v",
        n_attacks=100,
        random_state=0,
    )
    assert far.attack_rate.n_success == 0


def test_missing_values_and_numeric_columns_are_handled():
    rng = np.random.default_rng(2)
    n = 400
    frame = pd.DataFrame(
        {
            "age": np.where(rng.random(n) < 0.05, np.nan, rng.integers(17, 90, n)),
            "city": pd.Series(rng.choice(["a", "b", None], n), dtype=object),
            "job": rng.choice(["p", "q", "r", "s"], n),
        }
    )
    original, control = frame.iloc[:250], frame.iloc[250:]
    for mode in ("univariate", "multivariate"):
        r = singling_out(
            original, original, control, mode=mode, n_attacks=50, n_cols=2, random_state=1
        )
        assert 0.0 <= r.risk <= 1.0
    r = linkability(
        original, original, control, aux_columns=(["age"], ["city", "job"]), n_attacks=100
    )
    assert 0.0 <= r.risk <= 1.0
    r = inference(original, original, control, secret="city", n_attacks=100, random_state=1)
    assert 0.0 <= r.risk <= 1.0


def test_a_seed_reproduces_every_attack():
    original = _unique_table(200, "o", 0)
    control = _unique_table(150, "c", 1)
    released = original.assign(x="*")
    runs = [
        lambda s: singling_out(original, released, control, n_attacks=60, n_cols=2, random_state=s),
        lambda s: singling_out(original, released, control, mode="univariate", random_state=s),
        lambda s: linkability(
            original,
            released,
            control,
            aux_columns=(["y"], ["w", "z"]),
            n_attacks=80,
            random_state=s,
        ),
        lambda s: inference(original, released, control, secret="z", n_attacks=80, random_state=s),
    ]
    for run in runs:
        assert run(11) == run(11)


def test_progress_reaches_one():
    original = _unique_table(100, "o", 0)
    seen = []
    singling_out(
        original,
        original,
        _unique_table(80, "c", 1),
        n_attacks=20,
        n_cols=2,
        random_state=0,
        progress=lambda f, m: seen.append(f),
    )
    assert seen[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in seen)


# ------------------------------------------------------------------ registry
def test_registry_declares_the_three_attacks_and_runs_them():
    assert {
        "singling-out-univariate",
        "singling-out-multivariate",
        "linkability",
        "inference",
    } <= set(ATTACKS)
    original = _unique_table(120, "o", 0)
    control = _unique_table(100, "c", 1)
    for name, params in (
        ("singling-out-univariate", {"n_attacks": 10}),
        ("singling-out-multivariate", {"n_attacks": 10, "n_cols": 2}),
        ("linkability", {"aux_columns": (["x"], ["w"]), "n_attacks": 10}),
        ("inference", {"secret": "y", "n_attacks": 10}),
    ):
        spec = get_attack(name)
        assert spec.measures and spec.to_dict()["params"]
        result = spec.run(original, original, control, random_state=0, **params)
        assert result.attack == name
    with pytest.raises(ConfigError, match="Unknown attack 'nope'"):
        get_attack("nope")


# --------------------------------------------------------------- bad inputs
@pytest.fixture
def tables():
    original = _unique_table(50, "o", 0)
    return original, original, _unique_table(40, "c", 1)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda o, r, c: singling_out(o, r, c, n_attacks=0),
            "'n_attacks' must be at least 1, got 0",
        ),
        (
            lambda o, r, c: linkability(o, r, c, aux_columns=(["x"], ["w"]), n_attacks=-3),
            "'n_attacks'",
        ),
        (lambda o, r, c: singling_out(o, r, c, mode="bivariate"), "'mode' must be one of"),
        (lambda o, r, c: singling_out(o, r, c, n_cols=9), "'n_cols' must be at most 4"),
        (lambda o, r, c: inference(o, r, c, secret="salary"), "'secret' must be one column"),
        (
            lambda o, r, c: inference(o, r, c, secret="y", aux_columns=["nope"]),
            "unknown column(s) ['nope']",
        ),
        (
            lambda o, r, c: inference(o, r, c, secret="y", aux_columns=["y", "x"]),
            "contains the secret",
        ),
        (
            lambda o, r, c: linkability(o, r, c, aux_columns=(["x"], ["zz"])),
            "unknown column(s) ['zz']",
        ),
        (
            lambda o, r, c: linkability(o, r, c, aux_columns=(["x", "y"], ["y"])),
            "share column(s) ['y']",
        ),
        (lambda o, r, c: linkability(o, r, c, aux_columns=["x"]), "must be two lists"),
        (lambda o, r, c: singling_out(o, r, c.iloc[:0]), "The 'control' table is empty"),
        (lambda o, r, c: inference(o.iloc[:0], r, c, secret="y"), "The 'original' table is empty"),
        (lambda o, r, c: singling_out(o, r, c.drop(columns="z")), "missing ['z']"),
        (lambda o, r, c: singling_out(o.assign(extra=1), r, c), "extra ['extra']"),
        (lambda o, r, c: singling_out(o, r, c, random_state="seed"), "'random_state' must be"),
        (lambda o, r, c: singling_out(o, r.to_numpy(), c), "'released' must be a pandas DataFrame"),
        (lambda o, r, c: inference(o, r, c, secret="y", regression=True), "not numeric"),
    ],
)
def test_bad_input_is_one_clear_config_error(tables, call, message):
    with pytest.raises(ConfigError) as info:
        call(*tables)
    text = str(info.value)
    assert message in text
    assert "\n" not in text
