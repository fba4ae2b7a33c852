"""PII discovery, free-text de-identification and pseudonymization of identifiers.

Three steps, each usable alone, all offline (see :mod:`anon_core.pii.engine`):

* :func:`scan_table` samples each column (default 100 non-missing values, a fixed
  ``random_state``), runs Presidio's analyzer over the distinct sampled values in
  one ``nlp.pipe`` batch per column (the column name is passed as context words,
  as Presidio's ``BatchAnalyzerEngine.analyze_dict`` does with keys) and proposes a
  role: *identifier* for names, e-mails, phones, SSNs, cards, IBANs, IPs, street
  addresses...; *quasi-identifier* for dates, ZIP codes, places, ages, sex/gender;
  *insensitive* for free text (with the PII it contains, to de-identify it). The
  report holds entity types, shares and scores, never a cell value.
* :func:`apply_text_deidentification` rewrites text columns with
  presidio-anonymizer operators chosen per entity type (replace by a tag, a text or
  a deterministic format-valid fake; redact; mask all but the last n characters;
  salted SHA-256/512; AES encryption; keep), with allow and deny lists and custom
  regex recognizers.
* :func:`apply_pseudonymization` replaces identifier columns by keyed HMAC-SHA256
  tokens or by sequential tokens in first-appearance order. The reversible mapping
  is returned only when asked for (``return_mapping=True``); it is never logged.

Secrets (hash salt, HMAC key, AES key) are never part of a configuration: the
configuration names environment variables (``"key_env": "ANON_HMAC_KEY"``) and the
values come from ``secrets`` (default ``os.environ``) at the moment they are used.
No secret, and no cell value, is written to a log or a report.

Sources: Presidio documentation (analyzer, anonymizer operators
https://microsoft.github.io/presidio/anonymizer/, batch processing, ad-hoc
recognizers, allow lists); HIPAA Safe Harbor list of identifiers (45 CFR
164.514(b)(2)) for which entity types are direct identifiers and which are
quasi-identifiers; RFC 2104 (HMAC); NIST SP 800-107r1 (HMAC key length and
truncation).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from anon_core.errors import ConfigError, PrivacyWarning
from anon_core.pii.engine import (
    BUILTIN_RECOGNIZERS,
    DEFAULT_MODEL,
    ENTITY_NAME,
    PiiEngine,
    RecognizerSpec,
    build_recognizers,
    load_engine,
    quiet_presidio_loggers,
)
from anon_core.pii.fake import fake_value, hmac_token
from anon_core.validation import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_keys,
    check_mapping,
)

if TYPE_CHECKING:
    from anon_core.config import ReleaseConfig

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_MODEL",
    "IDENTIFIER_ENTITIES",
    "OPERATOR_TYPES",
    "QUASI_IDENTIFIER_ENTITIES",
    "ColumnScan",
    "OperatorSpec",
    "PseudonymizeColumn",
    "PseudonymizeConfig",
    "RecognizerSpec",
    "ScanReport",
    "Span",
    "TextConfig",
    "TextResult",
    "apply_pseudonymization",
    "apply_release_sections",
    "apply_text_deidentification",
    "deidentify_texts",
    "decrypt_value",
    "highlight_segments",
    "text_section",
    "load_engine",
    "scan_report_dict",
    "scan_table",
    "validate_pseudonymize_section",
    "validate_text_section",
]

#: Entity types that identify a person directly (HIPAA Safe Harbor identifiers).
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
    }
)
#: Entity types an attacker can link on (dates, small geographic units, age, sex).
QUASI_IDENTIFIER_ENTITIES = frozenset({"DATE_TIME", "ZIP_CODE", "LOCATION", "AGE", "GENDER", "NRP"})

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


def _secret(env: str, where: str, secrets: Mapping[str, str] | None) -> bytes:
    source = os.environ if secrets is None else secrets
    value = source.get(env)
    if not value:
        raise ConfigError(
            f"'{where}' names the environment variable {env!r}, which is not set. Set it before running "
            f"(export {env}=...); the value is never stored in the configuration."
        )
    return value.encode("utf-8")


def _check_columns(where: str, names: Iterable[str], frame: pd.DataFrame) -> None:
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise ConfigError(
            f"'{where}' names {missing}, which are not columns of the table. Columns are: {list(map(str, frame.columns))}."
        )


# =============================================================================== spans and overlaps
@dataclass(frozen=True)
class Span:
    start: int
    end: int
    entity: str
    score: float = 0.0
    operator: str | None = None


_NUMBER_WORDS = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|several|few|many|the)"
_DURATION = re.compile(
    r"(?:(?:the\s+)?(?:last|past|next|following|previous|same)\s+)?(?:"
    + _NUMBER_WORDS
    + r"[\s-]+)*(?:more\s+)?"
    r"(?:days?|weeks?|months?|years?|hours?|minutes?|nights?|decades?)(?:[\s-]+(?:ago|later|earlier|old))?"
    r"|today|tonight|yesterday|tomorrow|daily|weekly|monthly|yearly|annually|now|overnight|morning|evening|night",
    re.IGNORECASE,
)
_IP_SHAPE = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_DATE_SHAPE = re.compile(r"[A-Za-z]|\d[/.:-]\d|\b(?:1[89]|20)\d\d\b")


def _plausible(span: Span, text: str) -> bool:
    """Drop the statistical model's DATE_TIME hits that are not dates of a person.

    spaCy's DATE label also covers durations and relative times ("7 days", "today",
    "45-year-old") and tags bare codes such as ZIP codes or IP addresses; HIPAA Safe
    Harbor counts only dates (and ages over 89) as identifying, so these are not
    reported. A name, place or nationality without a single letter (the small model
    sometimes calls "06/29/2024" a place) is not one either.
    """
    value = text[span.start : span.end].strip()
    if span.entity in ("PERSON", "LOCATION", "NRP"):
        return any(c.isalpha() for c in value)
    if span.entity != "DATE_TIME":
        return True
    return (
        not _DURATION.fullmatch(value)
        and not _IP_SHAPE.fullmatch(value)
        and bool(_DATE_SHAPE.search(value))
    )


def resolve_overlaps(results: Iterable[Any], text: str | None = None) -> list[Span]:
    """Non-overlapping spans: contained spans dropped, then the higher score (longer on ties) wins.

    Mirrors presidio-anonymizer's conflict handling (contained results removed,
    intersections resolved by score) but drops instead of trimming. With ``text``,
    implausible DATE_TIME hits are removed first (:func:`_plausible`).
    """
    spans = [Span(r.start, r.end, r.entity_type, float(r.score)) for r in results]
    if text is not None:
        spans = [s for s in spans if _plausible(s, text)]
    spans.sort(key=lambda s: (-(s.end - s.start), -s.score, s.start))
    kept: list[Span] = []
    for span in spans:
        clash = [k for k in kept if span.start < k.end and k.start < span.end]
        if not clash:
            kept.append(span)
        elif all(k.start <= span.start and span.end <= k.end for k in clash):
            continue  # contained in a longer span
        elif all(span.score > k.score for k in clash):
            kept = [k for k in kept if k not in clash] + [span]
    return sorted(kept, key=lambda s: s.start)


# =============================================================================== scan
@dataclass(frozen=True)
class ColumnScan:
    """What the scan found in one column: no cell values, only types, shares and scores."""

    name: str
    sampled: int
    entities: dict[str, float]  # entity type -> share of sampled values containing it
    entity_scores: dict[str, float]  # entity type -> mean score
    suggested_role: str | None
    score: float
    reason: str
    free_text: bool
    entity: str | None = None  # the entity that decided the role


@dataclass(frozen=True)
class ScanReport:
    columns: dict[str, ColumnScan]
    sample_size: int
    random_state: int
    nlp_loaded: bool
    notice: str | None
    seconds: float

    def proposed_roles(self) -> dict[str, str]:
        """Columns with a proposal and the role proposed."""
        return {
            n: c.suggested_role for n, c in self.columns.items() if c.suggested_role is not None
        }


def _role_of(entity: str, custom_roles: Mapping[str, str]) -> str | None:
    if entity in custom_roles:
        return custom_roles[entity]
    if entity in IDENTIFIER_ENTITIES:
        return IDENTIFIER
    if entity in QUASI_IDENTIFIER_ENTITIES:
        return QUASI_IDENTIFIER
    return None


def _context_words(column: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", str(column).lower()) if w]


def _sample(series: pd.Series, sample_size: int, random_state: int) -> pd.Series:
    values = series.dropna()
    if values.dtype == object:
        values = values[values.astype(str).str.strip() != ""]
    if len(values) > sample_size:
        values = values.sample(n=sample_size, random_state=random_state)
    return values.astype(str)


def _scan_column(
    name: str,
    values: pd.Series,
    engine: PiiEngine,
    ad_hoc: list[Any],
    custom_roles: Mapping[str, str],
    score_threshold: float,
    min_share: float,
    batch_size: int,
) -> ColumnScan:
    n = len(values)
    if n == 0:
        return ColumnScan(name, 0, {}, {}, None, 0.0, "no values to scan (all missing)", False)
    counts = values.value_counts(sort=False)
    distinct = [str(v) for v in counts.index]
    weights = counts.to_numpy()
    results = engine.analyze_batch(
        distinct,
        context=_context_words(name),
        ad_hoc=ad_hoc,
        score_threshold=score_threshold,
        batch_size=batch_size,
    )
    found: dict[str, float] = {}
    scores: dict[str, list[float]] = {}
    dominant: dict[str, float] = {}
    dominant_scores: dict[str, list[float]] = {}
    lengths = words = 0.0
    for text, weight, res in zip(distinct, weights, results, strict=True):
        stripped = text.strip()
        lengths += weight * len(stripped)
        words += weight * len(stripped.split())
        spans = resolve_overlaps(res, text)
        for entity in {s.entity for s in spans}:
            found[entity] = found.get(entity, 0.0) + weight
        for s in spans:
            scores.setdefault(s.entity, []).append(s.score)
        if spans:
            best = max(spans, key=lambda s: (s.end - s.start, s.score))
            coverage = (best.end - best.start) / max(len(stripped), 1)
            if coverage >= 0.5:
                dominant[best.entity] = dominant.get(best.entity, 0.0) + weight
                dominant_scores.setdefault(best.entity, []).append(best.score)
    free_text = bool(
        lengths / n > 30 and words / n >= 4
    )  # anon_core.data.io.infer_kind's rule for TEXT
    shares = {
        e: round(float(c) / n, 4) for e, c in sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))
    }
    mean_scores = {e: round(float(sum(v)) / len(v), 4) for e, v in scores.items()}
    ranked = sorted(
        ((c, e) for e, c in dominant.items() if _role_of(e, custom_roles)), reverse=True
    )
    if ranked and ranked[0][0] / n >= min_share:
        count, entity = ranked[0]
        role = _role_of(entity, custom_roles)
        score = sum(dominant_scores[entity]) / len(dominant_scores[entity])
        reason = f"{entity} makes up {float(count) / n:.0%} of {n} sampled values (mean score {score:.2f})"
        return ColumnScan(
            name, n, shares, mean_scores, role, round(score, 4), reason, free_text, entity
        )
    pii = {e: s for e, s in shares.items() if _role_of(e, custom_roles)}
    if free_text:
        if pii:
            listing = ", ".join(f"{e} {s:.0%}" for e, s in list(pii.items())[:4])
            top = next(iter(pii))
            reason = (
                f"free text containing PII ({listing}): keep it only de-identified (text section)"
            )
            return ColumnScan(
                name, n, shares, mean_scores, INSENSITIVE, mean_scores[top], reason, True, top
            )
        return ColumnScan(
            name,
            n,
            shares,
            mean_scores,
            INSENSITIVE,
            0.0,
            "free text; no PII found in the sample",
            True,
        )
    if pii:
        top = next(iter(pii))
        reason = f"no entity dominates (most frequent: {top} in {pii[top]:.0%} of values, below {min_share:.0%})"
    else:
        reason = "no personal data recognised in the sample"
    return ColumnScan(name, n, shares, mean_scores, None, 0.0, reason, free_text)


def scan_table(
    frame: pd.DataFrame,
    sample_size: int = 100,
    random_state: int = 0,
    *,
    columns: Sequence[str] | None = None,
    score_threshold: float = DEFAULT_SCORE_THRESHOLD,
    min_share: float = 0.3,
    recognizers: Sequence[RecognizerSpec] = (),
    model: str | None = DEFAULT_MODEL,
    engine: PiiEngine | None = None,
    batch_size: int = 128,
) -> ScanReport:
    """Scan a sample of every column for PII and propose a role per column.

    Only ``sample_size`` non-missing values per column are analysed (drawn with
    ``random_state``, so the same table gives the same report); identical sampled
    values are analysed once. A column whose values are mostly one entity (the
    entity covering at least half of a value, in at least ``min_share`` of the
    sampled values) gets that entity's role; free text gets *insensitive* and the
    PII it contains; otherwise no proposal (``None``).
    """
    sample_size = check_int("sample_size", sample_size, minimum=1)
    random_state = check_int("random_state", random_state, minimum=0)
    score_threshold = check_float("score_threshold", score_threshold, 0.0, 1.0)
    min_share = check_float("min_share", min_share, 0.0, 1.0, min_inclusive=False)
    if columns is not None:
        _check_columns("columns", columns, frame)
    started = time.perf_counter()
    engine = engine or load_engine(model)
    if engine.notice:
        warnings.warn(engine.notice, PrivacyWarning, stacklevel=2)
    ad_hoc = build_recognizers(recognizers)
    custom_roles = {r.entity: r.role for r in recognizers}
    out = {}
    for col in columns if columns is not None else list(frame.columns):
        values = _sample(frame[col], sample_size, random_state)
        out[str(col)] = _scan_column(
            str(col), values, engine, ad_hoc, custom_roles, score_threshold, min_share, batch_size
        )
    seconds = time.perf_counter() - started
    log.info("PII scan of %d columns (sample %d) in %.2f s", len(out), sample_size, seconds)
    return ScanReport(out, sample_size, random_state, engine.nlp_loaded, engine.notice, seconds)


def scan_report_dict(report: ScanReport) -> dict[str, Any]:
    """``{"columns": {name: {"entities": {type: share}, "suggested_role": role, "score": float, ...}}}``.

    Extra keys per column: ``entity_scores`` (mean score per type), ``entity`` (the
    one that decided), ``reason``, ``sampled``, ``free_text``. No cell values.
    """
    return {
        "columns": {
            name: {
                "entities": dict(c.entities),
                "suggested_role": c.suggested_role,
                "score": float(c.score),
                "entity_scores": dict(c.entity_scores),
                "entity": c.entity,
                "reason": c.reason,
                "sampled": c.sampled,
                "free_text": bool(c.free_text),
            }
            for name, c in report.columns.items()
        }
    }


# =============================================================================== text de-identification
@dataclass(frozen=True)
class TextResult:
    """One de-identified text: the spans found in the original and where their replacements sit."""

    original: str
    text: str
    found: tuple[Span, ...]
    replaced: tuple[Span, ...]


def _mask_keep_last(char: str, keep: int):
    def mask(value: str) -> str:
        kept = value[-keep:] if keep else ""
        return char * (len(value) - len(kept)) + kept

    return mask


def _operator_config(
    entity: str, spec: OperatorSpec, where: str, secrets: Mapping[str, str] | None
) -> Any:
    from presidio_anonymizer.entities import OperatorConfig

    if spec.type == "replace":
        if spec.fake:
            seed = spec.seed
            return OperatorConfig(
                "custom", {"lambda": lambda value: fake_value(entity, value, seed)}
            )
        # without a value presidio's replace writes the tag "<ENTITY_TYPE>"
        return OperatorConfig("replace", {} if spec.value is None else {"new_value": spec.value})
    if spec.type == "mask":
        return OperatorConfig("custom", {"lambda": _mask_keep_last(spec.char, spec.keep_last)})
    if spec.type == "hash":
        salt = _secret(str(spec.salt_env), f"{where}.salt_env", secrets)
        if len(salt) < MIN_SALT_BYTES:
            raise ConfigError(
                f"'{where}.salt_env': the salt in {spec.salt_env!r} has {len(salt)} bytes; use at least "
                f"{MIN_SALT_BYTES} (e.g. 32 random hex characters)."
            )
        return OperatorConfig("hash", {"hash_type": spec.algorithm, "salt": salt})
    if spec.type == "encrypt":
        key = _secret(str(spec.key_env), f"{where}.key_env", secrets)
        if len(key) not in AES_KEY_BYTES:
            raise ConfigError(
                f"'{where}.key_env': the AES key in {spec.key_env!r} has {len(key)} bytes; it must have 16, 24 or "
                "32 (AES-128/192/256)."
            )
        return OperatorConfig("encrypt", {"key": key})
    return OperatorConfig(spec.type, {})


def _operators(
    cfg: TextConfig, entities: Iterable[str], secrets: Mapping[str, str] | None
) -> dict[str, Any]:
    ops = {
        "DEFAULT": _operator_config(
            "DEFAULT", cfg.default_operator, "text.operators.DEFAULT", secrets
        )
    }
    for entity in entities:
        if entity in cfg.operators and entity != "DEFAULT":
            ops[entity] = _operator_config(
                entity, cfg.operators[entity], f"text.operators.{entity}", secrets
            )
        elif cfg.default_operator.type == "replace" and cfg.default_operator.fake:
            ops[entity] = _operator_config(
                entity, cfg.default_operator, "text.operators.DEFAULT", secrets
            )
    return ops


def deidentify_texts(
    texts: Sequence[str],
    cfg: TextConfig,
    secrets: Mapping[str, str] | None = None,
    *,
    engine: PiiEngine | None = None,
    batch_size: int = 64,
) -> list[TextResult]:
    """De-identify ``texts`` (analysed in one spaCy batch) with the configured operators."""
    from presidio_anonymizer import AnonymizerEngine
    from presidio_anonymizer.entities import ConflictResolutionStrategy, RecognizerResult

    quiet_presidio_loggers()
    engine = engine or load_engine(DEFAULT_MODEL)
    specs = cfg.ad_hoc_specs()
    entities = set(engine.entities) | {s.entity for s in specs}
    operators = _operators(cfg, sorted(entities), secrets)  # secrets checked before any work
    wanted = None if cfg.entities is None else list(cfg.entities)
    unknown = sorted(set(wanted or ()) - entities)
    if unknown:
        raise ConfigError(
            f"'text.entities' names {unknown}, which no recognizer finds. Known entity types: {sorted(entities)}; "
            "add a recognizer (text.recognizers) or a deny list for a new type."
        )
    results = engine.analyze_batch(
        list(texts),
        ad_hoc=build_recognizers(specs),
        allow_list=cfg.allow_list,
        score_threshold=cfg.score_threshold,
        entities=wanted,
        batch_size=batch_size,
    )
    anonymizer = AnonymizerEngine()
    out = []
    for text, res in zip(texts, results, strict=True):
        spans = resolve_overlaps(res, text)
        if not spans:
            out.append(TextResult(text, text, (), ()))
            continue
        done = anonymizer.anonymize(
            text=text,
            analyzer_results=[RecognizerResult(s.entity, s.start, s.end, s.score) for s in spans],
            operators=operators,
            conflict_resolution=ConflictResolutionStrategy.REMOVE_INTERSECTIONS,
        )
        replaced = tuple(
            sorted(
                (Span(i.start, i.end, i.entity_type, 0.0, i.operator) for i in done.items),
                key=lambda s: s.start,
            )
        )
        out.append(TextResult(text, done.text, tuple(spans), replaced))
    return out


def apply_text_deidentification(
    frame: pd.DataFrame,
    text_cfg: TextConfig,
    secrets: Mapping[str, str] | None = None,
    *,
    engine: PiiEngine | None = None,
    batch_size: int = 64,
) -> pd.DataFrame:
    """A copy of ``frame`` with every ``text_cfg.columns`` value de-identified (missing values kept).

    Each distinct value is analysed once, in batches through spaCy's ``nlp.pipe``.
    """
    _check_columns("text.columns", text_cfg.columns, frame)
    engine = engine or load_engine(DEFAULT_MODEL)
    if engine.notice:
        warnings.warn(engine.notice, PrivacyWarning, stacklevel=2)
    out = frame.copy()
    started = time.perf_counter()
    for col in text_cfg.columns:
        series = frame[col]
        present = series.notna()
        distinct = pd.unique(series[present].astype(str))
        done = deidentify_texts(
            list(distinct), text_cfg, secrets, engine=engine, batch_size=batch_size
        )
        mapping = {r.original: r.text for r in done}
        column = series.astype(object).copy()
        column[present] = series[present].astype(str).map(mapping)
        out[col] = column
        log.info(
            "de-identified column %r: %d distinct values, %d with PII",
            col,
            len(done),
            sum(1 for r in done if r.found),
        )
    log.info(
        "text de-identification of %d rows in %.2f s", len(frame), time.perf_counter() - started
    )
    return out


def highlight_segments(text: str, spans: Sequence[Span]) -> list[tuple[str, str | None]]:
    """``text`` cut into ``(piece, entity or None)`` in order, for showing found or replaced spans."""
    out: list[tuple[str, str | None]] = []
    at = 0
    for s in sorted(spans, key=lambda s: s.start):
        if s.start < at:
            continue
        if s.start > at:
            out.append((text[at : s.start], None))
        out.append((text[s.start : s.end], s.entity))
        at = s.end
    if at < len(text):
        out.append((text[at:], None))
    return out


def decrypt_value(token: str, key: str | bytes) -> str:
    """Reverse the ``encrypt`` operator with the same AES key (presidio-anonymizer's AES-CBC)."""
    from presidio_anonymizer.operators.aes_cipher import AESCipher

    return AESCipher.decrypt(key.encode("utf-8") if isinstance(key, str) else key, token)


# =============================================================================== pseudonymization
def apply_pseudonymization(
    frame: pd.DataFrame,
    cfg: PseudonymizeConfig,
    secrets: Mapping[str, str] | None = None,
    *,
    return_mapping: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """A copy of ``frame`` with each configured column replaced by consistent pseudonyms.

    ``hmac``: prefix + HMAC-SHA256(key, value) in hex, ``length`` digits (the same
    value gets the same token in every release made with the same key). ``token``:
    prefix + a counter in first-appearance order (``EMAIL_0001``; consistent within
    the release). Missing values stay missing. With ``return_mapping=True`` also
    returns the reversible mapping (``column, original, pseudonym``): keep it apart
    from the release; it is never logged.
    """
    _check_columns("pseudonymize.columns", cfg.columns, frame)
    keys = {
        col: _secret(str(spec.key_env), f"pseudonymize.columns.{col}.key_env", secrets)
        for col, spec in cfg.columns.items()
        if spec.method == "hmac"
    }
    for col, key in keys.items():
        if len(key) < MIN_HMAC_KEY_BYTES:
            raise ConfigError(
                f"'pseudonymize.columns.{col}.key_env': the key in {cfg.columns[col].key_env!r} has {len(key)} "
                f"bytes; use at least {MIN_HMAC_KEY_BYTES} (e.g. 32 random hex characters)."
            )
    out = frame.copy()
    maps = []
    for col, spec in cfg.columns.items():
        series = frame[col]
        present = series.notna()
        values = series[present].astype(str).str.strip()
        if spec.casefold:
            values = values.str.casefold()
        distinct = pd.unique(values)
        if spec.method == "hmac":
            tokens = {v: hmac_token(v, keys[col], spec.length, spec.prefix) for v in distinct}
        else:
            width = max(spec.digits, len(str(len(distinct))))
            tokens = {v: f"{spec.prefix}{i:0{width}d}" for i, v in enumerate(distinct, start=1)}
        column = series.astype(object).copy()
        column[present] = values.map(tokens)
        out[col] = column
        log.info("pseudonymized column %r (%s): %d distinct values", col, spec.method, len(tokens))
        if return_mapping:
            maps.append(
                pd.DataFrame(
                    {"column": col, "original": list(tokens), "pseudonym": list(tokens.values())}
                )
            )
    if return_mapping:
        mapping = (
            pd.concat(maps, ignore_index=True)
            if maps
            else pd.DataFrame(columns=["column", "original", "pseudonym"])
        )
        return out, mapping
    return out


# =============================================================================== release integration
def apply_release_sections(
    frame: pd.DataFrame,
    config: ReleaseConfig,
    secrets: Mapping[str, str] | None = None,
    *,
    return_mapping: bool = False,
) -> tuple[pd.DataFrame, ReleaseConfig] | tuple[pd.DataFrame, ReleaseConfig, pd.DataFrame]:
    """Apply the configuration's ``text`` then ``pseudonymize`` sections to the input table.

    Returns the rewritten table and the configuration to build the ``Problem`` from:
    pseudonymized columns whose role is *identifier* become *insensitive* there, so
    their pseudonyms are released instead of the column being dropped. With
    ``return_mapping=True`` the pseudonym mapping comes third (empty without a
    ``pseudonymize`` section); write it only where the user asked for it.
    """
    sections = config.sections
    mapping = pd.DataFrame(columns=["column", "original", "pseudonym"])
    if "text" in sections:
        frame = apply_text_deidentification(frame, validate_text_section(sections["text"]), secrets)
    if "pseudonymize" in sections:
        from anon_core.data.dataset import Role

        pcfg = validate_pseudonymize_section(sections["pseudonymize"])
        if return_mapping:
            frame, mapping = apply_pseudonymization(frame, pcfg, secrets, return_mapping=True)
        else:
            frame = apply_pseudonymization(frame, pcfg, secrets)
        roles = dict(config.roles)
        for col in pcfg.columns:
            if roles.get(col) == Role.IDENTIFIER:
                roles[col] = Role.INSENSITIVE
        config = dataclasses.replace(config, roles=roles)
    if return_mapping:
        return frame, config, mapping
    return frame, config


def text_section(
    columns: Sequence[str],
    operators: Mapping[str, Mapping[str, Any]],
    allow_list: Sequence[str] = (),
    deny_list: Mapping[str, Sequence[str]] | None = None,
    recognizers: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Assemble (and validate) a ``text`` configuration section, e.g. from the dashboard's choices."""
    raw: dict[str, Any] = {
        "columns": list(columns),
        "operators": {k: dict(v) for k, v in operators.items()},
    }
    if allow_list:
        raw["allow_list"] = list(allow_list)
    if deny_list:
        raw["deny_list"] = {k: list(v) for k, v in deny_list.items()}
    if recognizers:
        raw["recognizers"] = [dict(r) for r in recognizers]
    return validate_text_section(raw).to_dict()


BUILTIN_ENTITY_TYPES = tuple(
    sorted(
        IDENTIFIER_ENTITIES | QUASI_IDENTIFIER_ENTITIES | {r.entity for r in BUILTIN_RECOGNIZERS}
    )
)
