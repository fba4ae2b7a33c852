"""Ages, job titles and nationalities, religions or political groups (NRP) in free text.

Quasi-identifiers that the small NER model misses or mislabels, found by patterns and offline
lists, in English, French, German, Spanish and Italian:

* **AGE**: a number from 0 to 120 with an age phrase around it ("34 years old", "a 34-year-old",
  "aged 34", "Age: 34", "I am 34.", "At 34, she moved", "He was 34 when", "she is now 34",
  "How old is Ann? 34", "who is 34,", "will turn 34", "34 ans", "34 Jahre alt", "tiene 34
  años", "ha 34 anni"), or a number word after a cue ("at the age of eighty", "Omar is
  eighty-nine."). A bare number of years is a duration ("for 34 years", "depuis 3 ans") and
  is left alone. The span is the number, with the English unit words that follow it ("34
  years old"; not "yrs", which a labelled span leaves out).
* **TITLE**: job titles of Faker's job lists (English, French, German, Spanish; Faker ships them
  in the package, nothing is downloaded): a title of two words or more anywhere, a one-word title
  alone on its line (a signature block) or after a cue ("works as a", "job title:", "Beruf:",
  "travaille comme"), and English phrases ending in a job word of those lists ("sewer pipe
  cleaner") on their own line or after a cue.
* **NRP**: nationalities, religions and political groups from the lists below, written with a
  capital in English and German, in lower case in French, Spanish and Italian; English ones
  joined by hyphens are one group ("African-American", "Judeo-Christian"). A language name
  after "speaks", "in" or "into" ("in French") is a language, not a nationality.

Each finder is a pure function of the text (:func:`find_ages`, :func:`find_titles`,
:func:`find_nrp`); :func:`attribute_recognizers` wraps them as Presidio recognizers.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from anon_core.pii.attribute_roles import (
    LANGUAGE_WORDS,
    age_of_a_thing,
    lower_case_groups,
    names_a_thing,
)
from anon_core.pii.attributes_fast import need_bits, number_spans, patterns_needed
from anon_core.pii.dates import find_dates, find_named_dates
from anon_core.pii.found import Found, presidio_result, trie_pattern
from anon_core.pii.nrp_fast import french_forms, lists_needed, word_set
from anon_core.pii.titles import find_titles, title_lists

__all__ = [
    "Found",
    "attribute_recognizers",
    "find_ages",
    "find_nrp",
    "find_titles",
    "presidio_result",
    "title_lists",
]


# =============================================================================== ages
_N = r"(?<![\d.,/:-])(?P<n>1[01]\d|120|[1-9]?\d)(?![\d.,:/%]\d|\d|[%°])"
#: A number or a decimal one ("1.5 years old", "aged 0.5"): infants' ages.
_ND = r"(?<![\d.,/:-])(?P<n>1[01]\d|120|[1-9]?\d|\d\.\d)(?![\d.,:/%]\d|\d|[%°])"
#: Who an age after "is" or "will be" is about: a pronoun, a relative, a patient, a name.
_SUBJECT = (
    r"(?:(?:my|his|her|our|their|your|the) (?:son|daughter|child|kid|baby|boy|girl|brother|"
    r"sister|wife|husband|partner|mother|father|mom|mum|dad|grandson|granddaughter|grandmother|"
    r"grandfather|grandma|grandpa|niece|nephew|cousin|aunt|uncle|friend|patient|victim|suspect)|"
    r"(?:the )?patient)"
)
_SPELLED = (
    r"(?P<n>(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|"
    r"four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)"
)
#: English unit words that follow the number and belong to the span ("34 years old").
_EN_UNIT = r"(?P<unit>[- ]years?[- ]old\b|\s+years\s+of\s+age\b|(?=[- ]yrs?[- ]old\b))"
#: Words after "I am 34" that make the number something else than an age.
_NOT_AFTER = (
    r"(?!\s*(?:%|percent|per|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|seconds?|kg|kilos?|"
    r"lbs?|pounds?|cm|ft|feet|inch(?:es)?|km|miles?|meters?|metres?|euros?|dollars?|times|"
    r"points?|items?|pages?|steps?|of|out)\b)"
    # any other word after the number makes it something else, except a few connectives
    r"(?!\s+(?!(?:and|but|now|today|this|next|last|when|so|yet|with)\b)[a-z])"
)
#: Capitalised words before "is 34" that are no person ("It is 5", "Total was 20").
_NOT_SUBJECTS = (
    "It|This|That|There|Here|What|Which|Who|Where|When|How|Total|Price|Cost|Score|Number|Page|"
    "Room|Size|Rate|Result|Answer|Version|Level|Step|Chapter|Question|Item|Table|Figure|Section|"
    "Day|Year|Month|Week|Time|Temperature|Count|Amount|Balance|Grade|Rank|Round|Floor|Gate|"
    "Platform|Line|Bus|Flight|Train|Track|Episode|Season|Part|Volume|Issue|Order|Invoice|Today|"
    "Tomorrow|Yesterday|Everything|Nothing|One|Mine|Yours|Ours|Theirs"
)
#: After "died at 91": anything but a time of day or an amount ("retired at 5 pm" is a time).
_NOT_A_TIME = (
    r"(?!\s*(?:%|am\b|pm\b|a\.m\.|p\.m\.|o'clock|o’clock|h\b|hours?\b|minutes?\b|percent\b|"
    r"degrees?\b|km\b|miles?\b|mph\b))"
)
_FR_CUE = r"(?i:\b(?:âgée?s?|agée?s?) de|j'ai|j’ai|il a|elle a|qui a|avait|aura|(?:homme|femme|enfant|fille|garçon|patiente?|monsieur|madame) de)"
_ES_CUE = r"(?i:\b(?:tengo|tiene|tenía|tenia|cumplió|cumplio|cumple|(?:hombre|mujer|niñ[oa]|paciente|señora?|chic[oa]) de))"
_IT_CUE = r"(?i:\b(?:ho|ha|aveva|compie|compiuto|(?:uomo|donna|bambin[oa]|paziente|ragazz[oa]|signora?) di))"
_AGE_PATTERNS: tuple[tuple[str, float], ...] = (
    # English
    (_N + _EN_UNIT, 0.9),
    # a decimal age ends the phrase ("is 1.5 years old."; "1.5 years old stock" is no person's)
    (_ND + _EN_UNIT + r"(?!\s+(?!(?:and|but|with|when)\b)[a-z])", 0.85),
    (r"(?i:\b" + _SPELLED + r")" + _EN_UNIT, 0.85),
    (_ND + r"(?=\s*(?:yo|y/o|y\.o\.|yrs? old)\b)", 0.85),
    (r"(?i:\b(?:aged|ages?|at the age of|age of|turned|turning|turns)\s*[:=-]?\s*)" + _ND, 0.85),
    # "at the age of eighty", "turned twenty-one", "aged forty"; "will turn 40", "I turn 30"
    (
        r"(?i:\b(?:aged|at the age of|age of|turned|turning|turns)\s+)(?i:"
        + _SPELLED
        + r")\b(?![- ](?:minutes?|hours?|days?|weeks?|months?|times|degrees|pages|points)\b)",
        0.8,
    ),
    (
        r"(?i:\b(?:will|to|I|we|you|he|she|they|'ll|’ll) turn\s+)"
        + _N
        + r"(?!\s*(?:%|degrees?|pages?|points?|left|right)\b)",
        0.7,
    ),
    # "the age of 14", "age 45" whole: the model's DATE span of the same characters gives way
    (r"(?i:\b(?P<cue>the age of|age of|age)\s+)" + _ND, 0.85),
    # "my son is 25", "the patient was 3.5"; "she died at 91", "retired at 65"
    (r"(?i:\b" + _SUBJECT + r" (?:is|was|is now|will be|turns|turned)\s+)" + _ND + _NOT_AFTER, 0.6),
    (
        r"(?i:\b(?:died|dies|passed away|retired|retires|married|widowed)(?: at| aged)\s+)"
        + _ND
        + _NOT_A_TIME,
        0.6,
    ),
    (r"(?:\b(?:I|[Hh]e|[Ss]he|[Yy]ou|[A-Z][a-z]+) (?:will|would) be\s+)" + _N + _NOT_AFTER, 0.5),
    # a name, then "is 34." ("Tom is 34 and ...", "is eighty-nine.", "is 51 now"; not "It is 5",
    # "Page 3 is 20 lines")
    (
        r"(?:\b(?!(?:"
        + _NOT_SUBJECTS
        + r")\b)[A-ZÀ-Þ][a-zß-ÿ]+ (?:is now|is|was|just turned)\s+)"
        + r"(?<![\d.,/:-])(?P<n>(?:1[01]\d|120|[1-9]?\d)(?![\d.,:/%]\d|\d|[%°])|(?i:"
        + _SPELLED.replace("?P<n>", "")
        + r")\b)"
        + r"(?=\s*(?:[.,;!]|and\b|when\b|now\b|$)|\s+(?:today|this year)\b)",
        0.5,
    ),
    (
        r"(?i:\b(?:I am|I'm|I’m|he is|she is|he's|she's|he’s|she’s|you are|you're|you’re)\s+)"
        + _ND
        + _NOT_AFTER,
        0.6,
    ),
    (
        r"(?i:\b(?:I am|I'm|I’m|he is|she is|he's|she's|he’s|she’s)\s+)"
        + _N
        + r"(?P<unit>\s+years)\b(?!\s+(?:ago|later|before|after|since|in|of|old|older|younger|more|less)\b)",
        0.8,
    ),
    (
        r"(?i:\b(?:my|his|her|their|your|the patient's|patient's)?\s*age\s+(?:is|was|of)\s+)" + _ND,
        0.85,
    ),
    (_N + r"(?=(?:st|nd|rd|th)\s+birthday\b)", 0.85),
    # a person's name, then the age between commas or in brackets ("Ella Snider, 34, of Leeds")
    (r"(?<=[a-z], )" + _N + r"(?=, )", 0.4),
    # a name of two capitalised words, then the age ending the clause ("by Ella Snider, 34.")
    (
        r"(?:\b[A-ZÀ-Þ][a-zß-ÿ]+ [A-ZÀ-Þ][a-zß-ÿ]+,\s)"
        + _N
        + r"(?=\s*(?:[.;!]|$|and\b|from\b|of\b))",
        0.4,
    ),
    # "Age of patient: 45", "Age at diagnosis: 45" (not "Average age in Leeds: 38")
    (
        r"(?i:(?<!average )(?<!mean )(?<!median )(?<!minimum )(?<!maximum )(?<!legal )"
        r"(?<!retirement )(?<!voting )\bage\b[^:\n\d]{1,25}:\s*)" + _ND,
        0.8,
    ),
    (_N + r"(?P<unit>[- ]years?[- ]young\b)", 0.85),
    (r"(?<=[a-z] \()" + _N + r"(?=\))", 0.4),
    # "At 16, she moved", "at 68 he retired": "at" and a number, then a person doing something
    # (not "at 5 pm", "at 3, 4 and 5"); without the comma only a number past the hours of a
    # day ("at 10 she woke up" is a time)
    (
        r"(?i:\bat\s+)"
        + _N
        + r"(?:(?=,\s+(?:I|[Hh]e|[Ss]he|[Tt]hey|[Ww]e)\s+[a-z])"
        + r"|(?:(?<=2[5-9]|[3-9]\d)|(?<=1[01]\d|120))(?=\s+(?:I|[Hh]e|[Ss]he|[Tt]hey|[Ww]e)\s+[a-z]))",
        0.5,
    ),
    # "At 58, Justin Glass moved": opening a sentence, then a name
    (r"(?:(?:^|(?<=[.!?] )|(?<=\n))At\s+)" + _N + r"(?=,\s+[A-ZÀ-Þ])", 0.5),
    # "He was 65 when he died", "When I was 32, I moved", "she is now 99", "I'm 40 now"
    (
        r"(?i:\b(?:I was|I am|s?he was|s?he is|you were|you are|I'm|I’m|s?he's|s?he’s|you're|"
        r"you’re)\s+(?:now|only|just|almost|nearly|barely|still)?\s*)"
        + _N
        + r"(?=\s*(?:[.,;!?]|$|(?:when|now|and|but|at the time)\b))",
        0.55,
    ),
    # "How old are you? 95", "how old is he: 7"
    (r"(?i:\bhow old (?:are|is|was|were)\b[^?:\n]{1,40}[?:]\s*)" + _ND, 0.7),
    # "my grandmother, who is 92, still drives"
    (
        r"(?i:\bwho (?:is|was|turned|turns|is now|was then)\s+)"
        + _ND
        + r"(?=\s*(?:[.,;!)]|$|(?:and|but|now|when)\b))",
        0.6,
    ),
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


_I_AM = ("i am", "i'm", "i’m", "he is", "he's", "he’s", "you are", "you're", "you’re")
_YEAR = ("year", "yr")
#: The words the pronoun pattern opens with, lower case ("she was" holds "he was").
_PRONOUN_IS = (
    "i was", "i am", "he was", "he is", "you were", "you are", "i'm", "i’m", "he's", "he’s",
    "you're", "you’re",
)  # fmt: skip
#: Per pattern of :data:`_AGE_PATTERNS`, in order: words one of which every match holds (lower
#: case); a window holding none of them skips the pattern (same findings, less time).
_AGE_NEEDS: tuple[tuple[str, ...], ...] = (
    _YEAR, _YEAR, _YEAR, ("yo", "y/o", "y.o", "yr"), ("age", "turn"), ("age", "turn"),
    (" turn",), ("age",),
    (" is", " was", " will be", " turn"),
    ("died", "dies", "passed away", "retire", "married", "widowed"), ("will be", "would be"),
    (" is ", " was ", "turned"),
    _I_AM, _I_AM, ("age",), ("birthday",), (", ",), (", ",), ("age",), ("young",), (" (",),
    ("at ",), ("at ",), _PRONOUN_IS, ("how old",), ("who ",),
    ("ans",), ("âge",), ("ans",),
    ("jahre",), ("jährig",), ("alter",), ("ich bin", "er ist", "sie ist"),
    ("años",), ("años",), ("edad",),
    ("anni",), ("anni",), ("età",),
)  # fmt: skip


@functools.lru_cache(maxsize=1)
def _age_regexes() -> tuple[tuple[re.Pattern[str], float, tuple[str, ...]], ...]:
    if len(_AGE_NEEDS) != len(_AGE_PATTERNS):
        raise AssertionError("one entry of _AGE_NEEDS per age pattern")
    return tuple(
        (re.compile(p), s, needs) for (p, s), needs in zip(_AGE_PATTERNS, _AGE_NEEDS, strict=True)
    )


#: Where an age can be: a number of at most three digits, or a number word. The look-ahead for
#: the first letters of the number words (with the same case folding, so "ſix" too) lets the
#: scan skip other letters at once: same matches, half the time.
_AGE_ANCHOR = re.compile(
    r"(?<!\d)\d{1,3}(?!\d)|(?=(?i:[otfsen]))(?i:" + _SPELLED.replace("?P<n>", "") + r")"
)


_NUMBER_WORD = re.compile(r"(?i:" + _SPELLED.replace("?P<n>", "") + r")")


@functools.lru_cache(maxsize=1)
def _need_bits() -> tuple[tuple[str, int], ...]:
    return need_bits(_AGE_NEEDS)


def find_ages(text: str) -> list[Found]:
    """Ages in ``text``: the number, with the English unit words after it when present.

    The patterns run only on windows around numbers (60 characters before, 30 after), so that
    text without numbers costs one scan.
    """
    out: dict[int, Found] = {}
    windows: list[list[int]] = []
    for start, end in number_spans(text, _AGE_ANCHOR, _NUMBER_WORD):
        a, b = max(0, start - 60), min(len(text), end + 30)
        if windows and a <= windows[-1][1]:
            windows[-1][1] = b
        else:
            windows.append([a, b])
    regexes = _age_regexes()
    for a, b in windows:
        for k in patterns_needed(text[a:b].lower(), _need_bits()):
            regex, score, _ = regexes[k]
            for m in regex.finditer(text, a, b):
                number = m.start("n")
                if age_of_a_thing(text, number, m.end("n")):
                    continue
                start = m.start("cue") if "cue" in regex.groupindex else number
                has_unit = "unit" in regex.groupindex and m.group("unit")
                end = m.end("unit") if has_unit else m.end("n")
                best = out.get(number)
                if best is None or (end - start, score) > (best.end - best.start, best.score):
                    out[number] = Found(start, end, "AGE", score)  # the longest span per number
    return sorted(out.values(), key=lambda f: f.start)


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
Welshwoman Scotsman Scotswoman Kiwi Aussie Yankee Inuit Sami Maori Aboriginal Filipina
Frenchmen Frenchwomen Englishmen Englishwomen Dutchmen Dutchwomen Irishmen Irishwomen Welshmen
Welshwomen Scotsmen Scotswomen Antiguan Barbudan Bissau-Guinean Cabo Comoran Emirian Equatoguinean
Herzegovinian I-Kiribati Kittitian Nevisian Lao Liechtensteiner Luxembourger Marshallese Micronesian
Monacan Mosotho Motswana Basotho Batswana Nauruan Ni-Vanuatu Palauan Sammarinese Seychellois
Timorese Trinidadian Tobagonian Tuvaluan Vanuatuan Vincentian Salvadorean Mongol Ghanian
Zairean Kenyan Bermudian Greenlandic Puerto Rican Hongkonger Macanese Tibetan Uyghur Yemenite
"""
#: English list words that are common words too ("polish the silver", "a liberal use", "green
#: tea"): in a text written all in lower case, only the other words of the list are read.
_COMMON_LOWER = frozenset(
    "polish liberal liberals conservative conservatives green labour orthodox pole poles dane "
    "danes swede swedes kiwi kiwis turk turks roma finn finns scot scots brit brits sami pagan "
    "pagans democrat democrats republican republicans christian catholic jew jews arab "
    "african asian european english french german danish swiss nordic balkan latino latina "
    "yankee aussie green party".split()
)
_RELIGIONS_EN = """
Christian Catholic Roman Catholic Protestant Orthodox Anglican Methodist Baptist Lutheran
Presbyterian Evangelical Pentecostal Mormon Quaker Adventist Calvinist Episcopalian Muslim Moslem
Islamic Sunni Shia Shiite Shi'ite Jewish Jew Hindu Buddhist Sikh Jain Baha'i Bahá'í Taoist
Shinto Zoroastrian Amish Mennonite Rastafarian Wiccan Pagan Druze Alawite Coptic Hasidic
Orthodox Jew Jehovah's Witness Jehovah's Witnesses Atheist Agnostic
Christianity Islam Judaism Buddhism Hinduism Sikhism Jainism Taoism Confucianism Shintoism
Zoroastrianism Catholicism Protestantism Mormonism Rastafarianism Paganism Wicca Atheism
Agnosticism Rastafari Animism Spiritism Shamanism Neopaganism Neo-Paganism Tenrikyo Juche
Ahmadiyya Caodaism Unitarian Quakerism Anglicanism Lutheranism Methodism Calvinism Orthodoxy
"""
#: First halves of joined group names ("Afro-Caribbean", "Sino-Vietnamese").
_COMBINING = r"(?:Anglo|Afro|Franco|Sino|Indo|Judeo|Greco|Italo|Russo|Euro|Hispano|Luso|Austro)"
_MORE_GROUPS_EN = """
Kazakhstani Uzbekistani Kyrgyzstani Tajikistani Turkmenistani Azeri Bosniak Chechen Tatar Pashtun
Punjabi Bengali Gujarati Tamil Sinhalese Sinhala Hmong Zulu Xhosa Yoruba Igbo Hausa Maasai Berber
Amazigh Bedouin Kurd Afrikaner Creole Cajun Hawaiian Manx Gibraltarian Caymanian Québécois
Quebecer Galician Andalusian Sahrawi Rohingya Uighur Ashkenazi Sephardic Sephardi Mizrahi Haredi
Scientologist Sufi Salafi Ismaili Satanist Deist Humanist Unionist Loyalist Monarchist Royalist
Stalinist Bolshevik Peronist Sandinista Zapatista Nationalist Nationalists Centrist Centrists
Greens Whig Whigs Labourite
"""
_POLITICAL_EN = """
Democrat Democrats Republican Republicans Conservative Conservatives Tory Tories Labour
Liberal Democrat Liberal Democrats Socialist Socialists Communist Communists Libertarian
Libertarians Marxist Marxists Leninist Maoist Trotskyist Anarchist Anarchists Nazi Nazis
Neo-Nazi Fascist Fascists Social Democrat Social Democrats Christian Democrat Gaullist Zionist
Brexiteer Remainer Green Party Labour Party Democratic Party Republican Party Conservative Party
"""
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
        if not (word in (",", "and", "or") or word in LANGUAGE_WORDS):
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


@functools.lru_cache(maxsize=2)
def _nrp_regexes(language: str) -> tuple[tuple[re.Pattern[str], float, bool], ...]:
    """(regex, score, whether a language name is possible) per list, for an engine's language."""
    english = sorted(
        _phrases(_NATIONALITIES_EN + _RELIGIONS_EN + _POLITICAL_EN + _MORE_GROUPS_EN),
        key=len,
        reverse=True,
    )
    plural = r"s?(?![\w'’-])"
    lower_case = [w.lower() for w in english if w.lower() not in _COMMON_LOWER]
    # one group joined by hyphens: "African-American", "Anglo-Indian", "Judeo-Christian"
    word = "(?:" + trie_pattern(english) + r")s?"
    joined = rf"(?:(?:{_COMBINING}|{word})-)*{word}(?![\w'’-])"
    regexes = [
        # every entry starts with a capital A to Z: the look-ahead lets the scan skip the rest
        (re.compile(r"(?=[A-Z])(?<![\w'’-])" + joined), 0.6, True),
        (  # used only on text written all in lower case (see find_nrp)
            re.compile(r"(?<![\w'’-])(?:" + trie_pattern(lower_case) + r")" + plural),
            0.5,
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
        lower += [french_forms(w) for w in _FR.split()]
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
        "Republican Party", "Conservative Party", "Cape Verdean", "Cabo Verdean",
        "Papua New Guinean", "North Korean", "South Korean", "Saint Lucian", "Solomon Islander",
        "East Timorese", "Central African", "Sao Tomean", "Puerto Rican", "Bahá'í Faith",
        "Baha'i Faith", "Cao Dai", "Unitarian Universalism", "Unitarian Universalist",
        "Native American", "Native Americans", "First Nations", "Pacific Islander",
        "Torres Strait Islander", "Seventh-day Adventist", "Greek Orthodox", "Russian Orthodox",
        "Eastern Orthodox", "Hare Krishna", "Christian Scientist", "Tea Party",
        "Communist Party", "Socialist Party", "Liberal Party", "Reform Party",
    )  # fmt: skip
    words = set(block.split())
    words -= {"Costa", "Rican", "Sierra", "Leonean", "South", "Sri", "Lankan", "New", "Zealander"}
    words -= {"Cabo", "Puerto"}
    words -= {"Roman", "Jehovah's", "Witness", "Witnesses", "Party", "Green", "Social"}
    return words | set(known_multi)


@functools.lru_cache(maxsize=2)
def _nrp_words(language: str) -> tuple[tuple[frozenset[str], bool], ...]:
    """The words of the "atheist", German and lower-case lists of :func:`_nrp_regexes`."""
    french = [french_forms(w) for w in _FR.split()] if language == "fr" else []
    return (
        (word_set(["atheists?", "agnostics?"]), True),
        (word_set(_DE.split(), ("", "e", "en", "er", "es", "em")), False),
        (word_set(_ES.split() + _IT.split() + french), True),
    )


def find_nrp(text: str, language: str = "en") -> list[Found]:
    """Nationalities, religions and political groups in ``text`` (language names left out)."""
    out: list[Found] = []
    taken: set[int] = set()  # characters of the spans kept (the lists' matches are short)
    all_lower = text.islower()
    needed = [True, all_lower, *lists_needed(text, _nrp_words(language))]
    for k, (regex, score, may_be_language) in enumerate(_nrp_regexes(language)):
        if not needed[k]:
            continue  # English list in lower case: lower-case text only; no word of a list
        for m in regex.finditer(text):
            start, end = m.span()
            if not taken.isdisjoint(range(start, end)):
                continue
            word = m.group().lower()
            if may_be_language and word in LANGUAGE_WORDS and _after_language_cue(text, start):
                continue
            if may_be_language and names_a_thing(text, word, end, word in LANGUAGE_WORDS):
                continue
            taken.update(range(start, end))
            out.append(Found(start, end, "NRP", score))
    for start, end in lower_case_groups(text) if all_lower else ():
        if taken.isdisjoint(range(start, end)):
            out.append(Found(start, end, "NRP", 0.5))
    return sorted(out, key=lambda f: f.start)


# =============================================================================== recognizers
#: Above the NER model's score (0.85), so that a title or group the model calls a person,
#: organisation or place on exactly the same characters ("Position: Recruiter", "Her parents
#: are Welsh") keeps its type; a longer model span still wins, so no name is cut, and a person
#: of two words or more ("Juliette Farmer" on its own line) or a given name ("Christian")
#: stays a person.
SAME_SPAN_SCORE = 0.86


def _over_same_model_span(found: Found, model_spans: set[tuple[int, int]]) -> Found:
    if found.score < SAME_SPAN_SCORE and (found.start, found.end) in model_spans:
        return Found(found.start, found.end, found.entity, SAME_SPAN_SCORE)
    return found


def _maybe_a_name(text: str, label: str) -> bool:
    """A model span that may be a person's name, whatever the model calls it: a person of two
    words or more ("Juliette Farmer"), or a given name of the gazetteer ("Christian", "Sami":
    the name rules may turn the model's group into a person)."""
    from anon_core.pii.names import gazetteer  # loaded once, by the name rules already

    return (label in ("PERSON", "PER") and " " in text) or gazetteer().is_given(text)


def attribute_recognizers(language: str = "en") -> list[Any]:
    """Presidio recognizers for AGE, TITLE, NRP and numeric date-times in ``language``'s
    engine."""
    from presidio_analyzer import EntityRecognizer

    finders = {
        "AGE": lambda text: find_ages(text),
        "TITLE": lambda text: find_titles(text),
        "NRP": lambda text: find_nrp(text, language),
        "DATE_TIME": lambda text: find_dates(text) + find_named_dates(text, language),
    }

    class AttributeRecognizer(EntityRecognizer):
        """One of :func:`find_ages`, :func:`find_titles`, :func:`find_nrp`,
        :func:`~anon_core.pii.dates.find_dates` as a recognizer."""

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
            found = self._find(text)
            # only a model span with the offsets of a weak finding can raise its score: the
            # others are not read (their text is built and looked up only when needed)
            weak = {(f.start, f.end) for f in found if f.score < SAME_SPAN_SCORE}
            model_spans = {
                (e.start_char, e.end_char)
                for e in ((getattr(nlp_artifacts, "entities", None) or ()) if weak else ())
                if (e.start_char, e.end_char) in weak and not _maybe_a_name(e.text, e.label_)
            }
            return [
                presidio_result(self.name, _over_same_model_span(f, model_spans)) for f in found
            ]

    return [AttributeRecognizer(entity) for entity in finders]
