"""URLs and e-mail addresses with their exact extent, and the spans of words (names, places,
dates) cut where they run into a URL, an e-mail address or a phone number.

Presidio's ``UrlRecognizer`` stops a host at the first listed top-level domain that fits
("walker.biz" read as "walker.bi", ".../home.html" ended at ".ht") and takes a full stop after a
URL in; :func:`web_address_recognizer` replaces it. The NER model reads some addresses together
with the words beside them, and an address recognizer may read the first group of a phone
number after an address as a house number; :func:`split_at_web_addresses` and
:func:`cut_at_exact_entities` give the identifier its own span back.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

#: Top-level domains Presidio's URL patterns list that it lacks (Faker's "biz", 1 domain in 10).
_EXTRA_TLDS = ("biz",)


@functools.lru_cache(maxsize=1)
def web_address_pattern() -> re.Pattern[str]:
    """A URL: an optional scheme ("https://", "ftp://"), an optional "www.", host labels, a
    top-level domain of Presidio's list (plus :data:`_EXTRA_TLDS`) that ends the host, an
    optional port, then a path, query or fragment up to a space, a quote or a bracket.

    The host is not read inside a word, an e-mail address or a longer host (no letter, digit,
    "@", "." or "-" before it) and ends where the domain does: Presidio's own pattern stops at
    the first listed domain that fits, so "walker.biz" was read as "walker.bi" and a path
    ".../home.html" ended at ".ht".
    """
    from presidio_analyzer.predefined_recognizers import UrlRecognizer

    listed = re.findall(r"\(\?:([a-z0-9]+)\)", UrlRecognizer.BASE_URL_REGEX)
    tlds = sorted(set(listed) | set(_EXTRA_TLDS), key=lambda t: (-len(t), t))
    return re.compile(
        r"(?<![\w@.\-/])"
        r"(?P<scheme>(?:https?|ftp)://)?"
        r"(?:www\d{0,3}\.)?"
        r"(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)+"
        rf"(?:{'|'.join(tlds)})"
        r"(?![\w@-])"
        r"(?::\d{1,5})?"
        r"(?:[/?#][^\s()<>\"'\[\]{}]*)?",
        re.IGNORECASE,
    )


#: A dot before a letter: every URL holds one.
_DOT_LETTER = re.compile(r"\.[^\W\d_]")
_NON_SPACE = re.compile(r"\S*")
_SPACE = re.compile(r"\s")
#: What ends a sentence or a clause after a URL, never part of it.
_URL_TAIL = ".,;:!?"


def web_address_spans(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, has a scheme) of every URL in ``text`` (:func:`web_address_pattern`), a
    trailing full stop, comma, colon, semicolon, question or exclamation mark left out.

    Only the runs of non-space characters holding a dot before a letter are read, each once
    (linear in the length of the text, however long a run)."""
    pattern = web_address_pattern()
    out: list[tuple[int, int, bool]] = []
    done = 0  # the end of the last run read
    for dot in _DOT_LETTER.finditer(text):
        if dot.start() < done:
            continue
        start = dot.start()
        while start > done and not _SPACE.match(text, start - 1):
            start -= 1
        done = _NON_SPACE.match(text, dot.start()).end()
        for m in pattern.finditer(text, start, done):
            end = m.end()
            while end > m.start() and text[end - 1] in _URL_TAIL:
                end -= 1
            out.append((m.start(), end, m.group("scheme") is not None))
    return out


def web_address_recognizer(language: str) -> Any:
    """URLs (:func:`web_address_spans`): 0.6 with a scheme, 0.5 without, as Presidio's
    ``UrlRecognizer`` scores them (context words "url", "website", "link" raise the score)."""
    from presidio_analyzer import Pattern, PatternRecognizer, RecognizerResult

    class WebAddressRecognizer(PatternRecognizer):
        def analyze(
            self, text: str, entities: Any, nlp_artifacts: Any = None, regex_flags: Any = None
        ):
            results = []
            for start, end, scheme in web_address_spans(text):
                score = 0.6 if scheme else 0.5
                results.append(
                    RecognizerResult(
                        entity_type="URL",
                        start=start,
                        end=end,
                        score=score,
                        analysis_explanation=self.build_regex_explanation(
                            self.name, "url", "web_address_pattern", score, None, regex_flags
                        ),
                        recognition_metadata={
                            RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                            RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                        },
                    )
                )
            return results

    return WebAddressRecognizer(
        supported_entity="URL",
        name="URL (whole host and path)",
        patterns=[Pattern("url", r"\.[^\W\d_]", 0.5)],  # analyze reads web_address_pattern
        context=["url", "website", "link", "site", "web"],
        supported_language=language,
    )


#: An e-mail address (the shape Presidio's recognizer reads: a local part, "@", a dotted domain).
_EMAIL_SHAPE = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@\w+(?:-+\w+)*(?:\.\w+(?:-+\w+)*)+")
_PIECE = re.compile(r"[^\W_](?:.*[^\W_])?", re.DOTALL)
_LETTERS = re.compile(r"[^\W\d_]+")


def split_at_web_addresses(
    text: str, entities: Iterable[tuple[int, int, str, float]], gaz: Any = None
) -> list[tuple[int, int, str, float]]:
    """The NER model's spans with the e-mail addresses and URLs inside them cut out.

    A name or an organisation never holds an e-mail address or a URL, but the model reads some
    together with the words beside them ("Johnson-King - ann@walker.info", "mailto:ann@x.org",
    "ann@x.org Thanks"); the longer span then wins over the address and takes the words beside
    it. Each piece left on either side (its spaces and punctuation at the edges stripped) keeps
    the span's type and score when it holds a capital letter and, with the name gazetteer
    ``gaz``, a word that is a given name or surname or no English word ("Thanks", "See" go).
    """
    from anon_core.pii.name_lists import is_english

    out = []
    for start, end, entity, score in entities:
        span = text[start:end]
        if "." not in span:  # an e-mail address and a URL both hold a dot
            out.append((start, end, entity, score))
            continue
        cuts = []
        if "@" in span:
            cuts = [(start + m.start(), start + m.end()) for m in _EMAIL_SHAPE.finditer(span)]
        cuts += [
            (start + a, start + b)
            for a, b, _ in web_address_spans(span)
            if not any(x <= start + a < y for x, y in cuts)
        ]
        if not cuts:
            out.append((start, end, entity, score))
            continue
        bounds = [start] + [p for cut in sorted(cuts) for p in cut] + [end]
        for a, b in zip(bounds[::2], bounds[1::2], strict=True):
            piece = _PIECE.search(text, a, b) if a < b else None
            if piece is None or not any(c.isupper() for c in piece.group()):
                continue
            words = [w.lower() for w in _LETTERS.findall(piece.group())]
            if gaz is None or any(
                w in gaz.given or w in gaz.family or not is_english(w) for w in words
            ):
                out.append((piece.start(), piece.end(), entity, score))
    return out


#: Entities whose extent a checked pattern gives (a phone layout, an e-mail address, a URL).
EXACT_ENTITIES = frozenset({"PHONE_NUMBER", "EMAIL_ADDRESS", "URL"})
#: Entities read from words, whose extent may run into a number or an address beside them.
_WORD_ENTITIES = frozenset(
    {"STREET_ADDRESS", "LOCATION", "PERSON", "ORGANIZATION", "DATE_TIME", "NRP", "TITLE"}
)


def cut_at_exact_entities(
    text: str, spans: Iterable[tuple[int, int, str, float]]
) -> list[tuple[int, int, str, float]]:
    """Spans of words (addresses, places, names, dates) cut back where they run into a phone
    number, an e-mail address or a URL (:data:`EXACT_ENTITIES`) that starts or ends inside them.

    An address read up to the first group of the phone after it ("538 Erik Hill, Lake Amber,
    656" of "... Lake Amber, 656.959.2151") is longer than the phone, so the overlap rule would
    keep the address and drop the whole phone; cut back to end before the phone (or start after
    it), both are kept. A span that holds a whole phone, or lies inside one, is left as it is
    (the overlap rule decides); a piece without a letter or digit is dropped.
    """
    spans = list(spans)
    exact = [(a, b) for a, b, kind, _ in spans if kind in EXACT_ENTITIES]
    if not exact:
        return spans
    out = []
    for start, end, kind, score in spans:
        if kind in _WORD_ENTITIES:
            for a, b in exact:
                if start < a < end < b:  # runs into the start of the number
                    end = a
                elif a < start < b < end:  # starts inside the number and runs past its end
                    start = b
            piece = _PIECE.search(text, start, end) if start < end else None
            if piece is None:
                continue
            if piece.end() - piece.start() < end - start:
                start, end = piece.start(), piece.end()
        out.append((start, end, kind, score))
    return out
