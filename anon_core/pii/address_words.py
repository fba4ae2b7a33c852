"""Words of street addresses: street words before and after the name in many languages,
particles of street and town names, the sentence words that end an address, and the cues
before one ("lives at", "address:"). Read by :mod:`anon_core.pii.addresses`."""

from __future__ import annotations

import functools

from anon_core.pii.address_parts import ENGLISH_STREET_TYPES

#: Street words written before the name: Romance, Slavic, Dutch, German and others ("Via Tasso",
#: "Avenida de Mota", "ul. Północna", "Rue de Tanger", "Calle Mayor"). Matched as written.
OPENERS_CAPITALISED = """
Rue Route Chemin Allée Impasse Quai Cours Boulevard Avenue Place Passage Square Voie Sentier Faubourg
Via Viale Vicolo Piazza Piazzale Piazzetta Corso Largo Strada Contrada Borgo Rotonda Incrocio Stretto
Canale Lungomare Calle Carrer Camino Avenida Avda. Avda Av. Paseo Plaza Ronda Rambla Glorieta
Urbanización Callejón Cañada Alameda Acceso Cuesta Pasaje Pasadizo Vial Travesía Carretera Rua R.
Travessa Praça Estrada Rodovia Jardim Ladeira Alameda Beco Ulica Ul. Aleja Al. Plac Osiedle Os.
Strada Bulevardul Calea Piața Aleea Ulice Náměstí Utca Út Tér Odos Leoforos Plateia Straße Strasse
"""
#: French street words, which French writes in lower case ("11, rue de Boucher", "avenue Samson").
OPENERS_FRENCH_LOWER = (
    "rue route chemin allée impasse quai cours boulevard avenue place passage square voie sentier "
    "faubourg résidence lotissement hameau"
)
#: Polish, Czech and Slovak lower-case street words ("ul. Paderewskiego 77", "aleja Zielona 690").
OPENERS_OTHER_LOWER = "ul. ulica aleja al. plac pl. os. osiedle"
#: Endings of one-word streets in Germanic, Nordic, Baltic, Finnish and Hungarian ("Pohlstrasse",
#: "Wingertweg", "Søndergade", "Hansinegata", "Kiannonkatu", "Brixtonlaan", "Parkgatan").
ENDINGS = """
straße strasse str. weg gasse platz allee ring damm ufer steig pfad chaussee markt graben zeile
gade vej stræde allé gata gatan vägen väg stigen gränd torget veien vegen gaten bakken haugen stien
svingen katu tie kuja polku bulevardi raitti laan straat gracht plein kade dreef singel steeg baan
hof lei utca tér út körút köz iela gatvė tänav põik ulica
"""
#: Particles inside street and city names.
PARTICLES = (
    "de do da dos das del della dei degli delle di du des la le les el al van von der den am im an "
    "aan vorm bei ob "
    "auf zum zur sur sous en y e i och og und et 's nad pod na u"
)
PARTICLE_SET = frozenset(PARTICLES.split())
#: Lower-case words a capitalised street may hold: particles and lower-case street words.
LOWER_OK = (
    frozenset(
        (PARTICLES + " " + OPENERS_FRENCH_LOWER + " " + OPENERS_OTHER_LOWER + " " + ENDINGS)
        .replace(".", "")
        .split()
    )
    | {w.lower() for w in ENGLISH_STREET_TYPES.split()}
    | {"d", "l", "bis", "ter", "s"}
)
#: Street words of every list above, lower case ("via", "calle", "strasse", "avenue"): no town.
STREET_WORDS = frozenset(
    w.lower().rstrip(".")
    for w in (
        ENGLISH_STREET_TYPES
        + OPENERS_CAPITALISED
        + OPENERS_FRENCH_LOWER
        + OPENERS_OTHER_LOWER
        + ENDINGS
    ).split()
)
#: Lower-case words that never belong to a street or city name (they start a sentence's rest).
STOP_WORDS = frozenset(
    """
    a an the and or but if of to in on at by for from with as is are was were be been am i you he she
    it we they me him her us them my your his its our their this that these those here there when then
    than so not no do does did have has had will would can could should may might must about after
    before over under into onto out up down off near next last first every each all some any please
    call phone email tel send sent ship shipped deliver delivered live lives lived living moved move
    which who whom whose where while yesterday today tomorrow tonight one
    """.split()
)
#: Words whose presence before an address makes "Name 12" a street ("lives at Jahu 80").
CUES = (
    r"(?i:(?:\b(?:lives?|living|lived|resides?|residing|located|situated|moved|moving|stay(?:s|ing)?)"
    r"\s+(?:at|on|in|to)|\baddress(?:\s*:|\s+(?:is|was|at|to|now)\b)|\b(?:ship|send|deliver|mail|post|"
    r"forward|return)(?:ed|ing)?\s+(?:it\s+|them\s+|the\s+\w+\s+)?to|\bvisit\s+us\s+at|\bat\s+home\s+at|"
    r"\bwohnt?\s+(?:in|an|am|auf)|\banschrift|\badresse|\bdomicil|\bhabite\s+(?:au|à|le|la)|\bdirecci[oó]n|"
    r"\bindirizzo|\bmorada|\bendereço|\badres\b)\s*:?\s*$)"
)

#: Short names of countries written in addresses beside Faker's lists.
COUNTRY_EXTRAS = (
    "USA", "U.S.A.", "UK", "U.K.", "Great Britain", "England", "Scotland", "Wales",
    "Northern Ireland", "Czechia", "Russia", "Vietnam", "The Netherlands", "Holland",
)  # fmt: skip


@functools.lru_cache(maxsize=1)
def country_names() -> tuple[str, ...]:
    """Country names, longest first: Faker's English list and its list of countries by code
    (the names its ``current_country()`` writes after an address: "Kingdom of the Netherlands",
    "Republic of Ireland"; MIT, offline), and :data:`COUNTRY_EXTRAS`."""
    from faker.providers.address.en import Provider
    from faker.providers.date_time import Provider as Dates

    names = set(COUNTRY_EXTRAS)
    for name in list(Provider.countries) + [c.name for c in Dates.countries]:
        names.update((name, name.split(" (")[0]))
    # a few of Faker's names are mis-encoded ("CÃ´te d'Ivoire"): left out
    return tuple(sorted((n for n in names if "Ã" not in n), key=lambda n: (-len(n), n)))


#: Locales whose Faker street prefixes (MIT, offline) are street words written before the name,
#: in the Latin script and capitalised ("Calzada", "Carrera", "Soseaua", "Jalan"), and those
#: whose street suffixes are a word after it ("Umgwaqo", "Indlela").
_PREFIX_LOCALES = (
    "es_AR", "es_CL", "es_CO", "es_ES", "es_MX", "fr_CA", "pt_BR", "pt_PT", "ro_RO", "en_MS",
)  # fmt: skip
_SUFFIX_LOCALES = ("zu_ZA",)
#: Faker's Brazilian prefixes that name a place, not a street ("Parque Central 5 tour").
_PLACE_PREFIXES = frozenset(
    "Aeroporto Área Campo Distrito Favela Feira Lago Lagoa Morro Parque Praia Residencial Setor "
    "Sítio Vale".split()
)


@functools.lru_cache(maxsize=1)
def faker_street_words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(street words before the name, street words after it) of Faker's address providers of
    :data:`_PREFIX_LOCALES` and :data:`_SUFFIX_LOCALES`: capitalised words of four letters or
    more only (a lower-case one may be an English word: "he rang Martin 3 times"; "C." an
    initial), and no word naming a place (:data:`_PLACE_PREFIXES`), longest first."""
    import importlib

    def words(locales: tuple[str, ...], attr: str) -> tuple[str, ...]:
        out: set[str] = set()
        for locale in locales:
            module = importlib.import_module(f"faker.providers.address.{locale}")
            out.update(
                w.strip() for w in getattr(module.Provider, attr, ()) if w.strip()[:1].isupper()
            )
        # abbreviations of one to three letters ("C.", "Cr.") read as initials: left out
        kept = {w for w in out if len(w.rstrip(".")) > 3 and w not in _PLACE_PREFIXES}
        return tuple(sorted(kept, key=lambda w: (-len(w), w)))

    return words(_PREFIX_LOCALES, "street_prefixes"), words(_SUFFIX_LOCALES, "street_suffixes")
