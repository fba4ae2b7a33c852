"""The name review's word tests (:mod:`anon_core.pii.name_review`) decided once per distinct word.

A person span of the NER model or of the name rules is dropped when it holds no name: when
:func:`~anon_core.pii.not_entities.english_not_name`, :func:`~anon_core.pii.not_entities.generic_phrase`
or :func:`~anon_core.pii.not_entities.shouted_words` accepts it. Each of the three needs every
word of the span to be of its kind, so one word that none of them takes decides the span at once
(:func:`holds_name_word`): a word that is not "&", not written in capitals, no word a generic
phrase may hold (:func:`~anon_core.pii.not_entities.phrase_word`) and no common English word
(:func:`~anon_core.pii.not_entities.common_word`: a given name or surname of the gazetteer is
never one). Most spans hold such a word (a name), and the word's verdict is read from a table
filled on first sight, so most spans cost one pass of a regular expression and a few look-ups
instead of the three tests. The tables are bounded: they start again when full, and when the
gazetteer changes.
"""

from __future__ import annotations

import re
from typing import Any

from anon_core.pii.names_fast import GazetteerTable
from anon_core.pii.not_entities import common_word, phrase_word

#: The words the three tests read (the same pattern as :mod:`anon_core.pii.not_entities`'):
#: letters with inner apostrophes or hyphens, and "&".
WORDS = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|&")
#: The verdicts of :func:`name_word`, per distinct word (bounded).
_WORD_TABLE = GazetteerTable()


def name_word(word: str, gaz: Any) -> bool:
    """Whether ``word`` (a word of :data:`WORDS`) makes each of ``english_not_name(span, gaz)``,
    ``generic_phrase(span, gaz)`` and ``shouted_words(span, gaz)`` false for any span holding it
    (read from the table of verdicts, filled on first sight)."""
    table = _WORD_TABLE.of(gaz)
    verdict = table.get(word)
    if verdict is None:
        verdict = table[word] = _decide(word, gaz)
    return verdict


def _decide(word: str, gaz: Any) -> bool:
    """:func:`name_word` decided from the lists:

    * ``english_not_name`` (without ``nouns``) needs every word but "&" and the glue words (all
      phrase words) to be a :func:`common_word`; this one is not;
    * ``generic_phrase`` needs every word but glue words, qualifiers and an opening inviting verb
      (all phrase words) to be a generic word, an acronym or an event word (phrase words too);
      this one is no phrase word;
    * ``shouted_words`` needs every word to be "&" or in capitals; this one is neither.
    """
    return (
        word != "&"
        and not word.isupper()
        and not phrase_word(word.lower())
        and not common_word(word, gaz)
    )


def holds_name_word(span: str, gaz: Any) -> bool:
    """Whether a word of ``span`` is a :func:`name_word`: then no word test drops the span. (The
    table is read once per span, so it may outgrow its size by one span's words: still bounded.)"""
    table = _WORD_TABLE.of(gaz)
    for word in WORDS.findall(span):
        verdict = table.get(word)
        if verdict is None:
            verdict = table[word] = _decide(word, gaz)
        if verdict:
            return True
    return False
