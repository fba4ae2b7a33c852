"""One source of truth: the workspace is the release configuration (round trips, undo/redo,
fingerprints), the one resolve path, explicit privacy parameters and session isolation."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pandas as pd
import pytest

from anon_core.cli import main
from anon_core.config import load_config, parse_config, parse_config_text
from anon_core.data.io import load_table
from anon_core.errors import ConfigError
from anon_core.privacy.models import make_model
from anon_core.services.resolve import resolve
from anon_core.workspace import Workspace

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "hospital_discharge.csv"
ADULT = ROOT.parent / "shared" / "data" / "adult"
needs_adult = pytest.mark.skipif(
    not (ADULT / "adult.csv").is_file(), reason="../shared/data/adult is not beside the checkout"
)


def _frame(n: int = 60) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "age": [20 + (i * 7) % 50 for i in range(n)],
            "sex": ["F" if i % 3 else "M" for i in range(n)],
            "zip": [f"021{i % 9}{i % 4}" for i in range(n)],
            "disease": [["flu", "cold", "asthma"][i % 3] for i in range(n)],
        }
    )


# ----------------------------------------------------------------------------- round trips
@needs_adult
def test_a_configuration_with_arx_hierarchy_files_round_trips_exactly():
    """Regression: loading a configuration replaced Adult's ARX age hierarchy (5 levels) with the
    default (6) and dropped the search and output sections."""
    frame = load_table(ADULT / "adult.csv", separator=";").frame
    config = {
        "input": {"path": "adult.csv", "separator": ";"},
        "attributes": {
            "age": {"role": "quasi-identifier", "hierarchy": {"file": "adult_hierarchy_age.csv"}},
            "sex": {"role": "quasi-identifier", "hierarchy": {"file": "adult_hierarchy_sex.csv"}},
            "race": {"role": "quasi-identifier", "hierarchy": {"file": "adult_hierarchy_race.csv"}},
            "occupation": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.02,
        "quality_metric": {"name": "loss"},
        "search": {"exact_limit": 100000},
        "output": {"suppressed_records": "mask"},
    }
    ws = Workspace.from_config(config, frame, "adult.csv", base_dir=ADULT)
    assert ws.hierarchy("age").height == 5  # ARX's file: 5 levels (the default would have 6)
    saved = ws.to_config()
    assert saved["attributes"]["age"]["hierarchy"] == {"file": "adult_hierarchy_age.csv"}
    assert saved["search"] == {"exact_limit": 100000}
    assert saved["output"] == {"suppressed_records": "mask"}
    # every key of the loaded file is in the saved one, unchanged
    for key, value in config.items():
        if key != "attributes":
            assert saved[key] == value
    # edit and undo: back to exactly the loaded configuration
    ws.update("k", models=[{"model": "k-anonymity", "k": 10}])
    ws.undo()
    assert ws.to_config() == saved


def test_a_missing_hierarchy_file_is_an_error_not_a_default(tmp_path):
    config = {
        "attributes": {
            "age": {"role": "quasi-identifier", "hierarchy": {"file": "nowhere.csv"}},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
    }
    with pytest.raises(ConfigError, match="nowhere.csv"):
        Workspace.from_config(config, _frame(), base_dir=tmp_path)


def test_unknown_sections_are_refused_never_dropped():
    config = {
        "attributes": {"age": {"role": "quasi-identifier"}},
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "future_section": {"x": 1},
    }
    with pytest.raises(ConfigError, match="future_section"):
        Workspace.from_config(config, _frame())


def test_module_sections_survive_a_round_trip_through_the_cli(tmp_path):
    ws = Workspace.from_frame(_frame())
    ws.update("roles", roles={"age": "quasi-identifier", "disease": "sensitive"})
    ws.update("dp", sections={"dp": {"epsilon": 1.0, "queries": []}})
    config = ws.to_config(input_path="data.csv")
    assert config["dp"] == {"epsilon": 1.0, "queries": []}
    path = tmp_path / "release.json"
    path.write_text(json.dumps(config))
    again = Workspace.from_config(load_config(path).raw, _frame())
    assert again.to_config(input_path="data.csv") == config


# ----------------------------------------------------------------------------- history
def test_undo_and_redo_restore_the_configuration_and_its_fingerprints():
    ws = Workspace.from_frame(_frame())
    ws.update("roles", roles={"sex": "insensitive"})
    key_before = ws.search_key()
    ws.update("limit", suppression_limit=0.10)
    key_after = ws.search_key()
    assert key_before != key_after
    assert ws.undo() and ws.suppression_limit == pytest.approx(0.02)
    assert ws.search_key() == key_before  # derived caches follow the configuration
    assert ws.redo() and ws.search_key() == key_after
    ws.undo()
    ws.update("k", models=[{"model": "k-anonymity", "k": 3}])  # a new change clears redo
    assert not ws.redo()
    assert [a["change"] for a in ws.audit] == ["roles", "limit", "undo", "redo", "undo", "k"]


def test_how_the_transformation_was_chosen_is_recorded():
    ws = Workspace.from_frame(_frame())
    ws.update("roles", roles={"age": "quasi-identifier"})
    ws.update("levels", transformation={"age": 1})
    assert ws.chosen_by == "manual"
    ws.update("optimum", transformation={"age": 2}, chosen_by="search")
    assert ws.chosen_by == "search"
    ws.undo()
    assert ws.chosen_by == "manual"


# ----------------------------------------------------------------------------- explicit parameters
@pytest.mark.parametrize(
    "spec",
    [
        {"model": "k-anonymity"},
        {"model": "distinct-l-diversity", "attribute": "disease"},
        {"model": "equal-distance-t-closeness", "attribute": "disease"},
        {"model": "average-reidentification-risk"},
    ],
)
def test_strength_parameters_have_no_silent_default(spec):
    """Regression: a missing k became 2."""
    with pytest.raises(ConfigError, match="required"):
        make_model(spec)


@pytest.mark.parametrize(
    "text,yaml_format",
    [
        ('{"privacy_models": [{"model": "k-anonymity", "k": 3, "k": 1}]}', False),
        ("privacy_models:\n  - model: k-anonymity\n    k: 3\n    k: 1\n", True),
    ],
)
def test_duplicate_keys_are_an_error_naming_the_key(text, yaml_format):
    """Regression: {"k": 3, "k": 1} was accepted and k=1 used."""
    with pytest.raises(ConfigError, match="'k' is given twice"):
        parse_config_text(text, yaml_format=yaml_format)


def test_cli_refuses_duplicate_keys_with_one_line(tmp_path, capsys):
    (tmp_path / "data.csv").write_text(_frame().to_csv(index=False))
    path = tmp_path / "release.json"
    path.write_text(
        '{"input": {"path": "data.csv"}, "attributes": {"age": {"role": "quasi-identifier"}},'
        ' "privacy_models": [{"model": "k-anonymity", "k": 3, "k": 1}]}'
    )
    assert main(["anonymize", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "given twice" in err


# ----------------------------------------------------------------------------- resolve path
def test_resolve_uses_the_configured_transformation_else_the_search():
    base = {
        "attributes": {"age": {"role": "quasi-identifier"}, "sex": {"role": "quasi-identifier"}},
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.0,
    }
    searched = resolve(parse_config(base), _frame())
    assert searched.chosen_by == "search" and searched.search is not None
    assert searched.result.satisfied
    # hand check: every released class has at least 5 records
    released = searched.problem.apply(searched.result)
    assert released.groupby(["age", "sex"]).size().min() >= 5
    fixed = resolve(parse_config({**base, "transformation": {"age": 0, "sex": 0}}), _frame())
    assert fixed.chosen_by == "configured" and fixed.search is None
    assert fixed.result.transformation == {"age": 0, "sex": 0}
    assert fixed.summary()["satisfied"] is False  # 60 records in 50+ (age, sex) cells


# ----------------------------------------------------------------------------- free text
def test_free_text_is_dropped_from_the_default_release():
    """The sample's notes hold names and phone numbers: never released verbatim by default."""
    frame = load_table(SAMPLE).frame
    ws = Workspace.from_frame(frame, SAMPLE.name)
    assert ws.roles["notes"] == "identifier"
    problem = ws.problem()
    result = problem.search().optimum
    released = ws.release(problem.dataset, result)
    assert "notes" not in released.columns
    names = frame["patient_name"].astype(str).str.split().str[-1]
    text = released.astype(str).to_csv(index=False)
    assert not any(name in text for name in names.head(50) if len(name) > 3)


# ----------------------------------------------------------------------------- isolation
def test_two_concurrent_sessions_on_different_data_stay_apart():
    """Two browser sessions (threads) on different tables, alive at the same time: each sees only
    its own workspace and derived tables, and the figures equal those of a session running alone.

    The two sessions' script runs take turns: Streamlit's AppTest keeps process-wide state (a
    mock runtime, widget bookkeeping) that overlapping runs corrupt ("Runtime hasn't been
    created!", KeyError '$$ID-…'), a limit of the test harness, not of the served app, where
    each session has its own script thread. The sessions' state still lives side by side."""
    from streamlit.testing.v1 import AppTest

    turn = threading.Lock()

    def run(step):
        with turn:
            step.run()

    def session(sample: str, out: dict) -> None:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        run(at)
        run(at.switch_page("pages/data.py"))
        pick = at.selectbox(key="sample")
        run(pick.set_value(next(o for o in pick.options if sample in o)))
        run(next(b for b in at.button if b.label == "Load this sample").click())
        run(at.switch_page("pages/privacy.py"))
        run(at.button[[b.label for b in at.button].index("🔎 Find the optimum")].click())
        ws = at.session_state["workspace"]
        out["source"] = ws.source
        out["optimum"] = ws.transformation
        out["keys"] = {k[1] for k in at.session_state["_derived"]}
        out["objects"] = list(at.session_state["_derived"].values())  # kept alive: ids stay unique
        out["data_key"] = ws.data_key()
        out["exception"] = list(at.exception)

    results: dict[str, dict] = {"Hospital": {}, "Census": {}}
    threads = [threading.Thread(target=session, args=(s, results[s])) for s in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    hospital, census = results["Hospital"], results["Census"]
    assert not hospital["exception"] and not census["exception"]
    assert hospital["source"] == "hospital_discharge.csv"
    assert census["source"] == "census_income.csv"
    # both sessions opened the hospital sample first (the default), yet share no derived object:
    # each built its own frequency table and search (no cache shared across sessions)
    assert not {id(v) for v in hospital["objects"]} & {id(v) for v in census["objects"]}
    assert census["data_key"] not in hospital["keys"]
    # the same optimum as one session alone (computed here without the dashboard)
    for result, name in ((hospital, "hospital_discharge.csv"), (census, "census_income.csv")):
        ws = Workspace.from_frame(load_table(ROOT / "sample_data" / name).frame, name)
        assert result["optimum"] == ws.problem().search().optimum.transformation


# ----------------------------------------------------------------------------- one apply path
def test_the_pandas_engine_groups_and_releases_like_duckdb(tmp_path):
    """get_engine("pandas") exists and every engine releases through the same plan: the same
    grouped counts, optimum and released bytes as DuckDB and as the in-memory apply."""
    import hashlib

    import numpy as np

    from anon_core.release.engines import TableSource, get_engine
    from anon_core.transform.problem import Problem

    rng = np.random.default_rng(0)
    n = 3000
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["02139", "02138", "02141", "02142"], n),
            "disease": rng.choice(["flu", "cold", "asthma"], n),
            "name": [f"person {i}" for i in range(n)],
        }
    )
    frame.loc[5, "zip"] = None
    frame.to_csv(tmp_path / "t.csv", index=False)
    source = TableSource.open(tmp_path / "t.csv")
    cols = ["age", "sex", "zip", "disease"]
    by_pandas = get_engine("pandas").group(source, cols)
    by_duckdb = get_engine("duckdb").group(source, cols)
    assert list(by_pandas.counts) == list(by_duckdb.counts)
    assert by_pandas.n_rows == n
    config = parse_config(
        {
            "input": {"path": str(tmp_path / "t.csv")},
            "attributes": {
                "age": {"role": "quasi-identifier"},
                "sex": {"role": "quasi-identifier"},
                "zip": {"role": "quasi-identifier"},
                "disease": {"role": "sensitive"},
                "name": {"role": "identifier"},
            },
            "privacy_models": [{"model": "k-anonymity", "k": 5}],
            "suppression_limit": 0.05,
        }
    )
    digests = {}
    for engine in ("pandas", "duckdb"):
        problem = Problem.from_source(config, engine)
        result = problem.search().optimum
        written = problem.write_release(result, tmp_path / f"{engine}.csv")
        digests[engine] = (result.transformation, written.sha256)
    memory = Problem.from_config(config)
    released = memory.apply(memory.search().optimum)
    released.to_csv(tmp_path / "memory.csv", index=False, lineterminator="\n")
    assert digests["pandas"] == digests["duckdb"]
    assert (
        hashlib.sha256((tmp_path / "memory.csv").read_bytes()).hexdigest() == digests["pandas"][1]
    )
    # the privacy property on the released rows
    out = pd.read_csv(tmp_path / "pandas.csv", dtype=str, keep_default_na=False)
    assert "name" not in out.columns
    assert out.groupby(["age", "sex", "zip"]).size().min() >= 5


def test_weights_are_never_released_and_delta_presence_releases_its_subset():
    """A survey-weight column stays out of the release; with delta-presence the input is the
    population table and only the research subset is released (hand-made table)."""
    frame = _frame(60).assign(
        w=[float(10 + i) for i in range(60)], in_study=[i % 2 == 0 for i in range(60)]
    )
    base = {
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "disease": {"role": "sensitive"},
            "w": {"role": "weight"},
            "in_study": {"role": "insensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "suppression_limit": 0.1,
    }
    plain = resolve(parse_config(base), frame)
    released = plain.problem.apply(plain.result)
    assert "w" not in released.columns and len(released) >= 54
    presence = {
        **base,
        "privacy_models": [
            {
                "model": "delta-presence",
                "delta_min": 0.0,
                "delta_max": 1.0,
                "research_subset": {"column": "in_study"},
            }
        ],
    }
    subset = resolve(parse_config(presence), frame)
    released = subset.problem.apply(subset.result)
    assert len(released) == int(frame["in_study"].sum())  # 30 of the 60 population records
    assert released["in_study"].astype(str).eq("True").all()
