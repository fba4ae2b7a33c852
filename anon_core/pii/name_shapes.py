"""Shapes of person names the run rules of :mod:`anon_core.pii.names` extend: a surname joined by
a hyphen ("Gaičiūnas-Ginzburgas"), a suffix ("Jr.", "III", "PhD"), names written in capitals
("KAIQUE NASCIMENTO"), and words before a name that are no part of it ("Payee", "Attendees").

The functions take the gazetteer's look-ups as arguments, so this module imports no other rule
module (no import cycle with :mod:`anon_core.pii.names`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from anon_core.pii.name_context import context_names
from anon_core.pii.name_lists import LOWER, UPPER, is_english

#: A second surname joined by a hyphen after a name ("-Ginzburgas"; spaCy splits the hyphen).
_HYPHENED = re.compile(rf"-[{UPPER}][{LOWER}]+(?:['’][{UPPER}{LOWER}]+)?")
#: A suffix after a name: generational ("Jr.", "Sr.", "II", "III", "IV") or a degree ("PhD",
#: "MD", "DDS", "DVM", "Esq."), maybe after a comma; the dot of "Jr." is part of it.
_SUFFIX = re.compile(
    r"(?:,? (?:Jr|Sr|Jnr|Snr)\b\.?|,? (?:II|III|IV)\b(?![.'’-]\w)|"
    r",? (?:PhD|Ph\.D\.|MD|M\.D\.|DDS|DVM|Esq\.?|MBA|RN)(?![\w'’-]))"
)
#: The letters a suffix starts with, read one or two characters after the name (a cheap test).
_SUFFIX_FIRST = frozenset("JSIPMDER")
#: A word in capitals (two letters or more, accents and an inner apostrophe or hyphen allowed,
#: an Irish "O'" before it: "O'HIGGINS").
_CAPITAL_WORD = re.compile(rf"(?:[{UPPER}]['’])?[{UPPER}]{{2,}}(?:['’-][{UPPER}]{{2,}})?")
_TWO_CAPITAL_WORDS = re.compile(rf"[{UPPER}]{{2}} +[{UPPER}](?:['’][{UPPER}])?[{UPPER}]")


#: Initials before a name ("J. R. Smith", "R. Jakab Zoltán"): a capital and a dot each.
_INITIALS_BEFORE = re.compile(r"(?<![\w.'’-])(?:[A-Z]\. ?){1,3}$")


def capital_word(text: str) -> bool:
    """Whether a word is written in capitals, two letters or more, and is no English word
    ("TAMM", "MATĚJKOVÁ"; not "UNKNOWN")."""
    return text.isupper() and bool(_CAPITAL_WORD.fullmatch(text)) and not is_english(text)


def capitals_alone(run: Sequence[Any]) -> bool:
    """Whether a run of tokens is one word in capitals ("README"): no name after a cue."""
    return len(run) == 1 and run[0].text.isupper()


def extend_start(text: str, start: int) -> int:
    """The start of a name found from ``start``, before the initials written ahead of it."""
    if text[start - 1 : start] not in (".", " ") or "." not in text[max(0, start - 2) : start]:
        return start  # most names: no dot just before
    m = _INITIALS_BEFORE.search(text, max(0, start - 9), start)
    return m.start() if m else start


def extend_name(text: str, end: int) -> int:
    """The end of a name found up to ``end``, past a hyphenated second surname and a suffix
    ("Ana Gaičiūnas-Ginzburgas", "John Smith Jr.", "Jip Ernst, PhD")."""
    if text[end : end + 1] == "-":
        m = _HYPHENED.match(text, end)
        end = m.end() if m else end
    if text[end + 1 : end + 3].lstrip()[:1] in _SUFFIX_FIRST:  # most names: no suffix
        m = _SUFFIX.match(text, end)
        end = m.end() if m else end
    return end


def _capital_pair(first: str, last: str, gaz: Any, alone: bool) -> bool:
    """Whether two lower-cased words in capitals are a given name and a surname: both listed and
    one of them no common word ("PIERRE HERMANN": "pierre" is a French word; "LESLIE BEST", a
    common surname only when the two words are ``alone`` in their run: "GRACE PERIOD ENDS
    SOON"), or a given name and a word in no list and no English word ("ALEKSANDER KOSZ")."""
    if gaz.is_given(first):
        if gaz.is_family(last) or (alone and last in gaz.family):
            return True
        return last not in gaz.given and last not in gaz.family and not is_english(last)
    return first in gaz.given and gaz.is_family(last)


def capital_names(
    text: str, tokens: Sequence[Any], gaz: Any, no_name: frozenset[str]
) -> list[tuple[int, int]]:
    """Names written in capitals: two to four words in capitals on one line, the first a given
    name of the gazetteer ``gaz``, the last a surname of it (see :func:`_capital_pair`;
    "KAIQUE NASCIMENTO", "INDY VAN ARNSBERG"); no word of the run of capitals a place or
    organization word (``no_name``: "PARIS HILTON HOTEL"); (start, end) character offsets."""
    if not _TWO_CAPITAL_WORDS.search(text):
        return []  # most texts: one pass in C instead of a look at each token
    runs: list[list[Any]] = [[]]
    for tok in tokens:
        if tok.text.isupper() and _CAPITAL_WORD.fullmatch(tok.text):
            runs[-1].append(tok)
            if tok.whitespace_ == " ":
                continue
        if runs[-1]:
            runs.append([])
    out: list[tuple[int, int]] = []
    for run in runs:
        if any(t.text.lower() in no_name for t in run):
            continue
        i = 0
        while i + 1 < len(run):
            first = run[i].text.lower()
            n = next(
                (
                    n
                    for n in range(min(4, len(run) - i), 1, -1)
                    if _capital_pair(first, run[i + n - 1].text.lower(), gaz, len(run) == 2)
                ),
                0,
            )
            if n:
                out.append((run[i].idx, run[i + n - 1].idx + len(run[i + n - 1].text)))
            i += max(n, 1)
    return out


#: A month that is a given name too, then a capitalised word: the surname a name needs after it.
#: (Each month's first letter is read before the look-behind, which checks the character before
#: it: the same matches as ``"(?<![\\w'’.-])(?:April|May|...)"``, but the scan tries only "A",
#: "M" and "J"; no two months match at one place, so their order does not matter.)
_MONTH_NAME = re.compile(
    r"(?:A(?<![\w'’.-]A)(?:pril|ugust|PRIL|UGUST)|M(?<![\w'’.-]M)(?:ay|AY)"
    r"|J(?<![\w'’.-]J)(?:une|UNE)) "
    rf"((?:[{UPPER}]['’])?[{UPPER}][{UPPER}{LOWER}]+)(?![\w-]|['’]\w\w| [{UPPER}\d])"
)
#: Words before a month that make it a date ("in April", "since June", "last May").
_DATE_BEFORE = re.compile(
    r"\b(?:in|on|of|since|until|till|by|from|during|before|after|last|next|this|early|late|"
    r"mid|each|every|through|to)\W{0,2}$",
    re.IGNORECASE,
)


#: An Irish surname's particle ("Mac", "Nic", "Ó", "Ní", "Ua"), maybe with "an" or "Giolla" after
#: it, then the capitalised rest of the surname: "Mac an Déisigh", "Mac Giolla Mhóir", "Ó MADAIDHIN".
#: (The particle's first letter is read before the look-behind on the space: the same matches
#: as ``"(?<= )(?:Mac|Mhic|Nic|Ní|Ó|Ua|MAC|MHIC|NIC|NÍ|UA)"``, the scan trying only "M", "N",
#: "Ó" and "U"; no two particles match at one place.)
_IRISH_SURNAME = re.compile(
    r"(?:M(?<= M)(?:ac|hic|AC|HIC)|N(?<= N)(?:ic|í|IC|Í)|Ó(?<= Ó)|U(?<= U)(?:a|A))"
    r"(?: (?:an|Giolla|AN|GIOLLA))?"
    rf" [{UPPER}][{UPPER}{LOWER}'’-]+"
)
#: The word before an Irish surname: a capitalised given name of the gazetteer ("Rowena ").
_WORD_BEFORE = re.compile(rf"(?<![\w'’-])([{UPPER}][{UPPER}{LOWER}]+) $")


def shape_names(
    text: str, tokens: Sequence[Any], gaz: Any, no_name: frozenset[str], english: bool = False
) -> list[tuple[int, int]]:
    """Names of a shape the run rules miss: names in capitals (:func:`capital_names`), a given
    name before an Irish surname with its particle ("Rowena Mac Giolla Mhóir"), and a
    month that is a given name too before a surname of the gazetteer ``gaz`` that is no common
    word and ends the name ("April Taylor", "JUNE SMITH", "May Lee"; not "in April Taylor's
    time", "May I", "April Showers", "June Smith Street"); in ``english`` text, names found by
    where they stand (:func:`anon_core.pii.name_context.context_names`)."""
    out = capital_names(text, tokens, gaz, no_name) + context_names(text, gaz, no_name, english)
    for m in _IRISH_SURNAME.finditer(text):
        before = _WORD_BEFORE.search(text, max(0, m.start() - 30), m.start())
        if before and gaz.is_given(before.group(1)):
            out.append((before.start(), m.end()))
    for m in _MONTH_NAME.finditer(text):
        surname = m.group(1)
        if (
            gaz.is_family(surname)
            and surname.lower() not in no_name
            and not _DATE_BEFORE.search(text, max(0, m.start() - 10), m.start())
        ):
            out.append((m.start(), m.end()))
    return out


def given_then_surname(words: Sequence[str], gaz: Any) -> bool:
    """Whether two words are a listed given name, a common word or not ("Peace", "April",
    "Hope"), and a surname of the gazetteer ``gaz`` that is no common word ("Ekwueme")."""
    return len(words) == 2 and words[0].lower() in gaz.given and gaz.is_family(words[1])


def merge_overlapping(spans: Sequence[Any]) -> list[tuple[int, int, float]]:
    """Spans with ``start``, ``end`` and ``score`` that share a character joined into one, with
    the higher score ("Heinz-Joachim" and "Joachim Rose": "Heinz-Joachim Rose")."""
    out: list[tuple[int, int, float]] = []
    for s in sorted(spans, key=lambda s: (s.start, -s.end)):
        if out and s.start < out[-1][1]:
            a, b, score = out[-1]
            out[-1] = (a, max(b, s.end), max(score, s.score))
        else:
            out.append((s.start, s.end, s.score))
    return out


def leading_word(word: str, listed: Callable[[str], bool], particles: frozenset[str]) -> bool:
    """Whether a capitalised word opening a run of capitalised words is an English word in no
    list of names (``listed``), so no part of the name after it ("Payee Victoria Crin",
    "Witness", "Attendees"; "Will" and "Rose" are names too)."""
    return word.lower() not in particles and not listed(word) and is_english(word)
