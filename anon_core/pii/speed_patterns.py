"""Presidio's pattern recognizers with less work per call and the same findings.

Part of the engine's speed set-up (:mod:`anon_core.pii.speed`): Presidio's
``PatternRecognizer.__analyze_patterns`` reads the clock twice and writes a debug line for
every pattern of every text, and sorts and de-duplicates even an empty list; over the 40-odd
recognizers of an engine and thousands of paragraphs that is a tenth of a second or more per
megabyte. :func:`lean_pattern_analysis` gives a recognizer the same steps without them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from anon_core.pii.digits_fast import DIGIT

_DIGIT = DIGIT  # Unicode digits (\p{Nd}), as \d in the recognizers' patterns
#: Characters worth a prefilter when a pattern needs them (rare in prose), best first.
_RARE = "@:/#"
#: A pattern that opens with look-behind cues, ``(?:(?<=cue)|(?<=cue)|...)``, then more.
_CUES = re.compile(r"\(\?:((?:\(\?<=(?:[^()\\]|\\.)+\)\|?)+)\)")
_CUE = re.compile(r"\(\?<=((?:[^()\\]|\\.)+)\)")

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


def cue_prefilter(regexes: Sequence[str], flags: int) -> Any | None:
    """A pattern matching one of the look-behind cues every regex opens with, or None.

    ``(?:(?<=Dr\\. )|(?<=Mrs )|...)NAME`` matches only where one of its cues ends, so a text in
    which no cue occurs has no match. The cues are searched for with the same ``regex`` module
    and flags as the patterns (case-insensitive when they are). None when each pattern has a
    single look-behind (``(?<=Dr\\. |Mrs |...)NAME``): the ``regex`` module tries it only
    where the name's first letter stands, faster than a search for its cues (measured: the
    search for 70 cues took eight times the pattern's own time)."""
    import regex

    cues: list[str] = []
    for pattern in regexes:
        m = _CUES.match(pattern)
        if m is None:
            return None
        cues += _CUE.findall(m.group(1))
    if len(cues) <= len(regexes):
        return None  # one look-behind a pattern: the pattern is as quick as the cues' search
    return regex.compile("|".join(f"(?:{c})" for c in cues), flags)


def _needs(items: Any) -> set[str]:
    """What every match of a parsed regular expression (``re._parser`` tree) needs in the
    text: ``"digit"`` and non-letter literal characters, each one needed on its own."""
    from re import _constants as c

    out: set[str] = set()
    for op, arg in items:
        if op is c.LITERAL:
            char = chr(arg)
            if char.isdigit():
                out.add("digit")
            elif not char.isalpha():  # a letter may match in another case
                out.add(char)
        elif op is c.IN:
            if all(
                (o is c.CATEGORY and a is c.CATEGORY_DIGIT)
                or (o is c.RANGE and 48 <= a[0] <= a[1] <= 57)
                or (o is c.LITERAL and 48 <= a <= 57)
                for o, a in arg
            ):
                out.add("digit")
            elif len(arg) == 1 and arg[0][0] is c.LITERAL and not chr(arg[0][1]).isalpha():
                out.add(chr(arg[0][1]))
        elif op is c.SUBPATTERN:
            out |= _needs(arg[-1])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and arg[0] >= 1:
            out |= _needs(arg[2])
        elif op is c.BRANCH:
            branches = [_needs(b) for b in arg[1]]
            out |= set.intersection(*branches) if branches else set()
        elif op is c.ASSERT:  # a look-ahead or look-behind reads text that must be there
            out |= _needs(arg[1])
    return out


def pattern_prefilter(regexes: Sequence[str]) -> re.Pattern[str] | None:
    """A one-character pattern every one of ``regexes`` needs (a digit, or a rare symbol such
    as ``@``), or None. Derived from the expressions themselves (Python's own parser; one
    that it cannot read, e.g. ``\\p{Lu}``, gets no prefilter)."""
    from re import _parser

    common: set[str] | None = None
    for regex_text in regexes:
        try:
            needs = _needs(_parser.parse(regex_text))
        except (re.error, Exception):  # noqa: BLE001 - a syntax only the regex module reads
            return None
        common = needs if common is None else common & needs
    if not common:
        return None
    if "digit" in common:
        return _DIGIT
    for char in _RARE:
        if char in common:
            return re.compile(re.escape(char))
    return None


def patterns_digest(recognizer: Any) -> str:
    """SHA-256 (first 16 hex digits) of a recognizer's patterns, one a line."""
    import hashlib

    text = "\n".join(p.regex for p in getattr(recognizer, "patterns", None) or ())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


#: Pattern recognizers (by name) whose every match holds a short shape, reviewed by hand, with
#: the SHA-256 (first 16 hex digits) of the reviewed patterns (:func:`patterns_digest`): a
#: recognizer whose patterns differ (changed rules, a user's own) gets no shape prefilter.
SHAPES: dict[str, tuple[str, str]] = {
    # "Maja S Hermansen": case-sensitive (?-i:...) around the whole name; the first word ends in
    # a small letter or an apostrophe of its class [a-zß-öø-ÿĀ-ſ'’], then " ", one capital
    # [A-Z], maybe ".", " ", and the last word opens with a capital of [A-ZÀ-ÖØ-ÞĀ-ſ]
    "Person with a middle initial": (
        "(?-i:[a-zß-öø-ÿ\u0100-\u017f'’] [A-Z]\\.? [A-ZÀ-ÖØ-Þ\u0100-\u017f])",
        "5d771edd9633ed7d",
    ),
}


def shape_prefilter(recognizer: Any) -> Any | None:
    """The shape every match of ``recognizer`` holds (:data:`SHAPES`), compiled with the
    ``regex`` module and the recognizer's flags, when its patterns and flags are the reviewed
    ones (else None)."""
    import regex

    reviewed = SHAPES.get(getattr(recognizer, "name", ""))
    if (
        reviewed is None
        or getattr(recognizer, "global_regex_flags", None)
        != regex.DOTALL | regex.MULTILINE | regex.IGNORECASE
        or patterns_digest(recognizer) != reviewed[1]
    ):
        return None
    return regex.compile(reviewed[0], recognizer.global_regex_flags)


#: Presidio's pattern recognizers (by class name, as Presidio names them) with a shape that every
#: match of every one of their patterns holds, reviewed by hand against the patterns whose
#: SHA-256 is given (:func:`patterns_digest`; presidio-analyzer 2.2). Written for Python's ``re``
#: without flags and wider than the patterns: ``\d`` for ``[0-9]``, ``\w`` for hexadecimal digits
#: (any case the patterns' case-insensitive flag lets them match). Each opens with a digit or a
#: separator ("-", ":", "."), not a word character: ``re`` skips quickly to where it can start
#: (``\w{26}`` for crypto wallets cost more than the pattern it would have spared).
PATTERN_SHAPES: dict[str, tuple[str, str]] = {
    # every date pattern has a digit then "-", "/" or "." ("12/", "2024-", "31.") except
    # "MMM-yyyy", which has "-" then a digit ("JAN-24")
    "DateRecognizer": (r"\d[-/.]|-\d", "95ce0df7492c064a"),
    # IPv4 (also mapped or embedded in IPv6) has "." then a digit; every IPv6 alternative has
    # "::" or two hexadecimal groups joined by ":" (":" then a hex digit)
    "IpRecognizer": (r":[:\w]|\.\d", "2e5b4e8ccce1e531"),
    # "01:23:45:67:89:ab" (or with "-"): a separator, two hex digits, the separator again;
    # Cisco's "0123.4567.89ab": ".", four hex digits, "."
    "MacAddressRecognizer": (r"[:-]\w\w[:-]|\.\w{4}\.", "8da2b8876ef8bf50"),
    # 5-4, 3-6, 3-2-4 (with "-", " " or "."), 9 digits: 3 digits, maybe a separator, 2 digits,
    # maybe a separator, 4 digits
    "UsSsnRecognizer": (r"\d{3}[- .]?\d{2}[- .]?\d{4}", "99e2c61f6a973b04"),
    # "9" and 2 digits, maybe "-" or " ", the 2-digit group, maybe "-" or " ", 4 digits
    "UsItinRecognizer": (r"9\d{2}[- ]?\d{2}[- ]?\d{4}", "1dc3ba3379d4812d"),
}


def pattern_shape(recognizer: Any) -> re.Pattern[str] | None:
    """The shape of :data:`PATTERN_SHAPES` every match of ``recognizer`` holds, compiled, when it
    is Presidio's recognizer with the reviewed patterns and Presidio's own ``analyze`` (which
    finds nothing its patterns do not match); else None."""
    from presidio_analyzer import PatternRecognizer

    reviewed = PATTERN_SHAPES.get(type(recognizer).__name__)
    if (
        reviewed is None
        or not isinstance(recognizer, PatternRecognizer)
        or type(recognizer).analyze is not PatternRecognizer.analyze
        or patterns_digest(recognizer) != reviewed[1]
    ):
        return None
    return re.compile(reviewed[0])
