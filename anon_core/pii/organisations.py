"""Organisations in free text: legal forms, organisation words, cue phrases, the model reviewed.

The small NER model finds organisations it has seen and calls many other things organisations
(persons, genres, lower-case words). This module adds spans the model misses and removes the
ones it gets wrong:

* **legal forms**: capitalised words before a company's legal form, in English, French,
  German, Spanish, Italian, Dutch and Nordic styles ("Conway Inc.", "Weber GmbH & Co. KG",
  "Dupont SARL", "Rossi S.p.A.", "Jansen B.V.");
* **organisation words**: capitalised words ending in a word organisations are named with
  ("Allstate Insurance Group", "Otc Markets", "St Mary's Hospital") or "University of ...";
* **cue phrases**: the capitalised words after "works at", "works for", "employed by",
  "employer:", "travaille chez", "arbeitet bei", "trabaja en", "lavora presso", ...;
* **company names made of surnames** (Faker's and many real firms' style: "Weeks-Rivas",
  "Hawkins, Richardson and Santana") after a cue or a preposition ("at", "from", "for"), since
  alone they are as likely a list of people;
* **the model reviewed** (:func:`review_model_organisation`): an ORGANIZATION span of the model
  becomes PERSON when it is in lower case only, made only of person names of the name gazetteer
  ("Usamov and Bowers") or opens with a given name, unless it holds a legal form or an
  organisation word.

The lists are written here (no download); the name gazetteer is :mod:`anon_core.pii.names`'.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any

from anon_core.pii.attributes import Found, presidio_result, title_lists
from anon_core.pii.name_lists import english_words, is_english
from anon_core.pii.name_review import place_or_organisation
from anon_core.pii.names import gazetteer
from anon_core.pii.not_entities import (
    english_not_name,
    generic_phrase,
    generic_word,
    plural_word,
    shouted_words,
)
from anon_core.pii.org_lines import find_block_organisations, firm_lines_beside_names

#: Legal forms, as written after a company name (case-sensitive), longest first at match time.
LEGAL_FORMS = (
    # English-speaking countries
    "Inc.", "Inc", "Incorporated", "LLC", "L.L.C.", "Ltd.", "Ltd", "Limited", "PLC", "plc",
    "LLP", "L.P.", "LP", "Corp.", "Corp", "Corporation", "Co.", "& Co.", "& Co", "Company",
    "& Sons", "and Sons", "Pty Ltd", "Pty. Ltd.", "Holdings", "Group",
    # German-speaking countries
    "GmbH", "GmbH & Co. KG", "GmbH & Co. KGaA", "AG & Co. KG", "AG", "KG", "OHG", "GbR", "e.V.", "e.K.", "mbH", "UG",
    "UG (haftungsbeschränkt)", "KGaA", "eG", "e.G.", "SE",
    # French-speaking countries
    "SA", "S.A.", "SARL", "S.A.R.L.", "SAS", "S.A.S.", "SASU", "EURL", "SNC", "SCI", "SCOP",
    "Sàrl", "S.à r.l.", "et Fils", "& Fils",
    # Spanish-speaking countries
    "S.L.", "SL", "S.L.U.", "S.A.U.", "S.L.L.", "S. Coop.", "S.Coop.", "S.A.T.", "S.C.",
    # Italian
    "S.p.A.", "SpA", "SPA", "S.p.a.", "S.r.l.", "Srl", "s.r.l.", "S.n.c.", "S.a.s.", "e figli",
    # Dutch, Belgian, Nordic, Polish
    "B.V.", "BV", "N.V.", "NV", "VOF", "BVBA", "Oy", "Oyj", "AB", "A/S", "ApS", "AS", "ASA",
    "Sp. z o.o.", "S.A", "sp. z o.o.", "s.c.", "Sp.j.", "Sp.k.", "S.K.A.",
    # more of Faker's company providers (Central and Eastern Europe, the Nordics, Iberia, the
    # Balkans, Greece, Latin America); two capitals that are also degrees or words ("BA",
    # "CV", "EP", "AD") are left out
    "a.s.", "k.s.", "v.o.s.", "o.s.", "s.r.o.", "d.o.o.", "j.d.o.o.", "d.d.", "Kft.", "Bt.",
    "Zrt.", "Nyrt.", "Kkt.", "Kht.", "Lda.", "Ltda.", "Limitada", "S.L.N.E", "S.A. de C.V.",
    "S. R.L. de C.V.", "S.A.D", "S.A.U", "S.C.P", "S.C.S.", "S.Com.", "S/A", "A.C.", "A.Ş.",
    "Şti.", "GesbR", "OHG mbH", "CommV", "Groep", "Gruppen", "HB", "Ky", "ry", "As Oy", "Oy",
    "& Partner", "& Söhne", "& Cie.", "e Filhos", "e Hijos", "og Sønner", "i syn s.c.",
    "y Asociados", "Sociedad Anónima", "EOOD", "OOD", "EAD", "ADSITz", "Α.Ε.", "Ο.Ε.",
    "Α.Β.Ε.Ε.", "ООД", "ЕООД", "ЕАД", "ДОО", "ДООЕЛ", "Лтд", "Инк",
)  # fmt: skip
#: Words that end an organisation's name ("... Insurance Group", "... Hospital").
ORG_WORDS = (
    "Group", "Holdings", "Bank", "Insurance", "Partners", "Associates", "Technologies",
    "Technology", "Systems", "Solutions", "Software", "Labs", "Laboratories", "Services",
    "Consulting", "Capital", "Investments", "Industries", "Enterprises", "Ventures",
    "Markets", "Media", "Networks", "Communications", "Pharmaceuticals", "Airlines", "Motors",
    "Foundation", "Institute", "University", "College", "School", "Academy", "Hospital", "Clinic",
    "Agency", "Association", "Council", "Ministry", "Department", "Authority", "Commission",
    "Society", "Trust", "Fund", "Bureau", "Club", "Federation", "Union", "Press", "Studios",
    "Logistics", "Energy", "Electronics", "Pharma", "Healthcare", "Finance", "Financial",
    "Hotels", "Restaurants", "Stores", "Supermarkets", "Brewery", "Bakery", "Pharmacy",
    "Klinik", "Krankenhaus", "Universität", "Hochschule", "Stiftung", "Verein", "Versicherung",
    "Hôpital", "Clinique", "Université", "Banque", "Assurances", "Fondation", "Mutuelle",
    "Hospital", "Universidad", "Banco", "Fundación", "Seguros", "Ospedale", "Università",
    "Fondazione", "Assicurazioni",
)  # fmt: skip
#: Words before "of" that start an organisation's name ("University of Leeds").
ORG_OF_WORDS = (
    "University", "Bank", "Ministry", "Department", "Institute", "College", "Academy", "Museum",
    "Council", "Chamber", "Church", "Office", "Board", "School", "Society", "Federation",
    "Université", "Banque", "Ministère", "Universität", "Universidad", "Ministerio", "Banco",
    "Università", "Ministero", "Banca",
)  # fmt: skip
#: Phrases after which an organisation's name follows.
ORG_CUES = (
    r"works? (?:at|for)", r"worked (?:at|for)", r"working (?:at|for)", r"employed (?:by|at)",
    r"employer\s*:", r"company\s*:", r"organi[sz]ation\s*:", r"firm\s*:", r"hired by",
    r"joined", r"(?:CEO|CFO|CTO|founder|director|president|manager|chairman) (?:of|at)",
    r"travaille (?:chez|pour|à)", r"employée? (?:par|chez)", r"société\s*:?", r"entreprise\s*:?",
    r"employeur\s*:", r"arbeitet (?:bei|für)", r"beschäftigt bei", r"Arbeitgeber\s*:",
    r"Firma\s*:?", r"Unternehmen\s*:", r"trabaja (?:en|para)", r"empresa\s*:?", r"empleador\s*:",
    r"lavora (?:presso|per|in)", r"azienda\s*:?", r"ditta\s*:?", r"datore di lavoro\s*:",
)  # fmt: skip
#: Prepositions after which a company name of surnames is an organisation ("a year at Weeks-Rivas").
#: Scores: a legal form is near certain and outranks the model's PERSON or LOCATION label on the
#: same words (0.85); a cue or a preposition before surnames joined as firms name them, also above
#: the model; an organisation word or a cue before other capitalised words is weaker.
LEGAL_FORM_SCORE, CUE_SCORE, WORD_SCORE = 0.95, 0.86, 0.6
_SURNAME_FIRM_CUE = re.compile(r"(?i:\b(?:at|from|for|with|joined|by|chez|bei|presso)\s+)$")
#: The letters a cue of :data:`ORG_CUES` opens with (any case): a look-ahead on them lets the
#: scan pass most word starts without trying each cue (the same matches, found faster).
CUE_FIRST_LETTERS = "abcdefhjlmopstuw"
_CUE_OPENING = rf"\b(?=[{CUE_FIRST_LETTERS}])"
_CUE = re.compile(r"(?i:" + _CUE_OPENING + "(?:" + "|".join(ORG_CUES) + r"))\s*$")
_UP = "A-ZÀ-ÖØ-Þ\u0100-\u017f"
_LOW = "a-zß-öø-ÿ\u0100-\u017f"
#: A capitalised word of a name (with digits and inner capitals: "3M", "McKinsey", "eBay" no).
_CAP = rf"(?:[{_UP}0-9][{_UP}{_LOW}0-9'’.]*)"
_JOIN = r"(?: | & | and | und | et | y | e | en | og | och |-)"
_LOWER_JOIN = r"(?: (?:of|de|du|des|der|die|für|di|del|della|von|van|the|la|le) )"
_NAME_RUN = rf"{_CAP}(?:(?:{_JOIN}|{_LOWER_JOIN}){_CAP}){{0,5}}"
#: A surname particle that may open a firm's name in lower case ("van Vliet NV").
_PARTICLE = r"(?:(?:van der|van den|van|von|ten|ter) )?"
#: Surnames listed with commas and a last "and" ("Hawkins, Richardson and Santana").
_LISTED = rf"{_CAP}(?:, {_CAP}){{1,6}},? (?:and|&|e|et|y|und|en|og|och) {_CAP}"
#: The word before an organisation word ("Sales" of "Sales Department of Bohlander").
_WORD_BEFORE = re.compile(r"([\w&]+) \Z")
#: A capitalised determiner that opens a sentence before an organisation word ("Our Sales ...").
_DETERMINER = re.compile(r"(?:The|Our|Your|My|This|That|Their|His|Her|Its) ")


#: The first character of a :data:`_CAP` word when no word character, "&" or "-" stands before it
#: (``"(?<![\\w&-])"`` checked after that character, so a scan tries only capitals and digits),
#: and the rest of the word: ``_CAP_HEAD + _CAP_TAIL`` matches what ``"(?<![\\w&-])" + _CAP`` does.
_CAP_HEAD = rf"[{_UP}0-9](?<![\w&-].)"
_CAP_TAIL = rf"[{_UP}{_LOW}0-9'’.]*"


def _first_then_edge(words: tuple[str, ...]) -> str:
    """:func:`_alternation` of ``words`` after ``"(?<![\\w&-])"``, with that check made after
    each word's first letter (a scan then tries only the words' first letters)."""
    ordered = sorted(set(words), key=len, reverse=True)
    return "|".join(rf"{re.escape(w[0])}(?<![\w&-].){re.escape(w[1:])}" for w in ordered)


def _first_characters(words: tuple[str, ...]) -> str:
    """A character class of the first characters of ``words``: a look-ahead on it before their
    alternation lets a scan pass most places without trying each word (the same matches)."""
    return "[" + "".join(sorted({re.escape(w[0]) for w in words})) + "]"


def _cues_by_first_letter() -> str:
    """:data:`ORG_CUES` as one alternative per first letter (any case), each holding the cues
    of that letter in the list's order, the group of roles (``"(?:CEO|...) (?:of|at)"``) split
    into one cue a role. The same matches as the cues joined in the list's order (two cues of
    different first letters never match at one place; those of one letter are tried in the
    same order), but the engine reads the first letter once instead of trying every cue."""
    cues: list[str] = []
    for cue in ORG_CUES:
        group = re.fullmatch(r"\(\?:([^()]*)\)(.*)", cue)
        cues += [a + group.group(2) for a in group.group(1).split("|")] if group else [cue]
    by_letter: dict[str, list[str]] = {}
    for cue in cues:
        by_letter.setdefault(cue[0].lower(), []).append(cue[1:])
    return "|".join(f"{k}(?:{'|'.join(rest)})" for k, rest in by_letter.items())


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


@functools.lru_cache(maxsize=1)
def _regexes() -> dict[str, re.Pattern[str]]:
    """Anchors found by a fast scan, and the names read backwards or forwards from them.

    The two anchors open with their comma or space and check the character before it after
    (``" (?<=[\\w.] )"`` is ``"(?<=[\\w.]) "``: the same matches), so the scan jumps from
    space to space instead of testing a look-behind at every character; a look-ahead on the
    first characters of the forms or words then passes most spaces without trying each of
    them, and the cues are tried by their first letter (:func:`_cues_by_first_letter`)."""
    return {
        # a legal form after a word; the name is read backwards from it
        "legal": re.compile(
            rf"(?:,(?<=[\w.)],) | (?<=[\w.)] ))(?={_first_characters(LEGAL_FORMS)})"
            rf"(?:{_alternation(LEGAL_FORMS)})(?![\w&])"
        ),
        "legal_name": re.compile(rf"(?<![\w&-]){_PARTICLE}(?:{_LISTED}|{_NAME_RUN})\Z"),
        "org_word": re.compile(
            rf" (?<=[\w.] )(?={_first_characters(ORG_WORDS)})(?:{_alternation(ORG_WORDS)})(?![\w-])"
        ),
        "org_word_name": re.compile(rf"(?<![\w&-]){_CAP}(?: (?:&|and) {_CAP}| {_CAP}){{0,4}}\Z"),
        "org_of": re.compile(
            rf"(?:{_first_then_edge(ORG_OF_WORDS)}) (?:of|de|du|des|der|für|di|del|della) "
            rf"(?:the )?{_CAP}(?: {_CAP}){{0,3}}"
        ),
        "cue": re.compile(r"(?i:" + _CUE_OPENING + "(?:" + _cues_by_first_letter() + r"))[ \t]*"),
        "run": re.compile(_NAME_RUN),
        "surnames": re.compile(
            rf"{_CAP_HEAD}(?:{_CAP_TAIL}-{_CAP}|{_CAP_TAIL}{_LISTED[len(_CAP) :]}"
            rf"|{_CAP_TAIL} (?:and|&) {_CAP})(?![\w-])"
        ),
    }


def _name_before(regex: re.Pattern[str], text: str, end: int) -> int | None:
    """Where the name that ``regex`` reads backwards from ``end`` starts (None: no name)."""
    window = max(0, end - 100)
    m = regex.search(text, window, end)
    if m is None or "\n" in m.group():
        return None
    name = m.group()
    if len(name) <= 3 and not re.search(f"[{_LOW}]", name):
        return None  # "AT, SE": two capitals are an abbreviation, not a firm's name
    joined = re.match(_CAP + _LOWER_JOIN, name)
    if joined and re.search(r"(?:\A|[.!?:]\s+|\n)\Z", text[: m.start()]):
        return m.start() + joined.end()  # "Fattura di Rossi S.p.A.": the sentence's first word
    return m.start()


def _is_surname(word: str) -> bool:
    """A name of the gazetteer, common words included ("White", "Short" are surnames too)."""
    gaz = gazetteer()
    return word.lower() in gaz.family or word.lower() in gaz.given


def _looks_like_person(words: list[str]) -> bool:
    """A given name then a surname of the gazetteer ("Ella Snider"): a person, not a firm."""
    gaz = gazetteer()
    return len(words) in (2, 3) and gaz.is_given(words[0]) and gaz.is_family(words[-1])


def find_organisations(text: str) -> list[Found]:
    """Organisation names in ``text`` by legal form, organisation word, cue or surname style."""
    rx = _regexes()
    found: list[Found] = []
    for m in rx["legal"].finditer(text):
        start = _name_before(rx["legal_name"], text, m.start())
        if start is not None:
            found.append(Found(start, m.end(), "ORGANIZATION", LEGAL_FORM_SCORE))
    for m in rx["org_word"].finditer(text):
        start = _name_before(rx["org_word_name"], text, m.start())
        if start is None:
            continue
        lead = _DETERMINER.match(text, start, m.end())
        if lead and lead.end() < m.start():  # "Our Sales Department": not "Our"
            start = lead.end()
        elif lead:
            continue  # "The Finance (Manager)": a determiner and the word alone
        if not generic_phrase(text[start : m.end()], gazetteer()):  # "Billing Department"
            found.append(Found(start, m.end(), "ORGANIZATION", WORD_SCORE))
    for m in rx["org_of"].finditer(text):
        start = m.start()
        head = _WORD_BEFORE.search(text, max(0, start - 30), start)
        if head and head.group(1)[:1].isupper() and generic_word(head.group(1)):
            start += m.group().index(" ", m.group().index(" ") + 1) + 1  # "Sales Department of"
            start += 4 if text.startswith("the ", start) else 0
        found.append(Found(start, _no_full_stop(text, m.end()), "ORGANIZATION", WORD_SCORE))
    for cue in rx["cue"].finditer(text):
        m = rx["run"].match(text, cue.end())
        if m is None or "\n" in m.group():
            continue
        if _looks_like_person(re.findall(r"[^\W\d_]+", m.group())):
            continue
        found.append(Found(m.start(), _no_full_stop(text, m.end()), "ORGANIZATION", WORD_SCORE))
    for m in rx["surnames"].finditer(text):
        before = text[max(0, m.start() - 40) : m.start()]
        ampersand = " & " in m.group() and m.group().count(" ") == 2
        if not (ampersand or _CUE.search(before) or _SURNAME_FIRM_CUE.search(before)):
            continue
        words = [
            w
            for w in re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", m.group())
            if w not in ("and", "e", "et", "y", "und")
        ]
        given = gazetteer().is_given
        if "-" in m.group() and all(given(w) for w in words):
            continue  # a compound given name ("Jean-Pierre")
        if sum(_is_surname(w) for w in words) >= min(2, len(words)):
            end = _no_full_stop(text, m.end())
            found.append(Found(m.start(), end, "ORGANIZATION", CUE_SCORE))
    trimmed = [Found(*trim_organisation(text, f.start, f.end), f.entity, f.score) for f in found]
    trimmed += find_block_organisations(text)  # whole lines and forms: nothing to trim
    return _longest(
        [f for f in trimmed if f.end > f.start and not _form_alone(text[f.start : f.end])]
    )


def _form_alone(span: str) -> bool:
    """A legal form or an organisation word with no name ("Company" of "Our Company offers")."""
    return span.strip(" .,") in _BARE_WORDS


_BARE_WORDS = frozenset(w.strip(" .,") for w in LEGAL_FORMS + ORG_WORDS)


def _no_full_stop(text: str, end: int) -> int:
    """``end`` before a sentence's full stop ("University of Leeds."), after an initial's ("J.")."""
    if text[end - 1 : end] == "." and re.search(r"[^\W\d_]{2}\.\Z", text[max(0, end - 3) : end]):
        return end - 1
    return end


def _longest(found: list[Found]) -> list[Found]:
    """Overlapping finds reduced to the longest (then the highest score), in O(n log n)."""
    starts: list[int] = []
    kept: list[Found] = []
    for f in sorted(found, key=lambda f: (-(f.end - f.start), -f.score)):
        i = bisect.bisect_left(starts, f.start)
        if i < len(kept) and kept[i].start < f.end:
            continue  # overlaps the next kept span
        if i > 0 and f.start < kept[i - 1].end:
            continue  # overlaps the previous one
        starts.insert(i, f.start)
        kept.insert(i, f)
    return kept


@functools.lru_cache(maxsize=1)
def _org_evidence() -> re.Pattern[str]:
    return re.compile(
        rf"(?<![\w&])(?:{_alternation(LEGAL_FORMS)}|{_alternation(ORG_WORDS)}|"
        rf"{_alternation(ORG_OF_WORDS)})(?![\w&])"
    )


@functools.lru_cache(maxsize=1)
def _legal_form_end() -> re.Pattern[str]:
    return re.compile(rf"\s(?:{_alternation(LEGAL_FORMS)})$")


#: The legal forms by their last character: ``str.endswith`` tries only those that can end
#: the text (a text ends in a form only if it ends in that form's last character).
_FORMS_BY_LAST = {
    last: tuple(f for f in LEGAL_FORMS if f.endswith(last)) for last in {f[-1] for f in LEGAL_FORMS}
}


def _ends_in_legal_form(text: str) -> bool:
    """Whether ``text``, stripped of its last spaces, dots and commas or of its last spaces
    only, ends in a legal form after a space (:func:`_legal_form_end`). The pattern's ``$``
    matches at the end or before a last line break, so a string that ends in no legal form
    there cannot match: ``str.endswith`` tells most spans (a person's or a place's) in C."""
    end = _legal_form_end()
    last = text[-1:]
    if last.isalpha():  # nothing to strip (most spans): both readings below are the text
        forms = _FORMS_BY_LAST.get(last)
        return bool(forms) and text.endswith(forms) and end.search(text) is not None
    for stripped in (text.rstrip(" .,"), text.rstrip()):
        tail = stripped[:-1] if stripped.endswith("\n") else stripped
        if tail.endswith(_FORMS_BY_LAST.get(tail[-1:], ())) and end.search(stripped) is not None:
            return True
    return False


def _lower_case_name(text: str) -> bool:
    """Whether a span in lower case may be a name: no common word ("the royal academy") and not
    only English words ("miller"); "eva kleist", "shovda" are."""
    gaz, english = gazetteer(), english_words()
    words = re.findall(r"[^\W\d_]+", text)
    return (
        bool(words)
        and not any(w in gaz.common for w in words)
        and not all(w in english for w in words)
    )


def _list_of_english_words(text: str) -> bool:
    """Whether a span is English words joined by "&" or commas, none a name of the gazetteer
    ("Comedy, Kids & Family", "Arts & Crafts"): a list of genres or categories, no firm's name
    ("Marks & Spencer", "Johnson & Johnson" hold names; "Procter & Gamble" a word in no list)."""
    if "&" not in text and "," not in text:
        return False
    gaz = gazetteer()
    words = [w for w in re.findall(r"[^\W\d_]+", text) if w.lower() != "and"]
    return bool(words) and all(
        is_english(w) and w.lower() not in gaz.given and w.lower() not in gaz.family for w in words
    )


def review_model_organisation(text: str, before: str = "") -> str:
    """The entity a span the NER model calls an organisation should have: ORGANIZATION, PERSON
    or TITLE (a job title of the lists, as the English model calls German ones), or "" to drop
    it (a list of English words joined by "&" or commas: :func:`_list_of_english_words`).

    ORGANIZATION first when a place or organisation word of the name review shows it
    (:func:`~anon_core.pii.name_review.place_or_organisation`: "Van Lines"), so the two reviews agree.
    PERSON: spans without a capital letter with no common word and not only English words
    ("eva kleist": the small model's guess for lower-case words; "the royal academy" and
    "miller" stay organisations), spans made only of person names of the gazetteer with "and",
    "&" or commas ("Usamov and Bowers", "Turgeon"), and spans opening with a given name
    ("Wisława Szczepańska's"), unless a legal form or an organisation word shows it is a firm. They are relabelled, never dropped,
    so that a name the model mislabelled stays covered.
    """
    if generic_phrase(text, gazetteer()) or shouted_words(text, gazetteer()):
        return ""  # "Customer Service", "the Billing Department", "FAQ", "DO NOT REPLY"
    if _org_evidence().search(text):
        return "ORGANIZATION"
    if (_THE_BEFORE.search(before) or _THE.match(text)) and english_not_name(
        text, gazetteer(), nouns=True
    ):
        return ""  # "the Rent", "The Music Video": common English words after "the"
    if plural_word(text, gazetteer()):
        return ""  # "Hobbits", "Customers": a plural, no firm's name
    if _list_of_english_words(text):
        return ""  # "Comedy, Kids & Family", "Mystery & Suspense": genres or categories
    if " ".join(text.lower().split()) in title_lists().phrases:
        return "TITLE"  # the English model on German text: "Krankenpfleger"
    if place_or_organisation(text):
        return "ORGANIZATION"  # the name review's rule: "Van Lines", "Jordan Valley Farms"
    if not re.search(f"[{_UP}]", text):
        return "PERSON" if _lower_case_name(text) else "ORGANIZATION"
    words = re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", text)
    words = [re.sub(r"['’]s$", "", w) for w in words]
    names = [w for w in words if w.lower() not in ("and", "und", "et", "y", "e")]
    if names and (all(_is_surname(w) for w in names) or gazetteer().is_given(names[0])):
        return "PERSON"
    return "ORGANIZATION"


# =============================================================================== recognizers
def organisation_recognizer(language: str = "en") -> Any:
    """A Presidio recognizer for :func:`find_organisations`, for an engine without NER (with
    NER, :func:`reviewed_ner_class` adds them, cut around the names it finds)."""
    from presidio_analyzer import EntityRecognizer

    class OrganisationRecognizer(EntityRecognizer):
        """Organisations by legal form, organisation word, cue phrase or surname style."""

        def load(self) -> None:  # no model to load
            return None

        def analyze(self, text: str, entities: Any, nlp_artifacts: Any = None) -> list[Any]:
            if entities and "ORGANIZATION" not in entities:
                return []
            return [presidio_result(self.name, f) for f in find_organisations(text)]

    return OrganisationRecognizer(
        supported_entities=["ORGANIZATION"],
        name="Organisation (anon_core organisations)",
        supported_language=language,
    )


def fit_around_persons(found: Found, persons: list[tuple[int, int]], text: str) -> Found | None:
    """``found`` cut so that it overlaps no person's span partly (None: nothing left).

    Overlapping spans are resolved by score, so an organisation that took the last words of a
    name ("Ask Richard Leblanc de la Mercier of Fontaine et Fils") would drop the whole name and
    leave its first words verbatim. Cut at the name instead: "Fontaine et Fils".
    """
    start, end = found.start, found.end
    for a, b in persons:
        if a < start < b < end:
            start = b
        elif start < a < end < b:
            end = a
    lead = re.match(
        r"(?:[\s,;:&-]|['’]s?)*(?:(?:of|de|du|des|der|für|di|del|della|at|from|and|et|und|y|e)\s+)?",
        text[start:end],
    )
    start += lead.end() if lead else 0
    while end > start and not text[end - 1].isalnum() and text[end - 1] != ".":
        end -= 1
    if (start, end) == (found.start, found.end):
        return found  # uncut, in lower case too ("wilms gmbh" of a signature block)
    if end - start < 2 or not re.search(f"[{_UP}]", text[start:end]):
        return None
    return Found(start, end, found.entity, found.score)


#: Lower-case words no organisation's name holds: the model's span ends before them ("Elliott
#: PLC, the Software Update", "Hermansen ApS is on leave").
_CLAUSE_WORDS = frozenset(
    "is was are were has have had will would can could should may might must but about which "
    "who whom whose that this these those it its as than then so not never also been be being "
    "does did do said says announced every".split()
)
#: "the" (or "a", "my", ...) before a model's span, or opening it.
_THE_BEFORE = re.compile(r"\b(?i:the|a|an|my|your|our|this|that)\s+\Z")
_THE = re.compile(r"(?i:the)\s")
#: Possessive determiners before an organisation's name ("Our", "your").
_OWNER = re.compile(r"(?i:our|your|my|their|his|her|its)\s+(?=\S)")
#: Cue words before a colon in front of an organisation ("Company: Verdier S.A.S.").
_HEAD_CUES = frozenset("company employer organisation organization firm client customer".split())
#: Generic words and a preposition before an organisation inside the model's span ("the Invoice
#: to Stichting de Roo", "Customer Success at Wilson Group", "the Sales Department of ...").
_LEADING_CLAUSE = re.compile(
    r"(?:(?:[Tt]he|[Oo]ur|[Yy]our|[Mm]y)\s+)?((?:[\w&'’-]+\s+){0,3}[\w&'’-]+)\s+(to|at|from|with|of)\s+"
)


def trim_organisation(text: str, start: int, end: int) -> tuple[int, int]:
    """The extent of the organisation a span of the NER model names: after a cue and a colon
    ("Company: Verdier S.A.S."), after generic words and a preposition ("the Invoice to
    Stichting de Roo"; with "of" only after two words or before a legal form: "the Sales
    Department of Bohlander", "the IT Department of van der Zijl NV", not "Department of
    Health"), before a clause (", the Software Update", " is on ...")."""
    owner = _OWNER.match(text, start, end)
    if owner:  # "Our Allstate Insurance Group": "Our" is no part of the name
        start = owner.end()
    span = text[start:end]
    colon = span.find(":")
    if colon > 0:
        head = span[:colon].strip().lower()
        if head in _HEAD_CUES or generic_phrase(head, gazetteer()):
            rest = span[colon + 1 :]
            start += colon + 1 + len(rest) - len(rest.lstrip())
        else:
            end = start + len(span[:colon].rstrip())
        span = text[start:end]
    lead = _LEADING_CLAUSE.match(span)
    if (
        lead
        and generic_phrase(lead.group(1), gazetteer())
        and (lead.group(2) != "of" or " " in lead.group(1) or _ends_in_legal_form(span))
        and re.match(
            rf"\s*(?:[{_UP}]|van |von |de |da |du |der |den |ten |ter )", span[lead.end() :]
        )
    ):
        start += lead.end()
        span = text[start:end]
    for m in re.finditer(r",?\s+([a-z]+)\b", span):
        if m.group(1) in _CLAUSE_WORDS or (m.group().startswith(",") and m.group(1) == "the"):
            end = start + m.start()
            break
    return (start, end) if end > start else (start, start)


def reviewed_ner_class(base: type) -> type:
    """``base`` (the NER recognizer) with its ORGANIZATION spans reviewed (:func:`review_model_organisation`)
    and the organisations of :func:`find_organisations` added, cut around the person spans."""

    class OrganisationReviewedNer(base):  # type: ignore[misc, valid-type]
        def analyze(self, text: str, entities: Any, nlp_artifacts: Any = None) -> list[Any]:
            results = super().analyze(text, self.supported_entities, nlp_artifacts)
            for r in results:
                if r.entity_type == "ORGANIZATION":
                    r.start, r.end = trim_organisation(text, r.start, r.end)
                    r.entity_type = (
                        review_model_organisation(
                            text[r.start : r.end], text[max(0, r.start - 8) : r.start]
                        )
                        if r.end > r.start
                        else ""
                    )
                elif r.entity_type in ("PERSON", "LOCATION") and _ends_in_legal_form(
                    text[r.start : r.end]
                ):
                    r.entity_type = "ORGANIZATION"  # "Stewart Inc", "Lindner KG"
            results = [r for r in results if r.entity_type]  # "" : a list of genres, dropped
            persons = [(r.start, r.end) for r in results if r.entity_type == "PERSON"]
            for found in find_organisations(text) + firm_lines_beside_names(text, persons):
                fitted = fit_around_persons(found, persons, text)
                if fitted is not None:
                    results.append(presidio_result(self.name, fitted))
            wanted = set(entities or ())
            return [r for r in results if not wanted or r.entity_type in wanted]

    OrganisationReviewedNer.__name__ = base.__name__
    return OrganisationReviewedNer
