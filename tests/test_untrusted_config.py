"""Untrusted configuration text and arguments: every bad one is ONE clear error, fast.

Covers the limits of anon_core.config (YAML aliases, nesting, documents, tags, keys, tabs;
JSON nesting; number digits; file size; NUL characters), the generic number bounds of
anon_core.validation, text encodings, the rows bound of generating release methods, ragged
hierarchy tables and numeric quasi-identifiers whose range overflows a float.
Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from anon_core.cli import main
from anon_core.config import (
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    MAX_YAML_ALIASES,
    parse_config,
    parse_config_text,
    read_config_file,
)
from anon_core.data.builders import interval_hierarchy
from anon_core.data.hierarchy import Hierarchy
from anon_core.errors import ConfigError, HierarchyError
from anon_core.methods.registry import MAX_ROWS, make_method, release_rows
from anon_core.validation import check_float, check_int, check_text_encoding

# 8 people of my own: year of birth, a town and a favourite fruit.
PEOPLE = "born,town,fruit\n" + "".join(
    f"{1960 + 5 * i},{['Ash', 'Elm', 'Oak'][i % 3]},{['fig', 'kiwi'][i % 2]}\n" for i in range(8)
)


def _config(**extra) -> dict:
    cfg = {
        "input": {"path": "people.csv"},
        "attributes": {
            "born": {
                "role": "quasi-identifier",
                "hierarchy": {"builder": "intervals", "width": 10},
            },
            "town": {"role": "quasi-identifier"},
            "fruit": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "suppression_limit": 0.5,
    }
    cfg.update(extra)
    return cfg


def _run(tmp_path: Path, capsys, text: str, suffix: str = ".json", *args: str, command="anonymize"):
    """Run the CLI in-process on a configuration text; (exit code, the error lines, seconds)."""
    (tmp_path / "people.csv").write_text(PEOPLE)
    path = tmp_path / f"config{suffix}"
    path.write_text(text)
    start = time.perf_counter()
    code = main([command, str(path), *args])
    took = time.perf_counter() - start
    err = capsys.readouterr().err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if not line.startswith("warning:")]
    return code, errors, took


def _one_error(tmp_path, capsys, text, suffix=".json", *args, command="anonymize") -> str:
    code, errors, took = _run(tmp_path, capsys, text, suffix, *args, command=command)
    assert code == 2, errors
    assert len(errors) == 1 and errors[0].startswith("error: "), errors
    assert took < 20, took  # never a hang
    return errors[0]


def _one_error_in_a_subprocess(tmp_path, text, suffix=".json", *args, command="anonymize") -> str:
    """As _one_error, in a subprocess with a timeout: a regression to a hang fails, never blocks."""
    (tmp_path / "people.csv").write_text(PEOPLE)
    path = tmp_path / f"config{suffix}"
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "anon_core.cli", command, str(path), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if not line.startswith("warning:")]
    assert done.returncode == 2 and len(errors) == 1 and errors[0].startswith("error: "), errors
    return errors[0]


def _yaml(cfg: dict, extra: str = "") -> str:
    return yaml.safe_dump(cfg, sort_keys=False) + extra


# ---------------------------------------------------------------- YAML aliases ("billion laughs")
def _laughs(levels: int, fan: int = 9) -> str:
    """l0 is a list of `fan` strings; each level lists `fan` aliases of the one below, so the last
    level expands to fan**(levels+1) strings from (levels * fan) aliases."""
    lines = [f"  l0: &l0 [{', '.join(['lol'] * fan)}]"]
    for i in range(1, levels + 1):
        lines.append(f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fan)}]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_in_the_text_section_is_refused_fast(tmp_path, capsys):
    # 9 levels x 9 aliases = 81 aliases (under the count limit) expanding to 9**10 strings.
    text = _yaml(_config()) + "text:\n" + _laughs(9)
    line = _one_error_in_a_subprocess(tmp_path, text, ".yaml")
    assert "YAML aliases" in line and "config.yaml" in line


def test_billion_laughs_in_dp_queries_is_refused_fast(tmp_path, capsys):
    text = (
        _yaml(_config()) + "dp:\n  epsilon: 1.0\n  queries:\n" + _laughs(8).replace("  l", "    l")
    )
    line = _one_error_in_a_subprocess(tmp_path, text, ".yaml", command="dp")
    assert "YAML aliases" in line


def test_alias_count_is_bounded_even_when_the_expansion_is_small():
    # 101 aliases of a one-word value: 101 values repeated (under the expansion bound), but one
    # alias more than MAX_YAML_ALIASES (100).
    assert MAX_YAML_ALIASES == 100
    body = "a: &w word\nb: [" + ", ".join(["*w"] * 101) + "]\n"
    with pytest.raises(ConfigError, match="more than 100 YAML aliases"):
        parse_config_text(body, "c", yaml_format=True)
    ok = "a: &w word\nb: [" + ", ".join(["*w"] * 100) + "]\n"
    assert parse_config_text(ok, "c", yaml_format=True)["b"] == ["word"] * 100


def test_an_alias_inside_the_value_it_names_is_refused():
    with pytest.raises(ConfigError, match=r"alias \*me inside the value it names"):
        parse_config_text("text: &me [1, *me]\n", "c", yaml_format=True)


def test_ordinary_anchors_aliases_and_merge_keys_still_work():
    text = (
        "defaults: &d {builder: intervals, width: 10}\n"
        "attributes:\n"
        "  born: {role: quasi-identifier, hierarchy: *d}\n"
        "  age:\n"
        "    role: quasi-identifier\n"
        "    hierarchy:\n"
        "      <<: *d\n"
        "      width: 5\n"
    )
    data = parse_config_text(text, "c", yaml_format=True)
    assert data["attributes"]["born"]["hierarchy"] == {"builder": "intervals", "width": 10}
    # the merge key copies the defaults and the explicit key overrides one of them
    assert data["attributes"]["age"]["hierarchy"] == {"builder": "intervals", "width": 5}


# ---------------------------------------------------------------- nesting depth
def _nested(levels: int) -> list:
    value: list = ["x"]
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize("yaml_format", [False, True])
def test_nesting_is_bounded_at_64_levels_counting_the_leaf(yaml_format):
    # {"text": L} counts 1 for the mapping; L of n lists around "x" adds n + 1: n = 62 gives 64.
    assert MAX_CONFIG_DEPTH == 64
    for lists, ok in ((62, True), (63, False)):
        payload = {"text": _nested(lists)}
        text = json.dumps(payload)  # JSON is also YAML (flow style)
        if ok:
            assert parse_config_text(text, "c", yaml_format=yaml_format) == payload
        else:
            with pytest.raises(ConfigError, match="more than 64 levels deep"):
                parse_config_text(text, "c", yaml_format=yaml_format)


@pytest.mark.parametrize("depth", [50_000, 100_000])
def test_very_deep_json_is_one_error_not_a_recursion_error(depth):
    text = '{"text": ' + "[" * depth + "]" * depth + "}"
    with pytest.raises(ConfigError, match="more than 64 levels deep"):
        parse_config_text(text, "c")


def test_very_deep_yaml_is_one_error_not_a_recursion_error():
    text = "text: " + "[" * 100_000 + "]" * 100_000 + "\n"
    with pytest.raises(ConfigError, match="more than 64 levels deep"):
        parse_config_text(text, "c", yaml_format=True)


# ---------------------------------------------------------------- YAML documents, keys, tags, tabs
def test_two_yaml_documents_are_refused_naming_the_line(tmp_path, capsys):
    text = "input: {path: people.csv}\n---\ninput: {path: other.csv}\n"
    line = _one_error(tmp_path, capsys, text, ".yaml")
    assert "more than one YAML document" in line and "line 2" in line


@pytest.mark.parametrize(
    "text",
    ["? [a, b]\n: 1\n", "? {a: 1}\n: 2\n", "input:\n  ? [path]\n  : x.csv\n"],
)
def test_complex_keys_are_refused(text):
    with pytest.raises(ConfigError, match="list or mapping as a key"):
        parse_config_text(text, "c", yaml_format=True)


@pytest.mark.parametrize("key,kind", [("1990", "int"), ("yes", "bool"), ("null", "NoneType")])
def test_keys_yaml_reads_as_other_types_must_be_quoted(key, kind):
    with pytest.raises(ConfigError, match=f"reads as {kind}, not text; quote it"):
        parse_config_text(f"attributes:\n  {key}: {{role: insensitive}}\n", "c", yaml_format=True)
    quoted = parse_config_text(f"attributes:\n  '{key}': {{role: insensitive}}\n", "c", True)
    assert quoted == {"attributes": {key: {"role": "insensitive"}}}


@pytest.mark.parametrize(
    "value,shown",
    [
        ("!!python/object/apply:os.system ['echo hi']", "!!python/object/apply:os.system"),
        ("!!python/name:os.system", "!!python/name:os.system"),
        ("!!binary aGVsbG8=", "!!binary"),
        ("!!set {a, b}", "!!set"),
        ("!custom 3", "!custom"),
    ],
)
def test_non_standard_tags_are_refused_by_name(tmp_path, capsys, value, shown):
    line = _one_error(tmp_path, capsys, _yaml(_config(), f"text: {value}\n"), ".yaml")
    assert f"YAML tag '{shown}'" in line and "remove the tag" in line


def test_plain_tags_and_dates_stay_plain_values():
    data = parse_config_text("a: !!str 2020\nb: 2020-01-31\nc: !!int '7'\n", "c", True)
    assert data == {"a": "2020", "b": "2020-01-31", "c": 7}  # a date stays text, as in JSON


def test_tab_indentation_gets_its_own_message(tmp_path, capsys):
    text = "input:\n\tpath: people.csv\n"
    line = _one_error(tmp_path, capsys, text, ".yaml")
    assert "line 2 is indented with a tab" in line and "indent with spaces" in line


def test_yaml_syntax_errors_are_one_line(tmp_path, capsys):
    line = _one_error(tmp_path, capsys, "input: [people.csv\nk: 3\n", ".yaml")
    assert "is not valid YAML" in line and "line" in line


# ---------------------------------------------------------------- numbers
def test_a_5000_digit_k_is_one_error_in_json_and_yaml(tmp_path, capsys):
    digits = "9" * 5000
    text = json.dumps(_config()).replace('"k": 2', f'"k": {digits}')
    line = _one_error(tmp_path, capsys, text)
    assert "whole number of 5,000 digits" in line
    with pytest.raises(ConfigError, match="5,000 digits"):
        parse_config_text(f"k: {digits}\n", "c", yaml_format=True)
    # YAML's other spellings of whole numbers are bounded too: hex digits, and base 60
    with pytest.raises(ConfigError, match="digits"):
        parse_config_text("k: 0x" + "f" * 200 + "\n", "c", yaml_format=True)
    with pytest.raises(ConfigError, match="digits"):
        parse_config_text("k: " + ":".join(["59"] * 60) + "\n", "c", yaml_format=True)


def test_k_1e308_is_refused_and_k_beyond_the_table_is_not_satisfied(tmp_path, capsys):
    cfg = _config()
    cfg["privacy_models"][0]["k"] = 1e308
    line = _one_error(tmp_path, capsys, json.dumps(cfg))
    assert "'k-anonymity.k' must be a whole number written as digits" in line
    # k = 10**12 is a whole number, larger than the 8 rows: no release satisfies it (exit 3)
    cfg["privacy_models"][0]["k"] = 10**12
    code, errors, _ = _run(tmp_path, capsys, json.dumps(cfg), ".json", "-o", "out.csv")
    assert code == 3 and len(errors) == 1 and not (tmp_path / "out.csv").exists()


def test_generic_whole_number_bounds():
    assert check_int("n", 5.0) == 5
    assert check_int("n", 2**53) == 2**53
    assert check_int("n", float(2**53)) == 2**53
    assert check_int("n", 10**30) == 10**30
    with pytest.raises(ConfigError, match="not an exact whole number"):
        check_int("n", float(2**54))  # a whole float, but beyond 2**53
    with pytest.raises(ConfigError, match="at most 10\\^30"):
        check_int("n", 10**30 + 1)
    with pytest.raises(ConfigError, match="a number of 4,000 digits"):
        check_int("n", 10**3999)  # the message names the size instead of printing the number
    for bad in (math.inf, math.nan, 2.5, True, "5"):
        with pytest.raises(ConfigError, match="whole number"):
            check_int("n", bad)


def test_generic_decimal_bounds():
    assert check_float("x", 1.8e18) == 1.8e18  # epoch nanoseconds are a fine bound
    assert check_float("x", 1e100) == 1e100
    assert check_float("x", -1e100) == -1e100
    with pytest.raises(ConfigError, match="at most 1e\\+100 in magnitude"):
        check_float("x", 1.000001e100)
    with pytest.raises(ConfigError, match="a number of 401 digits, beyond any sensible setting"):
        check_float("x", 10**400)  # an int too large for a float: no OverflowError
    assert check_float("x", 10**50) == 1e50
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ConfigError, match="finite number"):
            check_float("x", bad)


def test_every_method_parameter_gets_the_bounds(tmp_path):
    with pytest.raises(ConfigError, match="not an exact whole number"):
        make_method({"name": "microaggregation", "k": 1e300})
    with pytest.raises(ConfigError, match="magnitude"):
        make_method({"name": "synthetic-mst", "epsilon": 1e300})


# ---------------------------------------------------------------- size
def test_a_configuration_over_10_mb_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.json"
    with path.open("wb") as f:
        f.write(b"{}")
        f.write(b" " * MAX_CONFIG_BYTES)  # 10 MiB + 2 bytes
    with pytest.raises(ConfigError, match="more than the 10 MB"):
        read_config_file(path)
    with pytest.raises(ConfigError, match="more than the 10 MB"):
        parse_config_text("{}" + " " * MAX_CONFIG_BYTES, "c")
    path.write_bytes(b"{}" + b" " * (MAX_CONFIG_BYTES - 2))  # exactly 10 MiB: read
    assert read_config_file(path) == {}


# ---------------------------------------------------------------- encodings
@pytest.mark.parametrize(
    "name", ["rot13", "base64", "hex", "zip", "uu", "unicode_escape", "punycode", "undefined"]
)
def test_codecs_that_are_not_file_encodings_are_refused(tmp_path, capsys, name):
    cfg = _config()
    cfg["input"]["encoding"] = name
    line = _one_error(tmp_path, capsys, json.dumps(cfg))
    assert f"'input.encoding' is {name!r}, a codec that is not a character encoding" in line


@pytest.mark.parametrize("name", ["utf-8\x00", "utf\n8", "x" * 41])
def test_encoding_names_with_control_characters_or_too_long_are_refused(name):
    with pytest.raises(ConfigError):
        check_text_encoding("input.encoding", name)


@pytest.mark.parametrize("name", ["utf-8", "UTF8", "cp1252", "latin-1", "iso-8859-2", "utf-16"])
def test_text_encodings_are_accepted(name):
    assert check_text_encoding("input.encoding", name) == name


def test_an_accepted_encoding_reads_the_file(tmp_path):
    # 'Zoë' in cp1252 is the bytes 5a 6f eb (not UTF-8): read as cp1252 it comes back as 'Zoë'.
    from anon_core.transform.problem import load_input

    raw = "born,town,fruit\n1970,Zo\u00eb,fig\n1971,Zo\u00eb,kiwi\n".encode("cp1252")
    assert raw.count(b"\xeb") == 2
    (tmp_path / "t.csv").write_bytes(raw)
    parsed = parse_config(_config(input={"path": "t.csv", "encoding": "cp1252"}), tmp_path)
    assert load_input(parsed).frame["town"].tolist() == ["Zo\u00eb", "Zo\u00eb"]


# ---------------------------------------------------------------- NUL characters
@pytest.mark.parametrize(
    "where,mutate",
    [
        ("input.path", lambda c: c["input"].update(path="people\x00.csv")),
        (
            "attributes.town.hierarchy.file",
            lambda c: c["attributes"]["town"].update(hierarchy={"file": "t\x00.csv"}),
        ),
        ("output.signing_key_file", lambda c: c.update(output={"signing_key_file": "k\x00"})),
    ],
)
def test_nul_in_a_configured_path_is_one_error(tmp_path, capsys, where, mutate):
    cfg = _config()
    mutate(cfg)
    line = _one_error(tmp_path, capsys, json.dumps(cfg))
    assert f"NUL character in '{where}'" in line


@pytest.mark.parametrize("option", ["--output", "--report", "--pseudonym-map"])
def test_nul_in_an_output_argument_is_one_error(tmp_path, capsys, option):
    line = _one_error(tmp_path, capsys, json.dumps(_config()), ".json", option, "out\x00.csv")
    assert f"The argument {option}" in line and "NUL" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "people.csv"]


def test_nul_in_a_key_is_refused():
    with pytest.raises(ConfigError, match="NUL character in the key"):
        parse_config_text('{"attributes": {"to\\u0000wn": {}}}', "c")


# ---------------------------------------------------------------- synthesizer rows
def test_rows_bound_of_generating_methods():
    method = make_method({"name": "synthetic-gaussian-copula", "rows": 301})
    with pytest.raises(
        ConfigError, match="more than 10x the input's 30 rows; give 'rows' up to 300"
    ):
        release_rows(method, 30)
    assert release_rows(make_method({"name": "synthetic-gaussian-copula", "rows": 300}), 30) == 300
    forced = make_method({"name": "synthetic-gaussian-copula", "rows": 301, "force_rows": True})
    assert release_rows(forced, 30) == 301
    assert release_rows(make_method({"name": "synthetic-gaussian-copula"}), 30) == 30
    with pytest.raises(ConfigError, match=f"at most {MAX_ROWS}"):
        make_method({"name": "synthetic-ctgan", "rows": 10**10, "force_rows": True})


def test_the_noisy_total_of_a_dp_synthesizer_is_bounded_too():
    mst = make_method({"name": "synthetic-mst"})
    assert release_rows(mst, 30, 41.4) == 41  # a noisy total is rounded
    assert release_rows(mst, 30, -3.0) == 1  # at least one row
    with pytest.raises(ConfigError, match="noisy total is 17,009 rows"):
        release_rows(mst, 30, 17009.2)
    with pytest.raises(ConfigError, match="not a number"):
        release_rows(mst, 30, math.nan)
    forced = make_method({"name": "synthetic-mst", "force_rows": True})
    with pytest.raises(ConfigError, match="more than the 100,000,000 rows"):
        release_rows(forced, 30, 1e12)


@pytest.mark.parametrize("name", ["synthetic-mst", "synthetic-aim"])
def test_release_with_huge_rows_fails_fast_on_the_cli(tmp_path, capsys, name):
    cfg = _config(method={"name": name, "rows": 10**7})
    line = _one_error(
        tmp_path, capsys, json.dumps(cfg), ".json", "-o", "out.csv", command="release"
    )
    assert "more than 10x the input's" in line and "force_rows" in line
    assert not (tmp_path / "out.csv").exists()
    cfg["method"]["rows"] = 10**10
    line = _one_error_in_a_subprocess(
        tmp_path, json.dumps(cfg), ".json", "-o", "out.csv", command="release"
    )
    assert "'method.rows' must be at most 100000000" in line


# ---------------------------------------------------------------- ragged hierarchy tables
def test_ragged_inline_table_names_the_first_ragged_row(tmp_path, capsys):
    cfg = _config()
    cfg["attributes"]["town"]["hierarchy"] = {
        "table": [["Ash", "A", "*"], ["Elm", "E", "*"], ["Oak", "*"], ["Yew", "Y"]]
    }
    line = _one_error(tmp_path, capsys, json.dumps(cfg))
    assert "'attributes.town.hierarchy.table' row 3 has 2 label(s), but row 1 has 3" in line


def test_ragged_arx_csv_names_the_first_ragged_row(tmp_path, capsys):
    (tmp_path / "town.csv").write_text("Ash;A;*\nElm;E;*\nOak;O;*\nYew;*\n")
    cfg = _config()
    cfg["attributes"]["town"]["hierarchy"] = {"file": "town.csv"}
    line = _one_error(tmp_path, capsys, json.dumps(cfg))
    assert "row 1 has 3 levels, row 4 has 2" in line


def test_inline_table_cells_are_labels():
    with pytest.raises(HierarchyError, match=r"row 2 has the cell \['E'\]"):
        Hierarchy.from_rows([["Ash", "A"], ["Elm", ["E"]]], "town", "t")
    with pytest.raises(HierarchyError, match="row 1 has the cell None"):
        Hierarchy.from_rows([["Ash", None]], "town", "t")
    with pytest.raises(HierarchyError, match="non-empty list of rows"):
        Hierarchy.from_rows([], "town", "t")
    h = Hierarchy.from_rows([[1970, "1970s", "*"], [1971, "1970s", "*"]], "born", "t")
    assert h.table.tolist() == [["1970", "1970s", "*"], ["1971", "1970s", "*"]]


def test_a_regular_inline_table_still_releases(tmp_path, capsys):
    cfg = _config()
    cfg["attributes"]["town"]["hierarchy"] = {"table": [["Ash", "*"], ["Elm", "*"], ["Oak", "*"]]}
    code, errors, _ = _run(tmp_path, capsys, json.dumps(cfg))
    assert code == 0 and errors == []


# ---------------------------------------------------------------- extreme numeric quasi-identifiers
EXTREME = ["1e308", "-1e308", "inf", "-inf", "35"]  # the CLI test adds a missing value (nan)


def test_values_whose_range_overflows_are_one_error():
    with pytest.raises(HierarchyError, match="too large a number.*'lower' and 'upper'"):
        interval_hierarchy(np.array(EXTREME, dtype=object), 10, name="score")


def test_only_infinite_values_are_one_error():
    with pytest.raises(HierarchyError, match="has no finite number"):
        interval_hierarchy(np.array(["inf", "-inf"], dtype=object), 10, name="score")


def test_extremes_are_coded_with_lower_and_upper():
    h = interval_hierarchy(np.array(EXTREME, dtype=object), 10, lower=0, upper=100, name="score")
    level1 = dict(zip(h.table[:, 0].tolist(), h.table[:, 1].tolist(), strict=True))
    # below 0: "<0"; at or above 100: ">=100"; 35 falls in [30, 40)
    assert level1["1e308"] == ">=100" and level1["inf"] == ">=100"
    assert level1["-1e308"] == "<0" and level1["-inf"] == "<0"
    assert level1["35"] == "[30, 40)"


def test_extreme_quasi_identifier_on_the_cli(tmp_path, capsys):
    (tmp_path / "x.csv").write_text(
        "born,town,fruit\n" + "".join(f"{v},Ash,fig\n" for v in [*EXTREME, "nan"])
    )
    cfg = _config(input={"path": "x.csv"})
    line = _one_error(tmp_path, capsys, json.dumps(cfg))
    assert "Interval hierarchy 'born'" in line and "too large a number" in line


# ---------------------------------------------------------------- seeds and attack sizes
def test_seeds_are_bounded_to_32_bits_wherever_they_are_named():
    assert check_int("method.random_state", 2**32 - 1, minimum=0) == 2**32 - 1
    for name in ("random_state", "attack.random_state", "--seed", "train.seed"):
        with pytest.raises(ConfigError, match="is a seed, at most 4294967295"):
            check_int(name, 2**32, minimum=0)
    assert check_int("n_rows", 2**32, minimum=0) == 2**32  # not a seed: no such bound


@pytest.mark.parametrize(
    "args,expected",
    [
        (["--seed", str(10**23)], "'attack.random_state' is a seed, at most 4294967295"),
        (["--n-attacks", str(10**18)], "'n_attacks' must be at most 100000"),
    ],
)
def test_attack_arguments_beyond_their_range_are_one_error(tmp_path, capsys, args, expected):
    line = _one_error(tmp_path, capsys, json.dumps(_config()), ".json", *args, command="attack")
    assert expected in line


@pytest.mark.parametrize("name", ["rot13", "base64", "utf-8\x00"])
def test_the_library_loader_refuses_the_same_encodings(name):
    from anon_core.data.io import load_table

    with pytest.raises(ConfigError, match="'input.encoding'"):
        load_table(b"a,b\n1,2\n", name="t.csv", encoding=name)
    assert load_table(b"a,b\n1,2\n", name="t.csv", encoding="cp1252").frame.shape == (1, 2)


def test_the_number_of_privacy_models_is_bounded(tmp_path, capsys):
    cfg = _config()
    cfg["privacy_models"] = [{"model": "k-anonymity", "k": 2}] * 101
    line = _one_error(tmp_path, capsys, json.dumps(cfg))
    assert "'privacy_models' lists 101 models, more than 100" in line
    cfg["privacy_models"] = [{"model": "k-anonymity", "k": 2}] * 100
    code, errors, _ = _run(tmp_path, capsys, json.dumps(cfg))
    assert code == 0 and errors == []


def test_inline_table_cells_may_be_numpy_scalars():
    # the dashboard writes tables from arrays: numpy numbers and strings are labels too
    h = Hierarchy.from_rows([[np.int64(1970), np.str_("1970s"), np.float64(0.5)]], "born", "t")
    assert h.table.tolist() == [["1970", "1970s", "0.5"]]
    with pytest.raises(HierarchyError, match="has the cell"):
        Hierarchy.from_rows([[np.bool_(True), "*"]], "flag", "t")
