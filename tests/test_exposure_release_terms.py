"""Exposure of the most vulnerable records on the release's own terms (singled out, inferred),
worked by hand, and the exposure in the dossier that ``verify`` re-checks."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anon_core.attacks.vulnerable_exposure import covering_rows, vulnerable_exposure
from anon_core.data.hierarchy import Hierarchy

# six records; record 5 (90, X) is the outlier: 1% of 6 rounds up to 1 target. With k=2 its
# 2nd-nearest record (36, M) is 54/69 + 1 away; every other record has a 2nd-nearest within
# 14/69 + 1 (record 0: (22, F) then (35, M))
ORIGINAL = pd.DataFrame(
    {
        "age": [21, 22, 35, 36, 37, 90],
        "sex": ["F", "F", "M", "M", "M", "X"],
        "d": ["flu", "flu", "cold", "cold", "gout", "asthma"],
    }
)
AGE = Hierarchy.from_rows(
    [
        ["21", "20-29", "*"],
        ["22", "20-29", "*"],
        ["35", "30-39", "*"],
        ["36", "30-39", "*"],
        ["37", "30-39", "*"],
        ["90", "90-99", "*"],
    ]
)


# age at level 1, sex kept: classes (20-29, F) x2, (30-39, M) x3, (90-99, X) x1
def exposure(*args, **kwargs):
    return vulnerable_exposure(*args, k=2, **kwargs)


GENERALIZED = pd.DataFrame(
    {
        "age": ["20-29", "20-29", "30-39", "30-39", "30-39", "90-99"],
        "sex": ["F", "F", "M", "M", "M", "X"],
        "d": ["flu", "flu", "cold", "cold", "gout", "asthma"],
    }
)


def test_a_generalized_release_singles_out_the_records_of_classes_of_one():
    # each record is covered by the rows of its own class: sizes 2, 2, 3, 3, 3, 1
    counts = covering_rows(ORIGINAL, GENERALIZED, ["age", "sex"], {"age": AGE})
    assert list(counts) == [2, 2, 3, 3, 3, 1]
    # without the hierarchy the ARX range label '90-99' still holds 90
    assert list(covering_rows(ORIGINAL, GENERALIZED, ["age", "sex"])) == [2, 2, 3, 3, 3, 1]
    e = exposure(ORIGINAL, GENERALIZED, ["age", "sex"], hierarchies={"age": AGE})
    assert (e.n_records, e.singled_out) == (1, 1)


def test_a_suppressed_outlier_is_not_singled_out():
    released = GENERALIZED.copy()
    released.loc[5, ["age", "sex"]] = "*"
    assert list(covering_rows(ORIGINAL, released, ["age", "sex"], {"age": AGE})) == [
        2,
        2,
        3,
        3,
        3,
        0,
    ]
    e = exposure(ORIGINAL, released, ["age", "sex"], hierarchies={"age": AGE})
    assert e.singled_out == 0


def test_interval_labels_of_a_local_recoding_cover_the_values_inside():
    released = pd.DataFrame({"age": ["[20, 30)", "[20, 30)", "[30, 91)"], "sex": ["F", "F", "*"]})
    # 21, 22 are in [20, 30) with F (2 rows); 35..37 and 90 fall in [30, 91) with sex '*'
    assert list(covering_rows(ORIGINAL, released, ["age", "sex"])) == [2, 2, 1, 1, 1, 1]


def test_a_release_of_raw_values_singles_out_by_the_exact_predicate():
    released = pd.DataFrame(
        {"age": [35, 36, 36, 90.4, 21], "sex": ["M", "M", "M", "X", "F"], "d": ["x"] * 5}
    )
    # 21 F once; 22 F never; 35 M once; 36 M twice; 37 M never; 90 X never (90.4 is not 90)
    assert list(covering_rows(ORIGINAL, released, ["age", "sex"])) == [1, 0, 1, 2, 0, 0]
    e = exposure(ORIGINAL, released, ["age", "sex"])
    assert e.singled_out == 0  # the outlier (90, X) is matched by no released row


def test_inferred_counts_a_secret_guessed_right_from_the_nearest_row():
    # a copy: the outlier's nearest row is itself, its secret 'asthma' is guessed right
    e = exposure(ORIGINAL, ORIGINAL, ["age", "sex"], secrets=["d"], random_state=0)
    assert (e.inferred, dict(e.inferred_by_secret)) == (1, {"d": 1})
    assert e.to_dict()["inferred"] == 1
    # its released row carries another secret: the nearest row's guess is wrong
    other = ORIGINAL.copy()
    other.loc[5, "d"] = "flu"
    assert exposure(ORIGINAL, other, ["age", "sex"], secrets=["d"]).inferred == 0
    # without secrets the count is not measured (and not in the JSON)
    plain = exposure(ORIGINAL, ORIGINAL, ["age", "sex"])
    assert plain.inferred is None and "inferred" not in plain.to_dict()


def test_a_numeric_secret_is_inferred_within_five_percent():
    original = ORIGINAL.assign(pay=[10.0, 11.0, 12.0, 13.0, 14.0, 100.0])
    near = original.assign(pay=[10.0, 11.0, 12.0, 13.0, 14.0, 104.0])  # 4/104 < 5%
    far = original.assign(pay=[10.0, 11.0, 12.0, 13.0, 14.0, 110.0])  # 10/110 > 5%
    qis = ["age", "sex"]
    assert exposure(original, near, qis, secrets=["pay"]).inferred == 1
    assert exposure(original, far, qis, secrets=["pay"]).inferred == 0


def test_inference_on_a_generalized_release_reads_the_records_class():
    # the outlier is generalized to (90-99, X), the only row of its class: 'asthma' is right
    # whatever the seed; with its class sharing two secrets the guess depends on the draw only
    for seed in range(3):
        e = exposure(
            ORIGINAL,
            GENERALIZED,
            ["age", "sex"],
            secrets=["d"],
            hierarchies={"age": AGE},
            random_state=seed,
        )
        assert e.inferred == 1


def test_unknown_secret_gives_one_config_error():
    from anon_core.errors import ConfigError

    with pytest.raises(ConfigError, match="'nope'"):
        exposure(ORIGINAL, ORIGINAL, ["age", "sex"], secrets=["nope"])


# ------------------------------------------------------------------ the dossier and verify
def _dossier(tmp_path, capsys):
    from anon_core.cli import main

    rng = np.random.default_rng(4)
    n = 240
    data = pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "sex": rng.choice(["F", "M"], n),
            "job": rng.choice(["a", "b", "c", "d"], n),
            "income": rng.choice(["low", "mid", "high"], n),
        }
    )
    data.loc[0, ["age", "job"]] = [99, "z"]  # an outlier
    data.to_csv(tmp_path / "in.csv", index=False)
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
        "acceptance": {"ml_accuracy_ratio": {"min": 0.0}},
    }
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(config))
    out, report = tmp_path / "out.csv", tmp_path / "dossier.html"
    assert main(["release", str(cfg), "-o", str(out), "--report", str(report), "--force"]) == 0
    capsys.readouterr()
    return cfg, out, report


def test_release_report_has_the_exposure_and_verify_reproduces_it(tmp_path, capsys):
    from anon_core import report as R
    from anon_core.cli import main

    cfg, out, report = _dossier(tmp_path, capsys)
    evidence = R.read_report(report)["figures"]["evidence"]
    exposed = evidence["attacks"]["vulnerable_exposure"]
    assert exposed["n_records"] == 2  # 1% of the 120 records of the rehearsal's part
    assert set(exposed) >= {"singled_out", "linked", "inferred", "inferred_by_secret"}
    assert set(exposed["inferred_by_secret"]) == {"income"}
    assert evidence["options"]["exposure"] is True
    assert any("most vulnerable records (1%)" in n and "inferred" in n for n in evidence["notes"])
    code = main(["verify", str(cfg), str(report), "--released", str(out), "--no-signature"])
    assert code == 0, capsys.readouterr()


def test_verify_refuses_a_dossier_whose_exposure_was_tampered_with(tmp_path, capsys):
    """The recorded count is raised and the page re-rendered consistently (hashes re-made): only
    the re-run of the exposure with the recorded seeds can tell."""
    from anon_core import report as R
    from anon_core.cli import main
    from anon_core.report.model import Report

    cfg, out, report = _dossier(tmp_path, capsys)
    embedded = R.read_report(report)
    exposed = embedded["figures"]["evidence"]["attacks"]["vulnerable_exposure"]
    exposed["inferred"] += 5
    embedded["meta"]["figures_sha256"] = R.figures_sha256(embedded["figures"])
    report.write_text(R.render_html(Report.from_embedded(embedded)), encoding="utf-8")
    code = main(["verify", str(cfg), str(report), "--released", str(out), "--no-signature"])
    captured = capsys.readouterr()
    assert code != 0
    assert "vulnerable_exposure" in captured.out + captured.err


# ------------------------------------------------------------------ the shadow attack's estimate
def _release(method: str, seconds: float, part: int, control: int, scope: str = "whole"):
    from types import SimpleNamespace

    rehearsal = SimpleNamespace(n_released_part=part, n_control=control, scope=scope)
    return SimpleNamespace(method=method, synthetic=False, seconds=seconds, rehearsal=rehearsal)


def test_the_shadow_estimate_scales_the_release_time_by_fits_and_rows():
    from anon_core.services.shadow_evidence import shadow_time_estimate

    # whole table of 150 records released in 3 s; 16 fits on min(100, 50 // 2) = 25 records
    # each: 16 x 3 x 25 / 150 = 8 s
    seconds, text = shadow_time_estimate(_release("noise", 3.0, 100, 50))
    assert seconds == pytest.approx(8.0)
    assert text.startswith("about 8 s: 16 fits of the method on 25 records each")
    # scope 'part': the release fitted the 100 records of the part: 16 x 3 x 25 / 100 = 12 s
    assert shadow_time_estimate(_release("noise", 3.0, 100, 50, "part"))[0] == pytest.approx(12)
    # not defined for generalization
    assert shadow_time_estimate(_release("generalization", 3.0, 100, 50)) is None


@pytest.mark.slow
def test_evaluate_page_states_the_shadow_estimate_before_it_starts():
    import re
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = Path(__file__).resolve().parents[1] / "app.py"
    at = AppTest.from_file(str(app), default_timeout=600)
    at.run()
    at.switch_page("pages/protect.py").run()
    ws = at.session_state["workspace"]
    spec = {"name": "microaggregation", "k": 5, "columns": ["length_of_stay"]}
    ws.update("release method: microaggregation", sections={**ws.sections, "method": spec})
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception, at.exception
    assert not any("Shadow attack" in c.value for c in at.caption)  # only when asked
    at.checkbox(key="evaluate_shadow").check().run()
    assert not at.exception, at.exception
    shown = [c.value for c in at.caption if c.value.startswith("⏱️ Shadow attack")]
    assert len(shown) == 1, [c.value for c in at.caption]
    release = at.session_state["_derived"][("release-value", ws.config_key())]
    r = release.rehearsal
    rows = min(r.n_released_part, r.n_control // 2)
    assert f"16 fits of the method on {rows:,} records each" in shown[0]
    assert f"on {r.n_released_part + r.n_control:,} records" in shown[0]
    assert re.search(r"about \d", shown[0])
    # nothing was measured: the evidence waits for the button
    assert ("evidence+shadow", ws.config_key()) not in at.session_state["_derived"]
