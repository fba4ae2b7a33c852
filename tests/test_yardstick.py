"""The utility yardstick and the synthetic-data checks, on hand-worked tables.

Oracles: hand computation (total variation, Cramér's V, the correlation ratio, Gower distances),
scipy's ``contingency.association`` for Cramér's V, and a scikit-learn pipeline built here
independently for the baseline accuracy.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anon_core.errors import ConfigError
from anon_core.utility.fidelity import (
    association_distance,
    correlation_ratio,
    cramers_v,
    marginal_distance,
    total_variation,
)
from anon_core.utility.ml_holdout import align_holdout, holdout_utility
from anon_core.utility.summary import (
    association_distance as reexported_association,
)
from anon_core.utility.summary import (
    compare_distributions,
    hellinger,
    ml_utility,
    numeric_values,
    quality_summary,
)
from anon_core.utility.synthetic_checks import exact_copies, synthetic_checks
from anon_core.utility.yardstick import choose_target, utility_yardstick

from .conftest import ADULT


# ------------------------------------------------------------------ tiny hand-worked tables
def _pair(a, b):
    return pd.DataFrame({"a": a, "b": b})


def test_identical_tables_have_zero_distances():
    frame = pd.DataFrame(
        {
            "age": [23, 35, 35, 50, 61, 42],
            "sex": ["F", "M", "M", "F", "F", "M"],
            "job": ["x", "y", "x", "z", "y", "x"],
        }
    )
    assert marginal_distance(frame, frame.copy()).value == 0.0
    assert association_distance(frame, frame.copy()).value == 0.0


def test_two_by_two_association_hand_worked():
    # Original: b follows a exactly (Cramér's V = 1); release: b independent of a (V = 0).
    original = _pair(["x", "x", "y", "y"], ["p", "p", "q", "q"])
    released = _pair(["x", "x", "y", "y"], ["p", "q", "p", "q"])
    assert marginal_distance(original, released).value == 0.0  # same 1-way shares
    result = association_distance(original, released)
    assert result.value == pytest.approx(1.0)
    assert result.pairs[0][2] == "cramers_v"


def test_two_by_two_skewed_release_hand_worked():
    # Release a: x x x y -> TV(a) = 1/2 (|1/2-3/4| + |1/2-1/4|) = 1/4; b unchanged -> mean 1/8.
    # Its 2x2 table x:(p 2, q 1), y:(p 0, q 1): chi2 = 2*(0.5^2/1.5) + 2*(0.5^2/0.5) = 4/3,
    # V = sqrt(4/3 / 4) = sqrt(1/3); original V = 1, so the distance is 1 - sqrt(1/3).
    original = _pair(["x", "x", "y", "y"], ["p", "p", "q", "q"])
    released = _pair(["x", "x", "x", "y"], ["p", "p", "q", "q"])
    marginal = marginal_distance(original, released)
    assert marginal.per_column == {"a": pytest.approx(0.25), "b": 0.0}
    assert marginal.value == pytest.approx(0.125)
    assert association_distance(original, released).value == pytest.approx(1 - math.sqrt(1 / 3))


def test_cramers_v_matches_scipy():
    from scipy.stats.contingency import association, crosstab

    rng = np.random.default_rng(3)
    a = rng.choice(["u", "v", "w"], 200)
    b = np.where(rng.random(200) < 0.6, a, rng.choice(["u", "v", "w", "t"], 200))
    table = crosstab(a, b).count
    assert cramers_v(a, b) == pytest.approx(association(table, method="cramer", correction=False))


def test_correlation_ratio_hand_worked():
    # Groups a: (1, 3), b: (5, 7); mean 4; between SS = 2*4 + 2*4 = 16; total SS = 20.
    assert correlation_ratio(np.array(["a", "a", "b", "b"]), np.array([1.0, 3, 5, 7])) == (
        pytest.approx(math.sqrt(0.8))
    )


def test_numeric_pairs_use_signed_pearson_and_per_value_bins():
    original = _pair([1, 2, 3, 4], [1, 2, 3, 4])
    released = _pair([1, 2, 3, 4], [4, 3, 2, 1])  # same marginals, correlation flipped
    assert marginal_distance(original, released).value == 0.0
    result = association_distance(original, released)
    assert result.pairs[0][2:] == ("pearson", pytest.approx(1.0), pytest.approx(-1.0))
    assert result.value == pytest.approx(2.0)
    # Every released value in the bin of 1 (four distinct values: one bin per value):
    # TV = 1/2 (3/4 + 1/4 + 1/4 + 1/4) = 3/4.
    flat = _pair([1, 1, 1, 1], [1, 2, 3, 4])
    assert marginal_distance(original, flat).per_column["a"] == pytest.approx(0.75)


def test_numeric_bins_on_original_quantiles():
    # 100 distinct values, 4 bins cut at the original's quartiles: a release with every value
    # below the first quartile puts all its mass in one bin, TV = 1 - 1/4 = 3/4.
    original = pd.DataFrame({"x": np.arange(100.0)})
    released = pd.DataFrame({"x": np.full(10, 5.0)})
    assert marginal_distance(original, released, bins=4).value == pytest.approx(0.75)


def test_mixed_pair_uses_correlation_ratio():
    original = _pair(["a", "a", "b", "b"], [1.0, 3, 5, 7])
    released = _pair(["a", "b", "a", "b"], [1.0, 3, 5, 7])  # groups (1, 5), (3, 7): eta^2 = 4/20
    result = association_distance(original, released)
    assert result.pairs[0][2] == "correlation_ratio"
    assert result.value == pytest.approx(math.sqrt(0.8) - math.sqrt(0.2))


def test_generalized_labels_are_categorical():
    original = pd.DataFrame({"age": [31, 35, 42, 47]})
    released = pd.DataFrame({"age": ["[30-40[", "[30-40[", "[40-50[", "[40-50["]})
    result = marginal_distance(original, released)
    assert result.kinds == {"age": "categorical"}
    assert result.value == pytest.approx(1.0)  # no released label is an original value
    assert numeric_values(released["age"]) is None


def test_total_variation_and_bad_input():
    assert total_variation([1, 1], [1, 0]) == pytest.approx(0.5)
    frame = _pair(["x", "y"], ["p", "q"])
    with pytest.raises(ConfigError, match="'columns' names \\['zz'\\]"):
        marginal_distance(frame, frame, columns=["zz"])
    with pytest.raises(ConfigError, match="'bins' must be at least 2"):
        marginal_distance(frame, frame, bins=1)
    with pytest.raises(ConfigError, match="no rows"):
        marginal_distance(frame, frame.iloc[:0])


def test_reexports_keep_old_callers_working():
    assert reexported_association is association_distance
    assert callable(compare_distributions) and callable(hellinger)
    assert callable(ml_utility) and callable(quality_summary)


# ------------------------------------------------------------------ ML trained on the release
def _classification(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.choice(["S", "M", "L"], n)
    label = np.where((colour == "red") | (size == "L"), "yes", "no")
    flip = rng.random(n) < 0.1
    label = np.where(flip, np.where(label == "yes", "no", "yes"), label)
    return pd.DataFrame({"colour": colour, "size": size, "label": label})


def test_identical_release_gives_the_baseline_exactly():
    train, holdout = _classification(400, 1), _classification(200, 2)
    result = holdout_utility(train, holdout, train.copy(), "label", random_state=0)
    for m in result.models:
        assert m.release == m.baseline
        assert all(v == 0 for v in m.drop.values())


def test_baseline_accuracy_matches_an_independent_pipeline():
    from sklearn.linear_model import LogisticRegression

    train, holdout = _classification(400, 1), _classification(200, 2)
    X = pd.get_dummies(train[["colour", "size"]]).astype(float)
    Xh = pd.get_dummies(holdout[["colour", "size"]]).astype(float)[X.columns]
    model = LogisticRegression(max_iter=2000, random_state=0).fit(X, train["label"])
    expected = float((model.predict(Xh) == holdout["label"]).mean())
    result = holdout_utility(
        train, holdout, train, "label", models=["logistic_regression"], random_state=0
    )
    assert result.model("logistic_regression").baseline["accuracy"] == pytest.approx(expected)


def test_single_class_release_predicts_that_class():
    train, holdout = _classification(300, 1), _classification(150, 2)
    released = train.assign(label="no")
    result = holdout_utility(train, holdout, released, "label", models=["logistic_regression"])
    m = result.model("logistic_regression")
    assert m.single_class_release
    assert m.release["accuracy"] == pytest.approx(float((holdout["label"] == "no").mean()))
    assert m.drop["accuracy"] > 0


def test_holdout_is_mapped_to_generalized_intervals():
    holdout = pd.DataFrame({"age": [3, 12, 37, 40], "sex": ["F", "M", "F", "M"]})
    released = pd.DataFrame(
        {"age": ["0-9", "10-19", "[30, 40)", "[40-50["], "sex": ["F", "M", "F", "M"]}
    )
    aligned, mapped = align_holdout(holdout, released)
    assert mapped == ("age",)
    assert list(aligned["age"]) == ["0-9", "10-19", "[30, 40)", "[40-50["]
    assert list(aligned["sex"]) == ["F", "M", "F", "M"]


def test_holdout_is_mapped_through_a_hierarchy():
    from anon_core.data.hierarchy import Hierarchy

    h = Hierarchy(np.array([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"]], dtype=object))
    holdout = pd.DataFrame({"g": ["a", "c", "b"]})
    released = pd.DataFrame({"g": ["ab", "cd"]})
    aligned, mapped = align_holdout(holdout, released, {"g": h})
    assert mapped == ("g",) and list(aligned["g"]) == ["ab", "cd", "ab"]


def test_yardstick_dict_and_cross_validated_option():
    train, holdout = _classification(300, 1), _classification(150, 2)
    report = utility_yardstick(train, holdout, train, models=["logistic_regression"])
    out = report.to_dict()
    assert {"ml", "marginal_distance", "association_distance"} <= set(out)
    assert out["ml"]["target"] == "label"  # the binary column is the default target
    assert out["ml"]["accuracy_drop"] == 0.0
    assert out["marginal_distance"] == 0.0 and out["association_distance"] == 0.0
    cv = utility_yardstick(
        train, holdout, train, "label", ml="cross-validated", models=["logistic_regression"], cv=3
    )
    assert cv.to_dict()["ml"]["cv"] == 3
    with pytest.raises(ConfigError, match="'ml' must be one of"):
        utility_yardstick(train, holdout, train, "label", ml="both")


def test_choose_target_prefers_few_classes():
    frame = pd.DataFrame({"x": [1, 2, 3, 4], "c3": list("abca"), "c2": list("yyzz")})
    assert choose_target(frame) == "c2"
    with pytest.raises(ConfigError, match="name the ML 'target'"):
        choose_target(pd.DataFrame({"x": [1.0, 2.0]}))


@pytest.mark.skipif(not (ADULT / "adult.csv").is_file(), reason="../shared/data/adult is absent")
def test_yardstick_on_adult_generalized_age(adult_frame):
    frame = adult_frame.assign(age=pd.to_numeric(adult_frame["age"]))
    rng = np.random.default_rng(0)
    order = rng.permutation(len(frame))[:6000]
    train = frame.iloc[order[:4000]].reset_index(drop=True)
    holdout = frame.iloc[order[4000:]].reset_index(drop=True)
    low = train["age"] // 10 * 10
    released = train.assign(age="[" + low.astype(str) + "-" + (low + 10).astype(str) + "[")
    report = utility_yardstick(
        train, holdout, released, "salary-class", models=["logistic_regression"]
    )
    ml = report.to_dict()["ml"]
    assert ml["mapped_columns"] == ["age"]
    assert abs(ml["accuracy_drop"]) < 0.03  # decade bins keep almost all of age's signal
    assert report.marginal.per_column["age"] == 1.0 and report.marginal.per_column["sex"] == 0.0


# ------------------------------------------------------------------ synthetic-data checks
def test_copy_is_all_exact_copies_with_zero_dcr():
    train = pd.DataFrame({"c": ["a", "a", "b", "c", "d"], "x": [1, 1, 2, 3, 4]})
    holdout = pd.DataFrame({"c": ["a", "e"], "x": [9, 9]})
    checks = synthetic_checks(train, holdout, train.copy())
    assert checks.exact_copies == 5
    assert checks.exact_copies_unique_in_original == 3  # (b,2), (c,3), (d,4); (a,1) twice
    assert checks.dcr_training_median == 0.0 and checks.dcr_training_p5 == 0.0
    assert checks.share_closer_to_training == 1.0


def test_independent_data_has_no_copies():
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"c": rng.choice(list("abc"), 50), "x": rng.integers(0, 10, 50)})
    holdout = pd.DataFrame({"c": rng.choice(list("abc"), 20), "x": rng.integers(0, 10, 20)})
    other = pd.DataFrame({"c": rng.choice(list("uvw"), 30), "x": rng.integers(100, 110, 30)})
    assert exact_copies(train, other) == (0, 0)
    checks = synthetic_checks(train, holdout, other)
    assert checks.exact_copies == 0 and checks.dcr_training_p5 > 0


def test_dcr_hand_worked():
    # Gower: mean over 2 columns of a 0/1 mismatch and |dx| / range(train x) (range 10).
    train = pd.DataFrame({"c": ["a", "b"], "x": [0, 10]})
    holdout = pd.DataFrame({"c": ["a"], "x": [10]})
    released = pd.DataFrame({"c": ["a"], "x": [4]})
    checks = synthetic_checks(train, holdout, released)
    assert checks.dcr_training_median == pytest.approx((0 + 0.4) / 2)
    assert checks.dcr_holdout_median == pytest.approx((0 + 0.6) / 2)
    assert checks.share_closer_to_training == 1.0
    assert checks.expected_share == pytest.approx(2 / 3)
    out = checks.to_dict()
    assert out["exact_copies"] == 0 and out["dcr"]["n_checked"] == 1
