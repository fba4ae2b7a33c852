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
  praising or plain adjective beside them ("Customer Service", "Great Service", "Grand Opening").

Each test reads a few words per span; spans of other types pass untouched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, TypeVar

from anon_core.pii.names import gazetteer
from anon_core.pii.not_entities import english_not_name, generic_phrase, shouted_words

_S = TypeVar("_S")

#: Titles before a surname: "Mr Baker", "Dr. Cloud" stay persons.
_TITLE_BEFORE = re.compile(
    r"(?i:\b(?:mr|mrs|ms|miss|mister|dr|doctor|prof|professor|sir|madam|lady|lord|dame)\.?)\s*$"
)
_NAMED_TYPES = frozenset(("PERSON", "ORGANIZATION", "LOCATION"))


def spurious(text: str, start: int, end: int, entity: str) -> bool:
    """Whether the ``entity`` span ``text[start:end]`` holds no name (see the module text)."""
    if entity not in _NAMED_TYPES:
        return False
    span = text[start:end]
    if not any(c.isalpha() for c in span):
        return False
    gaz = gazetteer()
    if entity == "PERSON":
        if _TITLE_BEFORE.search(text[max(0, start - 12) : start]):
            return False
        return english_not_name(span, gaz) or generic_phrase(span, gaz) or shouted_words(span, gaz)
    return generic_phrase(span, gaz)


def drop_spurious(text: str, spans: Sequence[_S]) -> list[_S]:
    """``spans`` (objects with ``start``, ``end`` and ``entity``) without the spurious ones."""
    return [s for s in spans if not spurious(text, *_bounds(s))]


def _bounds(span: Any) -> tuple[int, int, str]:
    return span.start, span.end, span.entity
