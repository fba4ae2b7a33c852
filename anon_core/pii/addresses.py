"""Street addresses and postcodes in free text, whole: number, street, unit, city, region, postcode,
country, in the layouts of many countries.

Presidio has no address recognizer, and the small NER model finds at best the city and the
country of "20789 Allika 46, Suite 501, Riisa, Estonia 62488". :func:`find_addresses` works in
two steps:

1. a **street** is found by its shape (:data:`STREET_CORES`): a house number and words ending in
   a street type ("12 Kramer Court", "3911 fourth avenue"), a street word then a name and a
   number ("Via Tasso 129", "ul. Północna 73", "5, avenue Samson"), a one-word street with a
   street ending ("Drubinstraße 47-26", "Søndergade 52", "Kiannonkatu 98"), a post-office box,
   or capitalised words with a house number when a leading number, a cue ("lives at",
   "address:") or a following postcode says it is a street;
2. the street **grows**: leftwards over a building number or a unit ("Flat 3", "Unit 37"),
   rightwards over the parts after a comma, a line break (quoted "> " lines too) or a space: unit,
   postcode and city ("06690 Groß-Gerau", "1170-669 Mealhada"), city with region and ZIP ("Lake
   Maryland, NY 63294"), country with postcode ("Spain 61709").

:func:`find_postcodes` finds a postcode alone (``ZIP_CODE``) after a cue word ("zip code",
"postcode", "PLZ", "code postal", ...), or anywhere when its shape is unmistakable (a UK,
Canadian or Irish postcode, a US ZIP+4). Numbers alone are never addresses. Patterns use the
``regex`` module (Presidio's own dependency) for Unicode letter classes.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from anon_core.pii.address_blocks import (
    ADDRESS_SCORE,
    blocks,
    cued_before,
    cued_lines,
    first_stop_word,
    has_stop_word,
)
from anon_core.pii.address_parts import CALENDAR_WORDS as _CALENDAR
from anon_core.pii.address_parts import ENGLISH_STREET_TYPES as _ENGLISH_TYPES
from anon_core.pii.address_parts import NOT_ADDRESS_PARTS as _NOT_PARTS
from anon_core.pii.address_parts import NOT_STREETS as _NOT_STREETS
from anon_core.pii.address_parts import QUANTITY_WORDS as _QUANTITY_WORDS
from anon_core.pii.address_parts import Found, non_overlapping, shape_recognizer
from anon_core.pii.address_words import (
    CUES,
    ENDINGS,
    LOWER_OK,
    OPENERS_CAPITALISED,
    OPENERS_FRENCH_LOWER,
    OPENERS_OTHER_LOWER,
    PARTICLE_SET,
    PARTICLES,
    STOP_WORDS,
    STREET_WORDS,
    country_names,
    faker_street_words,
)
from anon_core.pii.addresses_fast import may_hold_box, may_hold_opener, opener_firsts, weak_matches
from anon_core.pii.found import trie_pattern
from anon_core.pii.name_lists import is_english, place_names

#: Score of a street alone (with a part after it or a cue before it: ``ADDRESS_SCORE``).
STREET_SCORE = 0.6
POSTCODE_CUE_SCORE = 0.85
POSTCODE_SHAPE_SCORE = 0.5


def _words(block: str) -> list[str]:
    return sorted(set(block.split()), key=lambda w: (-len(w), w))


def _alternation(words: list[str], *, fold: bool = False) -> str:
    import regex

    body = "|".join(regex.escape(w) for w in words)
    return f"(?i:{body})" if fold else f"(?:{body})"


@functools.lru_cache(maxsize=1)
def _patterns() -> dict[str, Any]:
    """The compiled patterns (``regex`` module: Unicode letter classes), built once."""
    import re

    import regex

    cap = r"(?:\p{Lu}[\p{L}\p{M}'’]*+(?:[.-]\p{L}[\p{L}\p{M}'’]*)*\.?|['’]s-\p{Lu}\p{L}*|['’]t[ \t]\p{Lu}\p{L}*)(?!\d)"
    word = r"\p{L}[\p{L}\p{M}'’]*(?:-\p{L}[\p{L}\p{M}'’]*)*"
    low = r"\p{Ll}[\p{Ll}\p{M}'’]*(?:-\p{Ll}[\p{Ll}\p{M}'’]*)*"
    number = r"\d{1,5}(?:\s?[A-Za-z](?![\p{L}\d]))?(?:\s?[/-]\s?\d{1,4}[A-Za-z]?(?![\p{L}\d]))?"
    house = rf"(?:{number}|S/N|s/n)"
    # a word ending in a full stop ends the name unless it is an abbreviation ("St. Louis",
    # "Prof. Rossi"): "21, rue Blanc, 67000 Strasbourg. Merci" stops at "Strasbourg"
    go_on = (
        r"(?:(?<!\.)|(?<=(?<![\p{L}\p{M}])[\p{L}\p{M}]{1,3}\.)"
        r"|(?<=(?<![\p{L}\p{M}])(?i:prof|blvd|dott|gral|pres|sgto)\.))"
    )
    particle = rf"(?:{_alternation(PARTICLES.split())}(?![\p{{L}}'’-]))"
    faker_openers, faker_types = faker_street_words()
    # street types after the name: English, and Faker's of other languages ("Umgwaqo")
    english = (
        _alternation(_words(_ENGLISH_TYPES), fold=True) + "|" + _alternation(list(faker_types))
    )
    english = f"(?:{english})"
    opener_words = set(OPENERS_CAPITALISED.split()) | set(faker_openers)
    # one trie of the words: their common beginnings read once (a plain alternation of the
    # longer list cost a seventh more time on text without addresses)
    openers = f"(?:{trie_pattern(opener_words)})"
    firsts = opener_firsts(
        opener_words | set(f"{OPENERS_FRENCH_LOWER} {OPENERS_OTHER_LOWER}".split())
    )
    french = _alternation(_words(OPENERS_FRENCH_LOWER))
    other_lower = _alternation(_words(OPENERS_OTHER_LOWER))
    endings = _alternation(_words(ENDINGS), fold=True)
    quantity = _alternation(_words(_QUANTITY_WORDS), fold=True)
    # before a street type a capitalised quantity word is a name ("189 Miles Squares")
    quantity_lower = _alternation(_words(_QUANTITY_WORDS))
    unit_word = (
        r"(?i:apartment|apt\.?|apto\.?|suite|ste\.?|unit|flat|floor|fl\.|level|lvl|room|rm\.?|studio|"
        r"building|bldg\.?|piso|planta|puerta|appartamento|interno|int\.|scala|étage|etage|bâtiment|"
        r"stock|wohnung|whg\.?|lgh|bus|bte|boîte|mieszkanie|m\.|lok\.|piano|#)"
    )
    unit = rf"{unit_word}\s?(?:{number}|[A-Z\d]{{1,4}}\b)"
    # more unit words, only after a street (matched at one place, never searched for)
    unit_after = (
        r"(?:(?:(?i:dpto\.?|depto\.?|dto\.|oficina|interior|edif\.|bl\.|sc\.|ap\.|кв\.)|RD)"
        rf"\s?(?:{number}|[A-Z\d]{{1,4}}\b)|{unit})"
    )
    postcode = (
        r"(?:[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}"  # UK
        r"|[A-Z]\d[A-Z]\s?\d[A-Z]\d"  # Canada
        r"|[A-Z]\d{2}\s?[A-Z\d]{4}"  # Ireland (Eircode)
        r"|\d{5}-\d{4}|\d{5}-\d{3}|\d{4}-\d{3}|\d{2}-\d{3}"  # US ZIP+4, Brazil, Portugal, Poland
        r"|\d{4}\s?[A-Z]{2}(?![\p{L}])"  # Netherlands
        r"|\d{3}\s\d{2}(?!\d)"  # Czechia, Slovakia, Sweden, Greece
        r"|(?:[A-Z]{1,2}-)?\d{3,8})"  # digits (DE, FR, IT, ES, DK, NO, CH, AT, AU, ...)
    )
    region = r"(?:\(\p{L}{1,12}\)|/\s?\p{Lu}{2}\b)"
    city = rf"(?:{cap}(?:{go_on}[ \t]+(?:{particle}|{cap}|\(\p{{L}}+\)))*|\p{{Lu}}{{2,}}(?:[ \t-]\p{{Lu}}{{2,}})*)"
    lower_city = rf"(?:{low}(?:[ \t]+{low}){{0,3}}(?:[ \t]+\(\p{{L}}+\))?)"
    state = r"(?:\p{Lu}{2,3}\.?(?![\p{L}\d]))"
    return {
        "core": [
            # 12 Kramer Court, 3911 fourth avenue, 868 Kevin Radial (English street types)
            regex.compile(
                rf"(?<![\w.,/-]){number}[ \t]+(?!{quantity_lower}\b)(?:(?:{cap}|{low}|\d{{1,3}}(?:st|nd|rd|th))[ \t]+){{1,4}}"
                rf"{english}s?(?![\p{{L}}\d])\.?"
            ),
            # Via Tasso 129, Avenida de Mota, 77, ul. Północna 73, 5, avenue Samson, Rue de Tanger
            regex.compile(
                rf"(?<![\w.-])(?:{number},?[ \t]+(?:(?i:bis|ter)[ \t]+)?)?"
                rf"(?:{openers}|{french}|{other_lower})[ \t]+"
                rf"(?:(?:{particle}|d['’]|l['’]|(?!{unit_word}(?![\p{{L}}]))(?:{cap}|\d{{1,2}}[º°ª])){go_on}[ \t]*){{0,5}}"
                rf"(?!{unit_word}(?![\p{{L}}]))(?:{cap}|{word})"
                rf"(?:,?[ \t]+{house}(?![\w-])(?![ \t]+(?!{unit_word})\p{{Lu}}\p{{Ll}}))?"
            ),
            # Drubinstraße 47-26, Søndergade 52, Augsburger Strasse 36, Murat-Heinrich-Allee 7740
            regex.compile(
                rf"(?<![\w.-])(?:{cap}[ \t]+){{0,2}}\p{{Lu}}[\p{{L}}\p{{M}}-]*+\.?(?<={endings})[ \t]+{house}(?![\w-])"
            ),
            regex.compile(
                rf"(?<![\w.-])\p{{Ll}}[\p{{Ll}}\p{{M}}-]*+\.?(?<={endings})[ \t]+{number}(?![\w-])"
            ),
            # Gunnel Nymanin bulevardi 97, Sankt Jørgens gade 10: the street word apart
            regex.compile(rf"(?<![\w.-])(?:{cap}[ \t]+){{1,3}}{endings}[ \t]+{house}(?![\w-])"),
            # Flat 8\nDay Summit (British: a unit line, then a street without a number)
            regex.compile(
                rf"(?<![\w.-]){unit},?[ \t]*(?:\n[ \t>]*)?(?:{cap}[ \t]+){{1,3}}{english}s?(?![\p{{L}}\d])\.?"
            ),
            # P.O. Box 242, Postbox 53, Postfach 12 34, PSC 6477, Box 2981, USNS Smith
            regex.compile(
                r"(?<![\w.-])(?:(?i:p\.?\s?o\.?\s?box|post\s?box|post\s?fach|apartado(?:\s+de\s+correos)?|"
                r"casella\s+postale|boîte\s+postale|b\.?p\.?)|(?i:psc)|Unit)[ \t]+\d{1,6}(?:[ \t]\d{2,4})?"
                r"(?:,?[ \t]+Box[ \t]+\d{1,6})?"
                r"|(?<![\w.-])(?:USNS|USNV|USS|USCGC)[ \t]+\p{Lu}\p{L}+"
            ),
        ],
        # every match of the three patterns of street endings holds this: searched from the end
        # (a digit first), it costs a tenth of them and rules them out in most texts
        "ending_gate": regex.compile(rf"(?r){endings}[ \t]+(?:\d|S/N|s/n)"),
        # the same for the unit line before a street without a number (a capital first): the
        # street pattern is tried only where this finds a unit
        "unit_gate": regex.compile(rf"(?r)(?<![\w.-]){unit},?[ \t]*(?:\n[ \t>]*)?\p{{Lu}}"),
        # the street words' first runs, and where the weak pattern's house numbers may be
        "opener_firsts": firsts,
        "opener_token": regex.compile(r"[\w.-]+"),
        "weak_gate": re.compile(r"[ \t]\d"),
        # capitalised words with a house number: a street only with more evidence
        "weak": regex.compile(
            rf"(?<![\w.,/-])(?!{quantity}\b){cap}(?:[ \t]+(?:{particle}|{cap})){{0,3}}"
            rf",?[ \t]+{number}(?![\w-])"
        ),
        # searched from the end ("(?r)"): a third less time, the same matches on 21,607 windows
        # before streets of the development sets
        "lead_number": regex.compile(rf"(?r)(?:(?<![\w.,/-]){number},?[ \t]+)$"),
        "lead_unit": regex.compile(rf"(?r)(?:(?<![\w.-]){unit},?[ \t]*(?:\n[ \t>]*)?)$"),
        "lead_cap": regex.compile(rf"(?<![\w.,/-]){number}[ \t]+$"),
        "cue": regex.compile(CUES),
        "cue_anywhere": regex.compile(CUES.replace(r"\s*:?\s*$)", ")")),
        "digit": regex.compile(r"\d"),
        "sep": regex.compile(
            r"(?:\.(?=,|[ \t]*\n[ \t>]*H-\d))?[ \t]*(?:,[ \t]*(?:\n[ \t>]*)*|(?:\n[ \t>]*)+,?[ \t]*)"
        ),
        "space": regex.compile(r"(?:\.(?=[ \t]+H-\d))?[ \t]+"),
        "unit": regex.compile(rf"{unit_after}(?![\w-])"),
        "postcode_city": regex.compile(
            rf"(?:{postcode}(?![\w-])(?:,?[ \t]+(?:{city}))?(?:[ \t]*{region})?"
            rf"|{postcode}(?![\w-])[ \t]*\n[ \t>]*{city}(?=[ \t]*(?:\n|$)))"
        ),
        "city": regex.compile(
            rf"{city}(?:[ \t]*{region})?(?:,?[ \t]+{state}(?![\p{{L}}]))?"
            # a district, then the postcode and the town with its state (Brazil: "... / AM")
            rf"(?:,?[ \t]+{postcode}(?![\w-])(?:[ \t]+{city}[ \t]*{region})?)?"
        ),
        # "Toronto ON M5V 2T6" after a street with no comma: a town, a state, a postcode
        "city_state_code": regex.compile(rf"{city},?[ \t]+{state},?[ \t]+{postcode}"),
        # "Wardleigh 9081", "Zaragoza, 24501" after a street and a space
        # a house number of three digits or more opening or closing a street
        "long_number": regex.compile(r"(?<![\d/-])\d{3,5}$"),
        "type_end": regex.compile(rf"(?<![\p{{L}}]){english}s?\.?$"),
        "city_code": regex.compile(rf"{city},?[ \t]+(?P<code>{postcode})"),
        # the rest of a line that goes on as a sentence: a lower-case word after a space
        "state_before_code": regex.compile(r"(?<=,[ \t]?)\p{L}{2,3}(?=,?[ \t]+[\p{L}\d]*\d)"),
        "sentence_rest": regex.compile(r"[ \t]+(?P<word>\p{Ll}+)"),
        "lower_city": regex.compile(lower_city),
        "military": regex.compile(r"(?i:(?:APO|FPO|DPO)[ \t]+(?:AA|AE|AP))[ \t]+\d{5}"),
        "strong_postcode": regex.compile(
            r"(?<![\w-])(?:[A-Z]{1,2}\d[A-Z\d]?[ ]\d[A-Z]{2}|[A-Z]\d[A-Z][ ]\d[A-Z]\d|\d{5}-\d{4})(?![\w-])"
        ),
        # held by every strong postcode ("1 1AA", "A 0B", "12345-6789"): ``re``, a tenth the time
        "strong_gate": re.compile(r"[A-Z\d] \d[A-Z]|\d{5}-\d{4}"),
        "postcode_cue": regex.compile(
            r"(?i:\b(?:zip|zip\s?code|zipcode|postal\s?code|post\s?code|postcode|postleitzahl|plz|"
            r"code\s+postal|cp|cap|c\.a\.p\.|c[oó]digo\s+postal|postnummer|postnr\.?|postinumero|"
            r"kod\s+pocztowy|PSČ)\b(?:\s+(?:is|was|of|number|no\.?))?\s*[:#,]?\s*)"
            rf"(?P<code>\d{{3}}-\d{{4}}|{postcode})(?![\w-])"  # Japan's 123-4567 after a cue only
        ),
        # the last line of an address block: a country (any script) and its postcode
        "block_end": regex.compile(
            r"[ \t>]*(?:\p{L}[\p{L}\p{M}'’.()-]*[ \t]+){1,4}"
            r"(?=[A-Z\d-]*\d)[A-Z\d][A-Z\d-]{2,9}(?:[ \t][A-Z\d]{3,4})?[ \t]*"
        ),
        # (standard ``re``: a tenth of the cost) a digit ending a line or a sentence: a block's end
        "line_end_digit": re.compile(r"\d[ \t]*(?=\n|\Z|\.(?:\s|\Z))"),
        # a space or colon before a digit: where a cue may end before a house number
        "before_number": re.compile(r"[ \t:](?=\d)"),
        # after a cue: a house number, any street name (any script), a comma and the town (and
        # up to two more parts: a country, a postcode)
        "cued_line": regex.compile(
            r"\d{1,6}[ \t]+[^\n,;:]{2,60}?,[ \t]+[^\n,.;:!?]{2,40}?(?:,[ \t]+[^\n,.;:!?]{2,40}?){0,2}"
            r"(?=[ \t]*(?:[.!?](?:\s|$)|\n|$))"
        ),
        # a country, and the postcode after it ("Kingdom of the Netherlands 4515 KJ")
        "country_code": regex.compile(
            rf"{_alternation(list(country_names()))}(?![\p{{L}}\p{{M}}])"
            rf"(?:,?[ \t]+{postcode}(?![\w-]))?"
        ),
        "part_word": regex.compile(r"\p{L}+"),
        "token": regex.compile(r"[\p{L}\p{M}\d'’]+|[^\p{L}\p{M}\d'’]+"),
    }


def _end_of_part(text: str, start: int, pats: dict[str, Any], lower: bool) -> int | None:
    """End of one address part starting at ``start`` (unit, postcode and city, city, ...)."""
    best = None
    for name in ("unit", "military", "postcode_city", "city") + (("lower_city",) if lower else ()):
        m = pats[name].match(text, start)
        if m and m.end() > start and (best is None or m.end() > best):
            best = m.end()
    country = pats["country_code"].match(text, start)
    if country and (best is None or country.end() >= best):
        return country.end()  # "Republic of Ireland E30A4NE": its stop words are no sentence's
    if best is None:
        return None
    piece = text[start:best]
    words = pats["part_word"].findall(piece)
    while words and (
        (words[-1] in STOP_WORDS and words[-1] not in PARTICLE_SET)  # "Berlin and"
        or (len(words) > 1 and _past_tense(words[-1]))  # "geesbrug asked" in lower-case text
    ):  # never ends an address
        cut = piece.rfind(words.pop())
        piece = piece[:cut].rstrip(" \t,")
        best = start + len(piece)
    if not piece.strip() or has_stop_word(piece, pats):
        return None
    if words and words[0].lower() in _NOT_PARTS:
        return None  # "Tel. 555 0100" under an address is a phone, not a city
    return best


def _past_tense(word: str) -> bool:
    """Whether ``word`` is an English verb in the past tense ("asked", "opened")."""
    if len(word) < 5 or not word.endswith("ed"):
        return False
    return is_english(word)


def _grow_right(
    text: str, end: int, pats: dict[str, Any], lower: bool, lower_core: bool
) -> tuple[int, int]:
    """End of the address after its street, and how many parts were added."""
    parts = 0
    for _ in range(6):
        sep = pats["sep"].match(text, end) or pats["space"].match(text, end)
        if sep is None:
            break
        spaced = "," not in sep.group(0) and "\n" not in sep.group(0)
        nxt = _end_of_part(text, sep.end(), pats, lower)
        if nxt is None:
            break
        piece = text[sep.end() : nxt]
        if spaced and piece.replace("-", "").replace(" ", "").isdigit():
            break  # "Spring 2020": a bare number after a space continues nothing
        if "\n" in sep.group(0) and _sentence_line(text, piece, nxt, pats, lower_core):
            break  # "12 Main St\nOpening hours are ...": a sentence starts on the next line
        if spaced and not (
            pats["unit"].fullmatch(piece)
            or pats["postcode_city"].fullmatch(piece)
            or pats["military"].fullmatch(piece)
            or pats["city_state_code"].fullmatch(piece)
            or _town_and_code(piece, pats)
            or (pats["country_code"].fullmatch(piece) and pats["digit"].search(piece))
            or (lower_core and _line_rest(text, nxt) and _line_start(text, end, pats))
        ):
            break  # a part after a plain space: a unit, a postcode, or a town with both
        end, parts = nxt, parts + 1
    while end > 0 and text[end - 1] == "." and not _abbreviation(text, end):
        end -= 1
    return end, parts


def _sentence_line(text: str, piece: str, end: int, pats: dict[str, Any], one_case: bool) -> bool:
    """Whether ``piece``, a part opening a line, opens a sentence instead: an English word
    that is no place, without a digit, and a lower-case word after it on its line that is no
    stop word ("Opening hours are nine to five"; not "Walsbets to a farm", "Heiloo still"). In
    text of one case, English words only ("opening hours are")."""
    rest = pats["sentence_rest"].match(text, end)
    first = pats["part_word"].search(piece)
    if rest is None or first is None or pats["digit"].search(piece):
        return False
    if first.group(0).lower() in STOP_WORDS:
        return True  # "Please call ..."
    if one_case:
        words = pats["part_word"].findall(piece)
        return all(is_english(w) for w in words) and piece.lower() not in place_names()
    if rest.group("word") in STOP_WORDS:
        return False  # "Cartagena de Indias to a farm": the town, then the sentence goes on
    return is_english(first.group(0)) and piece.lower() not in place_names()


def _town_and_code(piece: str, pats: dict[str, Any]) -> bool:
    """Whether ``piece`` is a town and a postcode that is no year ("Wardleigh 9081", "Zaragoza,
    24501"; not "Spring 2020")."""
    m = pats["city_code"].fullmatch(piece)
    if m is None:
        return False
    code = m.group("code")
    return not (len(code) == 4 and code.startswith(("19", "20")))


def _line_rest(text: str, end: int) -> bool:
    """Whether only spaces are left on the line after ``end``."""
    line_end = text.find("\n", end)
    return not text[end : len(text) if line_end < 0 else line_end].strip()


def _line_start(text: str, end: int, pats: dict[str, Any]) -> bool:
    """Whether the line up to ``end`` holds no stop word (an address line, not a sentence)."""
    return not has_stop_word(text[text.rfind("\n", 0, end) + 1 : end], pats)


def _abbreviation(text: str, end: int) -> bool:
    start = end - 1
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    return 0 < end - 1 - start <= 3  # "St.", "Ave." keep their dot; "Berlin." does not


def _grow_left(text: str, start: int, pats: dict[str, Any]) -> int:
    """Start of the address: a unit ("Flat 3", "Level 3") and a building number before the street."""
    for name in ("lead_unit", "lead_number", "lead_unit"):
        before = text[max(0, start - 40) : start]
        m = pats[name].search(before)
        if m:
            start -= len(before) - m.start()
    return start


def _long_number(core: str, pats: dict[str, Any]) -> bool:
    """Whether a street holds a house number of three digits or more, first ("849 chanya
    turnpike") or last after a name word that is no English word ("pasaje de custodia santamaria
    407"; not "via route 101")."""
    if core[:3].isdigit():
        return True
    if not pats["long_number"].search(core):
        return False
    words = [w for w in pats["part_word"].findall(core) if w.lower() not in STREET_WORDS]
    return any(len(w) > 2 and w.lower() not in PARTICLE_SET and not is_english(w) for w in words)


def _after_stop_words(text: str, start: int, pats: dict[str, Any]) -> int:
    """``start`` moved past the capitalised stop words at it ("From", "To The")."""
    while (w := pats["part_word"].match(text, start)) and w.group(0).lower() in STOP_WORDS:
        space = pats["space"].match(text, w.end())
        if space is None:
            break
        start = space.end()
    return start


def _cores(text: str, pats: dict[str, Any]) -> Iterator[tuple[int, int, bool]]:
    """(start, end, strong) of every street shape; weak shapes need evidence around them."""
    endings = pats["ending_gate"].search(text) is not None
    for i, pattern in enumerate(pats["core"]):
        if (
            (i in (2, 3, 4) and not endings)
            or (i == 1 and not may_hold_opener(text, pats["opener_firsts"], pats["opener_token"]))
            or (i == 6 and not may_hold_box(text))
        ):
            continue
        if i == 5:  # a unit line, then a street: tried only where the unit gate found one
            gates = pats["unit_gate"].finditer(text)
            found = [m for g in gates if (m := pattern.match(text, g.start()))]
        else:
            found = pattern.finditer(text)
        for m in found:
            if i in (2, 3, 4):  # one-word street endings: not "Spring 2020"
                first = m.group(0).split()[-2].lower()
                if first in _NOT_STREETS or first.endswith("ing"):
                    continue
            if i in (0, 1) and has_stop_word(m.group(0), pats):
                # "18185 Roberts Stream in Lake", "978 chemin Isabelle as the": the street ends
                # before the sentence's word
                stop = first_stop_word(m.group(0), pats)
                m = pattern.match(text, m.start(), m.start() + stop) if stop else None
                if m is None:
                    continue
            start = m.start()
            if i in (
                2,
                4,
            ):  # "From Tapolcavégi tér 26.": a capitalised stop word opens the sentence
                start = _after_stop_words(text, start, pats)
            yield start, m.end(), True
    for m in weak_matches(text, pats["weak"], pats["weak_gate"]):
        start = _after_stop_words(text, m.start(), pats)  # "Is Tabor 9c": "Tabor 9c"
        if not text[start : start + 1].isdigit():  # "From 793": no name left
            yield start, m.end(), False


#: English street types kept in lower case when text is re-cased ("17 Street" reads as a name).
_TYPES = frozenset(w.lower() for w in _ENGLISH_TYPES.split()) - {"via", "rue", "av"}


def normal_case(text: str, *, street_types: bool = True) -> str | None:
    """``text`` written in one case only, re-cased like an address (same length), else None.

    All lower-case or all-capitals text ("255 hersnapvej 18, københavn k") gets capitals at the
    start of words that are no stop words and particles; words with digits are upper-cased
    ("sw1a 1aa"). English street types stay in lower case ("17 street"; not after a comma or
    a line break: "..., lake sandramouth") unless
    ``street_types=False`` (towns: "lake deanmouth" is "Lake Deanmouth"). Offsets are kept, so
    spans found in the result are spans of ``text``.
    """
    if not any(c.isalpha() for c in text) or not (text == text.lower() or text == text.upper()):
        return None
    out = []
    for piece in _patterns()["token"].findall(text):
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in piece)
        if any(c.isdigit() for c in piece):
            piece = "".join(c.upper() if len(c.upper()) == 1 else c for c in piece)
        elif (
            not piece[0].isalpha()
            or low in STOP_WORDS
            or low in PARTICLE_SET
            or (street_types and low in _TYPES and not _part_start(out))
        ):
            piece = low
        else:
            first = piece[0].upper() if len(piece[0].upper()) == 1 else piece[0]
            piece = first + low[1:]
        out.append(piece)
    # "lake michaelfort, mo 48235": two or three letters after a comma and before a number are
    # a state's or province's abbreviation ("MO 48235")
    return _patterns()["state_before_code"].sub(lambda m: m.group(0).upper(), "".join(out))


def _part_start(out: list[str]) -> bool:
    """Whether the next word opens an address part: after a comma or a line break, where a
    street type is a town's first word ("..., lake sandramouth, ...")."""
    return bool(out) and out[-1].rstrip(" \t")[-1:] in (",", "\n")


def find_addresses(text: str) -> list[Found]:
    """Whole street addresses in ``text`` (non-overlapping, longest first)."""
    recased_text = normal_case(text)
    recased = recased_text is not None
    text = recased_text or text
    pats = _patterns()
    if pats["digit"].search(text) is None and pats["cue_anywhere"].search(text) is None:
        return []  # a street without a number needs a postcode or a cue
    candidates: list[tuple[bool, Found]] = []
    for start, end, strong in _cores(text, pats):
        core = text[start:end]
        letters = "".join(pats["part_word"].findall(core))
        lower_core = letters == letters.lower()
        names = [w for w in pats["part_word"].findall(core) if len(w) > 1]
        if has_stop_word(core, pats) or (
            any(w.lower() in _CALENDAR for w in names) and not pats["type_end"].search(core)
        ):
            continue  # "June 9, 1948": a date; not "1759 April Roads"
        if not lower_core and any(w.islower() and w not in LOWER_OK for w in names):
            continue  # "5 covers Spring": a street name is capitalised throughout, or not at all
        left = _grow_left(text, start, pats)
        cued = cued_before(text, left, pats)
        one_case = lower_core or recased
        right, parts = _grow_right(text, end, pats, one_case or cued, one_case)
        # a house number of three digits or more before a street type: "849 chanya turnpike"
        long_number = strong and _long_number(core, pats)
        if lower_core and not (cued or parts or left < start or long_number):
            continue  # lower-case text needs a cue, a building number or a city after it
        if not any(c.isdigit() for c in core) and not (
            cued or _postcode_after(text, end, pats, spaced=not recased)
        ):
            continue  # "place Monday", "Place Green": a street word without a number needs more
        if recased and not (
            cued or left < start or parts or long_number or _postcode_after(text, end, pats)
        ):
            continue  # in one-case text every word is "capitalised": a street needs evidence
        if not strong and not (
            cued
            or _postcode_after(text, end, pats, spaced=not recased)
            or (left < start and (parts or not recased))
        ):
            continue
        # a house number before a street of known shape is evidence enough ("18185 Roberts
        # Stream in Lake Lauren": above the model's 0.85 for "Roberts Stream in Lake Lauren")
        numbered = strong and core[:1].isdigit()
        score = ADDRESS_SCORE if (parts or cued or left < start or numbered) else STREET_SCORE
        candidates.append((strong, Found(left, right, score)))
    candidates += [(True, f) for f in blocks(text, pats)]
    candidates += [(True, f) for f in cued_lines(text, pats)]
    # a street of known shape first, then the longest ("Bitte an Mühlgasse 4/7" is weak)
    order = sorted(candidates, key=lambda c: (not c[0], c[1].start - c[1].end, -c[1].score))
    return non_overlapping([cand for _, cand in order])


def _postcode_after(text: str, end: int, pats: dict[str, Any], spaced: bool = False) -> bool:
    """Whether a postcode follows ``end`` after a comma or line break, or (``spaced``) a
    postcode and a town after a space ("Kožarska 8a/4 57038 Vodnjan")."""
    sep = pats["sep"].match(text, end)
    if sep is not None:  # a postcode, or a military one ("USNV Piir, FPO AE 24655")
        return bool(
            pats["postcode_city"].match(text, sep.end()) or pats["military"].match(text, sep.end())
        )
    space = pats["space"].match(text, end) if spaced else None
    if space is None:
        return False
    if pats["military"].match(text, space.end()):
        return True  # "USNS Wolf FPO AE 39237"
    m = pats["postcode_city"].match(text, space.end())
    return bool(m and any(len(w) > 2 for w in pats["part_word"].findall(m.group(0))))


def find_postcodes(text: str) -> list[Found]:
    """Postcodes alone: after a cue word (score 0.85) or of an unmistakable shape (0.5)."""
    pats = _patterns()
    found = {
        (m.start("code"), m.end("code")): POSTCODE_CUE_SCORE
        for m in pats["postcode_cue"].finditer(text)
    }
    for m in pats["strong_postcode"].finditer(text) if pats["strong_gate"].search(text) else ():
        found.setdefault((m.start(), m.end()), POSTCODE_SHAPE_SCORE)
    return [Found(a, b, s) for (a, b), s in sorted(found.items())]


def address_recognizer(language: str) -> Any:
    """Presidio recognizer of whole street addresses (``STREET_ADDRESS``), see :func:`find_addresses`."""
    return shape_recognizer(
        language,
        "STREET_ADDRESS",
        "Street address (international)",
        find_addresses,
        ["address", "lives", "street", "adresse", "rue", "domicile", "anschrift", "via"],
    )


def postcode_recognizer(language: str) -> Any:
    """Presidio recognizer of postcodes alone (``ZIP_CODE``), see :func:`find_postcodes`."""
    return shape_recognizer(
        language,
        "ZIP_CODE",
        "Postcode (cue word or unmistakable shape)",
        find_postcodes,
        ["zip", "postal", "postcode", "plz"],
    )
