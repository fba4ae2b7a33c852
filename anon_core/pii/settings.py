"""The pii configuration sections (``text``, ``pseudonymize``): validated, holding no secret.

Secrets (hash salt, HMAC key, AES key) are never part of a configuration: it names
environment variables and the values are read (:func:`read_secret`) when used.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from anon_core.errors import ConfigError
from anon_core.pii.engine import (
    ENTITY_NAME,
    RecognizerSpec,
)
from anon_core.validation import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_keys,
    check_mapping,
)

log = logging.getLogger(__name__)


IDENTIFIER_ENTITIES = frozenset(
    {
        "PERSON",
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "US_SSN",
        "CREDIT_CARD",
        "IBAN_CODE",
        "IP_ADDRESS",
        "US_PASSPORT",
        "US_DRIVER_LICENSE",
        "US_BANK_NUMBER",
        "US_ITIN",
        "MEDICAL_LICENSE",
        "URL",
        "CRYPTO",
        "MAC_ADDRESS",
        "STREET_ADDRESS",
        "UK_NHS",
        "FR_NIR",
    }
)
#: Entity types an attacker can link on (dates, small geographic units, age, sex, nationality
#: or religion, job title, employer).
QUASI_IDENTIFIER_ENTITIES = frozenset(
    {"DATE_TIME", "ZIP_CODE", "LOCATION", "AGE", "GENDER", "NRP", "TITLE", "ORGANIZATION"}
)

IDENTIFIER, QUASI_IDENTIFIER, INSENSITIVE = "identifier", "quasi-identifier", "insensitive"
OPERATOR_TYPES = ("replace", "redact", "mask", "hash", "encrypt", "keep")
_OPERATOR_KEYS = {
    "replace": {"type", "value", "fake", "seed"},
    "redact": {"type"},
    "mask": {"type", "keep_last", "char"},
    "hash": {"type", "algorithm", "salt_env"},
    "encrypt": {"type", "key_env"},
    "keep": {"type"},
}
_TEXT_KEYS = {
    "columns",
    "operators",
    "allow_list",
    "deny_list",
    "recognizers",
    "entities",
    "score_threshold",
}
_RECOGNIZER_KEYS = {"name", "entity", "regex", "score", "context", "role"}
_PSEUDO_KEYS = {"columns"}
_PSEUDO_COLUMN_KEYS = {
    "hmac": {"method", "key_env", "length", "prefix", "casefold"},
    "token": {"method", "prefix", "digits", "casefold"},
}
_SECRET_WORDS = ("key", "salt", "secret", "password")
DEFAULT_SCORE_THRESHOLD = 0.35
MIN_SALT_BYTES = 16  # presidio-anonymizer's hash operator rejects shorter salts
MIN_HMAC_KEY_BYTES = 16  # NIST SP 800-107r1: key at least the security strength (>= 112 bits)
AES_KEY_BYTES = (16, 24, 32)


# =============================================================================== configuration
@dataclass(frozen=True)
class OperatorSpec:
    """How one entity type is rewritten. Holds environment variable names, never secrets."""

    type: str
    value: str | None = None
    fake: bool = False
    seed: int = 0
    keep_last: int = 4
    char: str = "*"
    algorithm: str = "sha256"
    salt_env: str | None = None
    key_env: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The configuration form (only the fields that apply to the type)."""
        out: dict[str, Any] = {"type": self.type}
        if self.type == "replace":
            if self.value is not None:
                out["value"] = self.value
            if self.fake:
                out.update(fake=True, seed=self.seed)
        elif self.type == "mask":
            out.update(keep_last=self.keep_last, char=self.char)
        elif self.type == "hash":
            out.update(algorithm=self.algorithm, salt_env=self.salt_env)
        elif self.type == "encrypt":
            out["key_env"] = self.key_env
        return out


@dataclass(frozen=True)
class TextConfig:
    """A validated ``text`` section."""

    columns: tuple[str, ...]
    operators: Mapping[str, OperatorSpec] = field(default_factory=dict)
    allow_list: tuple[str, ...] = ()
    deny_list: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    recognizers: tuple[RecognizerSpec, ...] = ()
    entities: tuple[str, ...] | None = None
    score_threshold: float = DEFAULT_SCORE_THRESHOLD

    @property
    def default_operator(self) -> OperatorSpec:
        return self.operators.get("DEFAULT", OperatorSpec("replace"))

    def ad_hoc_specs(self) -> tuple[RecognizerSpec, ...]:
        deny = tuple(
            RecognizerSpec(f"deny list {entity}", entity, deny=words)
            for entity, words in self.deny_list.items()
        )
        return self.recognizers + deny

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"columns": list(self.columns)}
        if self.operators:
            out["operators"] = {k: v.to_dict() for k, v in self.operators.items()}
        if self.allow_list:
            out["allow_list"] = list(self.allow_list)
        if self.deny_list:
            out["deny_list"] = {k: list(v) for k, v in self.deny_list.items()}
        if self.recognizers:
            out["recognizers"] = [
                {
                    "name": r.name,
                    "entity": r.entity,
                    "regex": list(r.patterns),
                    "score": r.score,
                    "context": list(r.context),
                    "role": r.role,
                }
                for r in self.recognizers
            ]
        if self.entities is not None:
            out["entities"] = list(self.entities)
        if self.score_threshold != DEFAULT_SCORE_THRESHOLD:
            out["score_threshold"] = self.score_threshold
        return out


@dataclass(frozen=True)
class PseudonymizeColumn:
    method: str  # "hmac" or "token"
    key_env: str | None = None
    length: int = 16
    prefix: str = ""
    digits: int = 4
    casefold: bool = False


@dataclass(frozen=True)
class PseudonymizeConfig:
    """A validated ``pseudonymize`` section: one method per column."""

    columns: Mapping[str, PseudonymizeColumn]


def _reject_inline_secrets(where: str, raw: Mapping[str, Any], allowed: set[str]) -> None:
    for key in raw:
        if (
            key not in allowed
            and not str(key).endswith("_env")
            and any(w in str(key).lower() for w in _SECRET_WORDS)
        ):
            env = "salt_env" if "salt" in str(key).lower() else "key_env"
            raise ConfigError(
                f"'{where}.{key}': secrets are never read from the configuration file. Put the value in an "
                f'environment variable and name it with {env!r}, e.g. "{env}": "ANON_SECRET".'
            )


def _check_env_name(where: str, value: Any) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise ConfigError(
            f"'{where}' must name an environment variable (letters, digits, underscores), got {value!r}."
        )
    return value


def _check_entity(where: str, value: Any) -> str:
    if not isinstance(value, str) or not ENTITY_NAME.fullmatch(value):
        raise ConfigError(
            f"'{where}' must be an entity type in capitals such as 'PERSON' or 'EMPLOYEE_ID', got {value!r}."
        )
    return value


def _check_strings(where: str, value: Any, allow_empty: bool = True) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"'{where}' must be a list of non-empty strings, got {value!r}.")
    if not value and not allow_empty:
        raise ConfigError(f"'{where}' must not be empty.")
    return tuple(value)


def _validate_operator(where: str, raw: Any) -> OperatorSpec:
    raw = check_mapping(where, raw)
    kind = check_choice(f"{where}.type", raw.get("type"), OPERATOR_TYPES)
    _reject_inline_secrets(where, raw, _OPERATOR_KEYS[kind])
    check_keys(where, raw, _OPERATOR_KEYS[kind])
    if kind == "replace":
        value = raw.get("value")
        if value is not None and (not isinstance(value, str) or not value):
            raise ConfigError(
                f"'{where}.value' must be a non-empty string such as '[NAME]' (to delete the text use "
                f"type 'redact'), got {value!r}."
            )
        fake = check_bool(f"{where}.fake", raw.get("fake", False))
        if fake and value is not None:
            raise ConfigError(
                f"'{where}': give either 'value' (a fixed text) or 'fake': true, not both."
            )
        seed = check_int(f"{where}.seed", raw.get("seed", 0), minimum=0)
        return OperatorSpec("replace", value=value, fake=fake, seed=seed)
    if kind == "mask":
        keep = check_int(f"{where}.keep_last", raw.get("keep_last", 4), minimum=0)
        char = raw.get("char", "*")
        if not isinstance(char, str) or len(char) != 1:
            raise ConfigError(
                f"'{where}.char' must be a single character such as '*', got {char!r}."
            )
        return OperatorSpec("mask", keep_last=keep, char=char)
    if kind == "hash":
        algorithm = check_choice(
            f"{where}.algorithm", raw.get("algorithm", "sha256"), ("sha256", "sha512")
        )
        if "salt_env" not in raw:
            raise ConfigError(
                f"'{where}.salt_env' is missing: a hash needs a salt (at least {MIN_SALT_BYTES} bytes) from an "
                'environment variable, e.g. "salt_env": "ANON_SALT"; unsalted hashes of names or phone numbers '
                "are reversed by trying all values."
            )
        return OperatorSpec(
            "hash",
            algorithm=algorithm,
            salt_env=_check_env_name(f"{where}.salt_env", raw["salt_env"]),
        )
    if kind == "encrypt":
        if "key_env" not in raw:
            raise ConfigError(
                f"'{where}.key_env' is missing: name the environment variable holding the AES key "
                '(16, 24 or 32 bytes), e.g. "key_env": "ANON_AES_KEY".'
            )
        return OperatorSpec("encrypt", key_env=_check_env_name(f"{where}.key_env", raw["key_env"]))
    return OperatorSpec(kind)


def _validate_recognizer(where: str, raw: Any) -> RecognizerSpec:
    raw = check_mapping(where, raw)
    check_keys(where, raw, _RECOGNIZER_KEYS)
    for key in ("name", "entity", "regex"):
        if key not in raw:
            raise ConfigError(
                f"'{where}.{key}' is missing: a recognizer needs a name, an entity and a regex, e.g. "
                '{"name": "employee id", "entity": "EMPLOYEE_ID", "regex": "EMP-\\\\d{5}"}.'
            )
    name = raw["name"]
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"'{where}.name' must be a non-empty string, got {name!r}.")
    entity = _check_entity(f"{where}.entity", raw["entity"])
    patterns = (
        (raw["regex"],)
        if isinstance(raw["regex"], str)
        else _check_strings(f"{where}.regex", raw["regex"], allow_empty=False)
    )
    for i, pattern in enumerate(patterns):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(
                f"'{where}.regex' {pattern!r} is not a valid regular expression ({exc}); escape backslashes in "
                'JSON ("EMP-\\\\d{5}").'
            ) from None
        if re.fullmatch(pattern, ""):
            raise ConfigError(
                f"'{where}.regex[{i}]' {pattern!r} matches the empty string; it would tag every text."
            )
    score = check_float(f"{where}.score", raw.get("score", 0.8), 0.0, 1.0)
    context = _check_strings(f"{where}.context", raw.get("context", []))
    role = check_choice(
        f"{where}.role", raw.get("role", IDENTIFIER), (IDENTIFIER, QUASI_IDENTIFIER)
    )
    return RecognizerSpec(
        name.strip(), entity, patterns=patterns, score=score, context=context, role=role
    )


def validate_text_section(raw: Any) -> TextConfig:
    """Validate the configuration's ``text`` section (raise ConfigError naming the field).

    ``{"columns": ["notes"], "operators": {"DEFAULT": {"type": "replace"}, "PERSON": {"type": "replace",
    "fake": true, "seed": 7}, "PHONE_NUMBER": {"type": "mask", "keep_last": 4}, "US_SSN": {"type": "hash",
    "salt_env": "ANON_SALT"}, "CREDIT_CARD": {"type": "encrypt", "key_env": "ANON_AES_KEY"}},
    "allow_list": ["Boston"], "deny_list": {"PERSON": ["Dr. Who"]}, "recognizers": [{"name": "employee id",
    "entity": "EMPLOYEE_ID", "regex": "EMP-\\\\d{5}", "score": 0.9, "context": ["employee"]}],
    "score_threshold": 0.35}``
    """
    raw = check_mapping("text", raw)
    check_keys("text", raw, _TEXT_KEYS)
    if "columns" not in raw:
        raise ConfigError(
            "'text.columns' is missing: list the free-text columns to de-identify, e.g. [\"notes\"]."
        )
    columns = _check_strings("text.columns", raw["columns"], allow_empty=False)
    operators = {
        (
            "DEFAULT" if entity == "DEFAULT" else _check_entity(f"text.operators.{entity}", entity)
        ): _validate_operator(f"text.operators.{entity}", spec)
        for entity, spec in check_mapping("text.operators", raw.get("operators", {})).items()
    }
    allow = _check_strings("text.allow_list", raw.get("allow_list", []))
    deny_raw = check_mapping("text.deny_list", raw.get("deny_list", {}))
    deny = {
        _check_entity(f"text.deny_list.{entity}", entity): _check_strings(
            f"text.deny_list.{entity}", words, allow_empty=False
        )
        for entity, words in deny_raw.items()
    }
    recognizers_raw = raw.get("recognizers", [])
    if not isinstance(recognizers_raw, list):
        raise ConfigError(
            f"'text.recognizers' must be a list of recognizers, got {type(recognizers_raw).__name__}."
        )
    recognizers = tuple(
        _validate_recognizer(f"text.recognizers[{i}]", r) for i, r in enumerate(recognizers_raw)
    )
    entities = None
    if "entities" in raw:
        entities = tuple(
            _check_entity(f"text.entities[{i}]", e)
            for i, e in enumerate(
                _check_strings("text.entities", raw["entities"], allow_empty=False)
            )
        )
    threshold = check_float(
        "text.score_threshold", raw.get("score_threshold", DEFAULT_SCORE_THRESHOLD), 0.0, 1.0
    )
    return TextConfig(
        columns=columns,
        operators=operators,
        allow_list=allow,
        deny_list=deny,
        recognizers=recognizers,
        entities=entities,
        score_threshold=threshold,
    )


def validate_pseudonymize_section(raw: Any) -> PseudonymizeConfig:
    """Validate the configuration's ``pseudonymize`` section.

    ``{"columns": {"patient_name": {"method": "hmac", "key_env": "ANON_HMAC_KEY", "length": 16,
    "prefix": "P_"}, "email": {"method": "token", "prefix": "EMAIL_", "digits": 4}}}``
    """
    raw = check_mapping("pseudonymize", raw)
    check_keys("pseudonymize", raw, _PSEUDO_KEYS)
    if "columns" not in raw:
        raise ConfigError(
            "'pseudonymize.columns' is missing: map each identifier column to a method, e.g. "
            '{"email": {"method": "hmac", "key_env": "ANON_HMAC_KEY"}}.'
        )
    cols = check_mapping("pseudonymize.columns", raw["columns"])
    if not cols:
        raise ConfigError(
            "'pseudonymize.columns' is empty: name at least one column, or drop the section."
        )
    out = {}
    for name, spec in cols.items():
        where = f"pseudonymize.columns.{name}"
        spec = check_mapping(where, spec)
        method = check_choice(f"{where}.method", spec.get("method"), tuple(_PSEUDO_COLUMN_KEYS))
        _reject_inline_secrets(where, spec, _PSEUDO_COLUMN_KEYS[method])
        check_keys(where, spec, _PSEUDO_COLUMN_KEYS[method])
        prefix = spec.get("prefix", "" if method == "hmac" else f"{str(name).upper()}_")
        if not isinstance(prefix, str):
            raise ConfigError(
                f"'{where}.prefix' must be a string such as 'PERSON_', got {prefix!r}."
            )
        casefold = check_bool(f"{where}.casefold", spec.get("casefold", False))
        if method == "hmac":
            if "key_env" not in spec:
                raise ConfigError(
                    f"'{where}.key_env' is missing: name the environment variable holding the HMAC key "
                    f'(at least {MIN_HMAC_KEY_BYTES} bytes), e.g. "key_env": "ANON_HMAC_KEY".'
                )
            out[str(name)] = PseudonymizeColumn(
                "hmac",
                key_env=_check_env_name(f"{where}.key_env", spec["key_env"]),
                length=check_int(f"{where}.length", spec.get("length", 16), minimum=16, maximum=64),
                prefix=prefix,
                casefold=casefold,
            )
        else:
            out[str(name)] = PseudonymizeColumn(
                "token",
                prefix=prefix,
                digits=check_int(f"{where}.digits", spec.get("digits", 4), 1, 12),
                casefold=casefold,
            )
    return PseudonymizeConfig(columns=out)


def read_secret(env: str, where: str, secrets: Mapping[str, str] | None) -> bytes:
    source = os.environ if secrets is None else secrets
    value = source.get(env)
    if not value:
        raise ConfigError(
            f"'{where}' names the environment variable {env!r}, which is not set. Set it before running "
            f"(export {env}=...); the value is never stored in the configuration."
        )
    return value.encode("utf-8")


def check_columns(where: str, names: Iterable[str], frame: pd.DataFrame) -> None:
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise ConfigError(
            f"'{where}' names {missing}, which are not columns of the table. Columns are: {list(map(str, frame.columns))}."
        )
