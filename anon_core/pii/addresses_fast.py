"""Cheaper ways to the same street shapes of :func:`anon_core.pii.addresses._cores`
(``tests/test_pii_speed_attr_places.py`` compares each with the plain scan it stands for).

* :func:`may_hold_opener`: the street pattern that opens with a street word ("Via Tasso 129",
  "rue de Tanger") is run only on text holding one of those words as a whole run of
  ``[\\w.-]`` characters; a scan of the whole alternation at every character was most of its
  cost.
* :func:`may_hold_box`: the post-box pattern ("P.O. Box 242", "Postfach 12 34", "USNS Smith")
  is run only on text holding one of its words; it finds nothing in most texts.
* :func:`weak_matches`: the capitalised words with a house number ("Tabor 9c"), whose pattern
  is searched at every character (overlapping matches), tried only at the capitals and
  apostrophes a few words before a number that follows a word.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any


def opener_firsts(openers: Iterable[str]) -> frozenset[str]:
    """The first run of ``[\\w.-]`` characters of each street word ("Eje" of "Eje vial")."""
    import regex

    run = regex.compile(r"[\w.-]+")
    out = set()
    for word in openers:
        m = run.match(word)
        if m is None:
            raise ValueError(f"a street word must start with a letter: {word!r}")
        out.add(m.group(0))
    return frozenset(out)


def may_hold_opener(text: str, firsts: frozenset[str], tokens: Any) -> bool:
    """Whether a street word of ``firsts`` (:func:`opener_firsts`) may open a street in
    ``text``: the pattern wants no ``[\\w.-]`` character before the word and a space or a tab
    after its first run, so that run is a whole match of ``tokens`` (``[\\w.-]+``); without
    one, the pattern finds nothing."""
    return not firsts.isdisjoint(tokens.findall(text))


#: A piece of every case-blind word of the post-box pattern, case-folded: "box" (of "P.O. Box",
#: "Postbox"), "fach", "apartado", "postale" (of "casella postale", "boîte postale"), "psc", and
#: "bp" or "b.p" (of ``b\.?p``).
BOX_PIECES = ("box", "fach", "apartado", "postale", "psc", "bp", "b.p")
#: A piece of every word the post-box pattern wants in this case: "Unit", "USNS", "USNV", "USS",
#: "USCGC".
BOX_PIECES_CASED = ("Unit", "US")


def may_hold_box(text: str) -> bool:
    """Whether the post-box street pattern may match in ``text``: each of its matches holds one
    of :data:`BOX_PIECES` (read case-blind) or of :data:`BOX_PIECES_CASED`. Every character the
    pattern's case-blind match takes for one of those letters case-folds to that very letter
    (``tests/test_pii_speed_q5.py`` checks all of Unicode), so the case-folded text holds the
    piece whole; without one, the pattern finds nothing."""
    if any(piece in text for piece in BOX_PIECES_CASED):
        return True
    folded = text.casefold()
    return any(piece in folded for piece in BOX_PIECES)


#: Characters a match of the weak pattern may hold before its house number: letters, marks,
#: apostrophes, dots, hyphens, a comma, spaces and tabs (capitalised words and particles).
_INSIDE = frozenset("'’.-,")
#: Whitespace runs a match holds before its number at most: one before the number, three
#: between its four words, and one inside each of them ("'t Zand").
_MOST_SPACES = 8


def weak_matches(text: str, weak: Any, gate: Any) -> Iterator[Any]:
    """The matches of ``weak`` that ``weak.finditer(text, overlapped=True)`` gives, in order.

    Each ends in a house number after spaces, whose first digit ``gate`` (``[ \\t]\\d``)
    finds; the match starts at a capital or an apostrophe at most :data:`_MOST_SPACES`
    whitespace runs before that digit, with only letters, marks, :data:`_INSIDE` and spaces
    between. ``weak`` is tried at each such place, in order (an overlapped search gives the
    match at every place it starts).
    """
    starts: set[int] = set()
    for g in gate.finditer(text):
        digit = g.end() - 1
        k = digit
        spaces = 0
        in_space = False
        while k > 0:
            c = text[k - 1]
            if c in " \t":
                if not in_space:
                    spaces += 1
                    in_space = True
                if spaces > _MOST_SPACES:
                    break
            elif c.isalpha() or c in _INSIDE or unicodedata.category(c)[0] == "M":
                in_space = False
                if not c.islower():  # a capital or an apostrophe (and a few more: tried too)
                    starts.add(k - 1)
            else:
                break
            k -= 1
    for at in sorted(starts):
        m = weak.match(text, at)
        if m is not None:
            yield m
