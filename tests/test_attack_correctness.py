"""The attack lab is right on every input: regression tests for the defects an audit found.

Each test is built from the case that showed a defect, on small tables written here, with the
expected figures worked out by hand in the comments (never read off the code under test).
"""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from anon_core.attacks import size_correction
from anon_core.attacks.battery import attack_inputs, frame_inputs, infer_levels, run_battery
from anon_core.attacks.linkage import linkage
from anon_core.attacks.singling_out import singling_out
from anon_core.attacks.size_correction import correct_control_count, fit_misses
from anon_core.attacks.split import parse_attack_section, split_frame
from anon_core.data.hierarchy import Hierarchy
from anon_core.privacy.models import make_model
from anon_core.transform.problem import Problem
from tests.conftest import needs_shared

SEX = Hierarchy(np.array([["M", "*"], ["F", "*"]], dtype=object), name="sex")
AGE = Hierarchy(
    np.array(
        [
            ["20", "[20-40[", "*"],
            ["30", "[20-40[", "*"],
            ["40", "[40-60[", "*"],
            ["50", "[40-60[", "*"],
            ["60", "[60-80[", "*"],
        ],
        dtype=object,
    ),
    name="age",
)


def _cli(argv, capsys):
    from anon_core.cli import main

    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _write_config(tmp_path, attack=None, hierarchies=True):
    """people.csv: name (identifier), age and sex (quasi-identifiers), disease (sensitive)."""
    people = pd.DataFrame(
        {
            "name": ["ann", "bob", "cid", "dan", "eve"],
            "age": [20, 30, 40, 50, 60],
            "sex": ["M", "F", "M", "F", "M"],
            "disease": ["flu", "flu", "cold", "cold", "flu"],
        }
    )
    people.to_csv(tmp_path / "people.csv", index=False)
    attrs = {
        "name": {"role": "identifier"},
        "age": {"role": "quasi-identifier"},
        "sex": {"role": "quasi-identifier"},
        "disease": {"role": "sensitive"},
    }
    if hierarchies:
        attrs["age"]["hierarchy"] = {"table": AGE.table.tolist()}
        attrs["sex"]["hierarchy"] = {"table": SEX.table.tolist()}
    cfg = {
        "input": {"path": "people.csv"},
        "attributes": attrs,
        "privacy_models": [{"model": "k-anonymity", "k": 1}],
        "suppression_limit": 0.0,
    }
    if attack is not None:
        cfg["attack"] = attack
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg))
    return path, people


# ------------------------------------------------------------------ 1. column types of files
def test_released_and_control_files_take_the_input_column_types(tmp_path, capsys):
    path, people = _write_config(tmp_path)
    # The release (raw, four of the five records) and the control, as text files.
    released = people.drop(columns="name").iloc[:4]
    released.to_csv(tmp_path / "released.csv", index=False)
    control = pd.DataFrame({"age": [25, 35], "sex": ["M", "F"], "disease": ["flu", "cold"]})
    control.to_csv(tmp_path / "control.csv", index=False)
    code, out, err = _cli(
        [
            "attack",
            path,
            "--released",
            tmp_path / "released.csv",
            "--control",
            tmp_path / "control.csv",
            "--n-attacks",
            10,
        ],
        capsys,
    )
    assert code == 0, err
    uni = json.loads(out)["singling_out"]["univariate"]
    # Univariate predicates on the released ages 20, 30, 40, 50 (each held once), read as NUMBERS:
    # age == 20, 30, 40, 50 plus the extremes age <= 20 and age >= 50 -> 6 predicates (sex and
    # disease values are held twice each: not rare). Read as text, the two extremes would be
    # missing (4 predicates): that was the defect.
    assert uni["n_predicates_found"] == 6
    assert uni["n_requested"] == 10
    # On the original ages 20..60: the four equalities and age <= 20 match one record each;
    # age >= 50 matches 50 and 60. So 5 of the 6 single out a record: precision 5/6.
    assert uni["n_singled_out"] == 5
    assert uni["precision"] == pytest.approx(5 / 6)


def test_frame_inputs_types_columns_like_the_input():
    text = pd.DataFrame({"age": ["20", "30", "40"], "sex": ["M", "F", "M"]})
    original = pd.DataFrame({"age": [20, 30, 40], "sex": ["M", "F", "M"]})
    control = pd.DataFrame({"age": ["25", "35"], "sex": ["M", "F"]})
    inputs = frame_inputs(
        original, text, control, {"age": "quasi-identifier", "sex": "quasi-identifier"}
    )
    for frame in (inputs.original, inputs.released, inputs.control):
        assert frame["age"].dtype == float
        assert frame["sex"].dtype == object
    assert inputs.released["age"].tolist() == [20.0, 30.0, 40.0]
    # A numeric input column released with a '*' stays text in all three tables (labels compare).
    starred = pd.DataFrame({"age": ["20", "*", "40"], "sex": ["M", "F", "M"]})
    inputs = frame_inputs(
        original, starred, control, {"age": "quasi-identifier", "sex": "quasi-identifier"}
    )
    assert inputs.original["age"].tolist() == ["20", "30", "40"]
    assert inputs.released["age"].tolist() == ["20", "*", "40"]
    assert inputs.control["age"].tolist() == ["25", "35"]


# ------------------------------------------------------------------ 2. fully generalized columns
def test_a_column_released_entirely_as_star_is_at_the_top_level():
    released = pd.DataFrame({"age": ["[20-40[", "[40-60[", "*"], "sex": ["*", "*", "*"]})
    levels = infer_levels(released, {"age": AGE, "sex": SEX}, ["age", "sex"])
    # sex holds only '*': its top level (1), not level 0 (raw values, which '*' never equals).
    assert levels == {"age": 1, "sex": 1}


def test_linkage_on_a_release_with_a_star_column_by_hand():
    original = pd.DataFrame(
        {
            "name": ["ann", "bob", "cid", "dan"],
            "age": [20, 30, 40, 50],
            "sex": ["M", "F", "M", "F"],
        }
    )
    released = pd.DataFrame({"age": ["[20-40[", "[20-40[", "[40-60[", "[40-60["], "sex": ["*"] * 4})
    control = pd.DataFrame({"age": [60, 20], "sex": ["M", "F"]})
    roles = {"name": "identifier", "age": "quasi-identifier", "sex": "quasi-identifier"}
    inputs = frame_inputs(original, released, control, roles, {"age": AGE, "sex": SEX})
    # The original is generalized like the release: sex becomes '*' too.
    assert inputs.original["sex"].tolist() == ["*"] * 4
    external = pd.DataFrame(
        {"name": ["ann", "cid", "zed"], "age": [20, 40, 60], "sex": ["M", "M", "F"]}
    )
    report = run_battery(
        inputs,
        config_section=parse_attack_section(
            {"n_attacks": 20, "external": "x.csv", "id_column": "name"}
        ),
        external=external,
    )
    link = report.linkage
    # ann -> ([20-40[, *): 2 released records; cid -> ([40-60[, *): 2; zed (60) -> ([60-80[, *): 0.
    # The release keeps the input's rows in order, so the truth is known: ann and cid are both
    # among their matches -> 1/2 + 1/2 = 1.
    assert (link.matched_records, link.unique_matches) == (2, 0)
    assert link.truth_known
    assert link.expected_reidentified == pytest.approx(1.0)


# ------------------------------------------------------------------ 3./4. the attack section
def test_an_attack_section_naming_released_and_control_files_is_accepted(tmp_path, capsys):
    path, people = _write_config(
        tmp_path, attack={"released": "released.csv", "control": "control.csv", "n_attacks": 20}
    )
    # The released file is the PROTECTED release (anonymeter's syn) and is what gets attacked;
    # the configuration's input holds the originals of the released records (ori). A release of
    # only '*' is one distinct record (tables are deduplicated, as anonymeter does): its three
    # values give three univariate predicates (age == '*', sex == '*', disease == '*'); the input
    # as a release would give many more (five distinct ages alone). The risk is 0: the control
    # records, generalized the same way, are singled out just as well.
    stars = people.drop(columns="name").astype(str).map(lambda _: "*")
    stars.to_csv(tmp_path / "released.csv", index=False)
    pd.DataFrame({"age": [25, 45], "sex": ["M", "F"], "disease": ["flu", "cold"]}).to_csv(
        tmp_path / "control.csv", index=False
    )
    section = parse_attack_section(
        {"released": "released.csv", "control": "control.csv"}, tmp_path
    ).with_options(n_attacks=30, random_state=2)
    assert section.n_attacks == 30 and section.released == tmp_path / "released.csv"
    code, out, err = _cli(["attack", path, "--n-attacks", 30], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["singling_out"]["univariate"]["n_predicates_found"] == 3
    for result in data["singling_out"].values():
        assert result["risk"] == 0.0


# ------------------------------------------------------------------ 5. saturation and precision
def _saturation_tables():
    # Released (n_cols=2 of 3 columns): on (c0, c1) the four rows are distinct -> 4 predicates;
    # on (c0, c2) the pairs (a,p) and (b,q) each twice -> none; on (c1, c2) four distinct -> 4.
    # Eight singling-out predicates exist, whatever the seed or the number of tries.
    released = pd.DataFrame(
        {"c0": ["a", "a", "b", "b"], "c1": ["x", "y", "x", "y"], "c2": ["p", "p", "q", "q"]}
    )
    # The original adds (a, x, q): (a,x) and (x,q) now match two records, the other six one.
    original = pd.concat(
        [released, pd.DataFrame({"c0": ["a"], "c1": ["x"], "c2": ["q"]})], ignore_index=True
    )
    control = pd.DataFrame({"c0": ["b"], "c1": ["y"], "c2": ["p"]})
    return original, released, control


@pytest.mark.parametrize("max_attempts", [200_000, 1_000_000])
def test_singling_out_stops_on_saturation_not_on_the_try_count(max_attempts):
    original, released, control = _saturation_tables()
    r = singling_out(
        original,
        released,
        control,
        mode="multivariate",
        n_attacks=50,
        n_cols=2,
        max_attempts=max_attempts,
        random_state=3,
    )
    d = r.detail
    assert d["n_predicates_found"] == 8 and d["n_requested"] == 50
    assert d["search"]["saturated"]
    assert d["search"]["tries"] < max_attempts
    assert d["n_singled_out"] == 6
    assert d["precision"] == pytest.approx(6 / 8)
    assert r.attack_rate.n_success == 6 and r.attack_rate.n_total == 50


def test_first_batch_is_sized_to_the_request():
    # Every record is distinct on every column, so every try singles out: 100 requested
    # predicates come from the first batch (10 x 100 = 1,000 tries), not from 50,000.
    n = 3000
    frame = pd.DataFrame({"a": [f"a{i}" for i in range(n)], "b": [f"b{i}" for i in range(n)]})
    r = singling_out(frame, frame, frame.iloc[:10], n_attacks=100, n_cols=1, random_state=0)
    assert r.detail["n_predicates_found"] == 100
    assert r.detail["search"]["tries"] <= 1000


# ------------------------------------------------------------------ 6. control-size correction
# anonymeter 1.1.0 fits its correction on every query's matches, not only the predicates that
# single out a control record (a known fault of the oracle), so these cases are worked by hand.
def test_a_larger_control_set_is_counted_directly():
    # Control of N=4 records, original of 2: a predicate matching m control records matches
    # exactly one of a random 2 of them with probability m C(4-m, 1) / C(4, 2):
    # m=1: 3/6, m=2: 4/6, m=4: 0. Counts [1, 2, 2, 4, 0] -> 1/2 + 2/3 + 2/3 = 11/6.
    c = correct_control_count(np.array([1, 2, 2, 4, 0]), 4, 2)
    assert c.method == "subsample"
    assert c.counted == 1
    assert c.corrected == pytest.approx(11 / 6)
    same = correct_control_count(np.array([1, 2]), 4, 4)
    assert (same.method, same.corrected) == ("none", 1.0)


def test_a_fit_that_misses_its_counts_is_refused():
    # The audit's case: 1.9 predicted at 9,758 control records where 39 were counted.
    note = fit_misses(np.array([9758]), np.array([39.0]), np.array([1.9]))
    assert note is not None and "1.9" in note and "39" in note
    assert fit_misses(np.array([100, 200]), np.array([10.0, 20.0]), np.array([10.4, 19.5])) is None


def test_a_failed_fit_is_visible_in_the_json(monkeypatch):
    def no_fit(*args, **kwargs):
        raise RuntimeError("Optimal parameters not found")

    monkeypatch.setattr(size_correction, "curve_fit", no_fit)
    original, released, control = _saturation_tables()
    bigger = pd.concat([original] * 3, ignore_index=True)
    bigger["c2"] = [f"{v}{i}" for i, v in enumerate(bigger["c2"])]  # distinct originals
    control = pd.DataFrame({"c0": ["a", "b"], "c1": ["x", "y"], "c2": ["p0", "q3"]})
    r = singling_out(bigger, bigger, control, n_attacks=30, n_cols=2, random_state=1)
    correction = r.to_dict()["correction"]
    assert correction["method"] == "fit"
    assert correction["fit_ok"] is False
    assert "did not converge" in correction["note"]
    # Not corrected: the control count used is the counted one.
    assert r.control_rate.n_success == correction["counted"]


# ------------------------------------------------------------------ 8. linkage expectations
def test_linkage_without_the_truth_reports_the_attackers_expectation():
    released = pd.DataFrame(
        {"age": ["[20-40[", "[20-40[", "[40-60[", "[20-40["], "sex": ["M", "M", "F", "F"]}
    )
    external = pd.DataFrame(
        {"name": ["p", "q", "r", "s"], "age": [20, 30, 50, 60], "sex": ["M", "M", "F", "F"]}
    )
    r = linkage(
        external,
        released,
        qis=["age", "sex"],
        hierarchies={"age": AGE},
        levels={"age": 1, "sex": 0},
        id_column="name",
    )
    # p, q -> ([20-40[, M): 2 records each -> 1/2 + 1/2; r -> ([40-60[, F): 1 -> 1; s (60) ->
    # ([60-80[, F): none. The attacker expects 2 re-identifications.
    assert r.matched_records == 3
    assert r.expected_reidentified == pytest.approx(2.0)
    d = r.to_dict()
    assert d["truth_known"] is False and "attacker" in d["note"]


def test_cli_linkage_on_a_given_released_file(tmp_path, capsys):
    path, people = _write_config(tmp_path)
    released = pd.DataFrame(
        {
            "age": ["[20-40[", "[20-40[", "[40-60[", "[40-60[", "[60-80["],
            "sex": ["M", "F", "M", "F", "M"],
            "disease": people["disease"],
        }
    )
    released.to_csv(tmp_path / "released.csv", index=False)
    pd.DataFrame({"age": [30, 60], "sex": ["M", "F"], "disease": ["flu", "cold"]}).to_csv(
        tmp_path / "control.csv", index=False
    )
    people[["name", "age", "sex"]].to_csv(tmp_path / "external.csv", index=False)
    common = ["--control", tmp_path / "control.csv", "--external", tmp_path / "external.csv"]
    code, out, err = _cli(
        ["attack", path, "--released", tmp_path / "released.csv", *common, "--n-attacks", 10],
        capsys,
    )
    assert code == 0, err
    link = json.loads(out)["linkage"]
    # Every released (age band, sex) is distinct, each external record matches its own released
    # row alone, and the file keeps the input's rows in order: 5 true re-identifications.
    assert link["matched_records"] == 5 and link["unique_matches"] == 5
    assert link["truth_known"] is True
    assert link["expected_reidentified"] == pytest.approx(5.0)
    # The same records shuffled: whose row is whose is unknown; the attacker still expects
    # 5 (each external record has one match), and that is said, never 0.
    released.iloc[[4, 3, 2, 1, 0]].to_csv(tmp_path / "released.csv", index=False)
    code, out, err = _cli(
        ["attack", path, "--released", tmp_path / "released.csv", *common, "--n-attacks", 10],
        capsys,
    )
    assert code == 0, err
    link = json.loads(out)["linkage"]
    assert link["truth_known"] is False
    assert link["expected_reidentified"] == pytest.approx(5.0)
    assert "attacker" in link["note"]


# ------------------------------------------------------------------ 5. saturation on Adult
@needs_shared
@pytest.mark.slow
def test_saturated_search_finds_the_enumerated_predicates_on_adult(adult_frame, adult_hierarchies):
    """The audit's release (k=5 + distinct 3-diversity on occupation, 2% suppression, seeded
    2/3 : 1/3 split): singling out read 0.029 after 10^5 tries and 0.0475 after 10^6. The
    saturated search must find (nearly) every singling-out predicate there is, counted here
    independently by enumerating every 3-column projection of the distinct released rows."""
    part, control = split_frame(adult_frame, 1 / 3, 0)
    roles = {c: "quasi-identifier" for c in part.columns}
    roles["occupation"] = "sensitive"
    problem = Problem(
        part,
        roles,
        {q: h for q, h in adult_hierarchies.items() if roles[q] == "quasi-identifier"},
        [
            make_model({"model": "k-anonymity", "k": 5}),
            make_model({"model": "distinct-l-diversity", "attribute": "occupation", "l": 3}),
        ],
        0.02,
    )
    inputs = attack_inputs(problem.dataset, problem.search().optimum, control)
    # Every column is a label here (age is generalized), so predicates are equalities: a
    # predicate singles out when its projection occurs in one distinct released row.
    rel = inputs.released.astype(str).drop_duplicates()
    ori = inputs.original.astype(str).drop_duplicates()
    total = singled = 0
    for combo in combinations(rel.columns, 3):
        counts = rel.groupby(list(combo)).size()
        unique = counts[counts == 1].index
        total += len(unique)
        singled += int((ori.groupby(list(combo)).size().reindex(unique).fillna(0) == 1).sum())
    assert total < 2000  # fewer than requested: the search can only saturate
    r = singling_out(
        inputs.original, inputs.released, inputs.control, n_attacks=2000, random_state=0
    )
    d = r.detail
    assert d["search"]["saturated"]
    assert total - 3 <= d["n_predicates_found"] <= total
    assert singled - 3 <= d["n_singled_out"] <= singled
    assert d["precision"] == pytest.approx(singled / total, abs=0.01)


def test_attacks_page_shows_predicates_found_and_precision():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = Path(__file__).resolve().parents[1] / "app.py"
    at = AppTest.from_file(str(app), default_timeout=180)
    at.run()
    at.switch_page("pages/attacks.py").run()
    at.number_input(key="attack_n").set_value(60).run()
    at.button(key="attack_run").click().run()
    assert not at.exception, at.exception
    lines = [m.value for m in at.markdown if "predicates found" in m.value]
    assert len(lines) == 2, [m.value for m in at.markdown]  # univariate and multivariate
    for line in lines:
        assert "of 60 requested" in line and "precision" in line
        assert "requested count" in line and "found count" in line


def test_suppressed_rows_of_a_released_file_are_not_attacked():
    # anonymize writes suppressed records as '*' rows in the input's order; the release made in
    # process removes them. Same release, same attack: the '*' row (bob) is dropped, and the
    # identifiers of the rows left are ann, cid, dan.
    original = pd.DataFrame(
        {"name": ["ann", "bob", "cid", "dan"], "age": [20, 30, 40, 50], "sex": ["M", "F", "M", "F"]}
    )
    released = pd.DataFrame(
        {"age": ["[20-40[", "*", "[40-60[", "[40-60["], "sex": ["M", "*", "M", "F"]}
    )
    control = pd.DataFrame({"age": [60, 20], "sex": ["M", "F"]})
    roles = {"name": "identifier", "age": "quasi-identifier", "sex": "quasi-identifier"}
    inputs = frame_inputs(original, released, control, roles, {"age": AGE, "sex": SEX})
    assert inputs.levels == {"age": 1, "sex": 0}
    assert inputs.released["age"].tolist() == ["[20-40[", "[40-60[", "[40-60["]
    assert list(inputs.released_ids["name"]) == ["ann", "cid", "dan"]
