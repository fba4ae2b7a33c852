"""Presidio's ``AnalyzerEngine.analyze`` with the work that does not depend on the text done
once per engine.

For every text, Presidio's ``analyze`` (presidio-analyzer 2.2.366, reviewed) asks its registry
for the recognizers of the language and then for the supported entities (which asks the
registry again and builds a set), and its de-duplication hashes every result through a
formatted string. :func:`lean_analyze` keeps the recognizer list and the entity list of each
request shape (language, requested entities) for as long as the registry's list of recognizers
is unchanged, and de-duplicates with tuples: the same results, in the same order, with the
same objects. Requests it was not reviewed for (ad hoc recognizers, decision tracing, per
recognizer score thresholds, an entity without a recognizer) go to Presidio's own method.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from collections.abc import Callable, Sequence
from itertools import groupby
from typing import Any

#: SHA-256 (first 16 hex digits) of the presidio-analyzer sources this was reviewed against
#: (``AnalyzerEngine.analyze``, ``get_supported_entities``, the registry's ``get_recognizers``
#: and ``EntityRecognizer.remove_duplicates``); another version keeps Presidio's method.
REVIEWED_PRESIDIO = "0ae6dc6f24619b70"
_DEFAULT = object()  # regex_flags not given: Presidio's default


def presidio_digest() -> str:
    """The digest of the reviewed presidio-analyzer sources (:data:`REVIEWED_PRESIDIO`)."""
    from presidio_analyzer import AnalyzerEngine, EntityRecognizer, RecognizerRegistry

    parts = [
        AnalyzerEngine.analyze,
        AnalyzerEngine.get_supported_entities,
        RecognizerRegistry.get_recognizers,
        EntityRecognizer.remove_duplicates,
    ]
    source = "\n".join(inspect.getsource(part) for part in parts)
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def reviewed() -> bool:
    """Whether the installed presidio-analyzer is the reviewed version."""
    return presidio_digest() == REVIEWED_PRESIDIO


def remove_duplicates(results: Sequence[Any]) -> list[Any]:
    """``EntityRecognizer.remove_duplicates`` with tuple keys: of results equal in type, span
    and score the first is kept (Presidio's ``set`` keeps the first of equal members too); a
    zero score is dropped; a result contained in a kept one of the same type with a score at
    least as high is dropped; the rest sorted by score (highest first), start, longest first."""
    first: dict[tuple, Any] = {}
    for result in results:
        first.setdefault((result.entity_type, result.start, result.end, result.score), result)
    ordered = sorted(
        first.values(),
        key=lambda x: (str(x.entity_type), x.start, -(x.end - x.start), -x.score),
    )
    kept: list[Any] = []
    for _type, group in groupby(ordered, key=lambda result: result.entity_type):
        active: list[Any] = []
        for result in group:
            if result.score == 0:
                continue
            start, end, score = result.start, result.end, result.score
            active = [other for other in active if other.end >= start]
            if any(
                start >= other.start and end <= other.end and score <= other.score
                for other in active
            ):
                continue
            kept.append(result)
            active.append(result)
    return sorted(kept, key=lambda x: (-x.score, x.start, -(x.end - x.start)))


def lean_analyze(analyzer: Any) -> Callable[..., Any]:
    """An ``analyze`` for ``analyzer`` (set it as the instance's attribute) that does what
    Presidio's does with the per-request lists kept (see the module docstring)."""
    from presidio_analyzer import AnalyzerEngine, RecognizerResult

    plain = functools.partial(AnalyzerEngine.analyze, analyzer)
    id_key = RecognizerResult.RECOGNIZER_IDENTIFIER_KEY
    name_key = RecognizerResult.RECOGNIZER_NAME_KEY
    kept: dict[tuple, tuple[list[Any], list[str]]] = {}

    def request(language: str, entities: Sequence[str] | None) -> tuple[list[Any], list[str]]:
        registry = analyzer.registry
        mine = registry.recognizers
        key = (language, tuple(entities) if entities else None, id(mine), len(mine))
        found = kept.get(key)
        if found is None:
            all_fields = not entities
            recognizers = registry.get_recognizers(
                language=language, entities=entities, all_fields=all_fields
            )
            if all_fields:
                entities = analyzer.get_supported_entities(language=language)
            if len(kept) >= 64:
                kept.clear()
            found = kept[key] = (recognizers, list(entities))
        return found[0], list(found[1])  # a new list per text, as Presidio's

    def analyze(
        text: str,
        language: str,
        entities: list[str] | None = None,
        correlation_id: str | None = None,
        score_threshold: float | None = None,
        return_decision_process: bool | None = False,
        ad_hoc_recognizers: list[Any] | None = None,
        context: list[str] | None = None,
        allow_list: list[str] | None = None,
        allow_list_match: str | None = "exact",
        regex_flags: Any = _DEFAULT,
        nlp_artifacts: Any = None,
        **more: Any,
    ) -> list[Any]:
        kwargs = {} if regex_flags is _DEFAULT else {"regex_flags": regex_flags}
        if (
            more
            or ad_hoc_recognizers
            or analyzer.log_decision_process
            or score_threshold is None
            or (entities and not supported(language, entities))
        ):
            return plain(
                text,
                language,
                entities=entities,
                correlation_id=correlation_id,
                score_threshold=score_threshold,
                return_decision_process=return_decision_process,
                ad_hoc_recognizers=ad_hoc_recognizers,
                context=context,
                allow_list=allow_list,
                allow_list_match=allow_list_match,
                nlp_artifacts=nlp_artifacts,
                **kwargs,
                **more,
            )
        recognizers, wanted = request(language, entities)
        entities = entities or wanted
        if not nlp_artifacts:
            nlp_artifacts = analyzer.nlp_engine.process_text(text, language)
        results: list[Any] = []
        for recognizer in recognizers:
            if not recognizer.is_loaded:
                recognizer.load()
                recognizer.is_loaded = True
            current = recognizer.analyze(text=text, entities=entities, nlp_artifacts=nlp_artifacts)
            if current:
                for result in current:
                    if not result.recognition_metadata:
                        result.recognition_metadata = {}
                    metadata = result.recognition_metadata
                    if id_key not in metadata:
                        metadata[id_key] = recognizer.id
                    if name_key not in metadata:
                        metadata[name_key] = recognizer.name
                results.extend(current)
        results = analyzer._enhance_using_context(
            text, results, nlp_artifacts, recognizers, context
        )
        results = [result for result in results if result.score >= score_threshold]
        results = remove_duplicates(results)
        if allow_list:
            if regex_flags is _DEFAULT:
                regex_flags = (
                    inspect.signature(AnalyzerEngine.analyze).parameters["regex_flags"].default
                )
            results = analyzer._remove_allow_list(
                results, allow_list, text, regex_flags, allow_list_match
            )
        if not return_decision_process:
            for result in results:
                result.analysis_explanation = None
        return results

    def supported(language: str, entities: Sequence[str]) -> bool:
        """Whether every requested entity has a recognizer of the language (else Presidio's
        method, which warns about the others or raises)."""
        mine = analyzer.registry.recognizers
        key = (language, tuple(entities), id(mine), len(mine))
        answer = kept_supported.get(key)
        if answer is None:
            answer = set(entities) <= set(analyzer.get_supported_entities(language=language))
            if len(kept_supported) >= 64:
                kept_supported.clear()
            kept_supported[key] = answer
        return answer

    kept_supported: dict[tuple, bool] = {}
    return analyze


def tune(analyzer: Any) -> None:
    """Give ``analyzer`` the lean ``analyze`` (nothing when the speed changes are off, see
    ``speed.ENABLED``, or presidio-analyzer is not the reviewed version)."""
    from anon_core.pii import speed

    if speed.ENABLED and reviewed():
        analyzer.analyze = lean_analyze(analyzer)
