"""Words of an age or a group that are about a thing, not a person.

* An age of a thing: "The building is 47 years old", "a 12-year-old whisky", "The cheese is
  aged 18 months", "for ages 3 and up" (:func:`age_of_a_thing`).
* A nationality in the name of a thing or a language: "French press", "English breakfast",
  "German shepherd", "the English version", "a native Spanish speaker"
  (:func:`names_a_thing`). A nationality describing a thing otherwise stays a group ("a
  Polish film"): labelled corpora mark those too.

:mod:`anon_core.pii.attributes` asks these before it keeps an age or a group, and
:func:`anon_core.pii.scan.resolve_overlaps` asks :func:`group_span_names_a_thing` of every
group span, the NER model's too.
"""

from __future__ import annotations

import re

#: Things that have an age too: "The building is 47 years old", "a 12-year-old whisky".
_THINGS = (
    r"(?:building|house|home|flat|apartment|car|vehicle|truck|bike|boat|ship|plane|aircraft|"
    r"company|business|firm|shop|store|restaurant|hotel|bar|pub|brand|factory|farm|bridge|tower|"
    r"church|castle|school|university|hospital|museum|tree|wine|whisky|whiskey|cheese|beer|"
    r"tradition|recipe|product|computer|laptop|phone|device|printer|system|software|app|website|"
    r"account|policy|contract|machine|engine|boiler|roof|furniture|painting|bottle|document|"
    r"certificate|photo|photograph|picture|tyres?|tires?|battery|mattress|sofa|property|"
    r"structure|road|railway|network|club|organi[sz]ation|institution|band|magazine|newspaper|"
    r"show|film|movie|game|series|kitchen|bathroom|windows?|doors?|data|record|version)"
)
#: A thing, then "is" or "was": "The building is", "Our company was", "It is" (the age follows).
_THING_BEFORE = re.compile(
    r"(?:\b(?:the|this|that|our|my|your|his|her|their|its|a|an)\s+(?:[a-z]+\s+)?"
    + _THINGS
    + r"|\b[Ii]t)(?:'s|’s|\s+is|\s+was|\s+will\s+be|\s+turns|\s+turned|\s+is\s+now|"
    r"\s+has\s+been|\s+is\s+aged|\s+was\s+aged|\s+aged)\s+(?:now\s+|about\s+|almost\s+|"
    r"nearly\s+|over\s+|only\s+|just\s+)?$",
    re.IGNORECASE,
)
#: "a 12-year-old whisky", "the 100 year old bridge": the age of the thing after it.
_THING_AFTER = re.compile(r"[- ]years?[- ]old\s+(?:[a-z]+\s+)?" + _THINGS + r"\b", re.IGNORECASE)
#: An age range of a product or a rule ("for ages 3 and up", "ages 8-12", "ages 16+").
_AGE_RANGE_AFTER = re.compile(r"\s*(?:\+|and\s+(?:up|over|above|older|under)\b|(?:-|–|to)\s*\d)")


def age_of_a_thing(text: str, number: int, end: int) -> bool:
    """Whether the age at ``number:end`` is a thing's (:data:`_THING_BEFORE`,
    :data:`_THING_AFTER`) or an age range ("ages 3 and up"), not a person's."""
    if _THING_BEFORE.search(text, max(0, number - 50), number) or _THING_AFTER.match(text, end):
        return True
    return bool(
        re.search(r"\bages?\s*:?\s*$", text[max(0, number - 8) : number], re.IGNORECASE)
        and _AGE_RANGE_AFTER.match(text, end)
    )


#: Names of things that hold a nationality word and say nothing of anyone's group ("French
#: press", "English breakfast", "Dutch oven", "German shepherd"), per word (lower case).
_THING_NAMES = {
    "french": "press|fries|toast|horn|doors?|kiss|dressing|manicure|polish|windows?",
    "english": "breakfast|muffins?|mustard|setter|channel",
    "dutch": "oven|courage|auction|treat|uncle",
    "turkish": "bath|delight|coffee|towels?",
    "greek": "salad|yog(?:h)?urt|alphabet|letters?|mythology",
    "belgian": "waffles?|chocolates?",
    "swiss": "cheese|army|chard|roll|watch(?:es)?|francs?",
    "danish": "pastry|pastries|krone",
    "irish": "coffee|stew|setter|wolfhound",
    "german": "shepherd|measles",
    "russian": "roulette|dressing|dolls?",
    "spanish": "omelett?e|flu|inquisition",
    "italian": "dressing",
    "mexican": "wave",
    "american": "express|dollars?|football",
    "canadian": "dollars?|bacon",
    "australian": "dollars?|shepherd",
    "chinese": "lanterns?|checkers|new\\s+year",
    "japanese": "yen",
    "persian": "cats?|rugs?|carpets?",
    "arabic": "numerals?",
    "roman": "numerals?|empire|candles?",
}
_THING_AFTER_NRP = {
    word: re.compile(r"[\s-]+(?:" + names + r")\b", re.IGNORECASE)
    for word, names in _THING_NAMES.items()
}
#: Language names (lower case), which are group words too ("Polish"); after "speaks", "in",
#: "into" or "from" they name a language, not a group.
LANGUAGE_WORDS = frozenset(
    "english french german spanish italian portuguese dutch greek russian chinese japanese "
    "arabic polish swedish danish finnish norwegian turkish hungarian czech korean catalan "
    "basque welsh irish hindi persian romanian ukrainian flemish".split()
)
#: Nouns after a language name that make it the language ("the English version", "a native
#: Spanish speaker", "a French translation").
_LANGUAGE_AFTER = re.compile(
    r"[\s-]+(?:version|translation|subtitles?|language|edition|keyboard|dictionary|grammar|"
    r"vocabulary|lessons?|courses?|speakers?|speaking|text|words?|spelling|pronunciation)\b",
    re.IGNORECASE,
)


def names_a_thing(text: str, word: str, end: int, language: bool) -> bool:
    """Whether a group word (lower case) ending at ``end`` names a thing
    (:data:`_THING_NAMES`) or, being a ``language`` name too, a language
    (:data:`_LANGUAGE_AFTER`): not a group of people."""
    after = _THING_AFTER_NRP.get(word)
    if after is not None and after.match(text, end):
        return True
    return language and bool(_LANGUAGE_AFTER.match(text, end))


def group_span_names_a_thing(text: str, start: int, end: int) -> bool:
    """Whether a one-word group span ``text[start:end]`` from any recognizer (the NER model's
    NORP label included: "Italian food", "the English version") names a thing or a language,
    as :func:`names_a_thing` decides for the group lists' own matches."""
    word = text[start:end].lower()
    return names_a_thing(text, word, end, word in LANGUAGE_WORDS)


#: Group words that are common words too ("polish", "english", "catholic"), which the lists
#: leave out of text written all in lower case; with a person's cue they are groups ("my
#: neighbour is polish.", "a danish citizen"). Words that are mostly something else ("green",
#: "kiwi", "pole", "liberal") stay out.
_LOWER_GROUPS = (
    r"(?:polish|labour|danes?|swedes?|scots?|brits?|democrats?|republicans?|christians?|"
    r"catholics?|jews?|jewish|arabs?|african|asian|european|english|french|german|danish|swiss|"
    r"nordic|balkan|latinos?|latinas?)"
)
_LOWER_GROUP_CUES = re.compile(
    r"\b(?:is|am|are|was|were|i'm|i’m|he's|he’s|she's|she’s)\s+(?:an?\s+)?"
    r"(?:proud\s+|devout\s+|practi[cs]ing\s+)?(?P<g>" + _LOWER_GROUPS + r")"
    r"(?=\s*(?:[.,;!?]|$)|\s+(?:and|but|too|by|from|myself|himself|herself)\b)"
    r"|\b(?P<h>" + _LOWER_GROUPS + r")(?=\s+(?:citizens?|nationals?|nationality|community|"
    r"people|man|men|woman|women|family|families|descent|origin|heritage|ancestry|immigrants?|"
    r"friends?|neighbou?rs?|colleagues?|parents?|wife|husband|girlfriend|boyfriend|girl|boy|"
    r"guy|lady|students?|voters?|roots)\b)"
)


def lower_case_groups(text: str) -> list[tuple[int, int]]:
    """Groups in text written all in lower case that are common words too, after an "is" or
    before a word for people (:data:`_LOWER_GROUP_CUES`): (start, end) of each."""
    return [m.span("g") if m.group("g") else m.span("h") for m in _LOWER_GROUP_CUES.finditer(text)]
