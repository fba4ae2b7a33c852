"""Cheaper text analysis with the same findings: the engine's set-up for speed.

:func:`tune` is applied to every analyzer :func:`anon_core.pii.engine.load_engine` builds. Each
change removes work whose result is never used, so Presidio's results (entity type, start, end,
score, order) stay those of its plain analyzer; ``tests/test_pii_speed_identity.py`` compares
the two on English, French, German, Spanish and Italian text.

* **NER matrix products through numpy** (:func:`numpy_ops`): spaCy's default ops multiply
  matrices with the BLIS library bundled in ``cython-blis``, which falls back to its generic
  (unvectorised) kernels on CPUs it does not recognise; numpy's OpenBLAS picks a kernel for the
  CPU it runs on. The NER model then takes 30% to 40% less CPU time (measured on
  ``en_core_web_sm`` and ``fr_core_news_md``). OpenBLAS runs on one thread while the engine
  analyses (:func:`one_blas_thread`): two threads on matrices this small only add waiting, and
  the worker processes already use the other cores. The products are summed in another order,
  so a score could differ in its last bits; the entities found did not differ on any of the
  test corpora (about 40,000 entities, five languages).
* **Prefilters** (:func:`add_prefilters`): a pattern recognizer is skipped on a text that lacks
  a character or word every one of its patterns needs (a digit for phone numbers, cards,
  national identifiers and dates; ``@`` for e-mail addresses; a dot before a letter for URLs;
  the cue word for the "my name is" patterns; a reviewed shape such as "Word X Word" for
  the middle-initial pattern, :data:`~anon_core.pii.speed_patterns.SHAPES`, or a digit next
  to "-", "/" or "." for Presidio's dates, ":" or "." before a digit for IP addresses,
  :data:`~anon_core.pii.speed_patterns.PATTERN_SHAPES`). Its regular expressions would find
  nothing there; the prefilter finds that out with one scan of the text, and the recognizers
  that need a digit share one search per text (:func:`~anon_core.pii.digits_fast.has_digit`).
* **Only the words that can hold a match** (:data:`RUNS`): Presidio's URL, e-mail, IP address,
  crypto wallet, US licence, passport and bank account patterns (reviewed by hand,
  presidio-analyzer 2.2) never match a space and look no further than the space next to a
  match, so each match lies inside one run of non-space characters holding a dot before a
  letter (URLs), an ``@`` (e-mail addresses), a digit (eight in a row for passports and bank
  accounts, seven for DEA numbers) or a colon. The recognizer reads only
  those runs, joined by one space, and its results are moved back to the offsets of the text:
  the matched text and the character next to each match (a space either way) are unchanged.
* **Context words without copies** (:class:`FastContextEnhancer`): Presidio's enhancer
  deep-copies every result of every text before raising scores, and finds each result's token
  by walking the tokens from the start; the results it copies are never used again, and the
  token is found by bisection here, and the words around a result are lowered once, not once
  per context word (:func:`supportive_word`). Same scores.
* **No text rebuilt**: the batch yields each text as it was given, not ``doc.text`` (which
  spaCy joins token by token; it is the same string).
* **Keywords on demand** (:class:`LazyNlpArtifacts`): the filtered lemmas Presidio computes for
  every text (one vocabulary look-up per token, which also adds every new word to spaCy's
  vocabulary) are computed only for a text where a context word is looked for, as a set (the
  enhancer only asks whether a word is among them), each distinct word filtered once per
  engine by Presidio's own ``set_keywords``. Lemmas and token offsets are read from the
  document's arrays (``Doc.to_array``), not token by token.
* **Pattern recognizers without per-call bookkeeping**
  (:func:`anon_core.pii.speed_patterns.lean_pattern_analysis`): Presidio's pattern loop without
  its clock readings and debug line per pattern and without de-duplicating fewer than two results.
* **phonenumbers' pattern cache** (``phonenumbers.enable_pattern_cache``, the library's own
  switch): the regions' metadata holds more regular expressions than Python's ``re`` cache
  (512), so without it they were compiled again and again.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from anon_core.pii.digits_fast import DIGIT, has_digit
from anon_core.pii.speed_patterns import (
    cue_prefilter,
    lean_pattern_analysis,
    pattern_prefilter,
    pattern_shape,
    patterns_digest,
    shape_prefilter,
)

#: Whether :func:`tune` changes anything (tests turn it off to build Presidio's plain analyzer).
ENABLED = True

_DIGIT = DIGIT  # Unicode digits (\p{Nd}), as \d in the recognizers' patterns
#: Recognizers whose own ``analyze`` finds matches beyond their patterns, reviewed by hand
#: (presidio-analyzer 2.2 and anon_core.pii.recognizers): what every match of theirs needs.
REVIEWED: dict[str, re.Pattern[str]] = {
    # phonenumbers' PhoneNumberMatcher looks for candidates with a pattern that needs \d
    "PhoneRecognizer": _DIGIT,
    # upper-cased lower-case IBANs: a country then two check digits
    "CaseInsensitiveIbanRecognizer": _DIGIT,
    # its analyze only filters the matches of its pattern, which needs \d
    "PhoneLayoutRecognizer": _DIGIT,
    # every URL pattern has [.] followed by a top-level domain (letters)
    "UrlRecognizer": re.compile(r"\.[^\W\d_]"),
    # IPv4 needs digits; IPv6 (hexadecimal, "::") needs a colon
    "IpRecognizer": re.compile(r"[\d:]"),
}
#: Pattern recognizers whose every match is inside one run of non-space characters holding what
#: the first string matches (a run of digits as long as the shortest one a match holds), reviewed
#: by hand: their patterns match no space, have no anchor, and
#: ``\b`` and look-arounds read no further than the space next to a match. The second string is the
#: SHA-256 (first 16 hex digits) of the reviewed patterns: other patterns (a new Presidio, a deny
#: list, a user's own) get no run filter.
RUNS: dict[str, tuple[str, str]] = {
    # every pattern has [.] then a top-level domain (letters) in the match
    "UrlRecognizer": (r"\.\S", "d9409b67668f321e"),
    # one pattern, with [@] in the match
    "EmailRecognizer": ("@", "004723abbb67ff6c"),
    "OfflineEmailRecognizer": ("@", "004723abbb67ff6c"),
    # letters and digits between \b, every alternative with [0-9]
    "UsLicenseRecognizer": (r"\d", "a5ad4472a28cc70f"),
    # [0-9]{9} or [A-Z][0-9]{8}: eight digits in a row
    "UsPassportRecognizer": (r"\d{8}", "4d39378952a1fd07"),
    # [0-9]{8,17}
    "UsBankRecognizer": (r"\d{8}", "77ff5492baf67207"),
    # no \b at all; \d{7} in both alternatives
    "MedicalLicenseRecognizer": (r"\d{7}", "8b00da21c7ca480a"),
    # 'bc1' or [13] opens every match
    "CryptoRecognizer": (r"\d", "9d9a993fd6aee894"),
    # IPv4 digits or IPv6 ':'; its look-arounds read one character ((?<![\w:])) or, ahead,
    # '.' then a digit (never past a space, which is neither)
    "IpRecognizer": (r"[\d:]", "2e5b4e8ccce1e531"),
}
#: Distinct words whose keyword filter an engine remembers (then it starts again).
KEYWORD_CACHE = 200_000


def numpy_ops() -> contextlib.AbstractContextManager:
    """Thinc's numpy ops with numpy's BLAS for matrix products (models loaded inside use them)."""
    if not ENABLED:
        return contextlib.nullcontext()
    from thinc.api import use_ops

    return use_ops("numpy", use_blis=False)


@functools.lru_cache(maxsize=1)
def _blas_controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """numpy's BLAS on one thread while the block runs (as before it afterwards)."""
    if not ENABLED:
        yield
        return
    with _blas_controller().limit(limits=1, user_api="blas"):
        yield


def runs_for(recognizer: Any) -> Any | None:
    """What every match of ``recognizer`` holds, when it is one of :data:`RUNS` with the
    reviewed patterns and flags and Presidio's own ``analyze`` (else None)."""
    import regex
    from presidio_analyzer import PatternRecognizer

    reviewed = RUNS.get(type(recognizer).__name__)
    if (
        reviewed is None
        or not isinstance(recognizer, PatternRecognizer)
        or type(recognizer).analyze is not PatternRecognizer.analyze
        or recognizer.global_regex_flags != regex.DOTALL | regex.MULTILINE | regex.IGNORECASE
        or patterns_digest(recognizer) != reviewed[1]
    ):
        return None
    return _compiled(reviewed[0])


@functools.lru_cache(maxsize=8)
def _compiled(pattern: str) -> Any:
    import regex

    return regex.compile(pattern)


def runs_of(text: str, needed: Any) -> list[tuple[int, int]]:
    """``(start, end)`` of every run of non-space characters (``\\S+``, as the ``regex``
    module reads it) that holds a match of ``needed``, in order; linear in the length of the
    text (each run is read at most twice)."""
    last_space, run = _compiled(r"(?r)\s"), _compiled(r"\S*")
    runs: list[tuple[int, int]] = []
    at = 0  # where the last kept run ends (a space or the end of the text)
    while (m := needed.search(text, at)) is not None:
        back = last_space.search(text, at, m.start())
        start = back.end() if back is not None else at
        at = run.match(text, m.end()).end()
        runs.append((start, at))
    return runs


def prefilter_for(recognizer: Any) -> Any | None:
    """What every match of ``recognizer`` holds (see :func:`add_prefilters`), or None: the
    characters of its runs (:data:`RUNS`), else its reviewed shape
    (:func:`~anon_core.pii.speed_patterns.pattern_shape`), else what its patterns need."""
    runs = runs_for(recognizer)
    if runs is not None:
        return runs
    shape = pattern_shape(recognizer)
    if shape is not None:
        return shape
    needed = REVIEWED.get(type(recognizer).__name__)
    if needed is not None:
        return needed
    from presidio_analyzer import PatternRecognizer

    patterns = getattr(recognizer, "patterns", None)
    if (
        not isinstance(recognizer, PatternRecognizer)
        or type(recognizer).analyze is not PatternRecognizer.analyze
        or not patterns
    ):
        return None  # its own analyze may find what its patterns do not
    regexes = [p.regex for p in patterns]
    found = pattern_prefilter(regexes)
    if found is None and recognizer.global_regex_flags is not None:
        found = cue_prefilter(regexes, recognizer.global_regex_flags)
    return found if found is not None else shape_prefilter(recognizer)


def _guarded(analyze: Callable[..., Any], needed: Any) -> Callable[..., Any]:
    if needed is DIGIT:  # one search per text for all the recognizers that need a digit

        def analyze_if_digit(text: str, *args: Any, **kwargs: Any) -> Any:
            if not has_digit(text):
                return []
            return analyze(text, *args, **kwargs)

        return analyze_if_digit

    def analyze_if_possible(text: str, *args: Any, **kwargs: Any) -> Any:
        if needed.search(text) is None:
            return []
        return analyze(text, *args, **kwargs)

    return analyze_if_possible


def _runs_guarded(analyze: Callable[..., Any], needed: Any) -> Callable[..., Any]:
    """``analyze`` on the runs that can hold a match, joined by one space, its results moved
    back to the offsets of the whole text (a match never spans two runs)."""

    def analyze_runs(text: str, *args: Any, **kwargs: Any) -> Any:
        runs = runs_of(text, needed)
        if not runs:
            return []
        if len(runs) == 1 and runs[0] == (0, len(text)):
            return analyze(text, *args, **kwargs)
        starts, at = [], 0
        for a, b in runs:
            starts.append(at)
            at += b - a + 1
        results = analyze(" ".join(text[a:b] for a, b in runs), *args, **kwargs)
        for result in results:
            k = bisect.bisect_right(starts, result.start) - 1
            shift = runs[k][0] - starts[k]
            result.start += shift
            result.end += shift
        return results

    return analyze_runs


def add_prefilters(recognizers: Sequence[Any]) -> int:
    """Skip each recognizer on texts without what every match of it needs (:data:`REVIEWED`,
    :func:`pattern_prefilter`, :func:`cue_prefilter`, and for Presidio's date, IP address, MAC
    address, SSN and ITIN recognizers the reviewed shape of
    :data:`~anon_core.pii.speed_patterns.PATTERN_SHAPES`), and show those of :data:`RUNS` only
    the runs that can hold a match; returns how many got a prefilter."""
    count = 0
    for recognizer in recognizers:
        if getattr(recognizer, "prefiltered", False):
            continue
        needed = prefilter_for(recognizer)
        if needed is None:
            continue
        if runs_for(recognizer) is not None:
            recognizer.analyze = _runs_guarded(recognizer.analyze, needed)
            shape = pattern_shape(recognizer)
            if shape is not None:  # checked before the runs are cut: most texts lack it
                recognizer.analyze = _guarded(recognizer.analyze, shape)
        else:
            recognizer.analyze = _guarded(recognizer.analyze, needed)
        recognizer.prefiltered = True
        count += 1
    return count


# ----------------------------------------------------------------------------- NLP artifacts
def lazy_artifacts_class() -> type:
    from presidio_analyzer.nlp_engine import NlpArtifacts

    class LazyNlpArtifacts(NlpArtifacts):
        """Presidio's NLP artifacts whose lemmas, token offsets and keywords are computed on
        first use (only context-word look-ups read them)."""

        def __init__(self, entities, tokens, nlp_engine, language, scores=None):  # noqa: D107
            self.entities = entities
            self.tokens = tokens
            self.nlp_engine = nlp_engine
            self.language = language
            self.scores = scores if scores else [0.85] * len(entities)

        @functools.cached_property
        def lemmas(self) -> list[str]:
            from spacy.attrs import LEMMA

            strings = self.tokens.vocab.strings
            return [strings[h] for h in self.tokens.to_array(LEMMA).tolist()]

        @functools.cached_property
        def _offsets(self) -> tuple[list[int], list[int]]:
            from spacy.attrs import IDX, LENGTH

            if not len(self.tokens):
                return [], []
            starts, lengths = self.tokens.to_array([IDX, LENGTH]).T.tolist()
            return starts, [a + n for a, n in zip(starts, lengths, strict=True)]

        @functools.cached_property
        def tokens_indices(self) -> list[int]:
            return self._offsets[0]

        @functools.cached_property
        def token_ends(self) -> list[int]:
            return self._offsets[1]

        @functools.cached_property
        def keywords(self) -> list[str]:
            return NlpArtifacts.set_keywords(self.nlp_engine, self.lemmas, self.language)

        @functools.cached_property
        def keyword_set(self) -> frozenset[str]:
            """The set of :attr:`keywords` (what the enhancer asks about), each distinct
            lemma filtered once per engine."""
            parts_of = getattr(self.nlp_engine, "keyword_parts_of", None)
            if parts_of is None:
                return frozenset(self.keywords)
            parts = parts_of(set(self.lemmas), self.language)
            return frozenset(itertools.chain.from_iterable(parts))

        def to_json(self) -> str:
            for name in ("lemmas", "tokens_indices", "keywords"):
                getattr(self, name)
            for name in ("token_ends", "_offsets", "keyword_set"):
                self.__dict__.pop(name, None)
            return super().to_json()

    return LazyNlpArtifacts


def spacy_engine_class() -> type:
    """Presidio's ``SpacyNlpEngine`` making :class:`LazyNlpArtifacts` (same entities, scores);
    Presidio's own when not :data:`ENABLED`."""
    from presidio_analyzer.nlp_engine import NlpArtifacts, SpacyNlpEngine
    from spacy.attrs import IS_PUNCT, IS_STOP

    if not ENABLED:
        return SpacyNlpEngine
    lazy = lazy_artifacts_class()
    _STOP, _PUNCT = SpacyNlpEngine.is_stopword, SpacyNlpEngine.is_punct

    class LazySpacyNlpEngine(SpacyNlpEngine):
        def keyword_parts_of(self, lemmas: set[str], language: str) -> list[tuple[str, ...]]:
            """Presidio's keywords of each lemma (``set_keywords`` of the one lemma), each
            distinct lemma filtered once per engine and language; the look-ups of the known
            ones are one set difference and one ``map``, no Python step a lemma. A lemma not in
            the vocabulary gets the flags its lexeme would get, without adding it there."""
            caches = self.__dict__.setdefault("keyword_caches", {})
            cache = caches.setdefault(language, {})
            new = lemmas.difference(cache)
            if new:
                if sum(len(c) for c in caches.values()) + len(new) > KEYWORD_CACHE:
                    for c in caches.values():
                        c.clear()
                vocab, kind = self.nlp[language].vocab, type(self)
                getters = vocab.lex_attr_getters or {}
                own = kind.is_stopword is _STOP and kind.is_punct is _PUNCT
                for lemma in new:
                    if not own or not lemma or lemma in vocab:  # Presidio's own steps
                        cache[lemma] = tuple(NlpArtifacts.set_keywords(self, [lemma], language))
                    else:
                        flags = [getters[a](lemma) for a in (IS_STOP, IS_PUNCT) if a in getters]
                        skip = any(flags) or lemma in ("-PRON-", "be")
                        cache[lemma] = () if skip else tuple(lemma.lower().split(":"))
            return list(map(cache.__getitem__, lemmas))

        def process_batch(self, texts, language, batch_size=1, n_process=1, as_tuples=False):
            """Presidio's ``process_batch`` yielding each text as given: a ``Doc``'s text is
            the text it was made from (spaCy's tokenizer loses no character), and
            ``doc.text`` rebuilds it token by token."""
            if as_tuples or not self.nlp:
                yield from super().process_batch(texts, language, batch_size, n_process, as_tuples)
                return
            texts = [str(text) for text in texts]
            docs = self.nlp[language].pipe(texts, batch_size=batch_size, n_process=n_process)
            for text, doc in zip(texts, docs, strict=True):
                yield text, self._doc_to_nlp_artifact(doc, language)

        def _doc_to_nlp_artifact(self, doc: Any, language: str) -> Any:
            entities = self._get_entities(doc)
            scores = self._get_scores_for_entities(doc)
            entities, scores = self._get_updated_entities(entities, scores)
            return lazy(
                entities=entities, tokens=doc, nlp_engine=self, language=language, scores=scores
            )

    return LazySpacyNlpEngine


# ----------------------------------------------------------------------------- context words
def _token_index(nlp_artifacts: Any, word: str, start: int) -> int:
    """Presidio's ``_find_index_of_match_token`` by bisection: the first token ending after
    ``start`` (tokens are in order, do not overlap and are never empty)."""
    ends = getattr(nlp_artifacts, "token_ends", None)
    if ends is None:
        ends = [
            i + len(t)
            for i, t in zip(nlp_artifacts.tokens_indices, nlp_artifacts.tokens, strict=True)
        ]
    i = bisect.bisect_right(ends, start)
    if i >= len(ends):
        raise ValueError(
            "Did not find word '"
            + word
            + "' in the list of tokens although it is expected to be found"
        )
    return i


#: Recognizers by id for each list of recognizers an engine passes (keyed by the objects' ids;
#: the list is kept, so no id is reused while its entry lives).
_BY_ID: dict[tuple[int, ...], tuple[list[Any], dict[str, Any]]] = {}


def _by_id(recognizers: Sequence[Any]) -> dict[str, Any]:
    """``{recognizer.id: recognizer}``, built once per list of recognizers (an engine passes
    the same ones for every text of a language)."""
    key = tuple(map(id, recognizers))
    entry = _BY_ID.get(key)
    if entry is None:
        if len(_BY_ID) >= 64:
            _BY_ID.clear()
        entry = _BY_ID[key] = (list(recognizers), {r.id: r for r in recognizers})
    return entry[1]


@functools.lru_cache(maxsize=256)
def _lowered(context: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
    if any("\n" in word for word in context):
        return None
    return tuple((word, word.lower()) for word in context)


def supportive_word(words: list[str], context: Sequence[str] | None, mode: str) -> str:
    """Presidio's ``_find_supportive_word_in_context`` (presidio-analyzer 2.2): the first
    context word found in one of ``words`` (case-insensitive), each word lowered once, not once
    per context word. In "substring" mode a context word without a line break is inside one of
    the lowered words exactly when it is inside them joined by line breaks (a stretch of the
    joined text without a line break lies within one word)."""
    pairs = _lowered(tuple(context)) if context is not None and mode == "substring" else None
    if pairs is None:
        from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer

        return LemmaContextAwareEnhancer._find_supportive_word_in_context(words, context, mode)
    if not words:
        return ""
    joined = "\n".join([word.lower() for word in words])
    for word, lowered in pairs:
        if lowered in joined:
            return word
    return ""


@functools.lru_cache(maxsize=1)
def fast_enhancer_class() -> type:
    from presidio_analyzer import RecognizerResult
    from presidio_analyzer.context_aware_enhancers import (
        ContextAwareEnhancer,
        LemmaContextAwareEnhancer,
    )

    metadata_id = RecognizerResult.RECOGNIZER_IDENTIFIER_KEY
    enhanced_key = RecognizerResult.IS_SCORE_ENHANCED_BY_CONTEXT_KEY

    class FastContextEnhancer(LemmaContextAwareEnhancer):
        """Presidio's lemma context enhancer (presidio-analyzer 2.2), step for step, without
        the deep copy of results the analyzer never reads again and with the token found by
        bisection."""

        def enhance_using_context(
            self, text, raw_results, nlp_artifacts, recognizers, context=None
        ):  # noqa: D102
            results = list(raw_results)
            by_id = _by_id(recognizers)
            context = [word.lower() for word in context] if context else []
            if nlp_artifacts is None:
                return results
            for result in results:
                recognizer = None
                if result.recognition_metadata and metadata_id in result.recognition_metadata:
                    recognizer = by_id.get(result.recognition_metadata[metadata_id])
                if not recognizer or not recognizer.context:
                    continue
                if result.recognition_metadata.get(enhanced_key):
                    continue
                word = text[result.start : result.end]
                surrounding = self._extract_surrounding_words(nlp_artifacts, word, result.start)
                surrounding.extend(context)
                found = supportive_word(surrounding, recognizer.context, self.context_matching_mode)
                if found != "":
                    result.score += self.context_similarity_factor
                    result.score = max(result.score, self.min_score_with_context_similarity)
                    result.score = min(result.score, ContextAwareEnhancer.MAX_SCORE)
                    result.analysis_explanation.set_supportive_context_word(found)
                    result.analysis_explanation.set_improved_score(result.score)
            return results

        def _extract_surrounding_words(self, nlp_artifacts, word, start):  # noqa: D102
            if not nlp_artifacts.tokens:
                return [""]
            keywords = getattr(nlp_artifacts, "keyword_set", None)
            if keywords is None:
                keywords = nlp_artifacts.keywords
            index = _token_index(nlp_artifacts, word, start)
            words = self._add_n_words_backward(
                index, self.context_prefix_count, nlp_artifacts.lemmas, keywords
            )
            words += self._add_n_words_forward(
                index, self.context_suffix_count, nlp_artifacts.lemmas, keywords
            )
            return list(set(words))

    return FastContextEnhancer


def _enhance_per_recognizer(analyzer: Any) -> Callable[..., Any]:
    """The analyzer's ``_enhance_using_context`` (presidio-analyzer 2.2) with results grouped
    by recognizer in one pass: Presidio filters every result list once per recognizer, but a
    recognizer that keeps ``EntityRecognizer.enhance_using_context`` returns its results as
    they are. Same results in the same order (by recognizer, then as found)."""
    from presidio_analyzer import EntityRecognizer, RecognizerResult

    key = RecognizerResult.RECOGNIZER_IDENTIFIER_KEY
    plain = EntityRecognizer.enhance_using_context

    def enhance(text, raw_results, nlp_artifacts, recognizers, context=None):
        by_id: dict[str, list[Any]] = {}
        for result in raw_results:
            by_id.setdefault(result.recognition_metadata[key], []).append(result)
        results: list[Any] = []
        for recognizer in recognizers:
            mine = by_id.get(recognizer.id, [])
            if getattr(type(recognizer), "enhance_using_context", None) is plain:
                results.extend(mine)
                continue
            others = [r for r in raw_results if r.recognition_metadata[key] != recognizer.id]
            results.extend(
                recognizer.enhance_using_context(
                    text=text,
                    raw_recognizer_results=mine,
                    other_raw_recognizer_results=others,
                    nlp_artifacts=nlp_artifacts,
                    context=context,
                )
            )
        return analyzer.context_aware_enhancer.enhance_using_context(
            text=text,
            raw_results=results,
            nlp_artifacts=nlp_artifacts,
            recognizers=recognizers,
            context=context,
        )

    return enhance


def tune(analyzer: Any) -> None:
    """Apply the changes above to a Presidio ``AnalyzerEngine`` (nothing when not
    :data:`ENABLED`)."""
    if not ENABLED:
        return
    import phonenumbers

    phonenumbers.enable_pattern_cache()
    old = analyzer.context_aware_enhancer
    analyzer.context_aware_enhancer = fast_enhancer_class()(
        context_similarity_factor=old.context_similarity_factor,
        min_score_with_context_similarity=old.min_score_with_context_similarity,
        context_prefix_count=old.context_prefix_count,
        context_suffix_count=old.context_suffix_count,
        context_matching_mode=getattr(old, "context_matching_mode", "substring"),
    )
    analyzer._enhance_using_context = _enhance_per_recognizer(analyzer)
    for recognizer in analyzer.registry.recognizers:
        lean_pattern_analysis(recognizer)  # same results, less work per call
    add_prefilters(analyzer.registry.recognizers)
