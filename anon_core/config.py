"""Release configuration: one JSON/YAML file the CLI, the dashboard and the report share.

Relative paths resolve against the configuration file's folder. Every field is
validated with a message that names the field and the fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from anon_core.data.dataset import Role
from anon_core.errors import ConfigError
from anon_core.population.table import population_section, resolve_paths
from anon_core.privacy.models import make_model
from anon_core.quality.metrics import make_metric
from anon_core.registry import Registry
from anon_core.release.engines import ENGINES, validate_engine_options
from anon_core.validation import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_keys,
    check_mapping,
    check_text_encoding,
)

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


#: Limits on an untrusted configuration text (see the configuration reference, "Limits").
MAX_CONFIG_BYTES = 10 * 1024 * 1024
#: Deepest nesting of objects and lists (a real configuration nests about 6 levels).
MAX_CONFIG_DEPTH = 64
#: YAML aliases (``*name``) in one configuration, and the values they may repeat in total.
MAX_YAML_ALIASES = 100
MAX_YAML_ALIAS_NODES = 10_000
#: Privacy models one configuration may combine.
MAX_PRIVACY_MODELS = 100
#: Digits of a whole number in the text (larger numbers are refused before conversion).
MAX_NUMBER_DIGITS = 100
#: Explicit YAML tags a configuration may use: the plain JSON-like types only.
YAML_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map")
) | {"!"}
_YAML_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _Refused(Exception):
    """A configuration text that breaks a limit (the caller adds the file name)."""


def _line(mark: Any) -> str:
    return f" (line {mark.line + 1})" if mark is not None else ""


class _UniqueKeyLoader(yaml.SafeLoader):
    """A SafeLoader bounded for untrusted text: plain values only (no tags beyond the JSON-like
    types; dates stay text, as in JSON), text keys given once per mapping, at most
    MAX_YAML_ALIASES aliases repeating MAX_YAML_ALIAS_NODES values in all, none of them into
    itself, nesting at most MAX_CONFIG_DEPTH deep, one document."""

    yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != _YAML_TIMESTAMP]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0
        self._open: set[str] = set()

    def get_single_node(self) -> Any:
        self.get_event()  # stream start
        document = None
        if not self.check_event(yaml.StreamEndEvent):
            document = self.compose_document()
        if not self.check_event(yaml.StreamEndEvent):
            event = self.get_event()
            raise _Refused(
                f"holds more than one YAML document (a second one starts at line "
                f"{event.start_mark.line + 1}); "
                "keep one configuration per file and remove the '---' line."
            )
        self.get_event()
        if document is not None:
            _check_alias_expansion(document)
        return document

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise _Refused(
                    f"uses more than {MAX_YAML_ALIASES} YAML aliases (*name){_line(event.start_mark)}; "
                    "write the values out instead of repeating them through aliases."
                )
            if event.anchor in self._open:
                raise _Refused(
                    f"has a YAML alias *{event.anchor} inside the value it names"
                    f"{_line(event.start_mark)}, which would repeat forever; remove it."
                )
            return super().compose_node(parent, index)
        tag = getattr(event, "tag", None)
        if tag is not None and tag not in YAML_TAGS:
            raise _Refused(
                f"uses the YAML tag {tag.replace('tag:yaml.org,2002:', '!!')!r}{_line(event.start_mark)}; "
                "a configuration holds plain "
                "text, numbers, true/false, lists and mappings only: remove the tag."
            )
        self._depth += 1
        if self._depth > MAX_CONFIG_DEPTH:
            raise _Refused(
                f"nests lists or mappings more than {MAX_CONFIG_DEPTH} levels deep"
                f"{_line(event.start_mark)}; a configuration needs only a few levels."
            )
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self._open.add(anchor)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open.discard(anchor)  # type: ignore[arg-type]


def _check_alias_expansion(root: yaml.Node) -> None:
    """Refuse a document whose aliases repeat more than MAX_YAML_ALIAS_NODES values (a "billion
    laughs"): the expanded size of every node, computed once per node, without recursion."""
    sizes: dict[int, int] = {}
    distinct = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if children_done:
            sizes[id(node)] = 1 + sum(sizes[id(c)] for c in children)
            distinct += 1
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    repeated = sizes[id(root)] - distinct
    if repeated > MAX_YAML_ALIAS_NODES:
        raise _Refused(
            f"repeats {repeated:,} values through YAML aliases (at most {MAX_YAML_ALIAS_NODES:,}); "
            "write the values out instead of nesting aliases."
        )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _construct_unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False):
    seen: set[str] = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue  # '<<: *defaults' merges a mapping; its keys may be overridden here
        if not isinstance(key_node, yaml.ScalarNode):
            raise _Refused(
                f"uses a list or mapping as a key{_line(key_node.start_mark)}; keys are names "
                "(text), e.g. 'k: 5'."
            )
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, str):
            raise _Refused(
                f"has the key {key!r}{_line(key_node.start_mark)}, which YAML reads as "
                f"{type(key).__name__}, not text; quote it ('{key_node.value}':) so it is a name."
            )
        if key in seen:
            raise ConfigError(
                f"The key {key!r} is given twice in one mapping (line {key_node.start_mark.line + 1}); "
                "keep exactly one, so the configuration says one thing."
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    _check_digits(node.value)
    return loader.construct_yaml_int(node)


def _check_digits(text: str) -> None:
    digits = sum(ch.isalnum() for ch in text)  # 0x.., 0o.., 1_000 and 1:30 (base 60) alike
    if digits > MAX_NUMBER_DIGITS:
        raise _Refused(
            f"holds a whole number of {digits:,} digits (at most {MAX_NUMBER_DIGITS}); no setting "
            "needs a number that large: check the value."
        )


def _json_int(text: str) -> int:
    _check_digits(text)
    return int(text)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping
)
_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


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
    """Parse JSON or YAML text into a mapping: one clear ConfigError for duplicate keys, non-objects
    and text beyond the limits (size, nesting, YAML aliases, tags and documents, number digits,
    NUL characters)."""
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{name} holds {len(text):,} characters, more than the {MAX_CONFIG_BYTES // 2**20} MB a "
            "configuration may have; keep large tables (hierarchies, populations) in files it names."
        )
    try:
        if yaml_format:
            data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
        else:
            data = json.loads(text, object_pairs_hook=_unique_pairs, parse_int=_json_int)
        if not isinstance(data, dict):
            raise ConfigError(f"{name} must hold an object at the top level.")
        _check_tree(data)
    except _Refused as exc:
        raise ConfigError(f"{name} {exc}") from None
    except RecursionError:
        raise ConfigError(
            f"{name} nests lists or objects more than {MAX_CONFIG_DEPTH} levels deep; a "
            "configuration needs only a few levels."
        ) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{name} is not valid JSON: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{name} is not valid YAML: {_yaml_problem(exc, text)}") from None
    return data


def _yaml_problem(exc: yaml.YAMLError, text: str) -> str:
    """A YAML error on one line; a tab in an indentation gets its own fix."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        lines = text.splitlines()
        line = lines[mark.line] if mark.line < len(lines) else ""
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if "\t" in indent:
            return (
                f"line {mark.line + 1} is indented with a tab, and YAML forbids tabs for "
                "indentation; indent with spaces."
            )
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    return f"{context + ': ' if context else ''}{problem}{where}".replace("\n", " ")


def _check_tree(data: Any) -> None:
    """Refuse nesting deeper than MAX_CONFIG_DEPTH and NUL characters in any key or text (no
    path, name or label holds one), walking the parsed value without recursion."""
    stack: list[tuple[Any, int, str]] = [(data, 1, "")]
    while stack:
        value, depth, where = stack.pop()
        if depth > MAX_CONFIG_DEPTH:
            top = where.split(".")[0].split("[")[0]
            raise _Refused(
                f"nests lists or objects more than {MAX_CONFIG_DEPTH} levels deep (in {top!r}); "
                "a configuration needs only a few levels."
            )
        if isinstance(value, str):
            if "\x00" in value:
                raise _Refused(
                    f"has a NUL character in '{where}'; no path, name or label holds one: remove it."
                )
        elif isinstance(value, Mapping):
            for key, item in value.items():
                label = f"{where}.{str(key)[:60]}" if where else str(key)[:60]
                if isinstance(key, str) and "\x00" in key:
                    raise _Refused(f"has a NUL character in the key {label!r}: remove it.")
                stack.append((item, depth + 1, label))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, f"{where}[{i}]") for i, item in enumerate(value))


def read_config_file(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if "\x00" in str(path):
        raise ConfigError(
            f"The configuration path {str(path)!r} has a NUL character; name the file without it."
        )
    if not path.is_file():
        raise ConfigError(f"Configuration file {str(path)!r} does not exist. Check the path.")
    size = path.stat().st_size
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"Configuration file {path.name} is {size / 2**20:.1f} MB, more than the "
            f"{MAX_CONFIG_BYTES // 2**20} MB a configuration may have; keep large tables "
            "(hierarchies, populations) in files it names."
        )
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


# ----------------------------------------------------------------------------- the sections
#: What a section's parser returns: fields of :class:`ReleaseConfig` (none for a section that is
#: only checked here and applied by its own module).
Fields = dict[str, Any]


@dataclass(frozen=True)
class SectionSpec:
    """A top-level section of the configuration: its name, one line saying what it holds, the
    parser that validates it when the configuration is read (None: the module that applies it
    validates it when it runs) and whether it is carried as given in ``ReleaseConfig.sections``.

    ``parse(data, base_dir)`` reads its own section from the whole mapping (a section may depend
    on another, as ``engine_options`` on ``engine``) and returns fields of :class:`ReleaseConfig`.
    """

    name: str
    doc: str
    parse: Callable[[Mapping[str, Any], Path], Fields] | None = None
    #: Carried as given in ``ReleaseConfig.sections`` for the module that applies it.
    carried: bool = False
    #: The module that applies (and validates) a carried section.
    applied_by: str = ""


#: Every configuration section, in the order they are validated.
SECTIONS: Registry[SectionSpec] = Registry("configuration section")


def register_section(spec: SectionSpec) -> SectionSpec:
    """Add a section to :data:`SECTIONS` (a name may be registered once)."""
    return SECTIONS.add(spec.name, spec)


def _input(data: Mapping[str, Any], base: Path) -> Fields:
    inp = check_mapping("input", data.get("input", {}))
    check_keys("input", inp, INPUT_KEYS)
    input_path = None
    if "path" in inp:
        if not isinstance(inp["path"], str) or not inp["path"]:
            raise ConfigError("'input.path' must be a file path.")
        input_path = Path(inp["path"]) if Path(inp["path"]).is_absolute() else base / inp["path"]
    if inp.get("encoding") is not None:
        check_text_encoding("input.encoding", inp["encoding"])
    return {
        "input_path": input_path,
        "separator": inp.get("separator"),
        "encoding": inp.get("encoding"),
        "sheet": inp.get("sheet", 0),
    }


def _attributes(data: Mapping[str, Any], base: Path) -> Fields:
    attrs = check_mapping("attributes", data.get("attributes", {}))
    if data.get("geo") is not None:  # a location made one quasi-identifier by the geo section
        from anon_core.geo.location import geo_attributes

        attrs = geo_attributes(attrs, data["geo"], base)
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
    return {"roles": roles, "hierarchy_specs": hspecs}


def _privacy_models(data: Mapping[str, Any], base: Path) -> Fields:
    models = data.get("privacy_models", [])
    if not isinstance(models, list) or not models:
        raise ConfigError(
            '\'privacy_models\' must be a non-empty list, e.g. [{"model": "k-anonymity", "k": 5}].'
        )
    if len(models) > MAX_PRIVACY_MODELS:
        raise ConfigError(
            f"'privacy_models' lists {len(models):,} models, more than {MAX_PRIVACY_MODELS}; a "
            "release combines a few (e.g. k-anonymity and l-diversity per sensitive attribute)."
        )
    models = [resolve_paths(m, base) for m in models]  # population / research-subset files
    for m in models:
        make_model(m)  # validates parameters now, with the field named
    return {"models": tuple(models)}


def _population(data: Mapping[str, Any], base: Path) -> Fields:
    population_section(data, base)
    return {}


def _suppression_limit(data: Mapping[str, Any], base: Path) -> Fields:
    limit = check_float("suppression_limit", data.get("suppression_limit", 0.0), 0.0, 1.0)
    return {"suppression_limit": limit}


def _quality_metric(data: Mapping[str, Any], base: Path) -> Fields:
    metric = data.get("quality_metric")
    make_metric(metric)
    return {"quality_metric": metric}


def _transformation(data: Mapping[str, Any], base: Path) -> Fields:
    transformation = data.get("transformation")
    if transformation is not None:
        transformation = dict(check_mapping("transformation", transformation))
        for k, v in transformation.items():
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"'transformation.{k}' must be a whole-number level, got {v!r}.")
    return {"transformation": transformation}


def _search(data: Mapping[str, Any], base: Path) -> Fields:
    search_cfg = dict(check_mapping("search", data.get("search", {})))
    check_keys("search", search_cfg, SEARCH_KEYS)
    for key in ("min_levels", "max_levels"):
        if key in search_cfg:
            check_mapping(f"search.{key}", search_cfg[key])
    if "exact_limit" in search_cfg:
        check_int("search.exact_limit", search_cfg["exact_limit"], minimum=1)
    return {"search": search_cfg}


def _output(data: Mapping[str, Any], base: Path) -> Fields:
    out = check_mapping("output", data.get("output", {}))
    check_keys("output", out, OUTPUT_KEYS)
    supp = check_choice(
        "output.suppressed_records", out.get("suppressed_records", "remove"), ("remove", "mask")
    )
    formula_escape = check_bool("output.formula_escape", out.get("formula_escape", True))
    for key in ("signing_key_file", "signing_key_env"):
        if key in out and (not isinstance(out[key], str) or not out[key].strip()):
            raise ConfigError(f"'output.{key}' must be a non-empty string, got {out[key]!r}.")
    return {"suppressed_records": supp, "formula_escape": formula_escape}


def _engine(data: Mapping[str, Any], base: Path) -> Fields:
    return {"engine": check_choice("engine", data.get("engine", "auto"), ("auto", *ENGINES))}


def _engine_options(data: Mapping[str, Any], base: Path) -> Fields:
    engine = check_choice("engine", data.get("engine", "auto"), ("auto", *ENGINES))
    engine_options = dict(check_mapping("engine_options", data.get("engine_options", {})))
    check_keys("engine_options", engine_options, ENGINE_OPTION_KEYS)
    validate_engine_options(engine, engine_options)  # types and ranges, before anything runs
    return {"engine_options": engine_options}


_CORE = (
    ("input", "the table to release: path, separator, encoding, sheet", _input),
    ("attributes", "each column's role and generalization hierarchy", _attributes),
    ("privacy_models", "the privacy models the release must satisfy", _privacy_models),
    ("suppression_limit", "the share of records that may be suppressed", _suppression_limit),
    ("quality_metric", "the information-loss metric the search minimizes", _quality_metric),
    ("transformation", "a fixed level per quasi-identifier (else the search's)", _transformation),
    ("search", "bounds on the lattice search's levels and its exact limit", _search),
    ("output", "suppressed records, formula escaping, the signing key", _output),
    ("engine", "where the table is grouped and released", _engine),
    ("engine_options", "options of the DuckDB and Spark engines", _engine_options),
)
#: Sections carried as given for the module that applies them (``population`` is also checked
#: when the configuration is read).
_CARRIED = (
    ("text", "free-text columns de-identified first", "anon_core.pii.pseudonymize", None),
    ("pseudonymize", "identifiers made keyed pseudonyms", "anon_core.pii.pseudonymize", None),
    ("dp", "differentially private queries", "anon_core.dp.release", None),
    ("attack", "the attack lab's split, guesses and tables", "anon_core.attacks.split", None),
    ("method", "the release method and its parameters", "anon_core.methods.config", None),
    ("population", "the population sampled", "anon_core.population.table", _population),
    ("train", "DP-SGD training and membership inference", "anon_core.training.config", None),
    ("acceptance", "the officer's acceptance criteria", "anon_core.services.acceptance", None),
    ("geo", "latitude/longitude columns of point locations", "anon_core.geo.section", None),
)
for _name, _doc, _parse in _CORE:
    register_section(SectionSpec(_name, _doc, _parse))
for _name, _doc, _module, _check in _CARRIED:
    register_section(SectionSpec(_name, _doc, _check, carried=True, applied_by=_module))

#: Every top-level field a configuration may have.
TOP_KEYS = frozenset(SECTIONS)
#: Sections carried as given in ``ReleaseConfig.sections`` and applied by their own modules.
MODULE_SECTIONS = tuple(name for name, spec in SECTIONS.items() if spec.carried)


def parse_config(data: Mapping[str, Any], base_dir: str | Path = ".") -> ReleaseConfig:
    """Validate a configuration mapping: every registered section's parser, in order."""
    check_mapping("configuration", data)
    check_keys("configuration", data, SECTIONS)
    base = Path(base_dir)
    fields: Fields = {}
    for spec in SECTIONS.values():
        if spec.parse is not None:
            fields.update(spec.parse(data, base))
    return ReleaseConfig(
        raw=dict(data),
        base_dir=base,
        sections={k: data[k] for k in MODULE_SECTIONS if k in data},
        **fields,
    )


def load_config(path: str | Path) -> ReleaseConfig:
    path = Path(path)
    return parse_config(read_config_file(path), base_dir=path.resolve().parent)
