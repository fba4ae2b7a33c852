"""Probabilistic (Fellegi-Sunter) linkage, its comparators and the noisy auxiliary generator.

Expected values come from hand-worked examples (Jaro-Winkler pairs from Winkler's papers, labels
read by eye) or from facts independent of the code (two records with equal released values cannot
be told apart; a record with a typo has no exact match).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anon_core.attacks.battery import run_battery
from anon_core.attacks.comparators import contains, jaro_winkler, level_table
from anon_core.attacks.linkage import linkage
from anon_core.attacks.noisy_aux import noisy_aux
from anon_core.attacks.probabilistic_linkage import probabilistic_linkage
from anon_core.attacks.split import parse_attack_section
from anon_core.errors import ConfigError

CITIES = [
    "Springfield",
    "Riverside",
    "Franklin",
    "Greenville",
    "Bristol",
    "Clinton",
    "Fairview",
    "Salem",
    "Madison",
    "Georgetown",
    "Arlington",
    "Ashland",
    "Burlington",
    "Manchester",
    "Oxford",
    "Milton",
    "Newport",
    "Dover",
    "Hudson",
    "Kingston",
]
NAMES = [
    "Anna",
    "Boris",
    "Carla",
    "Dmitri",
    "Elena",
    "Felix",
    "Greta",
    "Hugo",
    "Irene",
    "Jonas",
    "Klara",
    "Lukas",
    "Marta",
    "Nils",
    "Olga",
    "Pavel",
    "Quinn",
    "Rosa",
    "Sven",
    "Tanja",
]


def _people(n: int, seed: int) -> pd.DataFrame:
    """n people with distinct (name, city, age, zip, sex) tuples."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "id": np.arange(n),
            "name": rng.choice(NAMES, n),
            "city": rng.choice(CITIES, n),
            "age": rng.integers(18, 90, n),
            "zip": [f"{z:05d}" for z in rng.integers(10000, 99999, n)],
            "sex": rng.choice(["Male", "Female"], n),
        }
    )
    return frame.drop_duplicates(subset=["name", "city", "age", "zip", "sex"]).reset_index(
        drop=True
    )


# ------------------------------------------------------------------ comparators
@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [("MARTHA", "MARHTA", 0.961), ("DWAYNE", "DUANE", 0.840), ("DIXON", "DICKSONX", 0.813)],
)
def test_jaro_winkler_hand_worked_pairs(a, b, expected):
    assert jaro_winkler(a, b) == pytest.approx(expected, abs=5e-4)
    assert jaro_winkler(b, a) == pytest.approx(expected, abs=5e-4)


def test_jaro_winkler_extremes():
    assert jaro_winkler("ABC", "ABC") == 1.0
    assert jaro_winkler("ABC", "XYZ") == 0.0
    assert jaro_winkler("", "ABC") == 0.0


@pytest.mark.parametrize(
    ("label", "value", "expected"),
    [
        ("[20, 30)", "25", True),
        ("[20, 30)", "30", False),
        ("[20-29]", "29", True),
        ("20-29", "30", False),
        (">=90", "91", True),
        ("<20", "20", False),
        ("021**", "02139", True),
        ("021**", "02239", False),
        ("*", "anything", True),
        ("2020-Q1", "2020-03-31", True),
        ("2020-Q1", "2020-04-01", False),
        ("2020-03", "2020-03-15", True),
        ("2010s", "2019-12-31", True),
    ],
)
def test_generalized_label_contains_the_value(label, value, expected):
    assert contains(label, value) is expected


def test_level_tables_by_hand():
    text = level_table("text", np.array(["Male", "M", "Mael", "Female", ""]), np.array(["Male"]))
    assert text[:, 0].tolist() == [3, 1, 2, 0, -1]  # exact, abbreviation, typo, other, missing
    num = level_table("number", np.array(["40", "41", "42", "45"]), np.array(["40"]))
    assert num[:, 0].tolist() == [3, 2, 1, 0]
    date = level_table(
        "date",
        np.array(["2020-03-04", "2020-04-03", "2020-03-20", "2021-03-04"]),
        np.array(["2020-03-04"]),
    )
    assert date[:, 0].tolist() == [3, 2, 1, 0]  # equal, day/month swapped, within 31 days, else
    gen = level_table("generalized", np.array(["25", "31", "45"]), np.array(["[20, 30)", "*"]))
    assert gen.tolist() == [[2, -1], [1, -1], [0, -1]]  # contains, within 2, far; '*' says nothing


# ------------------------------------------------------------------ noisy auxiliary data
def test_noisy_aux_is_seeded_and_zero_rates_copy():
    people = _people(300, 1)
    cols = ["name", "city", "age", "sex"]
    a = noisy_aux(people, cols, 7, keep=["id"])
    b = noisy_aux(people, cols, 7, keep=["id"])
    c = noisy_aux(people, cols, 8, keep=["id"])
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    clean = noisy_aux(
        people, cols, 7, typo_rate=0, number_rate=0, date_rate=0, missing_rate=0, recode_rate=0
    )
    assert clean["name"].tolist() == people["name"].tolist()
    assert clean["age"].tolist() == people["age"].tolist()


def test_noisy_aux_errors_are_the_promised_kinds():
    people = _people(300, 2)
    noisy = noisy_aux(
        people,
        ["city", "age"],
        3,
        typo_rate=1.0,
        number_rate=1.0,
        missing_rate=0.0,
        recode_rate=0.0,
    )
    for before, after in zip(people["city"], noisy["city"], strict=True):
        assert after != before
        assert abs(len(after) - len(before)) <= 1  # one substitution, transposition or deletion
    shifts = np.abs(noisy["age"].to_numpy(dtype=float) - people["age"].to_numpy(dtype=float))
    assert set(shifts.tolist()) <= {1.0, 2.0}
    dates = pd.DataFrame({"d": ["2020-03-04", "2020-03-25"]})
    swapped = noisy_aux(dates, ["d"], 0, date_rate=1.0, missing_rate=0.0, recode_rate=0.0)
    assert swapped["d"].tolist() == ["2020-04-03", "2020-03-25"]  # day 25 cannot be a month
    coded = noisy_aux(
        people,
        ["sex"],
        0,
        recode_rate=1.0,
        missing_rate=0.0,
        typo_rate=0.0,
        recodings={"sex": {"Male": "M", "Female": "F"}},
    )
    assert set(coded["sex"]) == {"M", "F"}


# ------------------------------------------------------------------ linkage
def test_a_typo_still_links_where_exact_linkage_does_not():
    people = _people(400, 3)
    cols = ["name", "city", "age", "zip", "sex"]
    external = people.iloc[:100][["id", *cols]].copy()
    row = external.index[0]
    external.loc[row, "city"] = external.loc[row, "city"][:-2] + external.loc[row, "city"][-1]
    exact = linkage(
        external.iloc[[0]],
        people[cols],
        qis=cols,
        id_column="id",
        released_ids=people["id"].to_numpy(),
    )
    assert exact.matched_records == 0  # the misspelt city matches no released record
    fs = probabilistic_linkage(
        external, people[cols], columns=cols, id_column="id", released_ids=people["id"].to_numpy()
    )
    assert fs.best_match_probability[0] > 0.9
    assert fs.to_dict()["precision_at_0.9"] == 1.0


def test_two_people_with_equal_released_values_get_at_most_one_half():
    released = pd.DataFrame(
        {
            "age": ["[20, 30)", "[20, 30)", "[30, 40)", "[40, 50)", "[50, 60)", "[30, 40)"],
            "zip": ["021**", "021**", "021**", "022**", "023**", "024**"],
            "sex": ["Female", "Female", "Male", "Female", "Male", "Male"],
        }
    )
    external = pd.DataFrame(
        {
            "id": [0, 1, 2, 3],
            "age": [23, 27, 35, 44],
            "zip": ["02139", "02144", "02130", "02210"],
            "sex": ["Female", "Female", "Male", "Female"],
        }
    )
    fs = probabilistic_linkage(
        external, released, id_column="id", released_ids=np.arange(6), block_on=None
    )
    assert fs.kinds["age"] == "generalized" and fs.kinds["zip"] == "generalized"
    assert fs.best_match_probability[0] <= 0.5
    assert fs.best_match_probability[1] <= 0.5
    assert fs.best_match_probability[2] > fs.best_match_probability[0]


def test_unprotected_release_with_noisy_external_table_links_nearly_everyone():
    people = _people(1500, 4)
    cols = ["name", "city", "age", "zip", "sex"]
    sample = people.sample(400, random_state=0)
    external = noisy_aux(sample, cols, 11, keep=["id"])  # default, moderate noise
    fs = probabilistic_linkage(
        external, people[cols], columns=cols, id_column="id", released_ids=people["id"].to_numpy()
    )
    figures = fs.to_dict()
    assert figures["recall_at_0.9"] >= 0.9
    assert figures["precision_at_0.9"] >= 0.9
    json.dumps(figures, allow_nan=False)  # what the CLI prints
    assert fs.truth_known and fs.true_released == 400
    again = probabilistic_linkage(
        external, people[cols], columns=cols, id_column="id", released_ids=people["id"].to_numpy()
    )
    assert again == fs  # deterministic
    blind = probabilistic_linkage(external.drop(columns="id"), people[cols], columns=cols)
    assert not blind.truth_known
    assert blind.expected_reidentified == pytest.approx(sum(blind.best_match_probability))


def test_bad_inputs_give_one_clear_config_error():
    with pytest.raises(ConfigError, match="linkage_mode.*exact, probabilistic"):
        parse_attack_section({"linkage_mode": "fuzzy"})
    assert parse_attack_section({"linkage_mode": "probabilistic"}).linkage_mode == "probabilistic"
    assert parse_attack_section({}).linkage_mode == "exact"
    with pytest.raises(ConfigError, match="shares no column"):
        probabilistic_linkage(pd.DataFrame({"x": [1]}), pd.DataFrame({"age": [1]}))
    with pytest.raises(ConfigError, match="Unknown comparator"):
        probabilistic_linkage(
            pd.DataFrame({"age": [1]}), pd.DataFrame({"age": [1]}), comparators={"age": "soundex"}
        )
    with pytest.raises(ConfigError, match="block_on"):
        probabilistic_linkage(
            pd.DataFrame({"age": [1]}), pd.DataFrame({"age": [1]}), block_on="zip"
        )


def test_battery_runs_probabilistic_linkage_when_asked():
    people = _people(300, 5)
    cols = ["name", "city", "age", "zip", "sex"]
    roles = {"id": "identifier", **{c: "quasi-identifier" for c in cols}}
    external = noisy_aux(people.iloc[:50], cols, 0, keep=["id"])
    kwargs = dict(
        released=people.iloc[:200],
        original=people.iloc[:200],
        control=people.iloc[200:],
        roles=roles,
        external=external,
    )
    section = parse_attack_section({"n_attacks": 30, "linkage_mode": "probabilistic"})
    report = run_battery(config_section=section, **kwargs)
    assert report.to_dict()["linkage"]["mode"] == "probabilistic"
    exact = run_battery(config_section=parse_attack_section({"n_attacks": 30}), **kwargs)
    assert "mode" not in exact.to_dict()["linkage"]  # the exact mode's output is unchanged


def test_cli_rejects_an_unknown_linkage_mode_in_one_line(tmp_path, capsys):
    from anon_core.cli import main

    people = _people(60, 6)
    people.to_csv(tmp_path / "people.csv", index=False)
    config = {
        "input": {"path": "people.csv"},
        "attributes": {
            "id": {"role": "identifier"},
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 1}],
    }
    path = tmp_path / "release.json"
    path.write_text(json.dumps(config))
    code = main(["attack", str(path), "--linkage-mode", "fuzzy"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error:") and "linkage_mode" in err


def test_cli_attack_with_probabilistic_linkage_prints_its_figures(tmp_path, capsys):
    from anon_core.cli import main

    people = _people(240, 7)
    people.to_csv(tmp_path / "people.csv", index=False)
    noisy_aux(people.iloc[:60], ["city", "age", "sex"], 1, keep=["id"]).to_csv(
        tmp_path / "external.csv", index=False
    )
    config = {
        "input": {"path": "people.csv"},
        "attributes": {
            "id": {"role": "identifier"},
            "city": {"role": "quasi-identifier"},
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 1}],
        "attack": {"n_attacks": 30, "external": "external.csv"},
    }
    path = tmp_path / "release.json"
    path.write_text(json.dumps(config))
    code = main(["attack", str(path), "--linkage-mode", "probabilistic"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    link = json.loads(captured.out)["linkage"]
    assert link["mode"] == "probabilistic"
    assert link["truth_known"] is True  # the identifier column aligns the external records
    assert 0.0 <= link["expected_reidentified"] <= 60.0


def test_monotone_weights_by_hand():
    from anon_core.attacks.fellegi_sunter import monotone

    m = np.array([[0.1, 0.5, 0.1, 0.3]])
    u = np.array([[0.5, 0.01, 0.2, 0.29]])
    # log(m/u) = [log .2, log 50, log .5, log 1.034]: the weak levels may not outweigh exact
    # agreement, so levels 1 and 2 are capped at level 2's log .5; m = u * exp(capped), normalized.
    expected = np.array([0.1, 0.005, 0.1, 0.3]) / 0.505
    np.testing.assert_allclose(monotone(m, u), expected[None, :], rtol=1e-9)
