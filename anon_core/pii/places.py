"""Places named in free text that the small NER model misses: towns written in capitals after a
place word ("in ÅLESUND"), and countries with the town before them ("Everettside, Canada").

Both report ``LOCATION``. Street addresses and postcodes are :mod:`anon_core.pii.addresses`'.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from anon_core.pii.address_parts import (
    STATE_ABBREVIATIONS,
    STATE_NAMES,
    STATES_AMBIGUOUS,
    Found,
    shape_recognizer,
    states_with_postcode,
)
from anon_core.pii.addresses import STOP_WORDS, STREET_WORDS, normal_case

CAPS_PLACE_SCORE = 0.9
COUNTRY_SCORE = 0.86


@functools.lru_cache(maxsize=1)
def _caps_place() -> Any:
    import regex

    return regex.compile(
        r"(?<=\b(?:[Ii]n|[Ff]rom|[Nn]ear|[Oo]utside)[ \t]+)"  # not "IN ADDITION"
        r"\p{Lu}[\p{Lu}\p{M}'’]+(?:[ -]\p{Lu}[\p{Lu}\p{M}'’]+){0,2}(?![\p{L}\d])"
    )


def find_capitalised_places(text: str) -> list[Found]:
    """Town names written in capitals after "in", "from", "near" ("in ÅLESUND", "from KATRINEHOLM").

    The small NER model reads an all-capitals word as an acronym and misses the place. Five
    letters or more with a vowel, so acronyms ("in HTML", "from NASA") are left alone.
    """
    found = []
    for m in _caps_place().finditer(text):
        word = m.group(0)
        if len(word.replace(" ", "").replace("-", "")) >= 5 and any(
            c in "AEIOUYÅÄÖØÆÉÈÜ" for c in word
        ):
            found.append(Found(m.start(), m.end(), CAPS_PLACE_SCORE))
    return found


#: Short and usual names of countries beside Faker's list of English country names.
_COUNTRY_EXTRAS = (
    "USA", "U.S.A.", "U.S.", "UK", "U.K.", "Great Britain", "England", "Scotland", "Wales",
    "Northern Ireland", "Czechia", "Czech Republic", "Slovakia", "Russia", "South Korea",
    "North Korea", "Vietnam", "Laos", "Syria", "Iran", "Bolivia", "Venezuela", "Tanzania",
    "Moldova", "Macedonia", "North Macedonia", "Ivory Coast", "The Netherlands", "Holland",
    "Vatican City", "Kosovo", "Taiwan", "Palestine", "Brunei", "Libya", "Micronesia",
)  # fmt: skip
#: Country names that are also common given names: a place only after "City, ".
_COUNTRY_NAMES_OF_PEOPLE = frozenset({"Jordan", "Chad", "Georgia", "India", "Israel", "Jersey"})


@functools.lru_cache(maxsize=1)
def _countries() -> Any:
    """A pattern of country names (Faker's English list, MIT, offline; longest first)."""
    import regex
    from faker.providers.address.en import Provider

    names = set(_COUNTRY_EXTRAS)
    for name in Provider.countries:  # "Slovakia (Slovak Republic)" whole, and "Slovakia"
        names.update((name, name.split(" (")[0]))
    body = "|".join(regex.escape(n) for n in sorted(names, key=len, reverse=True))
    first = frozenset(regex.match(r"[\p{L}\p{M}]+", n).group(0) for n in names)
    word = regex.compile(r"(?<![\p{L}\p{M}\d.-])\p{Lu}[\p{L}\p{M}]*")
    return regex.compile(rf"(?<![\p{{L}}\d.-])(?:{body})(?![\p{{L}}\d-])"), first, word


def _country_matches(text: str) -> Iterator[Any]:
    """The country names of ``text``, as ``_countries()``'s pattern finds them, tried only at
    capitalised words that open a country name (a scan of the whole alternation at every
    character was most of the cost)."""
    pattern, first, word = _countries()
    end = 0
    for w in word.finditer(text):
        if w.start() < end or w.group(0) not in first:
            continue
        m = pattern.match(text, w.start())
        if m:
            end = m.end()
            yield m


@functools.lru_cache(maxsize=1)
def _town_before_country() -> Any:
    import regex

    word = r"\p{Lu}[\p{L}\p{M}'’-]*"
    particles = "|".join(regex.escape(w) for w in _TOWN_PARTICLES.split())
    return regex.compile(
        rf"(?:{word}[ \t]+(?:(?:{particles}|of)[ \t]+){{0,2}}){{0,3}}{word},[ \t]*$"
    )


def find_countries(text: str) -> list[Found]:
    """Country names (``LOCATION``), with the town before them ("Everettside, Canada").

    A town (one to three capitalised words) before ", Country" joins the country: the small
    model often finds the country and misses an unknown town. A country that is also a common
    given name ("Jordan", "Chad") counts only with a town before it.
    """
    return _countries_in(normal_case(text, street_types=False) or text)


def _countries_in(text: str) -> list[Found]:
    """:func:`find_countries` on ``text`` already re-cased ("paris, france" as "Paris, France")."""
    from anon_core.pii.names import gazetteer

    town = _town_before_country()
    names = gazetteer()
    found = []
    for m in _country_matches(text):
        before = town.search(text[max(0, m.start() - 60) : m.start()])
        start = m.start() - (len(before.group(0)) if before else 0)
        if before and (
            any(w in STOP_WORDS for w in before.group(0).split() if w.islower())
            or _person(before.group(0).rstrip(", \t").split(), names)
        ):  # "Bruce Stafford, Germany": a person, not a town
            before, start = None, m.start()
        if m.group(0) in _COUNTRY_NAMES_OF_PEOPLE and (
            before is None or names.is_given(before.group(0).rstrip(", \t").split()[0])
        ):
            continue  # "Kristina, Chad and Caleb": people, not a town in a country
        end = m.end()
        qualifier = _qualifier().match(text, end)  # "Cyprus (Greek)"
        found.append(Found(start, qualifier.end() if qualifier else end, COUNTRY_SCORE))
    return found


@functools.lru_cache(maxsize=1)
def _qualifier() -> Any:
    import regex

    word = r"\p{Lu}[\p{L}\p{M}.'’-]*"
    return regex.compile(rf"[ \t]*\({word}(?:[ \t]{word}){{0,3}}\)")


#: Words that open a sentence before a comma ("Thanks, CA team"): no town.
_OPENING_WORDS = frozenset(
    "thanks thank hello hi hey yes yeah no ok okay sorry please dear regards cheers well now "
    "also sure great welcome congratulations sincerely best note update reminder".split()
)


@functools.lru_cache(maxsize=1)
def _town_state() -> Any:
    import regex

    word = r"\p{Lu}[\p{L}\p{M}'’-]*"
    particles = "|".join(regex.escape(w) for w in _TOWN_PARTICLES.split())
    states = "|".join(sorted(STATE_ABBREVIATIONS.split(), key=len, reverse=True))
    return regex.compile(
        rf"(?<![\p{{L}}\p{{M}}\d'’.-])(?P<town>{word}(?:[ \t]+(?:(?:{particles})[ \t]+){{0,2}}{word}){{0,3}}),"
        rf"[ \t]*(?P<state>{states})(?P<code>[ \t]+(?:\d{{5}}(?:-\d{{4}})?|[A-Z]\d[A-Z][ ]?\d[A-Z]\d|\d{{4}}))?"
        r"(?![\p{L}\d-])"
    )


_STATE_AFTER_COMMA = re.compile(r",[ \t]*[A-Z][A-Z]")


def find_town_states(text: str) -> list[Found]:
    """A town with its state or province abbreviation, and the postcode after it ("Beverly
    Hills, CA 90210", "Toronto, ON", "Glenroy, VIC 3046"): the small model finds the town alone,
    which covers too little of the place to count as found.

    Not after a person ("Bruce Stafford, CA", "Ann Lee, MD") or a lone name ("Smith, CA"),
    unless the town is a known place; a first English word is no part of the town ("Call
    Smith, CA") unless it is a town prefix ("East Jessica, KS"). An abbreviation that is also a
    word ("OK", "IN", "OR") needs a known place or a postcode ("Yes, OK" is no place).
    """
    found: list[Found] = []
    if _STATE_AFTER_COMMA.search(text) is None:
        return found  # every match has a comma, then an abbreviation of capitals A to Z
    places, words, names = _town_lists()
    for m in _town_state().finditer(text):
        parts = m.group("town").split()
        code = bool(m.group("code"))
        for k in range(len(parts)):  # "Call Smith, CA": the town may start after a first word
            town = parts[k:]
            key = " ".join(town).lower()
            known = key in places
            lone = len(town) == 1 and not code
            if not known and (
                town[0].lower() in STOP_WORDS
                or any(w in STOP_WORDS for w in town if w.islower())
                or _person(town, names)
                or (lone and (names.is_name(key) or key in _OPENING_WORDS))
                or (
                    len(town) > 1
                    and town[0] not in _TOWN_PREFIXES.split()
                    and _english_word(town[0].lower(), words)
                    and not code
                )  # "Call Smith, CA"; not "East Jessica, KS"
            ):
                continue
            if m.group("state") in STATES_AMBIGUOUS and not (
                known or code or _made_up_town(town) or _cued(text, m.start("town"))
            ):
                break  # "Yes, OK"; not "Andradeton, OK", "in Salem, OR"
            start = m.start("town") + m.group("town").index(town[0])
            found.append(Found(start, m.end(), COUNTRY_SCORE))
            break
    return found


def _person(words: list[str], names: Any) -> bool:
    """Whether ``words`` read as a given name and a surname ("Bruce Stafford")."""
    return len(words) >= 2 and names.is_given(words[0]) and names.is_family(words[-1])


TOWN_CUE_SCORE = 0.92
TOWN_SCORE = 0.87

#: Lower-case words inside a town's name ("Soto del Barco", "Tulln an der Donau", "Stad aan 't
#: Haringvliet", "Newcastle upon Tyne").
_TOWN_PARTICLES = (
    "de del della delle dei di da do dos das du des la le les el l' d' am an der den im bei ob "
    "sur sous lès lez en aan op 't upon on pod nad na y e i"
)
#: Endings of the made-up English towns of address generators ("Vickieborough", "Lewisfort"):
#: a town after a place word; the longer ones alone too, when the word is no English word.
_TOWN_ENDINGS = (
    "ville borough bury burgh chester furt haven mouth shire side view town stad fort port"
)
_TOWN_ENDINGS_ALONE = frozenset("ville borough bury burgh chester furt haven mouth shire".split())
_TOWN_PREFIXES = "North South East West New Lake Port Mount Fort"
_TOWN_PREFIX_SET = frozenset(_TOWN_PREFIXES.split())
_TOWN_ENDING_LIST = tuple(_TOWN_ENDINGS.split())


#: Place words before a town ("in", "from", "town of", ...).
_TOWN_CUES = (
    r"(?:in|from|to|near|outside|around|via|into|towards?|visit(?:s|ed|ing)?|"
    r"(?:city|town|village|suburbs?|outskirts)\s+of)"
)


@functools.lru_cache(maxsize=1)
def _town_patterns() -> dict[str, Any]:
    import regex

    # "Sant'Andrea", "D'Ampezzo": a capital after an apostrophe goes on
    cap = r"\p{Lu}[\p{Ll}\p{M}'’]*(?:(?<=['’])\p{Lu}[\p{Ll}\p{M}]*)?(?:[-/]\p{L}[\p{L}\p{M}'’]*)*"
    particle = "|".join(
        regex.escape(w) for w in sorted(_TOWN_PARTICLES.split(), key=len, reverse=True)
    )
    states = "|".join(regex.escape(w) for w in sorted(STATE_NAMES, key=len, reverse=True))
    return {
        # one to five capitalised words, particles between them
        "run": regex.compile(
            rf"(?<![\p{{L}}\p{{M}}\d'’.-]){cap}(?:[ \t]+(?:(?:{particle})[ \t]*)*{cap}){{0,4}}(?![\p{{L}}\d])"
        ),
        # after a town: a state without its abbreviation ("Lake Ritamouth Idaho"), a postcode
        # ("Tynaarlo 3396 BU", not a year) or a district at the end of a phrase ("Cheb 2")
        "tail": regex.compile(
            rf"(?:,?[ \t]+(?:{states})(?![\p{{L}}\p{{M}}'’-])"
            r"|[ \t]+(?:\d{5}(?:-\d{4})?|(?!19\d\d|20\d\d)\d{4}(?:[ ]?[A-Z]{2})?"
            r"|[A-Z]{1,2}\d[A-Z\d]?[ ]\d[A-Z]{2}|[A-Z]\d[A-Z][ ]?\d[A-Z]\d)(?![\p{L}\d-])"
            r"|[ \t]+(?:\d{1,2}|\p{Lu})(?=[ \t]*(?:[,.;:!?)\n]|$)))"
        ),
        "cue": regex.compile(rf"(?i:\b{_TOWN_CUES}[ \t]+)$"),
        "any_cue": regex.compile(rf"(?i:\b{_TOWN_CUES}[ \t]+\p{{Lu}})"),
    }


def _town_affixes() -> frozenset[str]:
    """Lower-case parts of made-up town names in Faker's lists ("port", "ville", "north")."""
    import importlib
    import pkgutil

    import faker.providers.address as address

    from anon_core.pii.name_lists import provider_items

    out = set(_TOWN_ENDINGS.split())
    for module in pkgutil.iter_modules(address.__path__):
        provider = getattr(
            importlib.import_module(f"{address.__name__}.{module.name}"), "Provider", None
        )
        for item in provider_items(
            provider, lambda a: a.startswith(("city_prefix", "city_suffix"))
        ):
            if isinstance(item, str):
                out.add(item.strip(" -").lower())
    return frozenset(out)


@functools.lru_cache(maxsize=1)
def _town_lists() -> tuple[frozenset[str], frozenset[str], Any]:
    from anon_core.pii.name_lists import english_words
    from anon_core.pii.names import gazetteer

    names = gazetteer()
    return names.places - _town_affixes(), english_words(), names


def find_towns(text: str, *, english: bool = True) -> list[Found]:
    """Towns named in prose that the small model misses ("Roccaforzata is lovely", "in Harlev",
    "from Lake Isaacmouth", "i moved to lippstadt").

    A run of capitalised words (particles between them) is a town when it is a place of
    Faker's city, region and country lists (:func:`~anon_core.pii.name_lists.place_names`).
    After a place word ("in", "from", "to", "near", "town of", ...) it scores 0.92, above a
    name rule's guess: a one-word town there must be no given name and no English word ("to
    Maria", "in Time"). With no place word before it, a one-word town must be no name and no
    English word at all, and English text only (other languages capitalise their nouns).
    A made-up English town ("Port Janetchester", "Lewisfort", "Rebekah Ville") counts after a
    place word; alone too with a longer ending ("-borough", "-haven") or a town prefix before
    no English word ("East Stephanie"). Text in one case is re-cased first and needs the place
    word; so does every town in another language's text (``english=False``).
    """
    return _towns_in(text, normal_case(text, street_types=False), english)


def _towns_in(text: str, recased: str | None, english: bool) -> list[Found]:
    """:func:`find_towns` with ``recased``, ``normal_case(text, street_types=False)``, given."""
    if recased is not None:
        text = recased
    places, words, names = _town_lists()
    pats = _town_patterns()
    alone_ok = english and recased is None
    if not alone_ok and pats["any_cue"].search(text) is None:
        return []  # every town here needs a place word before it
    found: list[Found] = []
    starters = _starters()
    for run in pats["run"].finditer(text):
        if found and run.start() < found[-1].end:
            continue  # a state taken by the town before it ("Port Jennifer, New Hampshire")
        parts = run.group(0).split()
        may = list(map(starters.get, parts))
        if None in may:
            may = [_may_start(part, starters) for part in parts]
        if _YES not in may and "Ville" not in parts:
            continue  # no word of the run starts a town: :func:`_town_at` says None at each
        tokens, at = [], run.start()
        for part in parts:
            at = text.index(part, at)
            tokens.append((at, at + len(part), part))
            at += len(part)
        i = 0
        while i < len(tokens):
            if may[i] == _NO or (
                may[i] == _VILLE and not (i + 1 < len(tokens) and parts[i + 1] == "Ville")
            ):
                i += 1
                continue
            hit = _town_at(text, tokens, i, places, words, names, alone_ok)
            if hit is None:
                i += 1
                continue
            j, score = hit
            tail = pats["tail"].match(text, tokens[j - 1][1])  # "Cheb 2", "Lake Ritamouth Idaho"
            found.append(Found(tokens[i][0], tail.end() if tail else tokens[j - 1][1], score))
            i = j
    return found


#: What :func:`_may_start` says of a word: no town starts with it, one may, one may only with
#: "Ville" after it ("Rebekah Ville").
_NO, _YES, _VILLE = 0, 1, 2
#: Per distinct word, :func:`_may_start`'s answer.
_STARTERS: dict[str, int] = {}
#: Distinct words whose answer is remembered (then the table starts again).
STARTER_TABLE = 50_000


def _starters() -> dict[str, int]:
    if len(_STARTERS) >= STARTER_TABLE:
        _STARTERS.clear()
    return _STARTERS


def _may_start(word: str, starters: dict[str, int]) -> int:
    """Whether :func:`_town_at` can find a town starting with ``word``: the tests it makes of the
    first word alone before any other (:data:`_YES`: it goes on; :data:`_NO`: it says None;
    :data:`_VILLE`: it goes on only when the next word is "Ville"), remembered per word."""
    if word in starters:
        return starters[word]
    low = word.lower()
    if not word[0].isupper() or low in STOP_WORDS:
        answer = _NO
    elif low in _first_place_words() or word in _TOWN_PREFIX_SET or low.endswith(_TOWN_ENDING_LIST):
        answer = _YES
    else:
        answer = _VILLE
    starters[word] = answer
    return answer


def _cued(text: str, start: int) -> bool:
    """Whether a place word ("in", "from", "town of", ...) comes right before ``start``."""
    return _town_patterns()["cue"].search(text, max(0, start - 30), start) is not None


def _capitalised(token: str) -> bool:
    """Whether ``token`` is a capitalised word, after an elided particle too ("d'Aquileia")."""
    return token[0].isupper() or token.replace("’", "'").rpartition("'")[2][:1].isupper()


def _made_up_town(parts: list[str]) -> bool:
    """Whether ``parts`` have the shape of a made-up English town: "Port Janetchester", "East
    Justin", "Rebekah Ville", "Lewisfort"."""
    if len(parts) == 2:
        return parts[0] in _TOWN_PREFIX_SET or parts[1] == "Ville"
    word = parts[0]
    if len(parts) != 1 or not word[1:].isalpha() or not word[1:].islower():
        return False
    low = word.lower()
    if not low.endswith(_TOWN_ENDING_LIST):
        return False
    return any(low.endswith(e) and len(low) > len(e) + 1 for e in _TOWN_ENDING_LIST)


def _town_at(
    text: str,
    tokens: list[tuple[int, int, str]],
    i: int,
    places: frozenset[str],
    words: frozenset[str],
    names: Any,
    alone_ok: bool,
) -> tuple[int, float] | None:
    """(end token, score) of the longest town starting at token ``i``, or None."""
    start, _, first = tokens[i]
    low = first.lower()
    if not first[0].isupper() or low in STOP_WORDS:
        return None  # a particle never starts a town, nor "The" or "I"
    if (
        low not in _first_place_words()
        and first not in _TOWN_PREFIX_SET
        and not low.endswith(_TOWN_ENDING_LIST)
        and not (i + 1 < len(tokens) and tokens[i + 1][2] == "Ville")
    ):
        return None  # no place starts with this word: most runs stop here
    for j in range(len(tokens), i, -1):
        last = tokens[j - 1][2]
        if not last[-1].isalpha() or not _capitalised(last):
            continue  # ends on a capitalised word
        parts = [t[2] for t in tokens[i:j]]
        key = " ".join(parts).lower()
        single = j == i + 1
        if key in places:
            if not single:
                return j, TOWN_CUE_SCORE if _cued(text, start) else TOWN_SCORE
            if len(key) < 3 or key in STREET_WORDS or key in STOP_WORDS:
                continue  # "Via", "Calle": a street word; "And": a word of the sentence
            if names.is_given(key) or _english_word(key, words):
                continue
            if _cued(text, start):
                return j, TOWN_CUE_SCORE
            if alone_ok and len(key) >= 4 and not names.is_family(key):
                return j, TOWN_SCORE  # "Per", "Tel": three letters alone are too little
        if len(parts) <= 2 and _made_up_town(parts) and not (single and _english_word(key, words)):
            if _cued(text, start):
                return j, TOWN_CUE_SCORE
            if alone_ok and any(key.endswith(e) for e in _TOWN_ENDINGS_ALONE):
                return j, TOWN_SCORE
            if (
                alone_ok
                and parts[0] in _TOWN_PREFIX_SET
                and not _english_word(parts[1].lower(), words)
            ):
                return j, TOWN_SCORE  # "East Stephanie", "Port Aimee"; not "New Year", "North Face"
    return None


@functools.lru_cache(maxsize=1)
def _first_place_words() -> frozenset[str]:
    return frozenset(place.split()[0] for place in _town_lists()[0] if place.split())


def _english_word(word: str, words: frozenset[str]) -> bool:
    return word in words or (word.endswith("s") and word[:-1] in words)


def union_of_overlaps(found: list[Found]) -> list[Found]:
    """Overlapping places joined into one ("Port Samantha, Maryland" and "Maryland, Canada":
    "Port Samantha, Maryland, Canada"), with the higher score."""
    out: list[Found] = []
    for f in sorted(found):
        if out and f.start < out[-1].end:
            last = out[-1]
            out[-1] = Found(last.start, max(last.end, f.end), max(last.score, f.score))
        else:
            out.append(f)
    return out


def capitalised_place_recognizer(language: str) -> Any:
    """Presidio recognizer of towns in capitals (``LOCATION``), see :func:`find_capitalised_places`."""
    return shape_recognizer(
        language,
        "LOCATION",
        "Town in capitals after a place word",
        find_capitalised_places,
        [],
    )


def country_recognizer(language: str) -> Any:
    """Presidio recognizer of countries with their town and of towns by name (``LOCATION``),
    see :func:`find_countries` and :func:`find_towns`."""
    english = language == "en"

    def find(text: str) -> list[Found]:
        recased = normal_case(text, street_types=False)  # re-cased once for both finders
        found = _countries_in(recased or text) + find_town_states(text)
        found += _towns_in(text, recased, english)
        found += [Found(a, b, COUNTRY_SCORE) for a, b in states_with_postcode(text)]
        return union_of_overlaps(found)

    return shape_recognizer(language, "LOCATION", "Country or town", find, [])
