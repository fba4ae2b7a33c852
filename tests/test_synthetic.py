"""Synthetic release methods: MST ((epsilon, delta)-DP on mbi) and SDV's Gaussian copula / CTGAN.

Oracles: OpenDP's zCDP -> (epsilon, delta) conversion for our accounting; the declared domains
for the released values (checked on the released rows); the seed for reproducibility.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from anon_core.config import parse_config
from anon_core.errors import ConfigError, PrivacyLeakWarning
from anon_core.methods import METHODS, make_method, method_available
from anon_core.methods.dp_marginals import cdp_delta, cdp_epsilon, cdp_rho
from anon_core.methods.registry import MethodContext, make_context

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DOMAINS = {
    "c": ["a", "b", "c", "d"],
    "x": {"min": 0, "max": 100, "integer": True},
    "y": ["u", "v"],
}


def _frame(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    c = rng.choice(["a", "b", "c", "zzz"], n, p=[0.4, 0.3, 0.25, 0.05])  # zzz: outside the domain
    y = np.where(c == "a", "u", rng.choice(["u", "v"], n))
    x = rng.integers(0, 130, n)  # values above 100: clipped to the declared bound
    return pd.DataFrame({"c": c, "x": x, "y": y})


def _mst(**params):
    return make_method({"name": "synthetic-mst", "iters": 200, **params})


@pytest.fixture(scope="module")
def mst_release():
    frame = _frame()
    method = _mst(epsilon=1.0, delta=1e-6, domains=DOMAINS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # every domain is declared
        out = method.release(frame, make_context(frame), random_state=7)
    return frame, method, out


# ------------------------------------------------------------------ accounting
@pytest.mark.parametrize("rho, delta", [(0.02, 1e-6), (0.5, 1e-5), (3.0, 1e-7)])
def test_zcdp_conversion_matches_opendp(rho, delta):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    gaussian = dp.m.make_gaussian(*space, scale=1.0 / np.sqrt(2 * rho))  # rho-zCDP at d_in 1
    expected = dp.c.make_zCDP_to_approxDP(gaussian).map(1.0).epsilon(delta)
    assert cdp_epsilon(rho, delta) == pytest.approx(expected, rel=1e-9)
    assert cdp_delta(rho, cdp_epsilon(rho, delta)) <= delta
    assert cdp_epsilon(cdp_rho(expected, delta), delta) <= expected * (1 + 1e-9)


def test_epsilon_spent_never_exceeds_the_budget(mst_release):
    _, _, out = mst_release
    d = out.details
    assert d["rho_spent"] <= d["rho"]
    assert d["epsilon_spent"] <= 1.0
    assert d["epsilon_spent"] > 0.99  # the budget is used, not wasted
    assert out.guarantee == "(1, 1e-06)-DP"
    # 3 one-way + 2 tree edges selected + 2 two-way measurements
    assert d["measurements"] == 7 and len(d["selected_pairs"]) == 2


# ------------------------------------------------------------------ domains
def test_released_values_stay_in_the_declared_domain(mst_release):
    frame, _, out = mst_release
    table = out.table
    assert list(table.columns) == list(frame.columns)
    assert set(table["c"]) <= {"a", "b", "c", "d"}
    assert "zzz" not in set(table["c"])
    assert set(table["y"]) <= {"u", "v"}
    assert table["x"].between(0, 100).all()
    assert out.details["rows_outside_domains"] == int((frame["c"] == "zzz").sum())
    assert abs(len(table) - len(frame)) < 0.3 * len(frame)  # the noisy total


def test_warning_names_the_columns_read_from_the_data():
    frame = _frame(120, seed=1)
    method = _mst(epsilon=2.0, domains={"c": DOMAINS["c"], "x": DOMAINS["x"]})
    with pytest.warns(PrivacyLeakWarning, match=r"\['y'\] were read from the data"):
        out = method.release(frame, make_context(frame), random_state=0)
    assert out.details["domains_from_data"] == ["y"]


def test_hierarchy_leaves_give_the_domain(tmp_path):
    frame = _frame(120, seed=2)[["c", "y"]]
    config = parse_config(
        {
            "attributes": {
                "c": {
                    "role": "quasi-identifier",
                    "hierarchy": {
                        "table": [["a", "ab"], ["b", "ab"], ["c", "cd"], ["d", "cd"], ["e", "*"]]
                    },
                },
                "y": {
                    "role": "sensitive",
                    "hierarchy": {"table": [["u", "*"], ["v", "*"]]},
                },
            },
            "privacy_models": [{"model": "k-anonymity", "k": 2}],
        },
        base_dir=tmp_path,
    )
    context = make_context(frame, config)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        out = _mst(epsilon=5.0).release(frame, context, random_state=0)
    assert out.details["domains"]["c"] == {"source": "hierarchy", "categories": list("abcde")}
    assert set(out.table["c"]) <= set("abcde")


# ------------------------------------------------------------------ reproducibility
def test_mst_same_seed_is_bit_identical(mst_release):
    frame, method, out = mst_release
    again = method.release(frame, make_context(frame), random_state=7)
    pd.testing.assert_frame_equal(again.table, out.table)
    assert again.details["selected_pairs"] == out.details["selected_pairs"]
    other = method.release(frame, make_context(frame), random_state=8)
    assert not other.table.equals(out.table)


# ------------------------------------------------------------------ bad parameters
@pytest.mark.parametrize(
    "params, message",
    [
        ({"epsilon": 0}, "'epsilon' must be greater than 0, got 0"),
        ({"epsilon": -1.0}, "'epsilon' must be at least 0.0"),
        ({"delta": 1.0}, "'delta' must be between 0 and 1"),
        ({"bins": 1}, "'bins' must be at least 2"),
        ({"domains": {"c": []}}, None),
    ],
)
def test_bad_parameters_give_one_clear_line(params, message):
    frame = _frame(50)
    with pytest.raises(ConfigError) as info:
        make_method({"name": "synthetic-mst", **params}).release(frame, make_context(frame))
    text = str(info.value)
    assert "\n" not in text
    if message is not None:
        assert message in text
    else:
        assert "'domains.c' lists no category" in text


def test_unknown_column_in_domains():
    frame = _frame(50)
    method = _mst(domains={"nope": ["a"]})
    with pytest.raises(ConfigError, match=r"'domains' names \['nope'\], which are not columns"):
        method.release(frame, make_context(frame))


def test_unknown_method_parameter():
    with pytest.raises(ConfigError, match="epsilonn"):
        make_method({"name": "synthetic-mst", "epsilonn": 1.0})


# ------------------------------------------------------------------ registry and lazy imports
def test_methods_are_registered_and_available():
    for name in ("synthetic-mst", "synthetic-aim", "synthetic-gaussian-copula", "synthetic-ctgan"):
        assert METHODS[name].extra == "synthetic"
        assert method_available(name) == (True, "")
    assert METHODS["synthetic-ctgan"].reproducible is False
    assert METHODS["synthetic-mst"].reproducible is True


def test_importing_the_registry_loads_no_optional_library():
    code = (
        "import sys, anon_core, anon_core.methods\n"
        "print(sorted(m for m in ('sdv', 'torch', 'mbi', 'jax', 'ctgan') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------ SDV
def _sdv_frame(n: int = 150) -> tuple[pd.DataFrame, MethodContext]:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "sex": rng.choice(["F", "M"], n),
            "job": rng.choice(["clerk", "nurse", "smith"], n),
        }
    )
    return frame, make_context(frame)


def test_gaussian_copula_schema_and_reproducibility():
    frame, context = _sdv_frame()
    method = make_method({"name": "synthetic-gaussian-copula"})
    out = method.release(frame, context, random_state=3)
    table = out.table
    assert list(table.columns) == list(frame.columns) and len(table) == len(frame)
    assert set(table["sex"]) <= {"F", "M"} and set(table["job"]) <= {"clerk", "nurse", "smith"}
    assert table["age"].between(18, 79).all()  # SDV enforces the fitted min/max
    assert out.guarantee == "none"
    pd.testing.assert_frame_equal(method.release(frame, context, random_state=3).table, table)
    assert not method.release(frame, context, random_state=4).table.equals(table)


def test_ctgan_tiny_run_with_progress():
    frame, context = _sdv_frame(100)
    method = make_method({"name": "synthetic-ctgan", "epochs": 2, "batch_size": 50, "rows": 40})
    seen: list[float] = []
    out = method.release(frame, context, random_state=1, progress=lambda f, m: seen.append(f))
    assert list(out.table.columns) == list(frame.columns) and len(out.table) == 40
    assert seen[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)
    assert out.details["epochs"] == 2
    # Same machine, same thread count: the seeded run repeats (not promised across platforms).
    again = method.release(frame, context, random_state=1)
    pd.testing.assert_frame_equal(again.table, out.table)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"epochs": 0}, "'epochs' must be at least 1"),
        ({"batch_size": 55}, "'batch_size' must be a multiple of 10"),
    ],
)
def test_ctgan_bad_parameters(params, message):
    with pytest.raises(ConfigError, match=message):
        make_method({"name": "synthetic-ctgan", **params})


# ------------------------------------------------------------------ AIM
@pytest.mark.slow
def test_aim_budget_domain_and_seed():
    frame = _frame(200, seed=3)
    method = make_method(
        {"name": "synthetic-aim", "epsilon": 1.0, "iters": 100, "domains": DOMAINS}
    )
    out = method.release(frame, make_context(frame), random_state=5)
    d = out.details
    assert d["rho_spent"] <= d["rho"] and d["epsilon_spent"] <= 1.0
    assert d["rounds"] >= 1 and d["domains_from_data"] == []
    assert set(out.table["c"]) <= {"a", "b", "c", "d"} and out.table["x"].between(0, 100).all()
    again = method.release(frame, make_context(frame), random_state=5)
    pd.testing.assert_frame_equal(again.table, out.table)
