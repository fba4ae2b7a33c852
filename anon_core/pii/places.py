"""Places named in free text that the small NER model misses: towns written in capitals after a
place word ("in ÅLESUND"), and countries with the town before them ("Everettside, Canada").

Both report ``LOCATION``. Street addresses and postcodes are :mod:`anon_core.pii.addresses`'.
"""

from __future__ import annotations

import functools
from typing import Any

from anon_core.pii.addresses import STOP_WORDS, Found, normal_case, shape_recognizer

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
    for name in Provider.countries:
        names.add(name.split(" (")[0])
    body = "|".join(regex.escape(n) for n in sorted(names, key=len, reverse=True))
    return regex.compile(rf"(?<![\p{{L}}\d.-])(?:{body})(?![\p{{L}}\d-])")


def find_countries(text: str) -> list[Found]:
    """Country names (``LOCATION``), with the town before them ("Everettside, Canada").

    A town (one to three capitalised words) before ", Country" joins the country: the small
    model often finds the country and misses an unknown town. A country that is also a common
    given name ("Jordan", "Chad") counts only with a town before it.
    """
    import regex

    from anon_core.pii.names import gazetteer

    word = r"\p{Lu}[\p{L}\p{M}'’-]*"
    town = regex.compile(
        rf"(?:{word}[ \t]+(?:(?:de|da|do|del|la|le|sur|am|an|upon|on|of)[ \t]+)?){{0,3}}{word},[ \t]*$"
    )
    names = gazetteer()
    text = normal_case(text) or text  # "paris, france" as "Paris, France"
    found = []
    for m in _countries().finditer(text):
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
        found.append(Found(start, m.end(), COUNTRY_SCORE))
    return found


def _person(words: list[str], names: Any) -> bool:
    """Whether ``words`` read as a given name and a surname ("Bruce Stafford")."""
    return len(words) >= 2 and names.is_given(words[0]) and names.is_family(words[-1])


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
    """Presidio recognizer of countries with their town (``LOCATION``), see :func:`find_countries`."""
    return shape_recognizer(language, "LOCATION", "Country, with its town", find_countries, [])
