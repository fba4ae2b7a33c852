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
  salted SHA-256/512; deterministic AES-SIV encryption; keep), with allow and deny lists and custom
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

Modules: :mod:`~anon_core.pii.settings` (the validated sections),
:mod:`~anon_core.pii.scan` (discovery), :mod:`~anon_core.pii.text` (free text),
:mod:`~anon_core.pii.pseudonymize` (identifier columns and the release integration),
:mod:`~anon_core.pii.engine` (Presidio, offline) and :mod:`~anon_core.pii.fake`.
"""

from anon_core.pii.engine import DEFAULT_MODEL, RecognizerSpec, load_engine
from anon_core.pii.pseudonymize import (
    BUILTIN_ENTITY_TYPES,
    apply_pseudonymization,
    apply_release_sections,
    text_section,
)
from anon_core.pii.residual import ResidualCheck, residual_identifiers
from anon_core.pii.scan import (
    ColumnScan,
    ScanReport,
    Span,
    lowers_protection,
    scan_report_dict,
    scan_table,
)
from anon_core.pii.settings import (
    IDENTIFIER_ENTITIES,
    OPERATOR_TYPES,
    QUASI_IDENTIFIER_ENTITIES,
    OperatorSpec,
    PseudonymizeColumn,
    PseudonymizeConfig,
    TextConfig,
    validate_pseudonymize_section,
    validate_text_section,
)
from anon_core.pii.text import (
    TEXT_MISS_RATE,
    TextResult,
    apply_text_deidentification,
    decrypt_text,
    decrypt_value,
    deidentify_texts,
    encrypt_value,
    highlight_segments,
)

__all__ = [
    "BUILTIN_ENTITY_TYPES",
    "DEFAULT_MODEL",
    "IDENTIFIER_ENTITIES",
    "OPERATOR_TYPES",
    "QUASI_IDENTIFIER_ENTITIES",
    "TEXT_MISS_RATE",
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
    "decrypt_text",
    "decrypt_value",
    "deidentify_texts",
    "encrypt_value",
    "highlight_segments",
    "load_engine",
    "scan_report_dict",
    "scan_table",
    "lowers_protection",
    "ResidualCheck",
    "residual_identifiers",
    "text_section",
    "validate_pseudonymize_section",
    "validate_text_section",
]
