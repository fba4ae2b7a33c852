"""The attack lab's battery: linkage, DCR membership, the split, the CLI and the risk-bounded search.

Expected values are worked out by hand in the comments (linkage group sizes and re-identifications),
or follow from definitions (an unprotected release of unique records links every record uniquely; a
k-anonymous release has no matching group below k; an identical copy gives membership away, a
release of only '*' gives nothing).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anon_core.attacks.battery import attack_inputs, run_battery
from anon_core.attacks.linkage import linkage
from anon_core.attacks.membership import dcr_membership
from anon_core.attacks.singling_out import singling_out
from anon_core.attacks.split import parse_attack_section, split_frame
from anon_core.config import parse_config
from anon_core.data.hierarchy import Hierarchy
from anon_core.errors import ConfigError
from anon_core.privacy.models import make_model
from anon_core.transform.attack_bounded import measure_attack
from anon_core.transform.problem import Problem
from tests.conftest import ADULT, needs_shared

AGE = Hierarchy(
    np.array(
        [
            ["25", "[20-30[", "*"],
            ["27", "[20-30[", "*"],
            ["35", "[30-40[", "*"],
            ["45", "[40-50[", "*"],
        ],
        dtype=object,
    ),
    name="age",
)
EXTERNAL = pd.DataFrame(
    {
        "name": ["x", "y", "z", "w", "v"],
        "age": [25, 35, 45, 99, 27],
        "sex": ["M", "F", "M", "M", "F"],
    }
)


# ------------------------------------------------------------------ linkage, by hand
def test_linkage_generalized_release_by_hand():
    # Released groups on (age, sex): ([20-30[, M) x2, ([30-40[, F) x1; the last row is suppressed.
    released = pd.DataFrame(
        {
            "age": ["[20-30[", "[20-30[", "[30-40[", "*"],
            "sex": ["M", "M", "F", "*"],
            "disease": ["a", "b", "c", "d"],
        }
    )
    levels = {"age": 1, "sex": 0}
    # x (25,M) -> ([20-30[,M): size 2; y (35,F) -> size 1; z (45,M) -> ([40-50[,M): none;
    # w (99) is not in the hierarchy: unmatched and reported; v (27,F) -> ([20-30[,F): none.
    r = linkage(EXTERNAL, released, qis=["age", "sex"], hierarchies={"age": AGE}, levels=levels)
    assert (r.external_records, r.matched_records, r.unique_matches) == (5, 2, 1)
    assert r.group_sizes == (2, 1, 0, 0, 0)
    assert r.unknown_values == {"age": 1}
    assert not r.truth_known
    assert r.expected_reidentified == pytest.approx(1 / 2 + 1)  # the attacker's expectation
    assert r.reidentified_share == pytest.approx(1.5 / 5)
    assert r.size_distribution() == {0: 3, 1: 1, 2: 1}
    # With the truth: released rows belong to x, q, z (the suppressed one, w, is gone). x is
    # in its group of 2 -> 1/2; y was never released -> 0; so 0.5 in all.
    truth = linkage(
        EXTERNAL,
        released,
        qis=["age", "sex"],
        hierarchies={"age": AGE},
        levels=levels,
        id_column="name",
        released_ids=["x", "q", "z", "w"],
    )
    assert truth.truth_known
    assert truth.expected_reidentified == pytest.approx(0.5)
    assert truth.to_dict() == {
        "external_records": 5,
        "matched_records": 2,
        "unique_matches": 1,
        "expected_reidentified": pytest.approx(0.5),
        "reidentified_share": pytest.approx(0.1),
        "truth_known": True,
        "note": "",
    }


def test_linkage_mondrian_labels_by_hand():
    # Mondrian-style labels: ranges and a '*' on one QI only (not suppressed).
    released = pd.DataFrame(
        {"age": ["[20-30]", "[20-30]", "35", "[30-40]"], "sex": ["M", "M", "F", "*"]}
    )
    # x (25,M): only ([20-30],M), size 2; y (35,F): ('35',F) and ([30-40],*), size 2;
    # z (45,M), w (99,M), v (27,F): nothing.
    r = linkage(
        EXTERNAL,
        released,
        qis=["age", "sex"],
        id_column="name",
        released_ids=["x", "q", "z", "y"],
    )
    assert r.group_sizes == (2, 2, 0, 0, 0)
    assert (r.matched_records, r.unique_matches) == (2, 0)
    # x: true row 0 is among its matches -> 1/2; y: true row 3 ([30-40],*) is among its -> 1/2.
    assert r.expected_reidentified == pytest.approx(1.0)


def test_linkage_raw_release_of_unique_records_links_everyone():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(300)],
            "age": rng.permutation(300) + 18,
            "zip": rng.integers(0, 9, 300),
        }
    )
    released = frame.drop(columns="id").sample(frac=1.0, random_state=1).reset_index(drop=True)
    ids = frame.set_index(["age", "zip"]).loc[
        list(zip(released["age"], released["zip"], strict=True)), "id"
    ]
    r = linkage(frame, released, qis=["age", "zip"], id_column="id", released_ids=ids.to_numpy())
    assert r.matched_records == r.unique_matches == r.external_records == 300
    assert r.expected_reidentified == pytest.approx(300.0)
    assert r.reidentified_share == pytest.approx(1.0)


def _people(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "name": [f"person{i}" for i in range(n)],
            "age": rng.integers(20, 70, n),
            "zip": rng.choice(["02138", "02139", "02141", "02142", "10001", "10002"], n),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cold", "hiv", "asthma"], n),
        }
    )


def _age_hierarchy(values) -> dict:
    rows = [[str(a), f"[{a // 10 * 10}-{a // 10 * 10 + 10}[", "*"] for a in sorted(set(values))]
    return {"table": rows}


def _zip_hierarchy(values) -> dict:
    return {"table": [[z, z[:4] + "*", z[:3] + "**", "*"] for z in sorted(set(values))]}


def _config(frame: pd.DataFrame, **overrides) -> dict:
    cfg = {
        "input": {"path": "people.csv"},
        "attributes": {
            "name": {"role": "identifier"},
            "age": {"role": "quasi-identifier", "hierarchy": _age_hierarchy(frame["age"])},
            "zip": {"role": "quasi-identifier", "hierarchy": _zip_hierarchy(frame["zip"])},
            "sex": {"role": "quasi-identifier"},
            "disease": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.05,
        "quality_metric": {"name": "loss"},
    }
    cfg.update(overrides)
    return cfg


def test_k_anonymous_release_never_matches_a_group_below_k():
    frame = _people()
    config = parse_config(_config(frame))
    problem = Problem.from_config(config, frame)
    result = problem.search().optimum
    assert result is not None and result.satisfied
    released = problem.apply(result)
    hierarchies = {q: problem.dataset.columns[q].hierarchy for q in problem.dataset.qis}
    r = linkage(
        frame,
        released,
        qis=problem.dataset.qis,
        hierarchies=hierarchies,
        levels=result.transformation,
        id_column="name",
        released_ids=frame["name"].to_numpy()[~result.suppressed[result.table.record_class()]],
    )
    sizes = np.asarray(r.group_sizes)
    assert sizes[sizes > 0].min() >= 5
    # Every released record is matched by its own external record (same raw values).
    assert r.matched_records == len(released)
    assert r.unique_matches == 0
    # Truth known: each released record's external twin finds it among `size` -> sum 1/size
    # = number of released classes (each class of size s contributes s * 1/s).
    assert r.expected_reidentified == pytest.approx(result.equivalence_classes)


def test_linkage_refuses_an_external_table_without_shared_qi():
    with pytest.raises(ConfigError, match="shares no quasi-identifier"):
        linkage(pd.DataFrame({"name": ["a"], "city": ["b"]}), EXTERNAL, qis=["age", "sex"])


# ------------------------------------------------------------------ membership (DCR)
def test_membership_identical_copy_vs_stars_only():
    frame = _people(600, seed=1).drop(columns="name")
    original, control = (
        frame.iloc[:300].reset_index(drop=True),
        frame.iloc[300:].reset_index(drop=True),
    )
    copy = dcr_membership(original, original, control, n_attacks=300, random_state=0)
    # Members sit at distance 0; a non-member only when an identical record was released.
    dup = control.merge(original.drop_duplicates(), how="inner").shape[0] / len(control)
    assert copy.tpr == 1.0
    assert copy.advantage >= 1.0 - dup - 0.15
    assert copy.ci[0] <= copy.advantage <= copy.ci[1]
    stars = original.astype(str).map(lambda _: "*")
    none = dcr_membership(original, stars, control, n_attacks=300, random_state=0)
    assert none.advantage == 0.0  # every distance is the same: members and non-members tie
    assert none.ci[0] <= 0.0 <= none.ci[1]
    assert copy.to_dict().keys() == {"advantage", "ci"}


def test_membership_is_deterministic_with_a_seed():
    frame = _people(400, seed=2).drop(columns="name")
    original, control = frame.iloc[:250], frame.iloc[250:]
    released = original.sample(frac=1.0, random_state=4)
    a = dcr_membership(original, released, control, n_attacks=100, random_state=7)
    b = dcr_membership(original, released, control, n_attacks=100, random_state=7)
    assert a == b


# ------------------------------------------------------------------ split and section
def test_split_is_seeded_and_disjoint():
    frame = _people(300)
    a_rel, a_ctl = split_frame(frame, 1 / 3, 5)
    b_rel, b_ctl = split_frame(frame, 1 / 3, 5)
    pd.testing.assert_frame_equal(a_rel, b_rel)
    pd.testing.assert_frame_equal(a_ctl, b_ctl)
    assert len(a_ctl) == 100 and len(a_rel) == 200
    assert not set(a_rel["name"]) & set(a_ctl["name"])
    other, _ = split_frame(frame, 1 / 3, 6)
    assert list(other["name"]) != list(a_rel["name"])


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"n_attacks": 0}, "'attack.n_attacks' must be at least 1"),
        ({"control_fraction": 0}, "'attack.control_fraction' must be greater than 0"),
        ({"control": "c.csv"}, "'attack.control' is given without 'attack.released'"),
        ({"aux_columns": [["a"]]}, "'attack.aux_columns' must be two lists"),
        ({"aux_columns": [["a"], ["a"]]}, "on both sides"),
        ({"bogus": 1}, "unknown field"),
        ({"id_column": "name"}, "without 'attack.external'"),
    ],
)
def test_attack_section_bad_values(section, message):
    with pytest.raises(ConfigError, match=message):
        parse_attack_section(section)


def test_attack_section_round_trips_in_a_configuration():
    frame = _people(50)
    cfg = _config(frame, attack={"n_attacks": 100, "secret": ["disease"], "random_state": 3})
    parsed = parse_config(cfg)
    assert parsed.sections["attack"] == cfg["attack"]
    section = parse_attack_section(parsed.sections["attack"])
    assert (section.n_attacks, section.secret, section.random_state) == (100, ("disease",), 3)


# ------------------------------------------------------------------ attack-risk model
def test_attack_risk_is_never_satisfied_by_the_plain_evaluator():
    frame = _people(200)
    models = [
        {"model": "k-anonymity", "k": 2},
        {"model": "attack-risk", "attack": "singling-out-multivariate", "threshold": 1.0},
    ]
    config = parse_config(_config(frame, privacy_models=models))
    problem = Problem.from_config(config, frame)
    model = problem.evaluator.models[1]
    assert not model.monotonic_generalization and not model.monotonic_suppression
    # Threshold 1.0 would pass any measured risk, yet without the attack nothing is satisfied.
    top = {q: problem.dataset.hierarchy(q).height - 1 for q in problem.dataset.qis}
    assert not problem.evaluate(top).satisfied
    with pytest.raises(ConfigError, match="needs a control set"):
        problem.search()


def test_attack_risk_bad_parameters():
    with pytest.raises(ConfigError, match="'attack-risk.threshold' is required"):
        make_model({"model": "attack-risk", "attack": "linkability"})
    with pytest.raises(ConfigError, match="'attack-risk.attack' must be one of"):
        make_model({"model": "attack-risk", "attack": "guessing", "threshold": 0.1})


# ------------------------------------------------------------------ needs the attacks
@pytest.fixture()
def people_config(tmp_path):
    frame = _people(450, seed=5)
    frame.to_csv(tmp_path / "people.csv", index=False)
    external = frame[["name", "age", "zip"]].iloc[:120]
    external.to_csv(tmp_path / "external.csv", index=False)

    def write(name: str = "release", **overrides):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(_config(frame, **overrides)))
        return path

    return write, tmp_path, frame


def test_attack_risk_search_returns_a_passing_transformation_deterministically(people_config):
    _, _, frame = people_config
    part, control = split_frame(frame, 1 / 3, 0)
    models = [
        {"model": "k-anonymity", "k": 2},
        {
            "model": "attack-risk",
            "attack": "singling-out-multivariate",
            "threshold": 0.2,
            "n_attacks": 150,
        },
    ]
    config = parse_config(_config(frame, privacy_models=models))
    runs = []
    for _ in range(2):
        problem = Problem.from_config(config, part)
        problem.evaluator.models[1].bind(control)
        found = problem.search()
        assert found.optimum is not None and found.optimum.satisfied
        runs.append((found.optimum.transformation, found.attack_checks))
        # Independently re-measured on a fresh model: the risk is within the threshold.
        fresh = make_model(models[1]).bind(control)
        measured = measure_attack(fresh, problem.evaluator, found.optimum)
        assert measured.risk <= 0.2
        # Every node the search calls satisfied had its attack run and pass.
        passed = {c.levels for c in found.attack_checks if c.passed}
        assert {r.levels for r in found.evaluated if r.satisfied} <= passed
    assert runs[0] == runs[1]


def _cli(argv, capsys):
    from anon_core.cli import main

    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_attack_json_shape(people_config, capsys):
    write, tmp_path, _ = people_config
    path = write(attack={"n_attacks": 60, "random_state": 1})
    code, out, err = _cli(
        ["attack", str(path), "--external", str(tmp_path / "external.csv")], capsys
    )
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"singling_out", "linkability", "inference", "linkage", "membership"}
    assert set(data["singling_out"]) == {"univariate", "multivariate"}
    for figures in [
        *data["singling_out"].values(),
        data["linkability"],
        data["inference"]["disease"],
    ]:
        for key in ("risk", "ci", "attack_rate", "control_rate", "baseline_rate", "n_attacks"):
            assert key in figures
        assert 0.0 <= figures["ci"][0] <= figures["risk"] <= figures["ci"][1] <= 1.0
    assert set(data["linkage"]) == {
        "external_records",
        "matched_records",
        "unique_matches",
        "expected_reidentified",
        "reidentified_share",
        "truth_known",
        "note",
    }
    assert data["linkage"]["external_records"] == 120
    assert set(data["membership"]) == {"advantage", "ci"}
    # The same seed gives the same JSON.
    code, again, _ = _cli(
        ["attack", str(path), "--external", str(tmp_path / "external.csv")], capsys
    )
    assert json.loads(again) == data
    # Without an external table the linkage section is omitted.
    code, out, _ = _cli(["attack", str(path), "--n-attacks", "30"], capsys)
    assert "linkage" not in json.loads(out)


def test_cli_attack_bad_inputs_exit_2_with_one_line(people_config, capsys):
    write, tmp_path, frame = people_config
    (tmp_path / "no_qi.csv").write_text("name,city\nperson1,Paris\n")
    frame.iloc[:0].to_csv(tmp_path / "empty.csv", index=False)
    frame.drop(columns="name").to_csv(tmp_path / "released.csv", index=False)
    cases = [
        (write("secret", attack={"secret": ["salary"]}), [], "salary"),
        (write(), ["--n-attacks", "0"], "n-attacks"),
        (write(), ["--external", str(tmp_path / "no_qi.csv")], "shares no quasi-identifier"),
        (
            write(),
            [
                "--released",
                str(tmp_path / "released.csv"),
                "--control",
                str(tmp_path / "empty.csv"),
            ],
            "control",
        ),
        (write("aux", attack={"aux_columns": [["age"], ["income"]]}), [], "income"),
    ]
    for path, extra, needle in cases:
        code, out, err = _cli(["attack", str(path), *extra], capsys)
        assert code == 2, (extra, err)
        lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
        assert len(lines) == 1 and needle in lines[0], err
        assert out == ""


def test_battery_stars_only_release_has_zero_singling_out_risk(people_config):
    _, _, frame = people_config
    data = frame.drop(columns="name")
    original, control = (
        data.iloc[:300].reset_index(drop=True),
        data.iloc[300:].reset_index(drop=True),
    )
    stars = original.astype(str).map(lambda _: "*")
    roles = {
        "age": "quasi-identifier",
        "zip": "quasi-identifier",
        "sex": "quasi-identifier",
        "disease": "sensitive",
    }
    report = run_battery(
        released=stars,
        original=original,
        control=control,
        config_section=parse_attack_section({"n_attacks": 100}),
        roles=roles,
    )
    for result in report.singling_out.values():
        assert result.risk == 0.0
    assert report.membership is not None and report.membership.advantage == 0.0


@needs_shared
@pytest.mark.slow
def test_singling_out_risk_is_monotone_in_k_on_adult(adult_frame):

    part, control = split_frame(adult_frame, 1 / 3, 0)
    roles = {c: "quasi-identifier" for c in adult_frame.columns}
    roles["salary-class"] = "sensitive"
    hierarchies = {
        p.stem.removeprefix("adult_hierarchy_"): Hierarchy.from_csv(p)
        for p in sorted(ADULT.glob("adult_hierarchy_*.csv"))
    }
    # The unprotected release (the released part itself) comes first: it singles out almost anyone.
    raw = singling_out(part, part, control, mode="multivariate", n_attacks=300, random_state=0)
    risks = [raw.risk]
    for k in (2, 5, 20):
        problem = Problem(
            part,
            roles,
            {q: h for q, h in hierarchies.items() if q in roles},
            [make_model({"model": "k-anonymity", "k": k})],
            0.02,
        )
        result = problem.search().optimum
        inputs = attack_inputs(problem.dataset, result, control)
        r = singling_out(
            inputs.original,
            inputs.released,
            inputs.control,
            mode="multivariate",
            n_attacks=500,
            random_state=0,
        )
        risks.append(r.risk)
    assert risks[0] > 0.5, risks
    assert risks[0] >= risks[1] >= risks[2] >= risks[3], risks


def test_attacks_page_runs_on_the_sample_and_shows_the_chart():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = Path(__file__).resolve().parents[1] / "app.py"
    at = AppTest.from_file(str(app), default_timeout=180)
    at.run()
    at.switch_page("pages/attacks.py").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    at.number_input(key="attack_n").set_value(60).run()
    at.button(key="attack_run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    charts = {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    spec = next(s for cid, s in charts.items() if "attack_risk_chart" in cid)
    assert spec["layout"]["yaxis"]["title"]["text"] == "risk (share of guesses)"
    names = {trace["name"] for trace in spec["data"]}
    assert names == {"risk", "main attack", "control", "baseline"}
    assert any("membership" in m.label.lower() for m in at.metric)


def test_attack_risk_search_with_a_loose_threshold_finds_the_plain_optimum(people_config):
    # Any measured risk is <= 1.0, so the first candidate passes: the optimum must be the plain
    # lattice search's optimum under the other models (an independent search implementation).
    _, _, frame = people_config
    part, control = split_frame(frame, 1 / 3, 0)
    loose = {"model": "attack-risk", "attack": "linkability", "threshold": 1.0, "n_attacks": 50}
    k = {"model": "k-anonymity", "k": 3}
    bounded = Problem.from_config(parse_config(_config(frame, privacy_models=[k, loose])), part)
    bounded.evaluator.models[1].bind(control)
    plain = Problem.from_config(parse_config(_config(frame, privacy_models=[k])), part)
    found, expected = bounded.search(), plain.search()
    assert found.optimum.transformation == expected.optimum.transformation
    assert found.optimum.quality.value == pytest.approx(expected.optimum.quality.value)
    assert len(found.attack_checks) == 1 and found.attack_checks[0].passed


def test_attack_risk_with_confidence_bounds_the_upper_end(people_config):
    # The same attack at 99% confidence: same counts and risk, a wider interval, and the model
    # compares the interval's upper end (not the risk) with its threshold.
    _, _, frame = people_config
    part, control = split_frame(frame, 1 / 3, 0)
    base = {"model": "attack-risk", "attack": "singling-out-multivariate", "threshold": 0.5}
    config = parse_config(_config(frame, privacy_models=[{"model": "k-anonymity", "k": 2}]))
    problem = Problem.from_config(config, part)
    result = problem.search().optimum
    plain = make_model({**base, "n_attacks": 200}).bind(control)
    strict = make_model({**base, "n_attacks": 200, "confidence": 0.99}).bind(control)
    a = measure_attack(plain, problem.evaluator, result)
    b = measure_attack(strict, problem.evaluator, result)
    assert b.attack_rate.n_success == a.attack_rate.n_success
    assert b.ci[0] <= a.ci[0] and b.ci[1] >= a.ci[1]
    assert strict.bound_value(b.risk, b.ci) == b.ci[1]
    assert plain.bound_value(a.risk, a.ci) == a.risk


def test_report_section_and_linkage_chart(people_config):
    from anon_core.report.attacks import attacks_section, compare_sections
    from ui.attacks import linkage_chart

    _, _, frame = people_config
    config = parse_config(_config(frame))
    part, control = split_frame(frame, 1 / 3, 2)
    problem = Problem.from_config(config, part)
    result = problem.search().optimum
    section = parse_attack_section({"n_attacks": 50, "random_state": 2})
    external = frame[["name", "age", "zip", "sex"]].iloc[:80]
    report = run_battery(
        attack_inputs(problem.dataset, result, control), config_section=section, external=external
    )
    data = attacks_section(report)
    assert data["figures"] == report.to_dict()
    assert data["reproduce"]["random_state"] == 2 and data["reproduce"]["n_attacks"] == 50
    assert data["linkage"]["truth_known"]  # the input's identifier column 'name' is shared
    assert compare_sections(data, attacks_section(report)) == []
    changed = json.loads(json.dumps(data))
    changed["figures"]["membership"]["advantage"] += 0.5
    assert compare_sections(data, changed) == [
        f"attacks.membership.advantage: report {data['figures']['membership']['advantage']}, "
        f"re-run {changed['figures']['membership']['advantage']}"
    ]
    fig = linkage_chart(report.linkage)
    assert list(fig.data[0].x) == list(report.linkage.group_sizes)
    assert sum(report.linkage.size_distribution().values()) == 80


def test_registrations_page_command_and_attack_registry():
    import ast
    from pathlib import Path

    from anon_core.attacks import ATTACKS
    from anon_core.cli import build_parser

    app = Path(__file__).resolve().parents[1] / "app.py"
    tree = ast.parse(app.read_text())
    analysis = next(
        node.values[i]
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        for i, key in enumerate(node.keys)
        if isinstance(key, ast.Constant) and key.value == "Analysis"
    )
    assert "pages/attacks.py" in ast.unparse(analysis)
    parser = build_parser()
    args = parser.parse_args(["attack", "c.json", "--n-attacks", "5", "--seed", "3"])
    assert (args.n_attacks, args.seed, args.released, args.external) == (5, 3, None, None)
    assert {"linkage", "membership"} <= set(ATTACKS)
    released = pd.DataFrame({"age": ["25", "35"], "sex": ["M", "F"]})
    result = ATTACKS["linkage"].run(None, released, None, external=EXTERNAL, qis=["age", "sex"])
    assert result.group_sizes == (1, 1, 0, 0, 0)  # x (25, M) and y (35, F) are released raw
    frame = _people(200, seed=9).drop(columns="name")
    member = ATTACKS["membership"].run(
        frame.iloc[:100], frame.iloc[:100], frame.iloc[100:], n_attacks=50, random_state=0
    )
    assert member.tpr == 1.0


def test_explore_page_colours_selected_candidates_by_attack_risk():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = Path(__file__).resolve().parents[1] / "app.py"
    at = AppTest.from_file(str(app), default_timeout=180)
    at.run()
    at.switch_page("pages/privacy.py").run()
    next(b for b in at.button if "Find the optimum" in b.label).click().run()
    assert not at.exception, at.exception
    at.switch_page("pages/explore.py").run()
    assert not at.exception, at.exception
    at.number_input(key="explore_attack_n").set_value(40).run()
    at.button(key="explore_attack_run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    charts = {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    spec = next(s for cid, s in charts.items() if "tradeoff_chart" in cid)
    traces = {t["name"]: t for t in spec["data"]}
    measured = traces["singling-out-multivariate risk"]
    chosen = at.multiselect(key="explore_attack_candidates").value
    assert sorted(r[0] for r in measured["customdata"]) == sorted(chosen) and chosen
    assert all(0.0 <= r[3] <= r[2] <= r[4] <= 1.0 for r in measured["customdata"])


def test_cli_attack_with_released_and_control_files(people_config, capsys):
    # CONFIG's input is the original released part; the released file is attacked as given.
    write, tmp_path, frame = people_config
    part, control = split_frame(frame, 1 / 3, 4)
    part.to_csv(tmp_path / "part.csv", index=False)
    control.to_csv(tmp_path / "control.csv", index=False)
    config = _config(frame, input={"path": "part.csv"})
    problem = Problem.from_config(parse_config(config), part)
    problem.apply(problem.search().optimum).to_csv(tmp_path / "released.csv", index=False)
    path = write("files", input={"path": "part.csv"}, attack={"n_attacks": 40})
    argv = [
        "attack",
        str(path),
        "--released",
        str(tmp_path / "released.csv"),
        "--control",
        str(tmp_path / "control.csv"),
    ]
    code, out, err = _cli(argv, capsys)
    assert code == 0, err
    data = json.loads(out)
    assert {"singling_out", "linkability", "inference", "membership"} == set(data)
    code, again, _ = _cli([*argv, "--seed", "0"], capsys)
    assert json.loads(again) == data  # the section's seed is 0 too
    code, out, err = _cli(argv[:4], capsys)  # --released without --control
    assert code == 2 and "--control" in err


def test_cli_attack_risk_model_is_searched_with_the_control_part(people_config, capsys):
    write, _, _ = people_config
    models = [
        {"model": "k-anonymity", "k": 2},
        {"model": "attack-risk", "attack": "linkability", "threshold": 1.0, "n_attacks": 30},
    ]
    path = write("bounded", privacy_models=models, attack={"n_attacks": 30})
    code, out, err = _cli(["attack", str(path)], capsys)
    assert code == 0, err
    assert "singling_out" in json.loads(out)
    # 'anonymize' holds the configuration's control split back and searches the released part
    code, out, err = _cli(["anonymize", str(path)], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["satisfied"] is True and summary["control_records"] > 0
