"""Presidio's pattern recognizers with less work per call and the same findings.

Part of the engine's speed set-up (:mod:`anon_core.pii.speed`): Presidio's
``PatternRecognizer.__analyze_patterns`` reads the clock twice and writes a debug line for
every pattern of every text, and sorts and de-duplicates even an empty list; over the 40-odd
recognizers of an engine and thousands of paragraphs that is a tenth of a second or more per
megabyte. :func:`lean_pattern_analysis` gives a recognizer the same steps without them.
"""

from __future__ import annotations

from typing import Any

#: SHA-256 (first 16 hex digits) of the source of Presidio's
#: ``PatternRecognizer.__analyze_patterns`` reviewed for :func:`lean_pattern_analysis`
#: (presidio-analyzer 2.2.366); another version keeps its own.
REVIEWED_PATTERN_ANALYSIS = "a9f12c77810d2f1a"


def lean_pattern_analysis(recognizer: Any) -> bool:
    """Give a pattern recognizer Presidio's ``__analyze_patterns`` step for step without what
    no caller reads: its clock readings and debug line per pattern (Presidio's loggers are
    capped at WARNING) and its de-duplication of fewer than two results (which returns them as
    they are). Same results, scores, explanations and order; returns whether it was applied
    (only over the reviewed source, :data:`REVIEWED_PATTERN_ANALYSIS`)."""
    import hashlib
    import inspect

    import regex
    from presidio_analyzer import EntityRecognizer, PatternRecognizer, RecognizerResult
    from presidio_analyzer import pattern_recognizer as presidio_patterns

    original = getattr(PatternRecognizer, "_PatternRecognizer__analyze_patterns", None)
    if original is None or not isinstance(recognizer, PatternRecognizer):
        return False
    digest = hashlib.sha256(inspect.getsource(original).encode("utf-8")).hexdigest()[:16]
    if digest != REVIEWED_PATTERN_ANALYSIS:
        return False
    name_key = RecognizerResult.RECOGNIZER_NAME_KEY
    id_key = RecognizerResult.RECOGNIZER_IDENTIFIER_KEY
    timeout = presidio_patterns.REGEX_TIMEOUT_SECONDS
    low, high = EntityRecognizer.MIN_SCORE, EntityRecognizer.MAX_SCORE
    self = recognizer

    def analyze_patterns(text: str, flags: int | None = None) -> list[Any]:
        flags = flags if flags else self.global_regex_flags
        results = []
        for pattern in self.patterns:
            if not pattern.compiled_regex or pattern.compiled_with_flags != flags:
                pattern.compiled_with_flags = flags
                pattern.compiled_regex = regex.compile(pattern.regex, flags=flags)
            try:
                for match in pattern.compiled_regex.finditer(text, timeout=timeout):
                    start, end = match.span()
                    current = text[start:end]
                    if current == "":
                        continue
                    score = pattern.score
                    valid = self.validate_result(current)
                    description = self.build_regex_explanation(
                        self.name, pattern.name, pattern.regex, score, valid, flags
                    )
                    result = RecognizerResult(
                        entity_type=self.supported_entities[0],
                        start=start,
                        end=end,
                        score=score,
                        analysis_explanation=description,
                        recognition_metadata={name_key: self.name, id_key: self.id},
                    )
                    if valid is not None:
                        result.score = high if valid else low
                    invalid = self.invalidate_result(current)
                    if invalid is not None and invalid:
                        result.score = low
                    if result.score > low:
                        results.append(result)
                    description.score = result.score
            except TimeoutError:
                presidio_patterns.logger.warning(
                    "Regex pattern '%s' timed out after %s seconds, skipping.",
                    pattern.name,
                    timeout,
                    exc_info=True,
                )
        return EntityRecognizer.remove_duplicates(results) if len(results) > 1 else results

    recognizer._PatternRecognizer__analyze_patterns = analyze_patterns
    return True
