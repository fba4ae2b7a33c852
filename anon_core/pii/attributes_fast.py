"""Cheaper scans behind the age finder (:func:`anon_core.pii.attributes.find_ages`), with the
same results as the scans they replace (``tests/test_pii_speed_attr.py`` compares each with the
plain scan it stands for).

* :func:`number_spans`: where an age may be (a number of at most three digits or an English
  number word), as one case-insensitive scan of the whole text finds them, but from a scan for
  digits and a few substring searches of the lower-cased text: the case-insensitive scan
  stopped at every "o", "t", "f", "s", "e" and "n" of the text.
* :func:`patterns_needed`: which age patterns have one of their cue words in a window, each
  distinct word looked for once (:func:`need_bits`).
"""

from __future__ import annotations

import re

_DIGITS = re.compile(r"\d+")
#: The only characters outside ASCII that a case-insensitive ``re`` pattern of ASCII letters
#: matches ("ſix" is "six"); ``str.lower`` keeps every other character's length and never
#: turns one into an ASCII letter, so substring searches of the lower-cased text find every
#: place a number word starts.
_ODD_CASE = re.compile("[\u0130\u0131\u017f\u212a]")
#: Beginnings of the English number words: each number word starts with one of them.
NUMBER_WORD_STARTS = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twel", "twen", "thirt", "fift", "forty",
)  # fmt: skip


def number_spans(
    text: str, anchor: re.Pattern[str], words: re.Pattern[str]
) -> list[tuple[int, int]]:
    """(start, end) of each match of ``anchor`` in ``text``, in order.

    ``anchor`` is ``(?<!\\d)\\d{1,3}(?!\\d)|(?=(?i:[otfsen]))(?i:<words>)`` and ``words`` the
    case-insensitive alternation of the number words alone. A digit run is never part of a
    word, so the matches are the digit runs of one to three digits (a run of ``\\d+`` is a
    maximal one) and the non-overlapping matches of ``words``, tried left to right only where a
    number word may start (:data:`NUMBER_WORD_STARTS` in the lower-cased text). Text holding
    one of the four characters a case-insensitive ASCII letter also matches ("ſ", "K", "İ",
    "ı") takes ``anchor`` itself.
    """
    if _ODD_CASE.search(text):
        return [m.span() for m in anchor.finditer(text)]
    out = [m.span() for m in _DIGITS.finditer(text) if m.end() - m.start() <= 3]
    low = text.lower()
    starts = []
    for start in NUMBER_WORD_STARTS:
        at = low.find(start)
        while at >= 0:
            starts.append(at)
            at = low.find(start, at + 1)
    if not starts:
        return out
    found = []
    end = 0
    for at in sorted(starts):
        if at < end:
            continue  # inside the number word found before ("seventeen" holds "ten")
        m = words.match(text, at)
        if m:
            found.append(m.span())
            end = m.end()
    return sorted(out + found) if found else out


def need_bits(needs: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, int], ...]:
    """Each distinct word of ``needs`` (one tuple of words per pattern) with the bit mask of
    the patterns that need it (bit ``k``: pattern ``k``)."""
    bits: dict[str, int] = {}
    for k, words in enumerate(needs):
        for word in words:
            bits[word] = bits.get(word, 0) | (1 << k)
    return tuple(bits.items())


def patterns_needed(window: str, bits: tuple[tuple[str, int], ...]) -> list[int]:
    """Indices, in order, of the patterns one of whose words ``window`` holds: what testing
    ``any(word in window for word in needs[k])`` for each pattern ``k`` gives, each distinct
    word looked for once."""
    mask = 0
    for word, bit in bits:
        if word in window:
            mask |= bit
    out = []
    k = 0
    while mask:
        if mask & 1:
            out.append(k)
        mask >>= 1
        k += 1
    return out
