"""Address blocks of any script and the helpers the street finder shares with them: stop words
in a part, the cue before an address, a block of parts ending in a country and its postcode,
and a cued line ("lives at 231 14 بلدية كاهينة, أرزيو"). Read by
:mod:`anon_core.pii.addresses`, whose compiled patterns (``pats``) they take."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from anon_core.pii.address_parts import (
    CUE_ENDS,
    CUE_STEMS,
    NOT_ADDRESS_PARTS,
    NOT_COUNTRY_WORDS,
    Found,
)
from anon_core.pii.address_words import PARTICLE_SET, STOP_WORDS

#: Score of a street with a part after it or a cue before it, and of a whole address block.
ADDRESS_SCORE = 0.95


def has_stop_word(piece: str, pats: dict[str, Any]) -> bool:
    """Whether a lower-case word of ``piece`` is a stop word ("and", "the", "please", ...)."""
    return any(
        w in STOP_WORDS and w not in PARTICLE_SET
        for w in pats["part_word"].findall(piece)
        if w.islower() and len(w) > 1  # "12a": a house number's letter
    )


def first_stop_word(piece: str, pats: dict[str, Any]) -> int | None:
    """Offset of the first stop word of ``piece`` (see :func:`has_stop_word`), or None."""
    for m in pats["part_word"].finditer(piece):
        w = m.group(0)
        if w.islower() and len(w) > 1 and w in STOP_WORDS and w not in PARTICLE_SET:
            return m.start()
    return None


def cued_before(text: str, start: int, pats: dict[str, Any]) -> bool:
    """Whether a cue ("lives at", "address:") ends right before ``start``."""
    return pats["cue"].search(text[max(0, start - 60) : start]) is not None


def one_line_block(first: str, last: str) -> bool:
    """Whether parts between commas read as an address: the first holds two numbers (a
    building and a house number, or a unit's), the last a capitalised word and a postcode of
    four characters or more that is no year ("3 days, Paris, France 2024" is none)."""
    code, word = last.split()[-1], last.strip(" \t>")[:1]
    year = len(code) == 4 and code.startswith(("19", "20"))
    return (
        len(code) >= 4
        and not year
        and not word.islower()
        and sum(1 for w in first.split() if w[:1].isdigit()) >= 2
    )


def blocks(text: str, pats: dict[str, Any]) -> Iterator[Found]:
    """Address blocks in any script: a part opening with a house number, parts of a unit and a
    town, and a last part of a country and its postcode, on lines ("3448 7 شارع ناظم\n Suite
    567\n أزفون\n\n Algeria 05572") or on one line between commas ("294 אזור 65 Apt. 7, פוריה,
    Israel 9939855"). Three parts at least, none of them a sentence."""
    for hit in pats["line_end_digit"].finditer(text):
        begin = max(text.rfind("\n", 0, hit.start()), text.rfind(",", 0, hit.start())) + 1
        m = pats["block_end"].match(text, begin, hit.end())
        if m is None or m.end() != hit.end():
            continue
        if m.group(0).strip(" \t>").split()[0].lower() in NOT_COUNTRY_WORDS:
            continue
        start, parts, lines = m.start(), 1, text[m.start() - 1 : m.start()] == "\n"
        while start > 0 and parts < 7:
            prev = max(text.rfind("\n", 0, start - 1), text.rfind(",", 0, start - 1)) + 1
            piece = text[prev : start - 1]
            body = piece.strip(" \t>")
            if body and not body.isspace():  # a blank line may hold "\r" or a no-break space
                words = body.split()
                if len(words) > (8 if lines else 6) or has_stop_word(body, pats):
                    break
                if body[-1] in ".:!?" or words[0].lower().strip(".:") in NOT_ADDRESS_PARTS:
                    break
                parts += 1
            lines = lines or text[prev - 1 : prev] == "\n"
            start = prev
            if body[:1].isdigit():
                if parts >= 3 and (lines or one_line_block(body, m.group(0))):
                    first = start + len(piece) - len(piece.lstrip(" \t>"))
                    if lines:  # the whole first line ("2458 Núcleo de Mendes, 232")
                        line = text[text.rfind("\n", 0, first) + 1 : first].lstrip(" \t>")
                        if line[:1].isdigit() and not has_stop_word(line, pats):
                            first -= len(line)
                    yield Found(first, m.end(), ADDRESS_SCORE)
                break


def cued_lines(text: str, pats: dict[str, Any]) -> Iterator[Found]:
    """After a cue, a house number, a street of any script, a comma and a town ("lives at 231
    14 بلدية كاهينة, أرزيو")."""
    for hit in pats["before_number"].finditer(text):
        if not text[max(0, hit.end() - 12) : hit.end()].rstrip(" \t").lower().endswith(CUE_ENDS):
            continue
        before = text[max(0, hit.end() - 60) : hit.end()].lower()
        if not any(k in before for k in CUE_STEMS):
            continue
        if not cued_before(text, hit.end(), pats):
            continue
        m = pats["cued_line"].match(text, hit.end())
        if m and not has_stop_word(m.group(0), pats):
            yield Found(m.start(), m.end(), ADDRESS_SCORE)
