"""The Attacks page's linkage mode, probabilistic linkage figures and vulnerable-record profile
(anon_core.services.attack_lab and pages/attacks.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from anon_core.attacks.noisy_aux import noisy_aux
from anon_core.attacks.split import parse_attack_section, split_frame
from anon_core.services.attack_lab import (
    LINKAGE_MODE_LINES,
    noisy_external,
    vulnerable_profile,
)
from anon_core.workspace import Workspace

APP = Path(__file__).resolve().parents[1] / "app.py"

# ------------------------------------------------------------------ vulnerable records' profile
AGES = [30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 30, 95]  # one clear outlier: 95
AGE_TABLE = [[str(a), "[30, 40)" if a < 40 else "[90, 100)", "*"] for a in sorted(set(AGES))]


def _outlier_workspace(models: list, limit: float) -> Workspace:
    frame = pd.DataFrame({"age": AGES, "sex": ["F"] * len(AGES), "y": list("abcabcabcabc")})
    ws = Workspace.from_frame(frame, "ages.csv")
    ws.update(
        "setup",
        roles={"age": "quasi-identifier", "sex": "quasi-identifier", "y": "sensitive"},
        hierarchy_specs={"age": {"table": AGE_TABLE}},
        models=models,
        suppression_limit=limit,
        transformation={"age": 1, "sex": 0},
    )
    return ws


SECTION = parse_attack_section({"control_fraction": 0.1, "random_state": 0})


def test_the_seeded_split_releases_the_outlier():
    # the premise of the two tests below: round(0.1 * 12) = 1 control record, not the outlier
    part, control = split_frame(pd.DataFrame({"age": AGES}), 0.1, 0)
    assert len(part) == 11 and 95 in part["age"].tolist() and len(control) == 1


def test_profile_ranks_the_outlier_first_and_shows_only_released_labels():
    ws = _outlier_workspace([], 0.0)
    profile = vulnerable_profile(ws, {"age": 1, "sex": 0}, SECTION, top=3)
    first = profile.rows[0]
    # sex is F for everyone, so only age makes the 95-year-old rare
    assert first["rare in"] == "age"
    # the release shows its decade, never its age; it is alone in [90, 100)
    assert first["the release shows"] == "age = [90, 100)"
    assert "95" not in json.dumps(profile.rows)
    assert first["released class size"] == 1 and first["re-identification risk"] == 1.0
    # ceil(1% of 11) = 1 record: the outlier, alone in its released class
    assert (profile.top_share_records, profile.top_share_alone) == (1, 1)
    # the others share [30, 40) with F: 10 released records in that class
    assert {r["released class size"] for r in profile.rows[1:]} == {10}


def test_profile_says_suppressed_when_the_release_suppresses_the_outlier():
    # 2-anonymity with a 20% limit: the outlier's class of one is suppressed (1 of 11 records)
    ws = _outlier_workspace([{"model": "k-anonymity", "k": 2}], 0.2)
    profile = vulnerable_profile(ws, {"age": 1, "sex": 0}, SECTION, top=2)
    first = profile.rows[0]
    assert first["the release shows"] == "suppressed" and first["released class size"] == 0
    assert first["re-identification risk"] == 0.0
    assert (profile.top_share_alone, profile.top_share_suppressed) == (0, 1)


# ------------------------------------------------------------------ the noisy external table
def test_zip_codes_with_leading_zeros_stay_digit_strings_in_noisy_copies():
    frame = pd.DataFrame({"zip": ["02139", "02141", "01002"] * 20})
    noisy = noisy_aux(frame, ["zip"], 0, typo_rate=1.0, missing_rate=0.0, recode_rate=0.0)
    # a typo in a ZIP code: one digit changed, swapped or dropped, never a number like 2139
    for before, after in zip(frame["zip"], noisy["zip"], strict=True):
        assert isinstance(after, str) and after.isdigit() and after != before
        assert len(before) - 1 <= len(after) <= len(before)


def _people(n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "pid": [f"p{i:04d}" for i in range(n)],
            "age": rng.integers(20, 80, n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice([f"021{i:02d}" for i in range(10)], n),
            "diagnosis": rng.choice(["a", "b", "c"], n),
        }
    )


def _people_workspace() -> Workspace:
    ws = Workspace.from_frame(_people(), "people.csv")
    ws.update(
        "setup",
        roles={
            "pid": "identifier",
            "age": "quasi-identifier",
            "sex": "quasi-identifier",
            "zip": "quasi-identifier",
            "diagnosis": "sensitive",
        },
        models=[],
        suppression_limit=0.0,
        transformation={"age": 0, "sex": 0, "zip": 0},
    )
    return ws


def test_noisy_external_mixes_released_and_control_people_with_the_unique_identifier():
    ws = _people_workspace()
    section = parse_attack_section({"random_state": 0})
    demo = noisy_external(ws, section)
    part, control = split_frame(ws.frame, section.control_fraction, 0)
    # 300 records: 200 released, 100 control; at most 600 asked, two thirds released
    assert (demo.released_people, demo.other_people) == (len(part), len(control))
    assert demo.id_column == "pid" and list(demo.frame.columns) == ["pid", "age", "sex", "zip"]
    released = set(part["pid"])
    assert sum(p in released for p in demo.frame["pid"]) == len(part)
    # a table whose identifiers repeat gives no truth (and keeps no identifier column)
    dup = Workspace.from_frame(_people().assign(pid="same"), "dup.csv")
    dup.update("roles", roles=dict(ws.roles))
    assert noisy_external(dup, section).id_column is None


# ------------------------------------------------------------------ the page
def _exact_oracle(ws: Workspace, external: pd.DataFrame, fraction: float, seed: int) -> float:
    """Exact linkage's expected re-identifications by hand: each external record whose three
    values equal those of its own released record counts 1 / (released records with them)."""
    part, _ = split_frame(ws.frame, fraction, seed)
    keys = ["age", "sex", "zip"]
    released = part[["pid", *keys]].astype(str)
    sizes = released.groupby(keys).size().rename("size").reset_index()
    ext = external.dropna(subset=keys).astype({k: str for k in keys}).astype({"age": "Int64"})
    ext["age"] = ext["age"].astype(str)
    truth = ext.merge(released, on=["pid", *keys])  # still equal to the person's own record
    return float((1.0 / truth.merge(sizes, on=keys)["size"]).sum())


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_attacks_page_runs_both_linkage_modes_on_a_noisy_external_table():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.run()
    ws = _people_workspace()
    at.session_state["workspace"] = ws
    at.switch_page("pages/attacks.py").run()
    assert not at.exception, at.exception
    assert any(b.label.startswith("⏹️ Cancel") for b in at.button)  # long work can be stopped
    at.number_input(key="attack_n").set_value(40).run()
    at.radio(key="attack_external_source").set_value("noisy copy (demo)").run()
    assert any("'pid' tells the truth" in c.value for c in at.caption)

    # exact: the mode's line and an expected count checked against a hand count
    at.radio(key="attack_linkage_mode").set_value("exact").run()
    at.button(key="attack_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    lines = [m.value for m in at.markdown if m.value.startswith("**Mode.**")]
    assert lines == [f"**Mode.** {LINKAGE_MODE_LINES['exact']}"]
    # the page's control share slider shows 1/3 as 0.33: the split and the demo table use 0.33
    shown = parse_attack_section({"control_fraction": 0.33, "random_state": 0})
    external = noisy_external(ws, shown).frame
    expected = _exact_oracle(ws, external, 0.33, 0)
    assert _metric(at, "expected re-identified") == f"{expected:,.1f}"

    # probabilistic: another run (another fingerprint), its line and figures
    at.radio(key="attack_linkage_mode").set_value("probabilistic").run()
    assert not [m for m in at.markdown if m.value.startswith("**Mode.**")]  # not run yet
    at.button(key="attack_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    lines = [m.value for m in at.markdown if m.value.startswith("**Mode.**")]
    assert lines == [f"**Mode.** {LINKAGE_MODE_LINES['probabilistic']}"]
    table = next(d.value for d in at.dataframe if "matches claimed" in d.value.columns)
    assert table["threshold"].tolist() == [0.5, 0.9, 0.99]
    claimed = table["matches claimed"].tolist()
    assert claimed == sorted(claimed, reverse=True)  # a higher bar claims fewer
    # an unprotected release and light noise: most claims at 0.5 name the right person, and
    # most released people in the external table are named
    precision = float(table["precision"][0].rstrip("%")) / 100
    recall = float(table["recall"][0].rstrip("%")) / 100
    assert precision >= 0.8 and recall >= 0.6
    charts = {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    best = next(s for cid, s in charts.items() if "attack_best_match_chart" in cid)
    assert best["layout"]["xaxis"]["title"]["text"].endswith("(0–1)")
    assert best["layout"]["yaxis"]["title"]["text"] == "external records"
    curve = next(s for cid, s in charts.items() if "attack_threshold_chart" in cid)
    assert "threshold" in curve["layout"]["xaxis"]["title"]["text"]
    assert curve["layout"]["yaxis2"]["title"]["text"] == "precision / recall (share, 0–1)"
    assert {t["name"] for t in curve["data"]} == {"matches claimed", "precision", "recall"}
    # the vulnerable records' profile is on the page too
    profile = next(d.value for d in at.dataframe if "rare in" in d.value.columns)
    assert len(profile) == 10 and "pid" not in " ".join(profile["the release shows"])


def test_attacks_page_warns_when_the_control_size_fit_fails(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from anon_core.attacks import size_correction

    def no_fit(*args, **kwargs):
        raise RuntimeError("Optimal parameters not found")

    # the control part (99 records) is smaller than the released one (201): a fit is needed
    monkeypatch.setattr(size_correction, "curve_fit", no_fit)
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.run()
    at.session_state["workspace"] = _people_workspace()
    at.switch_page("pages/attacks.py").run()
    at.number_input(key="attack_n").set_value(40).run()
    at.button(key="attack_run").click().run()
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning if "control-size correction was not used" in w.value]
    assert warnings and all("did not converge" in w for w in warnings)
