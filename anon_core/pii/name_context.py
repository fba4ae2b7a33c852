"""Names found by where they stand rather than by their shape: two or three words of a name in
text written all in lower case ("the letter from pirjo virtanen arrived", "emeka udeh" opening
an address block), and a lone surname opening a sentence before a verb ("Almeida has moved").

A word may be a name when it is no English word (WordNet's index, :func:`is_english`), no common
or organization word, and no place unless a name list holds it: a given name or surname of the
gazetteer ("virtanen"), or a word no list knows ("ihejirika"). Two such words need a place a
name stands at, before and after them, unless the first is a listed given name and the second a
listed surname. The functions take the gazetteer as an argument, so this module imports no rule
module (no import cycle with :mod:`anon_core.pii.names`).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from anon_core.pii.name_lists import (
    LOWER,
    SURNAME_PLACE_WORDS,
    UPPER,
    english_words,
    irregular_forms,
)

#: A word in lower case: three letters or more, maybe two parts joined by a hyphen
#: ("hans-hermann").
_WORD = re.compile(rf"[{LOWER}]{{3,}}(?:-[{LOWER}]{{2,}})?")
#: Particles inside a name ("de", "van den"): skipped between the words of a pair.
_PARTICLES = frozenset("de da do dos das del della di du van der den von la le".split())
_GAP = re.compile(r" (?:(?:de|da|do|dos|das|del|della|di|du|van|der|den|von|la|le) )*")
#: Words after which a name may stand ("the letter from ...", "i met ...", "tenant, ...").
_BEFORE = frozenset(
    """
    from by to with met meet thank thanks dear hi hello hey neighbour neighbor tenant landlord
    and & , ( : ; . ! ? named called contact attn mr mrs ms dr yesterday today then
    is am was i'm me about for via cc ask tell call email regards sincerely love
    """.split()
)
#: Words a name may stand before ("... arrived", "... signed the lease", "..., a nurse").
_AFTER = frozenset(
    """
    and & , ( ) . ; : ! ? 's ’s is was has had will would can could did does said says told
    asked called wrote works worked lives lived moved arrived signed pays paid joined left
    at on from of for in who with via here
    """.split()
)
#: Characters a name may stand right after and right before (not "(", "_", "=" of code).
_OPEN = frozenset(["", " ", "\n", '"', "'", "“", "‘"])
_CLOSE = frozenset(["", " ", "\n", ",", ".", ";", ":", "!", "?", "'", "’", ")", '"', "”"])
#: Verbs after a lone surname opening a sentence that make it a person ("Almeida has moved").
_SUBJECT_VERBS = (
    "has|had|is|was|will|would|did|does|lives|lived|moved|works|worked|joined|left|signed|wrote"
)
#: (The capital is read first and what stands before it checked after: the same matches as
#: ``"(?:^|(?<=[.!?] )|(?<=\\n))[CAPITAL]"``, but the scan tries only capitals.)
_SURNAME_OPENING = re.compile(
    rf"([{UPPER}](?:(?<=\A.)|(?<=[.!?] .)|(?<=\n.))[{LOWER}]{{2,}}) (?:{_SUBJECT_VERBS})\b"
)


@functools.lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    """spaCy's English stop words ("the", "among"; some are listed names too)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


#: Endings of an inflected English word ("characters", "moved", "boxes"): fewer than
#: :func:`is_english` reads, so that "carly" is no "car" and "-ly" and "soares" no "soar" and
#: "-es" ("-es" follows s, x, z, ch or sh only).
_ENDINGS = ("'s", "’s", "s", "ed", "d", "ing", "ers", "er", "ly")
_ES = re.compile(r"(?:s|x|z|ch|sh)es$")


def _english(word: str) -> bool:
    """Whether a lower-case word is an English word of WordNet's index (:func:`english_words`):
    listed, an irregular form ("went"), a plural ("rows", "copies"), inflected with a stem of
    four letters or more or with its "e" or doubled letter ("moved", "having", "formatted"), or
    joined by a hyphen with an English part ("sign-off")."""
    english, irregular = english_words(), irregular_forms()
    for part in word.split("-"):
        if part in english or part in irregular or (_ES.search(part) and part[:-2] in english):
            return True
        if part.endswith("ies") and part[:-3] + "y" in english:
            return True  # "copies"
        for ending in _ENDINGS:
            stem = part[: -len(ending)]
            if part.endswith(ending) and len(stem) >= (3 if ending == "s" else 4):
                if stem in english or (stem[-1] == stem[-2] and stem[:-1] in english):
                    return True  # "moved", "formatted": the stem, or the stem's doubled letter
            if part.endswith(ending) and len(stem) >= 3 and ending in ("ed", "ing", "er", "ers"):
                if stem + "e" in english:
                    return True  # "having", "moved"
    return False


def _kind(word: str, gaz: Any, no_name: frozenset[str]) -> str:
    """How a lower-case word may be part of a name: "g" a listed given name, "f" a listed
    surname ("gf" both), "u" a word in no list, "" no name word (an English, stop, common,
    organization or place word)."""
    if "-" in word and all(p in gaz.given or p in gaz.family for p in word.split("-")):
        return "g" if word.split("-")[0] in gaz.given else "f"  # "anna-liisa", "hans-willi"
    if word in no_name or word in _stop_words() or _english(word):
        return ""
    kind = ("g" if word in gaz.given else "") + ("f" if word in gaz.family else "")
    if kind:
        return kind  # "pierre": a French word of the common list, and a given name
    if word in gaz.common or word in gaz.places:
        return ""
    return "u"


def _english_given(word: str, gaz: Any, no_name: frozenset[str]) -> bool:
    """Whether a lower-case word is a given name of the gazetteer that is an English word too
    ("hope", "grace"), no stop word and no organization or place word."""
    return word in gaz.given and word not in _stop_words() and word not in no_name


def _common_surname(word: str, gaz: Any, no_name: frozenset[str]) -> bool:
    """Whether a lower-case word is a surname of the gazetteer that is an English word too
    ("hill", "green", "lopes"), no stop word and no organization or place word but a surname
    one ("west", "lane")."""
    return (
        word in gaz.family
        and word not in _stop_words()
        and (word not in no_name or word in SURNAME_PLACE_WORDS)
    )


def _edge_before(text: str, start: int) -> str:
    """What stands before ``start``: "^" a line start, else the word or mark before it."""
    head = text[max(0, start - 30) : start].rstrip(" ")
    if not head or head.endswith("\n"):
        return "^"
    if not head[-1].isalnum():
        return head[-1]
    return head.rsplit(None, 1)[-1]


def _edge_after(text: str, end: int) -> str:
    """What stands after ``end``: "$" a line end, else the mark or word after it."""
    tail = text[end : end + 30].lstrip(" ")
    if not tail or tail.startswith("\n"):
        return "$"
    if tail[:2] in ("'s", "’s"):
        return tail[:2]
    if not tail[0].isalnum():
        return tail[0]
    return tail.split(None, 1)[0]


def lower_case_pairs(text: str, gaz: Any, no_name: frozenset[str]) -> list[tuple[int, int]]:
    """In an English text written all in lower case, two or three adjacent name words (see
    :func:`_kind`): a listed given name and a listed surname anywhere ("sergio hughes"); any
    other two name words where a name stands, after a line start or a word such as "from",
    "met", "," and before a line end or a word such as "arrived", "and", ","
    ("the letter from pirjo virtanen arrived", "emeka udeh" on a line of its own)."""
    words = [w for w in _WORD.finditer(text) if w.group() not in _PARTICLES]
    kinds: dict[str, str] = {}
    out: list[tuple[int, int]] = []
    i = 0
    while i + 1 < len(words):
        a, b = words[i], words[i + 1]
        i += 1
        if not _GAP.fullmatch(text, a.end(), b.start()):
            continue  # one space, or particles between: "georges de smet", "rayan van den eijssel"
        ka = kinds.setdefault(a.group(), _kind(a.group(), gaz, no_name))
        if not ka and _english_given(a.group(), gaz, no_name):
            ka = "e"  # "hope oshodi": a given name that is an English word too
        kb = kinds.setdefault(b.group(), _kind(b.group(), gaz, no_name)) if ka else ""
        if ka == "e" and "f" not in kb:
            continue  # "hope" needs a listed surname that is no English word after it
        if "g" in ka and not kb and _common_surname(b.group(), gaz, no_name):
            kb = "e"  # "gareth hill", "carly green": a surname that is an English word too
        if not (ka and kb):
            continue
        end = b.end()
        if i + 1 < len(words) and text[end : words[i + 1].start()] == " ":
            c = words[i + 1].group()  # a third word: "santino gabriel aguirre"
            if kinds.setdefault(c, _kind(c, gaz, no_name)) and _edge_after(
                text, words[i + 1].end()
            ) in (_AFTER | {"$"}):
                end, i = words[i + 1].end(), i + 1
        listed = "g" in ka and "f" in kb
        if "e" in (ka, kb) and a.group() in gaz.places:
            continue  # "paris west"
        if text[a.start() - 1 : a.start()] not in _OPEN or text[end : end + 1] not in _CLOSE:
            continue  # a word of code ("def func(self)", ":param mtime:")
        placed = _edge_before(text, a.start()) in (_BEFORE | {"^"}) and _edge_after(text, end) in (
            _AFTER | {"$"}
        )
        if listed or placed:
            out.append((a.start(), end))
            i += 1
    return out


def opening_surnames(text: str, gaz: Any, no_name: frozenset[str]) -> list[tuple[int, int]]:
    """A surname of the gazetteer ``gaz`` opening a sentence before a verb such as "has", "was"
    or "moved", when it is no English word, no given name, no common word and no place
    ("Almeida has moved to Porto"; not "Paris is", "White has")."""
    if " " not in text:
        return []
    out = []
    for m in _SURNAME_OPENING.finditer(text):
        word = m.group(1)
        low = word.lower()
        if (
            gaz.is_family(word)
            and low not in gaz.given
            and low not in no_name
            and low not in gaz.places
            and not _english(low)
        ):  # "soares" is no "soar" and "-es": a stem of four letters or more
            out.append((m.start(1), m.end(1)))
    return out


#: A run of five capitalised words or more on one line: a sentence written in title case
#: ("Follow Up With Patricia Desrosiers In A Couple Of Months"), which the run rules leave.
#: (Written capital first, ``"C(?:ase C){4,}ase"`` for ``"(?:Case ){4,}Case"``: the same
#: matches, but the scan tries only capitals.)
_TITLE_RUN = re.compile(rf"[{UPPER}](?:[{LOWER}]+(?:['’]s)? [{UPPER}]){{4,}}[{LOWER}]+")
_TITLE_WORD = re.compile(rf"[{UPPER}][{LOWER}]+")


def title_case_names(text: str, gaz: Any) -> list[tuple[int, int]]:
    """In a run of five capitalised words or more, a given name of the gazetteer ``gaz`` then a
    surname of it, neither a common word and not both English words ("Patricia Desrosiers" of
    "Follow Up With Patricia Desrosiers In A Couple Of Months", "Tyler Wilson")."""
    out = []
    for run in _TITLE_RUN.finditer(text):
        words = list(_TITLE_WORD.finditer(run.group()))
        for a, b in zip(words, words[1:], strict=False):
            first, last = a.group(), b.group()
            if (
                run.group()[a.end() : b.start()] == " "
                and gaz.is_given(first)
                and gaz.is_family(last)
                and not (_english(first.lower()) and _english(last.lower()))
            ):
                out.append((run.start() + a.start(), run.start() + b.end()))
    return out


#: A line of two words and a comma between them ("virtanen, pirjo"): a surname and a given name.
_COMMA_LINE = re.compile(rf"(?m)^ *([{LOWER}]{{3,}}), ([{LOWER}]{{3,}}) *$")


def comma_lines(text: str, gaz: Any, no_name: frozenset[str]) -> list[tuple[int, int]]:
    """In text written all in lower case and of two lines or more, a line of a surname, a comma
    and a given name ("aliyev, sarvar" above a job title): both name words (see :func:`_kind`),
    one at least listed, or a listed given name after a surname that is an English word too
    ("green, fernando"); not "json, yaml"."""
    if "\n" not in text.strip() or ", " not in text:
        return []
    out = []
    for m in _COMMA_LINE.finditer(text):
        last, first = m.group(1), m.group(2)
        kl, kf = _kind(last, gaz, no_name), _kind(first, gaz, no_name)
        if "g" in kf and not kl and _common_surname(last, gaz, no_name):
            kl = "e"
        if kl and kf and (kl + kf).strip("u"):
            out.append((m.start(1), m.end(2)))
    return out


def context_names(
    text: str, gaz: Any, no_name: frozenset[str], english: bool
) -> list[tuple[int, int]]:
    """Names found by where they stand (English text only): :func:`lower_case_pairs` and
    :func:`comma_lines` in a text written all in lower case, :func:`opening_surnames` and
    :func:`title_case_names` elsewhere."""
    if not english:
        return []
    if text == text.lower():
        return lower_case_pairs(text, gaz, no_name) + comma_lines(text, gaz, no_name)
    return opening_surnames(text, gaz, no_name) + title_case_names(text, gaz)
