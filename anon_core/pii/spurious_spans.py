"""Person, organisation and place spans that hold no name, dropped once every recognizer spoke.

The name review (:mod:`anon_core.pii.name_review`) and the organisation review drop the NER
model's spans made of common words; the cue recognizers' spans ("Person after a title or role":
"Dear Customer", "Dear Team", "Dear Sir") and what the span refinement leaves of a reviewed span
("Call Customer Service" cut to "Customer Service") are not reviewed there. :func:`drop_spurious`
reads the spans once more, just before overlaps are resolved, with the word tests of
:mod:`anon_core.pii.not_entities`:

* a person span whose words are all common English words, none a given name or surname of the
  gazetteer (:func:`~anon_core.pii.not_entities.english_not_name`), or generic words of offices
  and shops (:func:`~anon_core.pii.not_entities.generic_phrase`), unless a title stands before
  it ("Mr Cloud" stays a person);
* an organisation or place span made of generic words of offices, shops and events, with a
  praising or plain adjective beside them ("Customer Service", "Great Service", "Grand Opening");
* a person or place span before "'s Day" ("Valentine's Day", "St. Patrick's Day") or "Eve"
  after "New Year's" or "Christmas": a feast, no name;
* a place or street address span of numbers and parts of a document ("Chapter 3, Section 4,
  Page 120"); "Dear All" and "Hi Everyone" as persons.

Each test reads a few words per span; spans of other types pass untouched.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from typing import Any

from anon_core.pii.names import gazetteer
from anon_core.pii.not_entities import (
    QUALIFIERS,
    english_not_name,
    generic_phrase,
    generic_word,
    phrase_word,
    shouted_words,
)

#: Titles before a surname: "Mr Baker", "Dr. Cloud" stay persons.
_TITLE_BEFORE = re.compile(
    r"(?i:\b(?:mr|mrs|ms|miss|mister|dr|doctor|prof|professor|sir|madam|lady|lord|dame)\.?)\s*$"
)
_NAMED_TYPES = frozenset(("PERSON", "ORGANIZATION", "LOCATION"))
_PLACE_TYPES = frozenset(("LOCATION", "STREET_ADDRESS"))
#: The types :func:`spurious` may drop (any other span is kept as it is).
_REVIEWED_TYPES = _NAMED_TYPES | _PLACE_TYPES
#: Words that address everyone, never a name ("Dear All", "Hi Everyone").
_EVERYONE = frozenset("all everyone everybody both".split())
#: A feast named after a saint or a person: "Valentine's Day", "St. Patrick's Day", "Presidents'
#: Day" (the possessive and "Day" with a capital), or the eve of one ("New Year's Eve").
_FEAST_AFTER = re.compile(r"(?:['’]s|s['’])\s+Day\b")
_EVE = re.compile(r"(?i:new\s+year['’]?s|christmas|hallows['’]?)\s+$")
#: Parts of a document, numbered: "Chapter 3, Section 4, Page 120" is no street address.
_DOCUMENT_PARTS = frozenset(
    """
    chapter section page pages paragraph article clause figure table volume part appendix annex
    verse line lines episode season step item question exercise slide footnote schedule
    """.split()
)
_LETTERS = re.compile(r"[^\W\d_]+")


def spurious(text: str, start: int, end: int, entity: str) -> bool:
    """Whether the ``entity`` span ``text[start:end]`` holds no name (see the module text)."""
    if entity in _PLACE_TYPES and _document_parts(text, start, end):
        return True
    if entity not in _NAMED_TYPES:
        return False
    span = text[start:end]
    if not _LETTERS.search(span):
        return False
    if _FEAST_AFTER.match(text, end) or (
        span == "Eve" and _EVE.search(text[max(0, start - 20) : start])
    ):
        return True  # "Valentine's Day", "New Year's Eve"
    # a title before the span keeps a person ("Mr Cloud"): looked for only when the words alone
    # hold no name (most spans hold one), as the words decide nothing else
    if not _words_no_name(span, entity, False):
        return False
    titled = entity == "PERSON" and bool(_TITLE_BEFORE.search(text[max(0, start - 12) : start]))
    return not titled or _words_no_name(span, entity, True)


@functools.lru_cache(maxsize=65536)
def _words_no_name(span: str, entity: str, titled: bool) -> bool:
    """The word tests of :func:`spurious`, decided once per span (names recur in a text),
    ``titled`` when a title stands before the span."""
    gaz = gazetteer()
    if entity != "PERSON":
        return generic_phrase(span, gaz)
    if titled:
        return False
    low = span.lower()
    if low.strip(" ,.!") in _EVERYONE:
        return True  # "Dear All"
    if not span.isupper() and any(
        w in gaz.given and not phrase_word(w) for w in _LETTERS.findall(low)
    ):
        return False  # a given name that is no office word: none of the tests below holds
    # English words none a name of the gazetteer, English nouns together ("Market Analyst"; a
    # noun alone, "Goldberg", may be a surname the gazetteer lacks), office words, capitals
    return (
        english_not_name(span, gaz, nouns=True)
        or generic_phrase(span, gaz)
        or shouted_words(span, gaz)
    )


def _document_parts(text: str, start: int, end: int) -> bool:
    """Whether a place span holds numbers and parts of a document only, the part word before
    it included ("Chapter 3, Section 4, Page 120", "Article 5, Paragraph 2")."""
    words = _LETTERS.findall(text[start:end])
    if text[start : start + 1].isdigit():
        before = _LETTERS.findall(text[max(0, start - 20) : start])
        words += before[-1:]
    return bool(words) and all(w.lower() in _DOCUMENT_PARTS for w in words)


def drop_spurious(text: str, spans: Sequence[Any]) -> list[Any]:
    """``spans`` (dataclasses with ``start``, ``end`` and ``entity``) without the spurious ones,
    a person span without the role words before the name (:func:`role_words_before`)."""
    out = []
    for span in spans:
        if spurious(text, *_bounds(span)):
            continue
        if span.entity == "PERSON":
            start = role_words_before(text, span.start, span.end)
            if start != span.start:
                span = dataclasses.replace(span, start=start)
        out.append(span)
    return out


def drop_spurious_tuples(
    text: str, spans: Sequence[tuple[int, int, str, float]]
) -> list[tuple[int, int, str, float]]:
    """:func:`drop_spurious` of ``(start, end, entity, score)`` tuples: the same spans kept, the
    same starts moved. A span of another type than those :func:`spurious` reviews is kept
    without a call."""
    out = []
    for span in spans:
        start, end, entity, score = span
        if entity in _REVIEWED_TYPES and spurious(text, start, end, entity):
            continue
        if entity == "PERSON":
            new_start = start + _role_words_length(text[start:end])
            if new_start != start:
                span = (new_start, end, entity, score)
        out.append(span)
    return out


_ROLE_WORD = re.compile(r"([^\W\d_]+)[ \t]+(?=[^\W\d_])")


def role_words_before(text: str, start: int, end: int) -> int:
    """Where the name of the person span ``text[start:end]`` starts: after the words of the
    office vocabulary or praising adjectives that open it ("Valued Customer Rachel Green",
    "Customer Rachel Green" give "Rachel Green"), none a given name or surname of the
    gazetteer; the last word always stays ("Customer Service" is for :func:`spurious`)."""
    return start + _role_words_length(text[start:end])


@functools.lru_cache(maxsize=65536)
def _role_words_length(span: str) -> int:
    """The length of the role words that open ``span`` (:func:`role_words_before`)."""
    gaz, start, text, end = gazetteer(), 0, span, len(span)
    while True:
        m = _ROLE_WORD.match(text, start, end)
        if not m:
            return start
        low = m.group(1).lower()
        if low in gaz.given or low in gaz.family or not (generic_word(low) or low in QUALIFIERS):
            return start
        if not text[m.end() : m.end() + 1].isupper():
            return start
        start = m.end()


def _bounds(span: Any) -> tuple[int, int, str]:
    return span.start, span.end, span.entity
