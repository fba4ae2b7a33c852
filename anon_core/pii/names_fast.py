"""The name rules' per-word decisions (:mod:`anon_core.pii.names`), made once per distinct word.

A document repeats its words: the shape of each token's text (a capitalised word, an initial, a
lower-case word) is read from a table filled on first sight instead of three regular
expressions a token, and the "name no list knows" test (:func:`unknown_name_run`) is
remembered per run of words. The tables are bounded (the shape table starts again when full,
the others are least-recently-used caches), so their memory does not grow with the input.
"""

from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple

from anon_core.pii.name_lists import LOWER, NAME_CUE_WORDS, UPPER, unknown_name_run

#: A capitalised word ("Ines", "O'Neil", "Quinn-Royce"; "McDonald", "MacArthur", "DeShawn").
NAME_WORD = re.compile(
    rf"(?:Mc|Mac|De|Di|Du|La|Le|Fitz|O['’])?[{UPPER}][{LOWER}]+(?:[-'’][{UPPER}]?[{LOWER}]+)*"
)
#: A word of three lower-case letters or more.
LOWER_WORD = re.compile(rf"[{LOWER}]{{3,}}")
#: A middle initial ("D", "D.").
INITIAL = re.compile(r"[A-Z]\.?")
#: A possessive ending ("Ines Quinn's"): not part of the name.
POSSESSIVE = re.compile(r"['’]s$")
#: Distinct token texts whose shape is remembered (then the table starts again).
SHAPE_TABLE = 100_000
_SHAPES: dict[str, tuple[str, bool, bool, bool]] = {}


def word_shape(text: str) -> tuple[str, bool, bool, bool]:
    """``(bare, name_word, initial, lower_word)`` of a token's text: the text without a
    possessive ending, whether that is a capitalised word (:data:`NAME_WORD`) or an initial
    (:data:`INITIAL`), and whether the text is a lower-case word (:data:`LOWER_WORD`)."""
    shape = _SHAPES.get(text)
    if shape is None:
        if len(_SHAPES) >= SHAPE_TABLE:
            _SHAPES.clear()
        bare = POSSESSIVE.sub("", text)
        shape = (
            bare,
            bool(NAME_WORD.fullmatch(bare)),
            bool(INITIAL.fullmatch(bare)),
            bool(LOWER_WORD.fullmatch(text)),
        )
        _SHAPES[text] = shape
    return shape


class Token(NamedTuple):
    """The attributes of a spaCy token the rules read, read once (each read of a spaCy token's
    ``text`` builds a new string, and the rules read it many times), and its
    :func:`word_shape`. A named tuple: :func:`read_tokens` builds each one in a single C call
    (``tuple.__new__``) instead of a Python ``__init__`` a token."""

    text: str
    whitespace_: str
    idx: int
    is_space: bool
    is_alpha: bool
    bare: str = ""
    name_word: bool = False
    initial: bool = False
    lower_word: bool = False


_new_tuple = tuple.__new__
#: spaCy's 0/1 flags and trailing-space flag, as the values a token carries.
_FLAG = (False, True)
_SPACE = ("", " ")


def read_tokens(doc: Any, text: str) -> list[Token]:
    """The doc's tokens from its arrays (``Doc.to_array``): one call instead of five attribute
    reads a token; ``text`` is the doc's text, so a token's text is the slice at its offset."""
    from spacy.attrs import IDX, IS_ALPHA, IS_SPACE, LENGTH, SPACY

    if not len(doc):
        return []
    # one list per attribute (five lists, not one per token), read row by row through zip
    columns = doc.to_array([IDX, LENGTH, SPACY, IS_SPACE, IS_ALPHA]).T.tolist()
    shapes, shape_of = _SHAPES, word_shape
    out = []
    for i, n, ws, space, alpha in zip(*columns, strict=True):
        word = text[i : i + n]
        shape = shapes.get(word) or shape_of(word)
        out.append(_new_tuple(Token, (word, _SPACE[ws], i, _FLAG[space], _FLAG[alpha], *shape)))
    return out


class GazetteerTable:
    """A bounded table of verdicts that depend on one gazetteer: read through :meth:`of`, which
    starts it again when it holds ``size`` entries or when another gazetteer asks (an identity
    test, cheaper than hashing the gazetteer as a cache key on every call)."""

    def __init__(self, size: int = 50_000) -> None:
        self.size = size
        self.gaz: Any = None
        self.values: dict[Any, Any] = {}

    def of(self, gaz: Any) -> dict[Any, Any]:
        if gaz is not self.gaz or len(self.values) >= self.size:
            self.values = {}
            self.gaz = gaz
        return self.values


@functools.lru_cache(maxsize=16384)
def unknown_run(words: tuple[str, ...], gaz: Any) -> bool:
    """:func:`unknown_name_run` of a run with the gazetteer's names and common words."""
    return unknown_name_run(words, gaz.is_name, gaz.common)


@functools.lru_cache(maxsize=16384)
def unknown_word(word: str, common: frozenset[str]) -> bool:
    """A word in no list: no name, no English word, no common word, no place."""
    return unknown_name_run([word], lambda _: False, common)


def may_hold_cue(text: str) -> bool:
    """Whether a token of ``text`` may be a "name" cue word (:data:`NAME_CUE_WORDS`, read in
    lower case): a token that is one, lowered, is part of the lowered text (``str.lower`` maps
    each character alone but the Greek final sigma, in no cue word), so a text without any of
    them as a substring holds no cue and the token-by-token look is skipped."""
    low = text.lower()
    return any(word in low for word in NAME_CUE_WORDS)
