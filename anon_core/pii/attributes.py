"""Ages, job titles and nationalities, religions or political groups (NRP) in free text.

Quasi-identifiers that the small NER model misses or mislabels, found by patterns and offline
lists, in English, French, German, Spanish and Italian:

* **AGE**: a number from 0 to 120 with an age phrase around it ("34 years old", "a 34-year-old",
  "aged 34", "Age: 34", "I am 34.", "34 ans", "34 Jahre alt", "tiene 34 años", "ha 34 anni").
  A bare number of years is a duration ("for 34 years", "depuis 3 ans") and is left alone. The
  span is the number, with the English unit words that follow it ("34 years old").
* **TITLE**: job titles of Faker's job lists (English, French, German, Spanish; Faker ships them
  in the package, nothing is downloaded): a title of two words or more anywhere, a one-word title
  alone on its line (a signature block) or after a cue ("works as a", "job title:", "Beruf:",
  "travaille comme"), and English phrases ending in a job word of those lists ("sewer pipe
  cleaner") on their own line or after a cue.
* **NRP**: nationalities, religions and political groups from the lists below, written with a
  capital in English and German, in lower case in French, Spanish and Italian. A language name
  after "speaks", "in" or "into" ("in French") is a language, not a nationality.

Each finder is a pure function of the text (:func:`find_ages`, :func:`find_titles`,
:func:`find_nrp`); :func:`attribute_recognizers` wraps them as Presidio recognizers.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Found:
    """One span found in a text, with its entity type and score."""

    start: int
    end: int
    entity: str
    score: float


# =============================================================================== ages
_N = r"(?<![\d.,/:-])(?P<n>1[01]\d|120|[1-9]?\d)(?![\d.,:/%]\d|\d|[%°])"
_SPELLED = (
    r"(?P<n>(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|"
    r"four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
)
#: English unit words that follow the number and belong to the span ("34 years old").
_EN_UNIT = r"(?P<unit>[- ](?:years?|yrs?)[- ]old\b|[- ]year[- ]old\b|\s+years\s+of\s+age\b)"
#: Words after "I am 34" that make the number something else than an age.
_NOT_AFTER = (
    r"(?!\s*(?:%|percent|per|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|seconds?|kg|kilos?|"
    r"lbs?|pounds?|cm|ft|feet|inch(?:es)?|km|miles?|meters?|metres?|euros?|dollars?|times|"
    r"points?|items?|pages?|steps?|of|out)\b)"
    # any other word after the number makes it something else, except a few connectives
    r"(?!\s+(?!(?:and|but|now|today|this|next|last|when|so|yet|with)\b)[a-z])"
)
_FR_CUE = r"(?i:\b(?:âgée?s?|agée?s?) de|j'ai|j’ai|il a|elle a|qui a|avait|aura|(?:homme|femme|enfant|fille|garçon|patiente?|monsieur|madame) de)"
_ES_CUE = r"(?i:\b(?:tengo|tiene|tenía|tenia|cumplió|cumplio|cumple|(?:hombre|mujer|niñ[oa]|paciente|señora?|chic[oa]) de))"
_IT_CUE = r"(?i:\b(?:ho|ha|aveva|compie|compiuto|(?:uomo|donna|bambin[oa]|paziente|ragazz[oa]|signora?) di))"
_AGE_PATTERNS: tuple[tuple[str, float], ...] = (
    # English
    (_N + _EN_UNIT, 0.9),
    (r"(?i:\b" + _SPELLED + r")" + _EN_UNIT, 0.85),
    (_N + r"(?=\s*(?:yo|y/o|y\.o\.|yrs? old)\b)", 0.85),
    (r"(?i:\b(?:aged|ages?|at the age of|age of|turned|turning|turns)\s*[:=]?\s*)" + _N, 0.85),
    (r"(?i:\b(?:I am|I'm|I’m|he is|she is|he's|she's|he’s|she’s)\s+)" + _N + _NOT_AFTER, 0.6),
    (
        r"(?i:\b(?:I am|I'm|I’m|he is|she is|he's|she's|he’s|she’s)\s+)"
        + _N
        + r"(?P<unit>\s+years)\b(?!\s+(?:ago|later|before|after|since|in|of|old|older|younger|more|less)\b)",
        0.8,
    ),
    (
        r"(?i:\b(?:my|his|her|their|your|the patient's|patient's)?\s*age\s+(?:is|was|of)\s+)" + _N,
        0.85,
    ),
    (_N + r"(?=(?:st|nd|rd|th)\s+birthday\b)", 0.85),
    # a person's name, then the age between commas or in brackets ("Ella Snider, 34, of Leeds")
    (r"(?<=[a-z], )" + _N + r"(?=, )", 0.4),
    (r"(?<=[a-z] \()" + _N + r"(?=\))", 0.4),
    # French
    (_FR_CUE + r"\s+" + _N + r"(?=\s*ans\b)", 0.85),
    (r"(?i:\bâge\s*:\s*)" + _N, 0.85),
    # "Hélène Lévêque a 90 ans" (a name, then "a"; "il y a 3 ans" is a time ago)
    (r"\b[A-ZÀ-Þ][\w'’-]* a " + _N + r"(?=\s*ans\b)", 0.7),
    # German
    (_N + r"(?P<unit>\s*Jahre\s+alt)\b", 0.9),
    (_N + r"(?=[- ]?jährige?[nmrs]?\b)", 0.9),
    (r"(?i:\b(?:im alter von|alter\s*:)\s*)" + _N, 0.85),
    (r"(?i:\b(?:ich bin|er ist|sie ist)\s+)" + _N + r"(?=\s*(?:Jahre\b|[.,;!]|$))", 0.7),
    # Spanish
    (_ES_CUE + r"\s+" + _N + r"(?=\s*años\b)", 0.85),
    (_N + r"(?=\s*años de edad\b)", 0.9),
    (r"(?i:\b(?:edad\s*:|a la edad de)\s*)" + _N, 0.85),
    # Italian
    (_IT_CUE + r"\s+" + _N + r"(?=\s*anni\b)", 0.85),
    (_N + r"(?=\s*anni di età\b)", 0.9),
    (r"(?i:\b(?:età\s*:|all'età di|all’età di)\s*)" + _N, 0.85),
)


@functools.lru_cache(maxsize=1)
def _age_regexes() -> tuple[tuple[re.Pattern[str], float], ...]:
    return tuple((re.compile(p), s) for p, s in _AGE_PATTERNS)


#: Where an age can be: a number of at most three digits, or a number word.
_AGE_ANCHOR = re.compile(r"(?<!\d)\d{1,3}(?!\d)|(?i:" + _SPELLED.replace("?P<n>", "") + r")")


def find_ages(text: str) -> list[Found]:
    """Ages in ``text``: the number, with the English unit words after it when present.

    The patterns run only on windows around numbers (60 characters before, 30 after), so that
    text without numbers costs one scan.
    """
    out: dict[int, Found] = {}
    windows: list[list[int]] = []
    for m in _AGE_ANCHOR.finditer(text):
        a, b = max(0, m.start() - 60), min(len(text), m.end() + 30)
        if windows and a <= windows[-1][1]:
            windows[-1][1] = b
        else:
            windows.append([a, b])
    for a, b in windows:
        for regex, score in _age_regexes():
            for m in regex.finditer(text, a, b):
                start = m.start("n")
                has_unit = "unit" in regex.groupindex and m.group("unit")
                end = m.end("unit") if has_unit else m.end("n")
                best = out.get(start)
                if best is None or (end - start, score) > (best.end - best.start, best.score):
                    out[start] = Found(start, end, "AGE", score)  # the longest span per number
    return sorted(out.values(), key=lambda f: f.start)


# =============================================================================== job titles
#: Faker locales whose job lists make the title gazetteer (Faker has no Italian list).
JOB_LOCALES = ("en_US", "fr_FR", "fr_CH", "de_DE", "de_AT", "es")
#: Cue phrases after which a job title follows, per language.
TITLE_CUES = (
    r"works? as(?: an?| the)?", r"worked as(?: an?| the)?", r"working as(?: an?| the)?",
    r"employed as(?: an?| the)?", r"job title\s*:?", r"job\s*:", r"title\s*:", r"position\s*:?",
    r"occupation\s*:?", r"profession\s*:?", r"role\s*:", r"career as(?: an?)?",
    r"travaille comme", r"travaille en tant que", r"profession\s*:", r"métier\s*:", r"poste\s*:",
    r"fonction\s*:", r"arbeitet als", r"tätig als", r"Beruf\s*:", r"Position\s*:",
    r"trabaja como", r"trabaja de", r"profesión\s*:", r"puesto\s*:", r"ocupación\s*:",
    r"lavora come", r"professione\s*:", r"mestiere\s*:", r"impiegato come", r"impiegata come",
)  # fmt: skip
#: Weaker cues: "is a" may introduce a job ("She is a nurse") or anything else ("a good man"),
#: so only a known title or a phrase ending in a job word counts after them.
TITLE_WEAK_CUES = (
    r"(?:is|was|am|are|were|became|become|I'm|I’m|he's|she's|as) an?", r"as (?:the|our|their|his|her)",
    r"(?:est|était|devenu|devenue)(?: un| une)?", r"(?:ist|war|wurde)(?: ein| eine)?",
    r"(?:es|era)(?: un| una)?", r"(?:è|era)(?: un| una| uno)?",
)  # fmt: skip
_TITLE_WEAK_CUE = re.compile(r"(?i:\b(?:" + "|".join(TITLE_WEAK_CUES) + r"))\s+$")
_TITLE_CUE = re.compile(r"(?i:\b(?:" + "|".join(TITLE_CUES) + r"))\s*$")
_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’&/-])*")
#: Words that never end an English title phrase taken by its head word ("the", "a").
_TITLE_STOP = frozenset(
    "a an the my your his her our their this that these those and or of for to in at on with "
    "by from as is was be been are were new old".split()
)
#: Job words missing from Faker's English list, and words of it that end no job on their own.
EXTRA_HEADS = frozenset(
    "cleaner driver mechanic electrician plumber carpenter cashier waiter waitress receptionist "
    "salesman saleswoman guard attendant cook chef baker butcher farmer labourer laborer "
    "collector installer repairer supervisor foreman forewoman caretaker janitor courier "
    "dispatcher machinist welder fitter painter decorator bricklayer roofer gardener landscaper "
    "housekeeper nanny stylist hairdresser barber tailor jeweller jeweler auditor bookkeeper "
    "clerk teller investigator detective sergeant lieutenant captain ceo cfo cto coo".split()
)
_NOT_HEADS = frozenset("boy copy crew emeritus land make person staff sub visitor".split())
#: Endings of one-word job titles that are in no list ("Echocardiographer", "Phlebotomist").
_JOB_ENDINGS = ("ologist", "ographer", "ician", "apist", "iatrist", "ist", "eer")


@dataclass(frozen=True)
class TitleLists:
    """Lower-case job titles (phrases) and the English head words ending them."""

    phrases: frozenset[str]
    heads: frozenset[str]
    longest: int
    #: Every phrase's first words ("chartered", "chartered legal"), to stop a run early.
    prefixes: frozenset[str]


def _job_forms(job: str) -> Iterable[str]:
    if "*" not in job:
        yield job  # as Faker writes it: "Therapist, sports", "Research scientist (medical)"
    job = re.sub(r"\s*\([^)]*\)", "", job).strip()
    if "*" in job:  # "Abfallberater*in" -> "Abfallberater", "Abfallberaterin"
        base, _, suffix = job.partition("*")
        yield base
        yield base + suffix.lstrip("r")
        return
    if ", " in job:  # "Accountant, chartered" -> "Accountant", "chartered Accountant"
        head, _, qualifier = job.partition(", ")
        yield head
        yield f"{qualifier} {head}"
        return
    yield job


@functools.lru_cache(maxsize=1)
def title_lists() -> TitleLists:
    """Faker's job titles of :data:`JOB_LOCALES`, lower case, and the English heads."""
    phrases: set[str] = set()
    heads: set[str] = set()
    for locale in JOB_LOCALES:
        try:
            jobs = importlib.import_module(f"faker.providers.job.{locale}").Provider.jobs
        except (
            ImportError,
            AttributeError,
        ):  # Faker is a core dependency; an old one may lack a list
            continue
        for job in jobs:
            for form in _job_forms(str(job)):
                words = _WORD.findall(form.lower())
                if words:
                    phrases.add(" ".join(words))
                    if locale == "en_US" and "," not in job:
                        heads.update(words[-1].split("/"))
    longest = max((p.count(" ") + 1 for p in phrases), default=1)
    heads = (heads | EXTRA_HEADS) - _TITLE_STOP - _NOT_HEADS
    prefixes = {" ".join(p.split()[:k]) for p in phrases for k in range(1, p.count(" ") + 2)}
    return TitleLists(frozenset(phrases), frozenset(heads), min(longest, 16), frozenset(prefixes))


def _line_of(text: str, start: int, end: int) -> str:
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    return text[a : len(text) if b < 0 else b]


def _own_line(text: str, start: int, end: int) -> bool:
    """Whether the span is all of its line, besides quote marks, bullets and spaces."""
    return re.sub(r"[\s>*•\-–—|]+", "", _line_of(text, start, end)) == re.sub(
        r"\s+", "", text[start:end]
    )


def _title_score(text: str, chunk: list[tuple[int, int, str]], lists: TitleLists) -> float:
    """How sure a run of words is a job title (0: not one). See :func:`find_titles`."""
    start, end, n = chunk[0][0], chunk[-1][1], len(chunk)
    phrase = " ".join(w for _, _, w in chunk)
    known = phrase in lists.phrases
    headed = (
        2 <= n <= 3
        and chunk[-1][2] in lists.heads
        and not any(w in _TITLE_STOP for _, _, w in chunk)
    )
    ending = n == 1 and len(phrase) > 6 and phrase.endswith(_JOB_ENDINGS)
    if not (known or headed or ending):
        return 0.0
    cue = bool(_TITLE_CUE.search(text[max(0, start - 40) : start]))
    own_line = _own_line(text, start, end)
    weak_cue = not cue and bool(_TITLE_WEAK_CUE.search(text[max(0, start - 20) : start]))
    if known:
        if cue or own_line:
            return 0.85
        return 0.6 if n >= 2 or weak_cue else 0.0
    if headed:
        return 0.7 if cue or own_line else 0.5 if weak_cue else 0.0
    return 0.5 if own_line else 0.0


def find_titles(text: str) -> list[Found]:
    """Job titles in ``text`` (Faker's job lists, cue phrases, English job head words).

    From each word the longest run of words that is a known title (or ends in a job word) on
    one line is tried first; commas, slashes and brackets may sit inside a title only where
    Faker's list writes them ("Therapist, sports").
    """
    lists = title_lists()
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(text)]
    out: list[Found] = []
    i = 0
    heads = lists.heads
    while i < len(words):
        if (
            words[i][2] not in lists.prefixes
            and not words[i][2].endswith(_JOB_ENDINGS)
            and not any(w[2] in heads for w in words[i + 1 : i + 3])
        ):
            i += 1  # most words start no title: one set look-up each
            continue
        # the longest run from word i that is still the start of a known title, on one line
        runs = [1]
        prefix = words[i][2]
        for n in range(2, min(lists.longest, len(words) - i) + 1):
            gap = text[words[i + n - 2][1] : words[i + n - 1][0]]
            prefix = f"{prefix} {words[i + n - 1][2]}"
            if "\n" in gap or gap.strip() not in ("", "-", ",", "/", "(", ")"):
                break
            if prefix not in lists.prefixes:
                if n <= 3 and gap.strip() in ("", "-"):
                    runs.append(n)  # a phrase ending in a job word ("sewer pipe cleaner")
                    continue
                break
            runs.append(n)
        best: Found | None = None
        for n in sorted(runs, reverse=True):
            chunk = words[i : i + n]
            gaps = {text[a[1] : b[0]].strip() for a, b in zip(chunk, chunk[1:], strict=False)} - {
                "",
                "-",
            }
            if gaps and " ".join(w for _, _, w in chunk) not in lists.phrases:
                continue
            score = _title_score(text, chunk, lists)
            if score:
                start, end = chunk[0][0], chunk[-1][1]
                if (
                    text[start:end].count("(") > text[start:end].count(")")
                    and text[end : end + 1] == ")"
                ):
                    end += 1
                best = Found(start, end, "TITLE", score)
                break
        if best is not None:
            out.append(best)
            while i < len(words) and words[i][0] < best.end:
                i += 1
        else:
            i += 1
    return out


# =============================================================================== NRP
_NATIONALITIES_EN = """
Afghan Albanian Algerian American Andorran Angolan Argentine Argentinian Armenian Australian
Austrian Azerbaijani Bahamian Bahraini Bangladeshi Barbadian Belarusian Belgian Belizean Beninese
Bhutanese Bolivian Bosnian Botswanan Brazilian British Bruneian Bulgarian Burkinabe Burmese
Burundian Cambodian Cameroonian Canadian Chadian Chilean Chinese Colombian Congolese Costa Rican
Croatian Cuban Cypriot Czech Danish Djiboutian Dominican Dutch Ecuadorian Egyptian Emirati
English Eritrean Estonian Ethiopian Fijian Filipino Finnish French Gabonese Gambian Georgian
German Ghanaian Greek Grenadian Guatemalan Guinean Guyanese Haitian Honduran Hungarian Icelandic
Indian Indonesian Iranian Iraqi Irish Israeli Italian Ivorian Jamaican Japanese Jordanian Kazakh
Kenyan Korean Kosovar Kuwaiti Kyrgyz Laotian Latvian Lebanese Liberian Libyan Lithuanian
Luxembourgish Macedonian Malagasy Malawian Malaysian Maldivian Malian Maltese Mauritanian
Mauritian Mexican Moldovan Monegasque Mongolian Montenegrin Moroccan Mozambican Namibian Nepalese
Nepali Nicaraguan Nigerian Nigerien Norwegian Omani Pakistani Palestinian Panamanian Paraguayan
Persian Peruvian Polish Portuguese Qatari Romanian Russian Rwandan Salvadoran Samoan Saudi Scottish
Senegalese Serbian Sierra Leonean Singaporean Slovak Slovakian Slovenian Somali Somalian
South African Spanish Sri Lankan Sudanese Surinamese Swazi Swedish Swiss Syrian Taiwanese Tajik
Tanzanian Thai Togolese Tongan Tunisian Turkish Turkmen Ugandan Ukrainian Uruguayan Uzbek
Venezuelan Vietnamese Welsh Yemeni Zambian Zimbabwean Arab Arabian Kurdish Basque Catalan
Flemish Walloon Breton Corsican Sicilian Bavarian Cornish Greenlandic Faroese Roma Romani
Hispanic Latino Latina African Asian European Caucasian Scandinavian Balkan Slavic Nordic
Greenlander Icelander New Zealander Swede Dane Finn Pole Scot Scots Briton Brit Turk Spaniard
Frenchman Frenchwoman Englishman Englishwoman Dutchman Dutchwoman Irishman Irishwoman Welshman
Welshwoman Scotsman Scotswoman Kiwi Aussie Yankee Inuit Sami Maori Aboriginal
"""
_RELIGIONS_EN = """
Christian Catholic Roman Catholic Protestant Orthodox Anglican Methodist Baptist Lutheran
Presbyterian Evangelical Pentecostal Mormon Quaker Adventist Calvinist Episcopalian Muslim Moslem
Islamic Sunni Shia Shiite Shi'ite Jewish Jew Hindu Buddhist Sikh Jain Baha'i Bahá'í Taoist
Shinto Zoroastrian Amish Mennonite Rastafarian Wiccan Pagan Druze Alawite Coptic Hasidic
Orthodox Jew Jehovah's Witness Jehovah's Witnesses Atheist Agnostic
"""
_POLITICAL_EN = """
Democrat Democrats Republican Republicans Conservative Conservatives Tory Tories Labour
Liberal Democrat Liberal Democrats Socialist Socialists Communist Communists Libertarian
Libertarians Marxist Marxists Leninist Maoist Trotskyist Anarchist Anarchists Nazi Nazis
Neo-Nazi Fascist Fascists Social Democrat Social Democrats Christian Democrat Gaullist Zionist
Brexiteer Remainer Green Party Labour Party Democratic Party Republican Party Conservative Party
"""
#: Language names: after "speaks", "in", "into" or "from" they name a language, not a group.
_LANGUAGE_WORDS = frozenset(
    "english french german spanish italian portuguese dutch greek russian chinese japanese "
    "arabic polish swedish danish finnish norwegian turkish hungarian czech korean catalan "
    "basque welsh irish hindi persian romanian ukrainian flemish".split()
)
#: Words before a language name ("speaks French", "translated into Polish", "fluent in Dutch").
_LANGUAGE_CUES = frozenset(
    "speak speaks spoke spoken speaking in into from fluent taught write writes wrote written "
    "read reads language languages langue sprache idioma lingua".split()
)
_LANGUAGE_CUE_STEMS = ("learn", "translat", "teach")


def _after_language_cue(text: str, start: int) -> bool:
    """Whether a language cue comes before ``start``, past a list of words ("speaks French, X")."""
    tokens = re.findall(r"[^\W\d_]+|,", text[max(0, start - 80) : start])
    for token in reversed(tokens[-16:]):
        word = token.lower()
        if word in _LANGUAGE_CUES or word.startswith(_LANGUAGE_CUE_STEMS):
            return True
        if not (word in (",", "and", "or") or word in _LANGUAGE_WORDS):
            return False
    return False


_FR = """
français allemand anglais britannique espagnol italien portugais belge suisse néerlandais
polonais roumain marocain algérien tunisien sénégalais américain canadien chinois japonais russe
turc irlandais suédois norvégien danois finlandais autrichien luxembourgeois ivoirien malien
camerounais congolais libanais syrien vietnamien indien brésilien mexicain ukrainien grec
catholique protestant musulman juif chrétien bouddhiste hindou orthodoxe athée
"""
_DE = r"""
Deutsche[rn]? deutsch Franzose[n]? Französin französisch Italiener(?:in)? italienisch
Spanier(?:in)? spanisch Pole[n]? Polin polnisch Türke[n]? Türkin türkisch Österreicher(?:in)?
österreichisch Schweizer(?:in)? schweizerisch Niederländer(?:in)? niederländisch Russe[n]? Russin
russisch Grieche[n]? Griechin griechisch Rumäne[n]? Rumänin rumänisch Ukrainer(?:in)?
ukrainisch Amerikaner(?:in)? amerikanisch Brite[n]? Britin britisch Syrer(?:in)? syrisch
Afghane[n]? afghanisch Kroate[n]? kroatisch Serbe[n]? serbisch Ungar(?:in)? ungarisch
Tscheche[n]? tschechisch Bulgare[n]? bulgarisch Katholik(?:in)? katholisch evangelisch
Protestant(?:in)? Muslim(?:a|in|e)? muslimisch jüdisch Jude[n]? Jüdin Christ(?:in)? christlich
Buddhist(?:in)? buddhistisch hinduistisch orthodox konfessionslos
"""
_ES = r"""
español(?:a|es|as)? francés francesa alemán alemana italian[oa]s? portugués portuguesa inglés
inglesa británic[oa]s? marroquí argentin[oa]s? mexican[oa]s? colombian[oa]s? venezolan[oa]s?
peruan[oa]s? chilen[oa]s? ecuatorian[oa]s? cuban[oa]s? ruman[oa]s? chin[oa]s? estadounidense
norteamerican[oa]s? rus[oa]s? ucranian[oa]s? polac[oa]s? brasileñ[oa]s? bolivian[oa]s?
dominican[oa]s? católic[oa]s? protestante musulmán musulmana judí[oa]s? cristian[oa]s? budista
hindú ortodox[oa]s? ate[oa]s? evangélic[oa]s?
"""
_IT = r"""
italian[oaie] frances[ei] tedesc[oa] tedeschi tedesche spagnol[oaie] ingles[ei] britannic[oa]
portoghes[ei] svizzer[oaie] austriac[oaie] rumen[oaie] albanes[ei] marocchin[oaie] cines[ei]
russ[oaie] ucrain[oaie] polacc[oa] american[oaie] tunisin[oaie] egizian[oaie] senegales[ei]
nigerian[oaie] filippin[oaie] indian[oaie] brasilian[oaie] grec[oa] cattolic[oa] protestant[ei]
musulman[oaie] ebre[oaie] ebraic[oa] cristian[oaie] buddista induista ortodoss[oaie] ate[oaie]
"""


def _french_forms(word: str) -> str:
    """A French nationality or religion with its feminine and plural forms, as a regex."""
    if word.endswith("ien"):
        return re.escape(word) + r"(?:ne|nes|s)?"
    if word.endswith(("s", "x")):
        return re.escape(word) + r"(?:e|es)?"
    if word.endswith("e"):
        return re.escape(word) + r"s?"
    if word == "turc":
        return r"tur(?:c|cs|que|ques)"
    if word == "grec":
        return r"gr(?:ec|ecs|ecque|ecques)"
    if word == "juif":
        return r"jui(?:f|fs|ve|ves)"
    return re.escape(word) + r"(?:e|es|s)?"


@functools.lru_cache(maxsize=2)
def _nrp_regexes(language: str) -> tuple[tuple[re.Pattern[str], float, bool], ...]:
    """(regex, score, whether a language name is possible) per list, for an engine's language."""
    english = sorted(
        _phrases(_NATIONALITIES_EN + _RELIGIONS_EN + _POLITICAL_EN), key=len, reverse=True
    )
    plural = r"s?(?![\w'’-])"
    regexes = [
        (
            re.compile(
                r"(?<![\w'’-])(?:" + "|".join(re.escape(w) for w in english) + r")" + plural
            ),
            0.6,
            True,
        ),
        (re.compile(r"(?<![\w'’-])(?:atheists?|agnostics?)(?![\w'’-])"), 0.5, False),
        (
            re.compile(r"(?<![\w-])(?:" + "|".join(_DE.split()) + r")(?:e|en|er|es|em)?(?![\w-])"),
            0.5,
            False,
        ),
    ]
    lower = _ES.split() + _IT.split()
    if language == "fr":
        lower += [_french_forms(w) for w in _FR.split()]
    regexes.append(
        (re.compile(r"(?<![\w'’-])(?:" + "|".join(lower) + r")(?![\w'’-])"), 0.45, False)
    )
    return tuple(regexes)


def _phrases(block: str) -> set[str]:
    """The list's entries: single words, and the multi-word ones written on one line."""
    known_multi = (
        "Costa Rican", "Sierra Leonean", "South African", "Sri Lankan", "New Zealander",
        "Roman Catholic", "Orthodox Jew", "Jehovah's Witness", "Jehovah's Witnesses",
        "Liberal Democrat", "Liberal Democrats", "Social Democrat", "Social Democrats",
        "Christian Democrat", "Green Party", "Labour Party", "Democratic Party",
        "Republican Party", "Conservative Party",
    )  # fmt: skip
    words = set(block.split())
    words -= {"Costa", "Rican", "Sierra", "Leonean", "South", "Sri", "Lankan", "New", "Zealander"}
    words -= {"Roman", "Jehovah's", "Witness", "Witnesses", "Party", "Green", "Social"}
    return words | set(known_multi)


def find_nrp(text: str, language: str = "en") -> list[Found]:
    """Nationalities, religions and political groups in ``text`` (language names left out)."""
    out: list[Found] = []
    taken: set[int] = set()  # characters of the spans kept (the lists' matches are short)
    for regex, score, may_be_language in _nrp_regexes(language):
        for m in regex.finditer(text):
            start, end = m.span()
            if not taken.isdisjoint(range(start, end)):
                continue
            word = m.group().lower()
            if may_be_language and word in _LANGUAGE_WORDS and _after_language_cue(text, start):
                continue
            taken.update(range(start, end))
            out.append(Found(start, end, "NRP", score))
    return sorted(out, key=lambda f: f.start)


# =============================================================================== recognizers
def presidio_result(recognizer: str, found: Found) -> Any:
    """A Presidio result with its explanation (Presidio's context enhancer writes into it)."""
    from presidio_analyzer import AnalysisExplanation, RecognizerResult

    explanation = AnalysisExplanation(
        recognizer=recognizer,
        original_score=found.score,
        textual_explanation=f"{found.entity} found by {recognizer}",
    )
    return RecognizerResult(found.entity, found.start, found.end, found.score, explanation)


def attribute_recognizers(language: str = "en") -> list[Any]:
    """Presidio recognizers for AGE, TITLE and NRP in ``language``'s engine."""
    from presidio_analyzer import EntityRecognizer

    finders = {
        "AGE": lambda text: find_ages(text),
        "TITLE": lambda text: find_titles(text),
        "NRP": lambda text: find_nrp(text, language),
    }

    class AttributeRecognizer(EntityRecognizer):
        """One of :func:`find_ages`, :func:`find_titles`, :func:`find_nrp` as a recognizer."""

        def __init__(self, entity: str) -> None:
            self._find = finders[entity]
            super().__init__(
                supported_entities=[entity],
                name=f"{entity.title()} (anon_core attributes)",
                supported_language=language,
            )

        def load(self) -> None:  # no model to load
            return None

        def analyze(self, text: str, entities: Any, nlp_artifacts: Any = None) -> list[Any]:
            if not set(self.supported_entities) & set(entities or self.supported_entities):
                return []
            return [presidio_result(self.name, f) for f in self._find(text)]

    return [AttributeRecognizer(entity) for entity in finders]
