"""Release configuration: one JSON/YAML file the CLI, the dashboard and the report share.

Relative paths resolve against the configuration file's folder. Every field is
validated with a message that names the field and the fix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from anon_core.analysis.population_table import population_section, resolve_paths
from anon_core.data.dataset import Role
from anon_core.errors import ConfigError
from anon_core.privacy.models import make_model
from anon_core.quality.metrics import make_metric
from anon_core.release.engines import ENGINES, validate_engine_options
from anon_core.validation import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_keys,
    check_mapping,
)

TOP_KEYS = {
    "input",
    "attributes",
    "privacy_models",
    "suppression_limit",
    "quality_metric",
    "transformation",
    "search",
    "output",
    "engine",
    "engine_options",
    # Sections validated and applied by their own modules (PII text de-identification,
    # pseudonymization of identifiers, differential privacy); carried here as given.
    "text",
    "pseudonymize",
    "dp",
    "attack",  # the attack lab: control split, n_attacks, secrets, external table (anon_core.attacks.split)
    "method",  # release method + parameters (anon_core.release.methods.config)
    "population",  # population table / size (anon_core.analysis.population_table.population_section)
    "train",  # DP-SGD training and membership inference (anon_core.training.config)
}
MODULE_SECTIONS = ("text", "pseudonymize", "dp", "attack", "method", "population", "train")
SEARCH_KEYS = {"min_levels", "max_levels", "exact_limit"}
INPUT_KEYS = {"path", "separator", "encoding", "sheet"}
ATTRIBUTE_KEYS = {"role", "hierarchy"}
#: formula_escape: neutralize spreadsheet formulas in CSV/TSV (default true); signing_key_file /
#: signing_key_env: where the report's Ed25519 sign-off key is read from (never embedded).
OUTPUT_KEYS = {"suppressed_records", "formula_escape", "signing_key_file", "signing_key_env"}
#: Options of the scale engines (DuckDB: memory_limit, threads, batch_rows, temp_directory;
#: Spark: master, conf, app_name).
ENGINE_OPTION_KEYS = {
    "memory_limit",
    "threads",
    "batch_rows",
    "temp_directory",
    "master",
    "conf",
    "app_name",
}


@dataclass(frozen=True)
class ReleaseConfig:
    """A validated release configuration (``raw`` is the parsed file, for round trips)."""

    raw: dict[str, Any]
    base_dir: Path
    input_path: Path | None
    separator: str | None
    encoding: str | None
    sheet: str | int | None
    roles: dict[str, Role]
    hierarchy_specs: dict[str, Mapping[str, Any]]
    models: tuple[Mapping[str, Any], ...]
    suppression_limit: float
    quality_metric: Mapping[str, Any] | None
    transformation: dict[str, int] | None
    suppressed_records: str = "remove"
    search: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, Any] = field(default_factory=dict)
    engine: str = "auto"
    engine_options: dict[str, Any] = field(default_factory=dict)
    formula_escape: bool = True


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML loader that refuses a key given twice in one mapping (``k: 3`` then ``k: 1``)."""


def _construct_unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False):
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ConfigError(
                f"The key {key!r} is given twice in one mapping (line {key_node.start_mark.line + 1}); "
                "keep exactly one, so the configuration says one thing."
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping
)


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ConfigError(
                f"The key {key!r} is given twice in one object; keep exactly one, so the "
                "configuration says one thing."
            )
        out[key] = value
    return out


def parse_config_text(text: str, name: str = "configuration", yaml_format: bool = False) -> dict:
    """Parse JSON or YAML text into a mapping; duplicate keys and non-objects are errors."""
    kind = "YAML" if yaml_format else "JSON"
    try:
        if yaml_format:
            data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
        else:
            data = json.loads(text, object_pairs_hook=_unique_pairs)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{name} is not valid {kind}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{name} must hold an object at the top level.")
    return data


def read_config_file(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"Configuration file {str(path)!r} does not exist. Check the path.")
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise ConfigError(
            f"Configuration file {path.name} is binary, not JSON or YAML text. Name the release "
            "configuration (a .json or .yaml file)."
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"Configuration file {path.name} is not UTF-8 text (byte {exc.start}); save it as UTF-8."
        ) from None
    return parse_config_text(
        text, f"Configuration file {path.name}", path.suffix.lower() in {".yaml", ".yml"}
    )


def parse_config(data: Mapping[str, Any], base_dir: str | Path = ".") -> ReleaseConfig:
    """Validate a configuration mapping."""
    check_mapping("configuration", data)
    check_keys("configuration", data, TOP_KEYS)
    base = Path(base_dir)
    inp = check_mapping("input", data.get("input", {}))
    check_keys("input", inp, INPUT_KEYS)
    input_path = None
    if "path" in inp:
        if not isinstance(inp["path"], str) or not inp["path"]:
            raise ConfigError("'input.path' must be a file path.")
        input_path = Path(inp["path"]) if Path(inp["path"]).is_absolute() else base / inp["path"]
    attrs = check_mapping("attributes", data.get("attributes", {}))
    roles: dict[str, Role] = {}
    hspecs: dict[str, Mapping[str, Any]] = {}
    for name, spec in attrs.items():
        spec = check_mapping(f"attributes.{name}", spec)
        check_keys(f"attributes.{name}", spec, ATTRIBUTE_KEYS)
        role = check_choice(f"attributes.{name}.role", spec.get("role"), [r.value for r in Role])
        roles[name] = Role(role)
        if "hierarchy" in spec:
            h = check_mapping(f"attributes.{name}.hierarchy", spec["hierarchy"])
            if len({"file", "builder", "table"} & set(h)) != 1:
                raise ConfigError(
                    f"'attributes.{name}.hierarchy' needs exactly one of 'file' (ARX CSV), 'builder' "
                    "(with its parameters) or 'table' (inline rows, one per value)."
                )
            hspecs[name] = h
    if not any(r == Role.QUASI_IDENTIFIER for r in roles.values()):
        raise ConfigError(
            "'attributes' marks no quasi-identifier: give at least one attribute role 'quasi-identifier'."
        )
    models = data.get("privacy_models", [])
    if not isinstance(models, list) or not models:
        raise ConfigError(
            '\'privacy_models\' must be a non-empty list, e.g. [{"model": "k-anonymity", "k": 5}].'
        )
    models = [resolve_paths(m, base) for m in models]  # population / research-subset files
    for m in models:
        make_model(m)  # validates parameters now, with the field named
    population_section(data, base)  # validates the 'population' section
    limit = check_float("suppression_limit", data.get("suppression_limit", 0.0), 0.0, 1.0)
    metric = data.get("quality_metric")
    make_metric(metric)
    transformation = data.get("transformation")
    if transformation is not None:
        transformation = dict(check_mapping("transformation", transformation))
        for k, v in transformation.items():
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"'transformation.{k}' must be a whole-number level, got {v!r}.")
    search_cfg = dict(check_mapping("search", data.get("search", {})))
    check_keys("search", search_cfg, SEARCH_KEYS)
    for key in ("min_levels", "max_levels"):
        if key in search_cfg:
            check_mapping(f"search.{key}", search_cfg[key])
    if "exact_limit" in search_cfg:
        check_int("search.exact_limit", search_cfg["exact_limit"], minimum=1)
    out = check_mapping("output", data.get("output", {}))
    check_keys("output", out, OUTPUT_KEYS)
    supp = check_choice(
        "output.suppressed_records", out.get("suppressed_records", "remove"), ("remove", "mask")
    )
    formula_escape = check_bool("output.formula_escape", out.get("formula_escape", True))
    for key in ("signing_key_file", "signing_key_env"):
        if key in out and (not isinstance(out[key], str) or not out[key].strip()):
            raise ConfigError(f"'output.{key}' must be a non-empty string, got {out[key]!r}.")
    engine = check_choice("engine", data.get("engine", "auto"), ("auto", *ENGINES))
    engine_options = dict(check_mapping("engine_options", data.get("engine_options", {})))
    check_keys("engine_options", engine_options, ENGINE_OPTION_KEYS)
    validate_engine_options(engine, engine_options)  # types and ranges, before anything runs
    return ReleaseConfig(
        raw=dict(data),
        base_dir=base,
        input_path=input_path,
        separator=inp.get("separator"),
        encoding=inp.get("encoding"),
        sheet=inp.get("sheet", 0),
        roles=roles,
        hierarchy_specs=hspecs,
        models=tuple(models),
        suppression_limit=limit,
        quality_metric=metric,
        transformation=transformation,
        suppressed_records=supp,
        search=search_cfg,
        sections={k: data[k] for k in MODULE_SECTIONS if k in data},
        engine=engine,
        engine_options=engine_options,
        formula_escape=formula_escape,
    )


def load_config(path: str | Path) -> ReleaseConfig:
    path = Path(path)
    return parse_config(read_config_file(path), base_dir=path.resolve().parent)
