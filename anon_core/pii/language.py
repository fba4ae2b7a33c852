"""Language of each text, and the PII engine that analyses it (offline).

Detection uses Lingua (PyPI ``lingua-language-detector``, Apache-2.0), restricted to
:data:`DETECTED` (English, French, German, Spanish, Italian). Its language models are compiled
into the package's binary and loaded from it (Lingua README, "How to use?": models are loaded
lazily from the package, no download step exists; the 2.x Python wheel is a Rust extension with
no network client in it), so detection never opens a connection.

Routing (:func:`engine_for`): a text is analysed with the spaCy pipeline of its language when one
is installed (English ``en_core_web_sm`` 3.8; French ``fr_core_news_md`` 3.8 from the optional
``documents`` extra), else with the English engine (German, Spanish and Italian: English NER
and every pattern recognizer). French text without the French pipeline gets the pattern
recognizers only, and the result says so (:data:`NO_FRENCH_MODEL`).

Without the ``documents`` extra there is no detection: every text is treated as English and
:data:`NO_DETECTOR` says how to install it.
"""

from __future__ import annotations

import functools
import importlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from anon_core.pii import names
from anon_core.pii.engine import (
    DEFAULT_MODEL,
    LANGUAGE,
    LANGUAGE_MODELS,
    PiiEngine,
    RecognizerSpec,
    load_engine,
)
from anon_core.pii.workers import Job, analyse_in_chunks

log = logging.getLogger(__name__)

#: ISO 639-1 codes of the languages the detector chooses among.
DETECTED = ("en", "fr", "de", "es", "it")
#: Characters of a text the detector reads (the start of a long document decides).
DETECT_CHARS = 3000
#: Fewer letters than this: too short to tell, the text is treated as English.
MIN_LETTERS = 12
INSTALL_HINT = "pip install 'anon-core[documents]'"
NO_DETECTOR = (
    "Language detection is not installed: every text is analysed as English. Fix: " + INSTALL_HINT
)
NO_FRENCH_MODEL = (
    "No French model installed: pattern recognizers only for French text (names and places in "
    "it are not detected). Fix: " + INSTALL_HINT
)


def detector_available() -> bool:
    try:
        import lingua  # noqa: F401
    except ImportError:
        return False
    return True


@functools.lru_cache(maxsize=1)
def _detector() -> Any:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in DETECTED]
    return LanguageDetectorBuilder.from_languages(*languages).build()


def detect_language(text: str) -> str:
    """ISO code of ``text``'s language among :data:`DETECTED`; English when unsure or too short.

    Raises ImportError when the detector is not installed (see :func:`detect_languages`).
    """
    sample = str(text)[:DETECT_CHARS]
    if sum(c.isalpha() for c in sample) < MIN_LETTERS:
        return LANGUAGE
    found = _detector().detect_language_of(sample)
    if found is None:
        return LANGUAGE
    code = found.iso_code_639_1.name.lower()
    if code != LANGUAGE and _english_function_words(sample, code):
        return LANGUAGE  # "Luiza is from Xignite": foreign names and streets in English text
    return code


_WORD = re.compile(r"[^\W\d_]+")


@functools.lru_cache(maxsize=8)
def _stop_words(code: str) -> frozenset[str]:
    """spaCy's stop words of a language (empty when it has none)."""
    try:
        module = importlib.import_module(f"spacy.lang.{code}.stop_words")
    except ImportError:
        return frozenset()
    return frozenset(w.lower() for w in getattr(module, "STOP_WORDS", ()))


def _english_function_words(sample: str, code: str) -> bool:
    """Whether a text detected as language ``code`` holds at least as many English stop words as
    stop words of that language (spaCy's lists, words of both left out): names, streets and
    towns sway the detector ("Hakuba had given Hakuba his address: ... Rua Cidade de ..."),
    the small words of the sentence do not. A text with none of either (a name and an address
    on their own) is unsure, so English, as a text too short to tell."""
    english, other = _stop_words(LANGUAGE), _stop_words(code)
    words = [w.lower() for w in _WORD.findall(sample)]
    en = sum(1 for w in words if w in english and w not in other)
    return en >= sum(1 for w in words if w in other and w not in english)


def detect_languages(texts: Sequence[str]) -> tuple[list[str], str | None]:
    """The language of each text, and a notice when detection is not installed (all English)."""
    if not detector_available():
        return [LANGUAGE] * len(texts), NO_DETECTOR
    return [detect_language(t) for t in texts], None


def model_installed(model: str) -> bool:
    import spacy

    return bool(spacy.util.is_package(model))


def engine_for(language: str) -> tuple[PiiEngine, str | None]:
    """The engine that analyses text in ``language``, and a notice when it is a fallback."""
    if language == LANGUAGE or language not in LANGUAGE_MODELS:
        return load_engine(DEFAULT_MODEL), None
    model = LANGUAGE_MODELS[language]
    if not model_installed(model):
        if language == "fr":
            return load_engine(None, language), NO_FRENCH_MODEL
        return load_engine(DEFAULT_MODEL), None
    return load_engine(model, language), None


@dataclass
class RoutedAnalysis:
    """Presidio results per text, the language each was analysed as, and what fell back."""

    results: list[list[Any]]
    languages: list[str]
    notices: list[str] = field(default_factory=list)
    entities: tuple[str, ...] = ()


def analyze_by_language(
    texts: Sequence[str],
    *,
    specs: Sequence[RecognizerSpec] = (),
    allow_list: Sequence[str] | None = None,
    score_threshold: float = 0.35,
    entities: Sequence[str] | None = None,
    batch_size: int = 64,
    languages: Sequence[str] | None = None,
) -> RoutedAnalysis:
    """Analyse each text with its language's engine (one spaCy batch per language).

    ``languages`` skips detection (one ISO code per text, e.g. a document's language). A large
    input is analysed in worker processes too, with the same results (:mod:`anon_core.pii.workers`).
    """
    notices: list[str] = []
    if languages is None:
        langs, notice = detect_languages(texts)
        if notice:
            notices.append(notice)
    else:
        langs = [str(code) for code in languages]
    results: list[list[Any]] = [[] for _ in texts]
    analysed = list(langs)
    by_engine: dict[int, tuple[PiiEngine, list[int]]] = {}
    known: set[str] = set()
    for i, code in enumerate(langs):
        engine, notice = engine_for(code)
        if notice and notice not in notices:
            notices.append(notice)
        by_engine.setdefault(id(engine), (engine, []))[1].append(i)
    for engine, indices in by_engine.values():
        known |= set(engine.entities)
        if engine.notice and engine.model != "None" and engine.notice not in notices:
            notices.append(engine.notice)
        wanted = None
        if entities is not None:
            extra = {s.entity for s in specs}
            wanted = [e for e in entities if e in engine.entities or e in extra]
            if not wanted:
                continue
        job = Job(
            model=None if engine.model == "None" else engine.model,
            language=engine.language,
            specs=tuple(specs),
            allow_list=tuple(allow_list) if allow_list else None,
            score_threshold=score_threshold,
            entities=tuple(wanted) if wanted else None,
            batch_size=batch_size,
            excluded_locales=tuple(names.EXCLUDED_LOCALES),
        )
        found = analyse_in_chunks(engine, [texts[i] for i in indices], job)
        for i, res in zip(indices, found, strict=True):
            results[i] = list(res)
            analysed[i] = langs[i]
    for notice in notices:
        log.warning("%s", notice)
    return RoutedAnalysis(results, analysed, notices, tuple(sorted(known)))


def all_entities() -> tuple[str, ...]:
    """Entity types a routed analysis can report: the English engine's.

    The French pipeline's labels (PER, LOC, ORG, MISC) map to a subset of them, so the
    French model need not be loaded to know them.
    """
    return load_engine(DEFAULT_MODEL).entities
