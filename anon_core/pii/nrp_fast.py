"""The word lists of the group finder (:func:`anon_core.pii.attributes.find_nrp`) as sets of
whole words, so that a list none of whose words is in a text costs no scan
(``tests/test_pii_speed_attr.py`` compares the finder with the plain scans).

The German, the Spanish, Italian and French lists and the "atheist" list are case-sensitive
alternations of words between edges that no word character, apostrophe or hyphen may touch
(``(?<![\\w'’-])`` ... ``(?![\\w'’-])``; the German one without apostrophes): each match is a
whole run of those characters, written exactly as one of the list's finitely many words.
:func:`expand` spells the words of an entry out; :func:`lists_needed` says which lists have a
word among the runs of a text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A run of the characters no match of the lists may touch: a match is one whole run.
_RUN = re.compile(r"[\w'’-]+")
_APOSTROPHE = re.compile(r"['’]")


def french_forms(word: str) -> str:
    """A French nationality or religion with its feminine and plural forms, as a regex."""
    if word.endswith("ien"):
        return re.escape(word) + r"(?:ne|nes|s)?"
    if word.endswith(("s", "x")):
        return re.escape(word) + r"(?:e|es)?"
    if word.endswith("e"):
        return re.escape(word) + r"s?"
    if word == "turc":
        return r"tur(?:c|cs|que|ques)"
    if word == "grec":
        return r"gr(?:ec|ecs|ecque|ecques)"
    if word == "juif":
        return r"jui(?:f|fs|ve|ves)"
    return re.escape(word) + r"(?:e|es|s)?"


def _pieces(entry: str) -> list[list[str]]:
    """The entry as a list of choices: each literal, ``\\x``, ``[abc]`` or ``(?:a|b)`` one
    choice among its strings, made optional by a ``?`` after it."""
    out: list[list[str]] = []
    i = 0
    while i < len(entry):
        c = entry[i]
        if c == "\\":
            choice, i = [entry[i + 1]], i + 2
        elif c == "[":
            end = entry.index("]", i)
            body = entry[i + 1 : end]
            if not body or any(ch in body for ch in "\\^-[]"):
                raise ValueError(f"unsupported class in {entry!r}")
            choice, i = list(body), end + 1
        elif entry.startswith("(?:", i):
            end = entry.index(")", i)
            body = entry[i + 3 : end]
            if any(ch in body for ch in "\\[](?*+{}"):
                raise ValueError(f"unsupported group in {entry!r}")
            choice, i = body.split("|"), end + 1
        elif c in "()|*+{}.^$?]":
            raise ValueError(f"unsupported syntax in {entry!r}")
        else:
            choice, i = [c], i + 1
        if entry[i : i + 1] == "?":
            choice, i = ["", *choice], i + 1
        out.append(choice)
    return out


def expand(entry: str) -> list[str]:
    """Every string an entry of the lists matches whole ("Deutsche[rn]?": "Deutsche",
    "Deutscher", "Deutschen"); an entry written with more than literals, classes, groups of
    literals and ``?`` is refused (ValueError)."""
    words = [""]
    for choice in _pieces(entry):
        words = [w + c for w in words for c in choice]
    return words


def word_set(entries: Iterable[str], endings: Iterable[str] = ("",)) -> frozenset[str]:
    """The words of ``entries`` (:func:`expand`), each with each of ``endings``."""
    ends = tuple(endings)
    return frozenset(w + e for entry in entries for w in expand(entry) for e in ends)


def lists_needed(text: str, lists: tuple[tuple[frozenset[str], bool], ...]) -> list[bool]:
    """Per list ``(words, apostrophes)``, whether one of its words is a whole run of
    ``[\\w'’-]`` in ``text`` (with ``apostrophes`` False, of ``[\\w-]``: a run split at its
    apostrophes)."""
    runs = set(_RUN.findall(text))
    split = None
    out = []
    for words, apostrophes in lists:
        if not apostrophes:
            if split is None:
                split = set(runs)
                for run in runs:
                    if "'" in run or "’" in run:
                        split.update(p for p in _APOSTROPHE.split(run) if p)
            out.append(not words.isdisjoint(split))
        else:
            out.append(not words.isdisjoint(runs))
    return out
