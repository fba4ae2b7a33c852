"""Release methods (registry, MDAV, noise, rank swapping, PRAM, generalization, Mondrian) and
``anon-core release``. Expected values are worked by hand or follow from the methods' published
definitions (sdcMicro, Moore 1996, Gouweleeuw et al. 1998), never from the code under test."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anon_core.cli import EXIT_BAD_INPUT, main
from anon_core.config import parse_config
from anon_core.data.dataset import Role
from anon_core.errors import ConfigError
from anon_core.methods import METHODS, make_method, method_available
from anon_core.methods.config import method_section, parse_method_section
from anon_core.methods.pram import transition_matrix
from anon_core.methods.registry import make_context

QI = Role.QUASI_IDENTIFIER


def _ctx(frame, roles=None):
    return make_context(frame, roles=roles or {c: QI for c in frame.columns})


def _release(spec, frame, roles=None, seed=0):
    return make_method(spec).release(frame, _ctx(frame, roles), random_state=seed).table


# ------------------------------------------------------------------ registry
def test_registry_lists_every_method_with_declarations():
    for name in (
        "generalization",
        "mondrian",
        "microaggregation",
        "noise",
        "rank-swapping",
        "pram",
    ):
        cls = METHODS[name]
        assert cls.name == name and cls.label and cls.protects and cls.does_not_protect
        assert cls.accepts and isinstance(cls.randomized, bool)
        assert all(
            p.kind in ("int", "float", "bool", "choice", "columns", "mapping") for p in cls.params
        )
        assert method_available(name) == (True, "")
    ok, why = method_available("nope")
    assert not ok and "nope" in why


# ------------------------------------------------------------------ MDAV
def test_mdav_hand_worked_one_column():
    # x = 1 2 3 10 11 20 21, k = 2. Centroid 68/7 = 9.71: farthest r = 21, farthest from r: s = 1.
    # {21, 20} and {1, 2}; 3 records remain (< 2k): the last group {3, 10, 11}.
    frame = pd.DataFrame({"x": [1, 2, 3, 10, 11, 20, 21]})
    out = _release({"name": "microaggregation", "k": 2}, frame)
    assert out["x"].tolist() == pytest.approx([1.5, 1.5, 8, 8, 8, 20.5, 20.5])


def test_mdav_hand_worked_standardized_two_columns():
    # a has sd 5.48, b sd 0.894: in z-scores P4 (a differs by 10) is nearer to P1 (z-distance^2
    # 3.33) than P3 (b differs by 2, z-distance^2 5.0), although raw distances say the opposite.
    # 6 records, k = 3 (2k <= 6 < 3k): r = P1 (first of the tied corners), group {P1, P2, P4},
    # the rest {P3, P5, P6} is the last group.
    frame = pd.DataFrame({"a": [0, 0, 0, 10, 10, 10], "b": [0, 1, 2, 0, 1, 2], "s": list("uvwxyz")})
    out = _release({"name": "microaggregation", "k": 3, "columns": ["a", "b"]}, frame)
    g1, g2 = (10 / 3, 1 / 3), (20 / 3, 5 / 3)
    expected = [g1, g1, g2, g1, g2, g2]
    assert list(zip(out["a"], out["b"], strict=True)) == [pytest.approx(e) for e in expected]
    assert out["s"].tolist() == list("uvwxyz")  # other columns untouched
    assert list(out.columns) == ["a", "b", "s"]


@pytest.mark.parametrize("k", [2, 3, 5, 7])
def test_mdav_every_released_tuple_occurs_at_least_k_times(k):
    rng = np.random.default_rng(k)
    frame = pd.DataFrame(
        {
            "x": rng.normal(50, 10, 403),
            "y": rng.exponential(1000, 403),
            "z": rng.integers(0, 5, 403),
        }
    )
    out = _release({"name": "microaggregation", "k": k, "columns": ["x", "y", "z"]}, frame)
    counts = out.groupby(["x", "y", "z"]).size()
    assert counts.min() >= k
    # group means keep the column means (each record counted once)
    assert out[["x", "y", "z"]].mean().to_numpy() == pytest.approx(
        frame[["x", "y", "z"]].mean().to_numpy()
    )


# ------------------------------------------------------------------ noise
def _normal_pair(n=20000, rho=0.8, seed=1):
    rng = np.random.default_rng(seed)
    cov = np.array([[100.0, rho * 10 * 3], [rho * 10 * 3, 9.0]])
    xy = rng.multivariate_normal([50, 5], cov, size=n)
    return pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1]})


def test_additive_noise_std_as_documented():
    # noise = 50 %: released sd = sd * sqrt(1 + 0.5^2); documented tolerance 3 % at n = 20000.
    frame = _normal_pair()
    out = _release({"name": "noise", "noise": 50}, frame)
    for c in "xy":
        assert out[c].std() == pytest.approx(frame[c].std() * np.sqrt(1.25), rel=0.03)
        assert out[c].mean() == pytest.approx(frame[c].mean(), abs=0.05 * frame[c].std())
    # independent noise dilutes the correlation by 1 / (1 + 0.25)
    assert out["x"].corr(out["y"]) == pytest.approx(0.8 / 1.25, abs=0.02)


def test_correlated_noise_keeps_correlation():
    # sdcMicro 'correlated': noise ~ N(0, 0.5 * Cov): variances * 1.5, correlation unchanged.
    frame = _normal_pair()
    out = _release({"name": "noise", "noise": 50, "method": "correlated"}, frame)
    assert out["x"].corr(out["y"]) == pytest.approx(0.8, abs=0.02)
    for c in "xy":
        assert out[c].std() == pytest.approx(frame[c].std() * np.sqrt(1.5), rel=0.03)


def test_correlated2_keeps_means_and_variances():
    # x * sqrt(1 - d^2) + d * N(...): mean and variance kept, correlation * (1 - d^2).
    frame = _normal_pair()
    out = _release({"name": "noise", "method": "correlated2", "delta": 0.5}, frame)
    for c in "xy":
        assert out[c].std() == pytest.approx(frame[c].std(), rel=0.03)
        assert out[c].mean() == pytest.approx(frame[c].mean(), abs=0.05 * frame[c].std())
    assert out["x"].corr(out["y"]) == pytest.approx(0.8 * 0.75, abs=0.02)


def test_noise_zero_returns_the_values_and_missing_stays_missing():
    frame = pd.DataFrame({"x": [1.0, np.nan, 3.0, 4.0]})
    out = _release({"name": "noise", "noise": 0}, frame)
    assert out["x"].isna().tolist() == [False, True, False, False]
    assert out["x"].dropna().tolist() == [1.0, 3.0, 4.0]


# ------------------------------------------------------------------ rank swapping
@pytest.mark.parametrize("p", [1, 5, 20])
def test_rank_swapping_moves_no_value_further_than_p_percent_of_ranks(p):
    rng = np.random.default_rng(p)
    n = 997
    frame = pd.DataFrame({"x": rng.integers(0, 300, n), "y": rng.normal(0, 1, n)})
    out = _release({"name": "rank-swapping", "p": p, "columns": ["x", "y"]}, frame, seed=3)
    window = int(np.floor(p * n / 100))
    for c in "xy":
        ordered = np.sort(frame[c].to_numpy())
        assert np.array_equal(np.sort(out[c].to_numpy()), ordered)  # same multiset of values
        # rank range of each value (ties span several ranks): the two ranges must be <= window apart
        lo_old = np.searchsorted(ordered, frame[c], side="left")
        hi_old = np.searchsorted(ordered, frame[c], side="right") - 1
        lo_new = np.searchsorted(ordered, out[c], side="left")
        hi_new = np.searchsorted(ordered, out[c], side="right") - 1
        gap = np.maximum(0, np.maximum(lo_new - hi_old, lo_old - hi_new))
        assert gap.max() <= window
        assert (out[c].to_numpy() != frame[c].to_numpy()).mean() > 0.5  # it does swap


# ------------------------------------------------------------------ PRAM
def test_pram_retention_one_returns_the_input():
    frame = pd.DataFrame({"c": list("aabbbcd") * 20, "n": range(140)})
    for invariant in (True, False):
        spec = {"name": "pram", "retention": 1.0, "invariant": invariant, "columns": ["c"]}
        pd.testing.assert_frame_equal(_release(spec, frame), frame)


def test_pram_invariant_matrix_keeps_the_distribution():
    # Invariance (Gouweleeuw et al.): p R = p for R = P Q, Q the Bayes reverse of P.
    shares = np.array([0.5, 0.3, 0.15, 0.05])
    m = transition_matrix(shares, 0.3, True, 1.0, np.random.default_rng(0))
    assert m.sum(axis=1) == pytest.approx(np.ones(4))
    assert shares @ m == pytest.approx(shares)


def test_pram_invariant_keeps_expected_category_frequencies():
    n = 20000
    rng = np.random.default_rng(7)
    shares = np.array([0.5, 0.3, 0.15, 0.05])
    frame = pd.DataFrame({"c": rng.choice(list("abcd"), size=n, p=shares)})
    observed = frame["c"].value_counts().reindex(list("abcd")).to_numpy()
    out = _release({"name": "pram", "retention": 0.5, "alpha": 1.0}, frame, seed=11)
    released = out["c"].value_counts().reindex(list("abcd")).fillna(0).to_numpy()
    # each released count is a sum of n independent draws: sd <= sqrt(n)/2; allow 5 sd
    assert np.abs(released - observed).max() <= 5 * np.sqrt(n) / 2
    assert (out["c"] != frame["c"]).mean() > 0.05  # and records did change


# ------------------------------------------------------------------ generalization / Mondrian
def _people(n=240):
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["02139", "02138", "02141", "02142"], n),
            "disease": rng.choice(["flu", "cold", "hiv"], n),
        }
    )


def _roles():
    return {"age": QI, "sex": QI, "zip": QI, "disease": Role.SENSITIVE}


@pytest.mark.parametrize("name", ["generalization", "mondrian"])
def test_generalization_and_mondrian_release_k_anonymous_rows(name):
    frame = _people()
    spec = {"name": name, "k": 5}
    out = make_method(spec).release(frame, make_context(frame, roles=_roles()), random_state=0)
    assert list(out.table.columns) == list(frame.columns)
    assert out.guarantee == "k-anonymity (k=5)"
    released = out.table[out.table["age"] != "*"]
    assert released.groupby(["age", "sex", "zip"]).size().min() >= 5


# ------------------------------------------------------------------ reproducibility
@pytest.mark.parametrize(
    "spec",
    [
        {"name": "noise", "noise": 30},
        {"name": "noise", "noise": 30, "method": "correlated"},
        {"name": "rank-swapping", "p": 10},
        {"name": "pram", "retention": 0.6},
        {"name": "microaggregation", "k": 4},
    ],
)
def test_same_seed_same_release(spec):
    frame = _people(300)
    frame["income"] = np.random.default_rng(1).normal(40000, 9000, 300)
    roles = {**_roles(), "income": QI}
    if spec["name"] == "pram":
        roles = {"sex": QI, "zip": QI}
    a = _release(spec, frame, roles, seed=5)
    b = _release(spec, frame, roles, seed=5)
    pd.testing.assert_frame_equal(a, b)
    if METHODS[spec["name"]].randomized:
        assert not a.equals(_release(spec, frame, roles, seed=6))


# ------------------------------------------------------------------ bad parameters
@pytest.mark.parametrize(
    "spec, needle",
    [
        ({"name": "microaggregation", "k": 1}, "'k' must be at least 2, got 1"),
        ({"name": "noise", "noise": -5}, "'noise' must be at least 0.0, got -5"),
        ({"name": "rank-swapping", "p": 150}, "'p' must be at most 100.0, got 150"),
        ({"name": "pram", "retention": 1.5}, "'retention' must be at most 1.0"),
        ({"name": "noise", "method": "wild"}, "'method' must be one of"),
        ({"name": "noise", "nosie": 5}, "unknown field(s) 'nosie'"),
        ({"name": "teleport"}, "'method.name' must be one of"),
    ],
)
def test_bad_parameters_give_one_clear_message(spec, needle):
    with pytest.raises(ConfigError) as err:
        make_method(spec)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_numeric_method_on_text_column_and_unknown_column():
    frame = pd.DataFrame(
        {"x": [1.0, 2.0, 3.0, 4.0], "note": ["the quick brown fox jumps over the lazy dog"] * 4}
    )
    with pytest.raises(ConfigError, match=r"'columns' names \['note'\].*numeric.*'note' is text"):
        _release({"name": "microaggregation", "k": 2, "columns": ["note"]}, frame)
    with pytest.raises(ConfigError, match=r"'columns' names \['nope'\], which are not columns"):
        _release({"name": "noise", "columns": ["nope"]}, frame)
    with pytest.raises(ConfigError, match="'k' is 9, larger than the table"):
        _release({"name": "microaggregation", "k": 9, "columns": ["x"]}, frame)
    with pytest.raises(ConfigError, match="needs at least 2 numeric columns"):
        _release({"name": "noise", "method": "correlated", "columns": ["x"]}, frame)
    # Missing cells stay missing (see test_compare_journey for the hand-worked grouping).
    out = _release(
        {"name": "microaggregation", "k": 2, "columns": ["x"]},
        frame.assign(x=[1.0, None, 3.0, 4.0]),
    )
    assert np.isnan(out["x"][1]) and out["x"].notna().sum() == 3


# ------------------------------------------------------------------ configuration + CLI
def _config(tmp_path, method=None, **extra):
    data = _people()
    data.insert(0, "name", [f"p{i}" for i in range(len(data))])
    data.to_csv(tmp_path / "people.csv", index=False)
    cfg = {
        "input": {"path": "people.csv"},
        "attributes": {
            "name": {"role": "identifier"},
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "zip": {"role": "quasi-identifier"},
            "disease": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 4}],
        "suppression_limit": 0.05,
        **extra,
    }
    if method is not None:
        cfg["method"] = method
    path = tmp_path / "release.json"
    path.write_text(json.dumps(cfg))
    return path


def test_method_section_defaults_to_generalization_and_validates(tmp_path):
    config = parse_config(json.loads(_config(tmp_path).read_text()), tmp_path)
    assert method_section(config).name == "generalization"
    section = parse_method_section({"name": "pram", "retention": 0.9, "random_state": 4})
    assert section.random_state == 4 and section.method.parameters["retention"] == 0.9
    with pytest.raises(ConfigError, match=r"'method.k' must be at least 2, got 0"):
        parse_method_section({"name": "microaggregation", "k": 0})
    with pytest.raises(ConfigError, match="needs a 'name'"):
        parse_method_section({"k": 3})


def test_cli_release_writes_the_configured_method(tmp_path, capsys):
    cfg = _config(tmp_path, {"name": "microaggregation", "k": 3, "random_state": 1})
    out = tmp_path / "out" / "released.csv"
    # release only (--no-evidence): the dossier's evidence and verdict are tested in test_dossier
    assert main(["release", str(cfg), "--output", str(out), "--no-evidence"]) == 0
    summary = json.loads(capsys.readouterr().out)["release"]
    assert summary["method"] == "microaggregation" and summary["parameters"]["k"] == 3
    released = pd.read_csv(out)
    assert "name" not in released.columns  # identifiers are never released
    assert released.groupby("age").size().min() >= 3
    assert not list(out.parent.glob(".*"))  # no temporary file left behind
    # --method overrides the section; the default (generalization) keeps k-anonymity
    out2 = tmp_path / "gen.csv"
    args = ["release", str(cfg), "--method", "generalization", "-o", str(out2), "--no-evidence"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["release"]["guarantee"] == "k-anonymity (k=4)"
    gen = pd.read_csv(out2, dtype=str)
    assert gen.groupby(["age", "sex", "zip"]).size().min() >= 4


@pytest.mark.parametrize(
    "method, target, needle",
    [
        ({"name": "microaggregation", "k": 1}, "out.csv", "'method.k' must be at least 2"),
        ({"name": "noise", "columns": ["sex"]}, "out.csv", "'columns' names ['sex']"),
        (None, "people.csv", "is the same file as input.path"),
        (None, "release.json", "is the same file as the configuration"),
    ],
)
def test_cli_release_bad_input_exits_2_with_one_line(tmp_path, capsys, method, target, needle):
    cfg = _config(tmp_path, method)
    before = (tmp_path / "people.csv").read_bytes()
    assert main(["release", str(cfg), "-o", str(tmp_path / target)]) == EXIT_BAD_INPUT
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and needle in err[0]
    assert (tmp_path / "people.csv").read_bytes() == before
