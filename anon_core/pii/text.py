"""Free-text de-identification with presidio-anonymizer operators (deterministic AES-SIV encryption)."""

from __future__ import annotations

import base64
import binascii
import logging
import re
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from anon_core.errors import ConfigError, PrivacyWarning
from anon_core.pii.engine import (
    DEFAULT_MODEL,
    PiiEngine,
    build_recognizers,
    load_engine,
    quiet_presidio_loggers,
)
from anon_core.pii.fake import fake_value
from anon_core.pii.gc_pause import fewer_collections
from anon_core.pii.scan import Span, resolve_overlaps
from anon_core.pii.settings import (
    AES_KEY_BYTES,
    MIN_SALT_BYTES,
    OperatorSpec,
    TextConfig,
    check_columns,
    read_secret,
)

log = logging.getLogger(__name__)


#: HKDF context of the encrypt operator's AES-SIV key (changing it changes every token).
SIV_INFO = b"anon-core/pii/encrypt/aes-siv/1"
#: Measured miss rate of the text de-identification (share of labeled entities left in the text):
#: ``benchmarks/bench_pii.py`` on ``sample_data/pii_labeled.csv`` (400 synthetic notes), and the
#: share of words left verbatim on text the recognizers were not tuned on,
#: ``benchmarks/bench_pii_corpus.py`` on Presidio's evaluation corpus, the 1,231 sentences of
#: the 167 templates not looked at while tuning the name recognizers (names 20 of 710 words;
#: phones, cards, e-mails and SSNs 6 of 628). Figures in docs/topics/pii-documents.md.
TEXT_MISS_RATE = {
    "PERSON": 0.012,
    "pattern entities (e-mail, phone, SSN, card, IBAN, IP, URL)": 0.0,
    "English PERSON, unseen text (words left)": 0.028,
    "English phone, card, e-mail, SSN, unseen text (words left)": 0.010,
    "French PERSON, held-out templates (words left)": 0.002,
    "French phone, card, e-mail, NIR, held-out templates (words left)": 0.0,
    "source": "benchmarks/bench_pii.py on sample_data/pii_labeled.csv; English unseen text: "
    "benchmarks/bench_pii_corpus.py on Presidio's evaluation corpus (1,231 sentences of templates "
    "not used for tuning); French: benchmarks/bench_pii_french.py (289 sentences of held-out "
    "templates, names from Faker's lists)",
}


# =============================================================================== text de-identification
@dataclass(frozen=True)
class TextResult:
    """One de-identified text: the spans found in the original and where their replacements sit."""

    original: str
    text: str
    found: tuple[Span, ...]
    replaced: tuple[Span, ...]
    #: ISO code of the language the text was analysed as ("en", "fr", ...).
    language: str = "en"


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
        salt = read_secret(str(spec.salt_env), f"{where}.salt_env", secrets)
        if len(salt) < MIN_SALT_BYTES:
            raise ConfigError(
                f"'{where}.salt_env': the salt in {spec.salt_env!r} has {len(salt)} bytes; use at least "
                f"{MIN_SALT_BYTES} (e.g. 32 random hex characters)."
            )
        return OperatorConfig("hash", {"hash_type": spec.algorithm, "salt": salt})
    if spec.type == "encrypt":
        key = read_secret(str(spec.key_env), f"{where}.key_env", secrets)
        if len(key) not in AES_KEY_BYTES:
            raise ConfigError(
                f"'{where}.key_env': the AES key in {spec.key_env!r} has {len(key)} bytes; it must have 16, 24 or "
                "32 (AES-128/192/256)."
            )
        return OperatorConfig("custom", {"lambda": _encryptor(key)})
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


@fewer_collections()
def deidentify_texts(
    texts: Sequence[str],
    cfg: TextConfig,
    secrets: Mapping[str, str] | None = None,
    *,
    engine: PiiEngine | None = None,
    batch_size: int = 64,
    languages: Sequence[str] | None = None,
    notices: list[str] | None = None,
) -> list[TextResult]:
    """De-identify ``texts`` (analysed in one spaCy batch per language) with the configured operators.

    With ``engine`` every text is analysed by that engine. Without, each text's language is
    detected (or taken from ``languages``) and the text analysed by that language's engine
    (:mod:`anon_core.pii.language`); what fell back (no detector, no French model) is appended
    to ``notices`` when a list is given.
    """
    from presidio_anonymizer import AnonymizerEngine
    from presidio_anonymizer.entities import ConflictResolutionStrategy, RecognizerResult

    from anon_core.pii.language import all_entities, analyze_by_language

    quiet_presidio_loggers()
    specs = cfg.ad_hoc_specs()
    known = engine.entities if engine is not None else all_entities()
    entities = set(known) | {s.entity for s in specs}
    operators = _operators(cfg, sorted(entities), secrets)  # secrets checked before any work
    wanted = None if cfg.entities is None else list(cfg.entities)
    unknown = sorted(set(wanted or ()) - entities)
    if unknown:
        raise ConfigError(
            f"'text.entities' names {unknown}, which no recognizer finds. Known entity types: {sorted(entities)}; "
            "add a recognizer (text.recognizers) or a deny list for a new type."
        )
    if engine is not None:
        results = engine.analyze_batch(
            list(texts),
            ad_hoc=build_recognizers(specs, engine.language),
            allow_list=cfg.allow_list,
            score_threshold=cfg.score_threshold,
            entities=wanted,
            batch_size=batch_size,
        )
        langs = [engine.language] * len(texts)
    else:
        routed = analyze_by_language(
            list(texts),
            specs=specs,
            allow_list=cfg.allow_list,
            score_threshold=cfg.score_threshold,
            entities=wanted,
            batch_size=batch_size,
            languages=languages,
        )
        results, langs = routed.results, routed.languages
        if notices is not None:
            notices.extend(n for n in routed.notices if n not in notices)
    anonymizer = AnonymizerEngine()
    validated: dict[str, Any] = {}
    out = []
    for text, res, lang in zip(texts, results, langs, strict=True):
        spans = resolve_overlaps(res, text)
        if not spans:
            out.append(TextResult(text, text, (), (), lang))
            continue
        fast = replace_spans(anonymizer, text, spans, operators, validated)
        if fast is not None:
            out.append(TextResult(text, fast[0], tuple(spans), fast[1], lang))
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
        out.append(TextResult(text, done.text, tuple(spans), replaced, lang))
    return out


#: presidio-anonymizer's test for the gap between two spans of one type that it merges.
_SPACES_ONLY = re.compile(r"^( )+$")


def replace_spans(
    anonymizer: Any,
    text: str,
    spans: Sequence[Span],
    operators: Mapping[str, Any],
    validated: dict[str, Any],
) -> tuple[str, tuple[Span, ...]] | None:
    """The anonymizer's output for spans already sorted, non-empty and non-overlapping, or None
    for any other input (then presidio-anonymizer's own ``anonymize`` handles it).

    For such spans presidio's conflict steps (same-type merge, contained results, intersections)
    change nothing, so what is left is its merge of same-type neighbours separated only by
    spaces and one operator call per merged span, done here the same way (the same operator
    classes, parameters and validation) without its per-entity copies and string rebuilding.
    ``validated`` keeps, per entity type, the operator already validated with its parameters
    (the same for every span of that type in one run), and for presidio's own ``replace``
    operator, whose output depends on its parameters only (the new value, or the entity type
    in brackets), that output, worked out once."""
    from presidio_anonymizer.operators import OperatorType, Replace

    size = len(text)
    last = 0
    for s in spans:
        if type(s.start) is not int or type(s.end) is not int or not s.entity:
            return None
        if s.start < last or s.end <= s.start or s.end > size:
            return None
        last = s.end
    merged: list[list[Any]] = []
    for s in spans:
        prev = merged[-1] if merged else None
        if (
            prev is not None
            and prev[2] == s.entity
            and _SPACES_ONLY.search(text[prev[1] : s.start])
        ):
            prev[1] = s.end
        else:
            merged.append([s.start, s.end, s.entity])
    news: list[str] = []
    for start, end, entity in reversed(merged):  # presidio's order: the last span first
        op = validated.get(entity)
        if op is None:
            config = operators.get(entity) or operators.get("DEFAULT")
            operator = anonymizer.operators_factory.create_operator_class(
                config.operator_name, OperatorType.Anonymize
            )
            params = dict(config.params, entity_type=entity)
            operator.validate(params=params)
            # Presidio's own "replace" reads only its parameters: one value for every span
            fixed = operator.operate(params=dict(params)) if type(operator) is Replace else None
            op = validated[entity] = (operator, params, config.operator_name, fixed)
        news.append(
            op[3] if op[3] is not None else op[0].operate(params=dict(op[1]), text=text[start:end])
        )
    news.reverse()
    pieces: list[str] = []
    replaced: list[Span] = []
    at = pos = 0
    for (start, end, entity), new in zip(merged, news, strict=True):
        pieces.append(text[at:start])
        pos += start - at
        replaced.append(Span(pos, pos + len(new), entity, 0.0, validated[entity][2]))
        pieces.append(new)
        pos += len(new)
        at = end
    pieces.append(text[at:])
    return "".join(pieces), tuple(replaced)


def apply_text_deidentification(
    frame: pd.DataFrame,
    text_cfg: TextConfig,
    secrets: Mapping[str, str] | None = None,
    *,
    engine: PiiEngine | None = None,
    batch_size: int = 64,
) -> pd.DataFrame:
    """A copy of ``frame`` with every ``text_cfg.columns`` value de-identified (missing values kept).

    Each distinct value is analysed once, in batches through spaCy's ``nlp.pipe``; without
    ``engine``, by the engine of the value's detected language (:mod:`anon_core.pii.language`).
    """
    check_columns("text.columns", text_cfg.columns, frame)
    if engine is None and load_engine(DEFAULT_MODEL).notice:
        warnings.warn(load_engine(DEFAULT_MODEL).notice, PrivacyWarning, stacklevel=2)
    if engine is not None and engine.notice:
        warnings.warn(engine.notice, PrivacyWarning, stacklevel=2)
    notices: list[str] = []
    out = frame.copy()
    started = time.perf_counter()
    for col in text_cfg.columns:
        series = frame[col]
        present = series.notna()
        distinct = pd.unique(series[present].astype(str))
        done = deidentify_texts(
            list(distinct), text_cfg, secrets, engine=engine, batch_size=batch_size, notices=notices
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
    from anon_core.pii.language import NO_DETECTOR

    for notice in notices:  # no detector: all English, as before the routing (not a loss)
        if notice not in (NO_DETECTOR, load_engine(DEFAULT_MODEL).notice):
            warnings.warn(notice, PrivacyWarning, stacklevel=2)
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


def _siv_key(key: bytes) -> bytes:
    """The 64-byte AES-256-SIV key derived from the configured 16/24/32-byte key (HKDF-SHA256, RFC 5869)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=64, salt=None, info=SIV_INFO).derive(key)


def _encryptor(key: bytes):
    from cryptography.hazmat.primitives.ciphers.aead import AESSIV

    siv = AESSIV(_siv_key(key))

    def encrypt(value: str) -> str:
        return base64.b64encode(siv.encrypt(value.encode("utf-8"), None)).decode("ascii")

    return encrypt


def encrypt_value(value: str, key: str | bytes) -> str:
    """The ``encrypt`` operator's token: AES-SIV (RFC 5297), deterministic, base64.

    The same value and key always give the same token, so an encrypted release
    reproduces (and ``verify`` can check it); equal values stay equal, as with a
    keyed pseudonym. No nonce is involved: SIV derives its IV from the value.
    """
    raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if len(raw) not in AES_KEY_BYTES:
        raise ConfigError(f"'key' must have 16, 24 or 32 bytes, got {len(raw)}.")
    return _encryptor(raw)(value)


def decrypt_value(token: str, key: str | bytes) -> str:
    """Reverse the ``encrypt`` operator with the same key (one ConfigError line on a wrong key or token)."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESSIV

    raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    try:
        data = base64.b64decode(token, validate=True)
        return AESSIV(_siv_key(raw)).decrypt(data, None).decode("utf-8")
    except (InvalidTag, ValueError, binascii.Error):
        raise ConfigError(
            "The token cannot be decrypted with this key: the key differs from the one used, or the token "
            "was changed."
        ) from None


#: A base64 run long enough to be an ``encrypt`` token (16-byte SIV tag + at least one byte).
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{22,}={0,2}(?![A-Za-z0-9+/=])")


def decrypt_text(text: str, key: str | bytes) -> tuple[str, int, int]:
    """``text`` with every ``encrypt`` token that decrypts under ``key`` replaced by its value.

    Returns the text, the number of tokens recovered and the number of token-shaped runs seen
    (a run that does not decrypt, e.g. a long word or a token of another key, is left as is).
    """
    raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if len(raw) not in AES_KEY_BYTES:
        raise ConfigError(f"the key must have 16, 24 or 32 bytes, got {len(raw)}.")
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESSIV

    siv = AESSIV(_siv_key(raw))
    seen = recovered = 0

    def swap(match: re.Match) -> str:
        nonlocal seen, recovered
        seen += 1
        try:
            value = siv.decrypt(base64.b64decode(match.group(0), validate=True), None)
            out = value.decode("utf-8")
        except (InvalidTag, ValueError, binascii.Error):
            return match.group(0)
        recovered += 1
        return out

    return _TOKEN.sub(swap, text), recovered, seen
