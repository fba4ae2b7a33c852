"""Word lists for finding person names: words that are no names, cue words, role words, and the
places and English words that a name found by the gazetteer may collide with.

Places come from Faker's address providers (every locale's cities, regions and countries), the
English words from WordNet's index in the lemmatizer tables of spaCy's English pipeline: both
ship inside installed packages, so nothing is downloaded.
"""

from __future__ import annotations

import functools
import importlib
import logging
import pkgutil
import re
import zoneinfo
from collections.abc import Callable, Iterable, Sequence
from typing import Any

log = logging.getLogger(__name__)
#: Upper-case and lower-case letters of names in Latin script (Latin-1, Latin Extended-A, the
#: Vietnamese "Ơ", "Ư" and Latin Extended Additional: "Phạm", "Thư"); the ranges beyond Latin-1
#: mix both cases.
UPPER = "A-ZÀ-ÖØ-Þ\u0100-\u017f\u01a0-\u01b0\u0218-\u021b\u1e00-\u1eff"
LOWER = "a-zß-öø-ÿ\u0100-\u017f\u01a0-\u01b0\u0218-\u021b\u1e00-\u1eff"
#: Words that make a capitalised run an organization, a place or a document part, not a person.
NOT_NAME_WORDS = frozenset(
    """
    avenue ave street st road rd boulevard blvd lane drive court way place plaza square terrace
    parkway highway bridge park beach bay lake river mount hill hills valley island islands port
    city town county state states republic kingdom united north south east west new saint santa
    san los las university college school institute academy hospital clinic center centre bank
    group inc corp corporation company co ltd llc plc gmbh sa ag foundation association council
    ministry department agency office committee services service solutions systems technologies
    technology software partners holdings insurance capital global international industries
    markets media records music studios entertainment airlines airways motors energy health
    care pharmacy labs network networks communications consulting management trust fund church
    cathedral hotel restaurant cafe club team league museum library station airport road
    monday tuesday wednesday thursday friday saturday sunday january february march april june
    july august september october november december street rue via calle strasse straße
    """.split()
)
#: Words that may precede a name in its run and are stripped from it ("Dear Ines", "Contact Ella").
LEADING_WORDS = frozenset(
    """
    dear patient doctor dr nurse professor prof mister mr mrs ms miss madam sir hello hi thanks
    regards best contact call ask tell meet from to with by for and or but about directed written
    produced starring signed signé signée nom prénom objet adresse tél madame monsieur mme mlle
    docteur maître cher chère bonjour merci cordialement male female man woman boy girl gold silver
    bronze platinum premium basic standard
    """.split()
)
#: Words after which (and a "?", ":", "-" or "is") a person's name follows ("Last name? Boyle").
NAME_CUE_WORDS = frozenset(
    """
    name names surname lastname firstname forename nom prénom nome cognome nombre apellido
    apellidos nachname vorname naam achternaam
    """.split()
)
CUE_GLUE = frozenset({"?", ":", "-", "–", "is", "was", "=", "est", "ist", "es", "è"})
#: First words of "Word X Word" phrases that are no names ("Vitamin D Level", "Type B Form").
INITIAL_STOP_WORDS = frozenset(
    """
    vitamin hepatitis type grade stage class section part appendix phase level schedule form
    article annex chapter figure table plan group block building unit room ward floor category
    option model
    """.split()
)
#: Words that open a line before a colon without being a speaker's name ("Bot:", "Agent:").
ROLE_WORDS = frozenset(
    """
    bot user agent customer client caller assistant system operator admin moderator host guest
    interviewer interviewee speaker reporter narrator question answer note notes re subject
    attn attention cc bcc date time tel fax email sender recipient patient doctor nurse staff
    """.split()
)
#: Words that make a span the model calls a person a place ("Victoria Station") or, for the
#: other words of :data:`NOT_NAME_WORDS` and a few more, an organization ("Van Lines").
PLACE_WORDS = frozenset(
    """
    avenue ave street st road rd boulevard blvd lane drive court way place plaza square terrace
    parkway highway bridge park beach bay lake river mount hill hills valley island islands port
    city town county state station airport harbour harbor rue via calle strasse straße
    """.split()
)
ORG_EXTRA_WORDS = frozenset("incorporated lines farms farm stores supermarket".split())
#: Words of :data:`NOT_NAME_WORDS` that are common surnames too ("Fletcher Hill", "Ava West").
SURNAME_PLACE_WORDS = frozenset("hill park lane west north south east way".split())
#: Words of identifiers and of their cues: never an organization on their own ("IBAN", "Card").
IDENTIFIER_WORDS = frozenset(
    """
    iban bic swift ssn sin nino nhs nir bsn pesel dni nie nif cpr pin cvv cvc vat tin itin ein
    id ids dob mrn card cards visa mastercard amex maestro email e-mail mail phone tel fax mobile
    passport licence license account acct no number routing sort code ip mac url numéro carte
    compte sécurité sociale courriel téléphone portable ref réf n°
    """.split()
)
_LATIN_PLACE = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ\u0100-\u017f'’. -]{2,}")


#: Attributes of Faker's address providers that list places (cities, regions, countries).
_PLACE_ATTRS = ("cit", "countr", "state", "province", "region", "department", "municipal", "town")


def provider_items(provider: Any, keep: Callable[[str], bool]) -> Iterable[Any]:
    """The items of a Faker provider's list or dict attributes whose names ``keep`` accepts
    (dict keys; methods and plain strings skipped)."""
    for attr in dir(provider) if provider is not None else ():
        if not keep(attr):
            continue
        value = getattr(provider, attr)
        if callable(value) or isinstance(value, str):
            continue
        try:
            yield from list(value.keys()) if hasattr(value, "keys") else list(value)
        except TypeError:
            continue


@functools.lru_cache(maxsize=1)
def place_names() -> frozenset[str]:
    """Every Latin-script city, region and country name of Faker's address providers, and the
    cities of the time zone database."""
    import faker.providers.address as address

    out: set[str] = set()
    for module in pkgutil.iter_modules(address.__path__):
        provider = getattr(
            importlib.import_module(f"{address.__name__}.{module.name}"), "Provider", None
        )
        places = provider_items(
            provider, lambda a: not a.startswith("_") and any(k in a for k in _PLACE_ATTRS)
        )
        for item in places:
            if isinstance(item, tuple):
                item = next((x for x in item if isinstance(x, str)), "")
            if isinstance(item, str) and _LATIN_PLACE.fullmatch(item):
                out.add(item.lower())
    # the cities of the time zone database ("Europe/Paris", "America/Denver"): real big cities,
    # where Faker's English cities are made up
    for zone in zoneinfo.available_timezones():
        out.add(zone.rsplit("/", 1)[-1].replace("_", " ").lower())
    return frozenset(out)


#: WordNet's parts of speech in the English pipeline's lemmatizer index.
WORDNET_PARTS = ("noun", "verb", "adj", "adv")


def _english_lemma_table(table_name: str) -> Any:
    """The lemmatizer table ``table_name`` of the first installed spaCy English pipeline that
    has one, or None (no spaCy, no English pipeline, or an unreadable table)."""
    try:
        import spacy.util
        from spacy.lookups import Lookups
    except ImportError:
        return None
    for name in sorted(spacy.util.get_installed_models()):
        if not name.startswith("en_core_web"):
            continue
        for folder in spacy.util.get_package_path(name).glob("*/lemmatizer/lookups"):
            try:
                return Lookups().from_disk(folder).get_table(table_name)
            except (OSError, KeyError, ValueError) as exc:
                log.warning("no English %s from %s: %s", table_name, name, exc)
    return None


@functools.lru_cache(maxsize=1)
def wordnet_index() -> dict[str, frozenset[str]]:
    """WordNet's index words by part of speech (:data:`WORDNET_PARTS`), from the lemmatizer
    tables shipped in an installed spaCy English pipeline, or an empty dict without one."""
    index = _english_lemma_table("lemma_index")
    if index is None:
        return {}
    from spacy.strings import get_string_id

    return {pos: frozenset(index.get(get_string_id(pos), ())) for pos in WORDNET_PARTS}


@functools.lru_cache(maxsize=1)
def irregular_forms() -> frozenset[str]:
    """Irregular inflected forms of English words ("went", "children", "better"): the keys of the
    lemmatizer's exception table in an installed spaCy English pipeline, or an empty set."""
    table = _english_lemma_table("lemma_exc")
    if table is None:
        return frozenset()
    from spacy.strings import get_string_id

    return frozenset().union(*(table.get(get_string_id(p), {}) for p in WORDNET_PARTS))


@functools.lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The English words of WordNet's index shipped in an installed spaCy English pipeline's
    lemmatizer tables (about 83,000, proper names among them), or an empty set without one."""
    return frozenset().union(*wordnet_index().values())


def unknown_name_run(
    words: Sequence[str], is_name: Callable[[str], bool], common: frozenset[str]
) -> bool:
    """Whether a run of one to three capitalised words is a name no list knows ("Shovda is very
    reliable", "Püvi, Kalamees and Randoja"): every word is a name of the gazetteer (``is_name``)
    or in no word list (no English word of :func:`english_words`, inflected or not, no common
    word, no word of a place, organization or identifier), and one at least is in none; the run
    is no place of :func:`place_names` (one of its words may be: "Reet" is a Belgian town).
    For English text only: other languages capitalise their nouns."""
    english, places = english_words(), place_names()
    if not english or not 1 <= len(words) <= 3:
        return False
    lowered = [w.lower() for w in words]
    if any(
        w in common or w in NOT_NAME_WORDS or w in ORG_EXTRA_WORDS or w in IDENTIFIER_WORDS
        for w in lowered
    ):
        return False
    if all(w in places for w in lowered) or " ".join(lowered) in places:  # "Reet Kasemets": a name
        return False
    unknown = [not _english(w, english) and not is_name(w) for w in lowered]
    return any(unknown) and all(u or is_name(w) for u, w in zip(unknown, lowered, strict=True))


def is_english(word: str) -> bool:
    """Whether ``word`` (any case) is an English word of :func:`english_words`, as listed or
    inflected ("tales", "moved"); False without an English pipeline installed."""
    english = english_words()
    return bool(english) and _english(word.lower(), english)


#: Endings that inflect an English word listed in its base form ("Greetings", "Moved").
_INFLECTION = re.compile(r"(?:'s|s|es|ed|d|ing|ly|er|ers)$")


def _english(word: str, english: frozenset[str]) -> bool:
    """Whether ``word`` (lower case) is an English word, in its listed form or inflected."""
    if word in english:
        return True
    m = _INFLECTION.search(word)
    stem = word[: m.start()] if m else word
    return bool(m) and (stem in english or stem + "e" in english or stem[:-1] + "y" in english)
