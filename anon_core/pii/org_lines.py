"""Firms' names in signature and contact blocks, and in lower case, where capitals give no clue.

A signature block lists a name, a job title, a firm and an address, one a line ("Naomi Ryan /
Sewer pipe cleaner / Hubbard, Fox and Gillespie / 3747 Fourth Avenue") or one after another with
commas, often all in lower case. The rules of :mod:`anon_core.pii.organisations` read capitals,
so this module adds:

* **firm lines**: a whole line (after any "> " of a quoted mail) shaped as firms are named,
  in any case, next to another line of text: surnames joined by a hyphen ("White-Campbell"),
  listed with commas and a last "and" ("ward, hartman and hampton"), or joined by "&"
  ("Becker & Stolz"); a name and "and Sons" ("Myhre og Sønner"); words and a legal form
  ("Collins Llc", "holgersson ab", "wilms gmbh"). Surnames are those of the name gazetteer;
  a hyphenated pair of given names ("Jean-Pierre") is no firm;
* **comma blocks**: the same shapes between commas in a line that goes on to a number (an
  address or a phone: "john robertson, sports therapist, ward, hartman and hampton, 5/44 ...");
* **lower-case legal forms**: words before a legal form no English word is written as
  ("bruno s.r.l.", "römer tlustek ohg mbh", "robles-collado s.a."), read back to the first
  common English word ("i work for"); short forms that are words too ("as", "ab", "ag", "spa",
  "group") count only on a firm line;
* **lower-case surname firms after a cue**: "works at", "for", "from", "with" then surnames
  joined by a hyphen or listed ("i work for kingston-mcbride"), one of them no English word.
"""

from __future__ import annotations

import re

from anon_core.pii.attributes import title_lists
from anon_core.pii.found import Found, trie_pattern
from anon_core.pii.names import gazetteer
from anon_core.pii.not_entities import generic_phrase

#: The score of a firm found here: above the model's PERSON (0.85) on the same words.
LINE_SCORE = 0.86
#: Legal forms that no English word is spelt as, matched in any case.
_DISTINCT_FORMS = (
    "gmbh & co. kg", "gmbh", "mbh", "llc", "l.l.c.", "ltd.", "ltd", "plc", "inc.", "inc", "llp",
    "corp.", "s.r.l.", "srl", "s.p.a.", "s.a.", "s.a.s.", "sarl", "s.a.r.l.", "s.l.", "s.l.u.",
    "s.l.l.", "s.a.u.", "b.v.", "n.v.", "a/s", "aps", "a.s.", "s.r.o.", "v.o.s.", "k.s.",
    "sp. z o.o.", "sp. z o.o. sp.k.", "sp.k.", "sp.j.", "lda.", "ltda.", "ohg", "ohg mbh",
    "gbr", "kgaa", "kft.", "zrt.", "bt.", "oyj", "d.o.o.", "s.c.p", "s.a. de c.v.",
    "s. r.l. de c.v.", "gesbr", "e.v.", "s/a", "& co.", "& cie.",
)  # fmt: skip
#: Forms that are also words or abbreviations ("as", "ag", "co"): only a firm line's end.
_LINE_ONLY_FORMS = (
    "ag", "kg", "ab", "as", "asa", "sa", "nv", "bv", "ry", "oy", "se", "co.", "co", "spa", "sas",
    "sl", "ba", "da", "ans", "rfh", "group", "gruppen", "company", "holdings", "limited",
    "incorporated", "corporation", "s.c.", "a.c.", "ky", "hb", "ad", "ood", "eood",
)  # fmt: skip
#: Words for "and sons" or "and partners" after a name ("Myhre og Sønner", "Lucas y asociados").
_KIN = r"(?:sons|söhne|fils|figli|filhos|hijos|sønner|søn|partner|partners|asociados|associates)"
_AND = r"(?:and|&|e|et|y|und|en|og|och|i)"
_WORD = r"[^\W\d_][\w'’]*"
_NAME = rf"{_WORD}(?:-{_WORD})*"


def _forms(forms: tuple[str, ...]) -> str:
    return "|".join(re.escape(f) for f in sorted(set(forms), key=len, reverse=True))


_HYPHEN = re.compile(rf"({_WORD})-({_WORD})")
_LISTED = re.compile(rf"({_WORD})((?:, {_WORD}){{1,5}}),? {_AND} ({_WORD})")
_PAIR = re.compile(rf"({_WORD}) (?:&|and|und|og|och|en|et|e|y) ({_WORD})")
_KIN_LINE = re.compile(rf"(?:{_NAME} ){{0,2}}{_NAME},? {_AND} {_KIN}", re.IGNORECASE)
_FORM_LINE = re.compile(
    rf"((?:{_NAME}(?:, {_NAME}){{0,4}},? {_AND} )?(?:{_NAME}(?: {_AND} | )){{0,3}}{_NAME}),? "
    rf"(?:{_forms(_DISTINCT_FORMS + _LINE_ONLY_FORMS)})"
    rf"(?: (?:{_forms(_DISTINCT_FORMS + _LINE_ONLY_FORMS)}))?",
    re.IGNORECASE,
)
#: A legal form no word is spelt as, after a word, anywhere in a text (lower case included).
#: (The comma or space is read first and the letter before it checked after: the same
#: matches as ``"(?<=[^\\W\\d_]),? "``, but the scan jumps from comma or space to the next.)
_FORM_IN_TEXT = re.compile(
    rf"(?:,(?<=[^\W\d_],) | (?<=[^\W\d_] ))(?:{trie_pattern(_DISTINCT_FORMS)})(?![\w&/])",
    re.IGNORECASE,
)
#: A cue before surnames written in lower case ("i work for kingston-mcbride").
_LOWER_CUE = re.compile(r"\b(?=[abfjw])(?:at|from|for|with|by|joined)[ \t]+")  # letters first
_LOWER_SURNAMES = re.compile(
    rf"(?<![\w-])(?:{_WORD}-{_WORD}|{_LISTED.pattern}|"
    rf"(?:{_WORD} )?{_WORD},? (?:{_AND} {_KIN}|group|gruppen))(?![\w-])"
)
#: Words a firm's name ends with after a surname ("kelley group", "myhre og sønner").
_FIRM_END = re.compile(rf",? (?:{_AND} {_KIN}|group|gruppen)\Z")


def _surname(word: str) -> bool:
    gaz = gazetteer()
    w = word.lower()
    return w in gaz.family or w in gaz.given


def _english(word: str) -> bool:
    return word.lower() in gazetteer().common


def _no_word(words: list[str] | tuple[str, ...]) -> bool:
    """Whether at least half of ``words`` are no common English word ("Hartman", "Hampton" of
    "Ward, Hartman and Hampton"; "Green, Brown and White" has one, "well-being" none)."""
    return 2 * sum(not _english(w) for w in words) >= len(words)


def firm_shape(line: str) -> bool:
    """Whether a whole line (or a comma block's part) is shaped as a firm's name, in any case."""
    gaz = gazetteer()
    m = _HYPHEN.fullmatch(line)
    if m:
        words = m.groups()
        return (
            all(_surname(w) for w in words)
            and any(w.lower() in gaz.family for w in words)
            and not all(w.lower() in gaz.given for w in words)  # "Jean-Pierre"
            and _no_word(words)  # "well-being"
        )
    m = _LISTED.fullmatch(line)
    if m:
        words = [m.group(1), *m.group(2).strip(", ").split(", "), m.group(3)]
        return all(_surname(w) for w in words) and _no_word(words)
    if _KIN_LINE.fullmatch(line):
        return True
    m = _PAIR.fullmatch(line)
    if m:
        words = m.groups()
        both_family = all(w.lower() in gaz.family for w in words)
        return (
            both_family
            and _no_word(words)
            and ("&" in line or not all(gaz.is_given(w) for w in words))
        )
    m = _FORM_LINE.fullmatch(line)
    if m:
        words = re.findall(r"[^\W\d_]+", m.group(1))
        return not all(_english(w) and not _surname(w) for w in words)
    return False


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line's text after any quoting ("> ") and around spaces."""
    out, pos = [], 0
    for line in text.split("\n"):
        body = line.rstrip(" \t\r")
        lead = len(body) - len(body.lstrip(" \t>"))
        out.append((pos + lead, pos + len(body)))
        pos += len(line) + 1
    return out


#: What a firm line holds: a hyphen, a comma or a word joining names ("White-Campbell").
_JOINED = re.compile(rf"[-,&]| {_AND} ", re.IGNORECASE)
#: The last words of a firm line without a join: legal forms ("Collins Llc").
_LAST_WORDS = frozenset(f.rsplit(" ", 1)[-1] for f in _DISTINCT_FORMS + _LINE_ONLY_FORMS)


def _firm_lines(text: str, lines: list[tuple[int, int]]) -> list[Found]:
    found = []
    for i, (start, end) in enumerate(lines):
        if end - start < 4 or end - start > 80:
            continue
        neighbours = [lines[j] for j in (i - 1, i + 1) if 0 <= j < len(lines)]
        if not any(b > a for a, b in neighbours):
            continue  # a line alone: no block
        line = text[start:end]
        if not _JOINED.search(line) and line.rsplit(" ", 1)[-1].lower() not in _LAST_WORDS:
            continue  # no hyphen, comma, "&" or "and" and no legal form: no firm's shape
        if firm_shape(line):
            found.append(Found(start, end, "ORGANIZATION", LINE_SCORE))
    return found


#: Parts of a comma block a firm's name may span ("ward, hartman and hampton": three).
_MAX_PARTS = 6


def _comma_blocks(text: str, lines: list[tuple[int, int]]) -> list[Found]:
    """Firms between commas of a line that goes on to a number (an address or a phone)."""
    found = []
    for start, end in lines:
        body = text[start:end]
        if body.count(", ") < 2 or not any(map(str.isdigit, body)):  # (each character, in C)
            continue
        parts = body.split(", ")
        offsets = [0]
        for part in parts[:-1]:
            offsets.append(offsets[-1] + len(part) + 2)
        for i in range(len(parts) - 1):
            if not _NUMBER_SOON.match(parts[i + 1]) or len(parts[i]) > 60:
                continue  # the firm's part comes before the address: a number in the next part
            for j in range(max(0, i - _MAX_PARTS + 1), i + 1):
                if firm_shape(", ".join(parts[j : i + 1])):
                    a = start + offsets[j]
                    found.append(
                        Found(a, a + len(", ".join(parts[j : i + 1])), "ORGANIZATION", LINE_SCORE)
                    )
                    break
    return found


#: A part of a comma block that holds a number early on ("5/44 powell court", "level 7").
_NUMBER_SOON = re.compile(r"[^,\d]{0,40}\d")


_NAME_BEFORE = re.compile(rf"((?:{_NAME}(?: (?:&|and|e|y|et|und) | |, )){{0,3}}{_NAME})\Z")
_LEADING_JOIN = re.compile(r"(?:(?:&|and|e|y|et|und|,)\s*)+")


def _lower_forms(text: str) -> list[Found]:
    """Words before a distinct legal form, read back to a common English word."""
    found = []
    for m in _FORM_IN_TEXT.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        name = _NAME_BEFORE.search(text, max(line_start, m.start() - 60), m.start())
        if name is None:
            continue
        start = name.start()
        for w in re.finditer(_NAME, name.group()):
            if _english(w.group()) and not _surname(w.group()):
                start = name.start() + w.end()  # "i work for": the name starts after them
        lead = _LEADING_JOIN.match(text, start + (1 if text[start : start + 1] == " " else 0))
        start = lead.end() if lead else start
        while start < m.start() and text[start] in " ,":
            start += 1
        if start < m.start() and text[start : m.end()].islower():  # capitals: see organisations
            found.append(Found(start, m.end(), "ORGANIZATION", LINE_SCORE))
    return found


def _lower_surnames(text: str) -> list[Found]:
    """Surnames joined as firms name them, in lower case, after a cue ("for kingston-mcbride")."""
    found = []
    for cue in _LOWER_CUE.finditer(text):
        m = _LOWER_SURNAMES.match(text, cue.end())
        if m is None or any(c.isupper() for c in m.group()):
            continue  # capitals: the rules of the organisations module read them
        end = _FIRM_END.search(m.group())
        if end:  # surnames, none a common word, then "group" or "and sons"
            words = m.group()[: end.start()].split()
            if not all(_surname(w) and not _english(w) for w in words):
                continue
        elif not firm_shape(m.group()):
            continue
        found.append(Found(m.start(), m.end(), "ORGANIZATION", LINE_SCORE))
    return found


def find_block_organisations(text: str) -> list[Found]:
    """Firms on their own line or between commas of a contact block, and in lower case."""
    lines = _lines(text)
    return (
        _firm_lines(text, lines)
        + _comma_blocks(text, lines)
        + _lower_forms(text)
        + _lower_surnames(text)
    )


#: A line of a block that may name a firm: words only (no digit), at most six.
_FIRM_WORDS = re.compile(rf"{_NAME}(?:(?: | & |, | - |\. ){_NAME}){{0,5}}\.?")


def _title_line(line: str) -> bool:
    """A job title of the lists ("Labor Relations Director") or one ending in a title's head."""
    lists = title_lists()
    words = re.findall(r"[^\W\d_]+", line.lower())
    return bool(words) and (" ".join(words) in lists.phrases or words[-1] in lists.heads)


def _same_line(text: str, a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[1] > a[0] and text[a[0] : a[1]] == text[b[0] : b[1]]


def firm_lines_beside_names(text: str, persons: list[tuple[int, int]]) -> list[Found]:
    """Lines of a block that name a firm by their place: after a line that is a person's name
    and before another name line or an address line ("Gyala Antall / Google Public Data Explorer
    / 3369 Clarke Avenue"), or after a name and a job title line and before an address line
    ("Naomi Ryan / Sewer pipe cleaner / Hubbard Fox / 3747 Fourth Avenue"). ``persons``: the
    (start, end) of the names found. A job title, words of offices ("Customer Service") or
    common words only are no firm."""
    if "\n" not in text or not persons:
        return []
    lines = _lines(text)
    whole = set(persons)
    gaz = gazetteer()

    def name_line(i: int) -> bool:
        return 0 <= i < len(lines) and lines[i] in whole

    def address_line(i: int) -> bool:
        return 0 <= i < len(lines) and text[lines[i][0] : lines[i][0] + 1].isdigit()

    def number_line(i: int) -> bool:  # a street first, its number after ("Pechelallee 3287")
        return 0 <= i < len(lines) and any(c.isdigit() for c in text[lines[i][0] : lines[i][1]])

    found = []
    for i, (start, end) in enumerate(lines):
        line = text[start:end]
        if not 3 <= len(line) <= 60 or not _FIRM_WORDS.fullmatch(line):
            continue
        after_name = (name_line(i - 1) and (name_line(i + 1) or address_line(i + 1))) or (
            name_line(i + 1) and 0 < i and _same_line(text, lines[i - 1], lines[i + 1])
        )  # the name repeated around the firm, the first one taken for a place
        after_title = (
            name_line(i - 2)
            and number_line(i + 1)
            and _title_line(text[lines[i - 1][0] : lines[i - 1][1]])
        )
        if not (after_name or after_title) or _title_line(line):
            continue
        words = re.findall(r"[^\W\d_]+", line)
        if all(w.lower() in gaz.common for w in words) or generic_phrase(line, gaz):
            continue  # "Best Regards", "Customer Service"
        if any(s < end and start < e for s, e in persons):
            continue  # a name of its own
        found.append(Found(start, end, "ORGANIZATION", LINE_SCORE))
    return found
