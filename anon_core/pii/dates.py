"""Which of the NER model's DATE_TIME spans are dates of a person, and which are not.

spaCy's DATE and TIME labels also cover clock times, durations, decades, seasons and quarters,
and pieces of phone numbers ("0400 before noon" after "(0306) 999"). None of them is a date
element HIPAA Safe Harbor counts as identifying (a birth, admission or event date, or a year),
and none is what a labelled corpus marks as a date (presidio-research labels Faker's
``date_time``, ``date_of_birth``, ``day_of_week`` and ``year``). :func:`date_span_ok` says
which spans to keep; the span resolution (:func:`anon_core.pii.scan.resolve_overlaps`)
drops the others. Months, weekdays, holidays, years and ranges of years are kept.
"""

from __future__ import annotations

import re

from anon_core.pii.found import Found, trie_pattern

_NUMBER = (
    r"(?:\d+(?:[.,]\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|hundred|half|several|few|many|couple|the)"
)
_UNIT = r"(?:seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?|decades?)"
#: A clock time: "3pm", "5:30 pm", "19:30", "8 a.m.", "10h15", "4:12:09".
_CLOCK = r"\d{1,2}(?:(?:[:.h])\d{2}){0,2}\s*(?:[ap]\.?\s?m\b\.?|o'clock|h\b|hrs\b)?"
#: A time of day alone, maybe a range of them or a part of the day: "at 3pm", "hours 14:00-16:00",
#: "4:12 in the morning", "7 tonight", "around noon".
_TIME_ONLY = re.compile(
    r"(?:(?:at|around|about|approximately|until|till|by|after|before|from|between|hours|"
    r"opening|closing)\s+)*"
    rf"(?:{_CLOCK}(?:\s*(?:-|–|to|and|until)\s*{_CLOCK})?|noon|midnight|midday)"
    r"(?:\s+(?:(?:in the|this) (?:morning|afternoon|evening)|at night|tonight|sharp|"
    r"local time|daily|every day|each day|on weekdays))?",
    re.IGNORECASE,
)
#: What makes a number a clock time rather than a bare number the model called a time.
_CLOCK_MARK = re.compile(
    r"\d[:.h]\d|[ap]\.?\s?m\b|o'clock|noon|midnight|midday|morning|afternoon|evening|night",
    re.IGNORECASE,
)
#: A numeric date right before a time, one space or a "T" between ("1995-06-14 03:25:42",
#: "12/03/2024 10:30"): the time is part of the date. After "at" or a comma it is not
#: ("admitted on 2020-10-13 at 11:40 pm": the date is the date).
_DATE_BEFORE = re.compile(r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})[T ]$")
#: A length of time, maybe with a lead word: "every 12 months", "open 365 days a year",
#: "a period of 5 years", "within 48 hours", "for two weeks", "30 days of" (cut from its date).
_DURATION = re.compile(
    r"(?:(?:every|each|open|for|over|within|about|around|nearly|almost|roughly|some|up\s+to|"
    r"at\s+least|more\s+than|less\s+than|a\s+period\s+of|period\s+of|the\s+(?:first|past|next|"
    r"last|following|previous)|first|past|next|last|another|other)\s+)*"
    rf"(?:{_NUMBER}[\s-]+)+(?:more\s+|full\s+|long\s+|business\s+|working\s+|calendar\s+|banking\s+|school\s+)?{_UNIT}"
    rf"(?:[\s-]+(?:a|per|each|every)\s+{_UNIT})?(?:[\s-]+(?:long|ago|later|earlier|old))?"
    r"(?:\s+(?:of|from|after|before))?",
    re.IGNORECASE,
)
#: A decade ("the 1990s", "the late '80s"), a quarter ("Q3", "the second quarter"), a season
#: ("last spring", "the summer holidays") or a recurring day ("the 2nd of the month").
_VAGUE = re.compile(
    r"(?:the\s+)?(?:early|mid|late|mid-)?\s*'?(?:1[89]\d0|20\d0|\d0)'?s"
    r"|(?:the\s+)?(?:Q[1-4]|(?:first|second|third|fourth|last)\s+quarter)"
    r"|(?:(?:last|next|this|the|early|late|in|during|that|mid)\s+)*(?:spring|summer|autumn|fall|"
    r"winter)(?:\s+(?:holidays?|break|term|semester|vacation|season|months))?"
    r"|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\s+of\s+(?:the|each|every)\s+month"
    # a century ("the 21st century", "the early twentieth century")
    r"|(?:the\s+)?(?:early|mid|late|mid-)?\s*(?:\d{1,2}(?:st|nd|rd|th)|[a-z]+(?:-[a-z]+)?)"
    r"\s+century"
    # a weekday of every month ("the first Friday of every month")
    r"|(?:the\s+)?(?:first|second|third|fourth|last)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"s?\s+of\s+(?:every|each|the)\s+month",
    re.IGNORECASE,
)
#: Digits joined by at most two of " ./()-": one number as written ("(0306) 999 0400").
#: A run does not start after a colon: "12.416759" of "01:27:12.416759" is the seconds of a time.
_RUN = re.compile(r"(?<![\d:])\d+(?:[ ./()-]{1,2}\d+)*")
_MIN_NUMBER_DIGITS = 7
#: A date, a date and an hour, or years: a long digit run that is no phone.
_DATE_IN_RUN = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}"
    r"|^(?:(?:19|20)\d\d[ /-]*)+$|^(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$"
)
#: How far around a span a number holding its digits is looked for.
_REACH = 40


def cut_from_number(text: str, start: int, end: int) -> bool:
    """Whether the span's digits belong to a number of 7 digits or more that is no date and no
    run of years: a phone or an identifier, or a piece of one ("0400" of "(0306) 999 0400")."""
    lo, hi = max(0, start - _REACH), min(len(text), end + _REACH)
    for m in _RUN.finditer(text, lo, hi):
        if m.start() < end and start < m.end():
            run = m.group(0)
            digits = sum(c.isdigit() for c in run)
            if digits >= _MIN_NUMBER_DIGITS and not _DATE_IN_RUN.search(run):
                return True
    return False


#: A day named relative to now, maybe after a number the model joined to it ("is turning 65
#: tomorrow": the 65 is an age): no date of a person, and no labelled date.
_RELATIVE = re.compile(
    r"(?:\d{1,3}\s+)?(?:(?:earlier|later)\s+)?(?:today|tomorrow|tonight|yesterday|now|"
    r"(?:the )?day after tomorrow|(?:the )?day before yesterday|"
    # a period named relative to now after a number ("she turned 59 last month": an age)
    r"(?<=\d )(?:last|this|next|past|coming)\s+(?:week|weekend|month|year|night|quarter))",
    re.IGNORECASE,
)
_BARE_YEAR = re.compile(r"\d{4}")
#: Words before a four-digit number that make it a number, not a year ("extension 2045").
_NUMBER_BEFORE = re.compile(
    r"(?:extension|ext\.?|room|no\.?|number|nr\.?|#|page|pages|flight|bus|route|unit|suite|apt\.?|"
    r"code|pin|order|invoice|ticket|model|version|account|box|line|gate|platform|item|ref\.?|"
    r"id|\$|€|£|usd|eur|gbp)\s*:?\s*$"
    # "My PIN is 1987", "the card ending in 1987", "last 4 digits: 1987"
    r"|\b(?:pin|code|number|id|account|extension|room|order|invoice|ticket|version|model)\s+"
    r"(?:is|was)\s+$|\b(?:ending|ends)(?:\s+(?:in|with))?\s+$|\bdigits\s*:?\s*$",
    re.IGNORECASE,
)
#: Words after a four-digit number that make it an amount ("1999 dollars", "2000 km").
_AMOUNT_AFTER = re.compile(
    r"\s*(?:dollars?|euros?|pounds?|usd|eur|gbp|\$|€|£|people|persons|users|pages|points|km|"
    r"miles|meters|metres|kg|items|units|copies|calories|words|steps|votes|employees|members|"
    r"customers|students|rooms|feet|ft|m²|sq)\b",
    re.IGNORECASE,
)


def _not_a_year(text: str, start: int, end: int) -> bool:
    """Whether a bare four-digit number is an amount or a number, not a year."""
    before = text[max(0, start - 16) : start]
    return bool(_NUMBER_BEFORE.search(before) or _AMOUNT_AFTER.match(text, end))


_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_PART_OF_DAY = r"(?:\s+(?:morning|afternoon|evening|night))?"
#: Weekdays in the plural ("on Saturdays", "Sundays evening"): a schedule, no day of a person.
#: ("Every Monday" stays a date: a weekday a sentence names, as labelled corpora mark it.)
_WEEKLY = re.compile(rf"(?:on\s+)?{_WEEKDAY}s{_PART_OF_DAY}", re.IGNORECASE)
#: A range of weekdays ("Monday to Friday", "Mon-Fri"), read around a span of one of them:
#: opening hours, no day of a person.
_DAY_NAME = rf"(?:{_WEEKDAY}|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?"
_WEEK_RANGE = re.compile(
    rf"(?<![\w-]){_DAY_NAME}\s*(?:-|–|to|through|thru|till|until)\s*{_DAY_NAME}(?![\w-])",
    re.IGNORECASE,
)
_DAY_NAME_RE = re.compile(_DAY_NAME + r"(?![\w-])", re.IGNORECASE)
_RANGE_BEFORE = re.compile(
    rf"(?<![\w-]){_DAY_NAME}\s*(?:-|–|to|through|thru|till|until)\s*$", re.IGNORECASE
)
_EVENT_LEAD = re.compile(r"(?<![\w-])(?:black|cyber)\s+$", re.IGNORECASE)
#: A weekday or holiday naming a thing, not a day: "Sunday newspaper", "the Sunday Times",
#: "Black Friday deals", "Christmas sale", "Easter opening hours", "Halloween party".
_DAY_AS_NAME = re.compile(
    r"(?:(?:black|cyber)\s+(?:friday|monday)"
    rf"|{_WEEKDAY}\s+(?:newspapers?|papers?|times|school|roast|brunch|supplement|editions?)"
    r"|(?:christmas|xmas|easter|halloween|thanksgiving|new\s+year'?s?|valentine'?s(?:\s+day)?|"
    r"mother'?s\s+day|father'?s\s+day|boxing\s+day)\s+(?:opening\s+)?"
    r"(?:sales?|deals?|offers?|collection|hours|menu|party|parties|specials?|discounts?|"
    r"shopping|markets?|editions?|gifts?|cards?|decorations?|lights|promotion))\b",
    re.IGNORECASE,
)
#: A number that is no date: an age bracket ("kids under 12", "for ages 3"), a part of a work
#: or a series ("Episode 5 of season 2", "Chapter 3").
_AGE_BRACKET = re.compile(
    r"(?:(?:kids|children|people|adults)\s+)?(?:under|over|above|below|ages?|aged)\s+\d{1,3}"
    r"(?:\s*\+|\s+and\s+(?:up|over|above|older|under))?",
    re.IGNORECASE,
)
_PART_OF_A_WORK = re.compile(
    r"\b(?:episode|season|series|chapter|section|page|part|volume|vol\.|issue|level|round|"
    r"stage|phase|grade)\s+\d"
    # a day or week of a course or a plan ("Week 3 of the diet"; "the year 2000" is a year)
    r"|\b(?:day|week)\s+\d{1,2}\b(?![\d/.:-])",
    re.IGNORECASE,
)
#: Hours of a working day ("between 9 and 5", "from 8 to 6"), the last digits of a card or an
#: account ("ending 1234"), a range that is no day and month ("30-39") and "24/7".
_NOT_A_DATE_NUMBER = re.compile(
    r"(?:between|from)\s+(?:[1-9]|1\d|2[0-4])\s*(?:and|to|-|–)\s*(?:[1-9]|1\d|2[0-4])"
    r"|(?:ending|ends)(?:\s+(?:in|with))?\s+\d{4}"
    r"|24\s*/\s*7|24x7",
    re.IGNORECASE,
)
_SHORT_PAIR = re.compile(r"(\d{1,2})\s*[-/]\s*(\d{1,2})")


def _no_day_and_month(value: str) -> bool:
    """Whether two short numbers joined by a dash or a slash ("30-39") can be no day and
    month, read either way."""
    m = _SHORT_PAIR.fullmatch(value)
    if not m:
        return False
    a, b = int(m.group(1)), int(m.group(2))
    return not ((1 <= a <= 12 and 1 <= b <= 31) or (1 <= a <= 31 and 1 <= b <= 12))


#: Lengths of time joined by "and" or a comma ("11 hours and 20 minutes").
_DURATION_JOINT = re.compile(r"\s*,\s*and\s+|\s*,\s*|\s+and\s+", re.IGNORECASE)


_LETTER = re.compile(r"[^\W\d_]")


def not_a_day(text: str, start: int, end: int) -> bool:
    """Whether a date span names no day of a person: hours of a working day, the last digits
    of an account or two numbers that are no day and month (:data:`_NOT_A_DATE_NUMBER`,
    :func:`_no_day_and_month`), weekdays in the plural (:data:`_WEEKLY`)
    or a range of them (:data:`_WEEK_RANGE`), a weekday or holiday naming a thing
    (:data:`_DAY_AS_NAME`), a number that is an age bracket (:data:`_AGE_BRACKET`) or a part
    of a work (:data:`_PART_OF_A_WORK`), or lengths of time joined by "and"."""
    value = text[start:end].strip()
    if _NOT_A_DATE_NUMBER.fullmatch(value) or _no_day_and_month(value):
        return True
    if not _LETTER.search(value):
        return False  # other digits ("1994", "12/03/2024"): each rule below needs a word
    if _WEEKLY.fullmatch(value):
        return True
    before = text[max(0, start - 24) : start].rstrip().lower()
    lead = before.endswith(("black", "cyber")) and _EVENT_LEAD.search(
        text, max(0, start - 12), start
    )
    for regex, at in (
        (_DAY_AS_NAME, start),
        (_DAY_AS_NAME, lead.start() if lead else None),
        (_WEEK_RANGE, start),
    ):
        m = regex.match(text, at) if at is not None else None
        if m and m.end() >= end:
            return True
    if (
        before.endswith(("-", "–", "to", "through", "thru", "till", "until"))
        and _RANGE_BEFORE.search(text, max(0, start - 24), start)
        and _DAY_NAME_RE.match(value)
    ):
        return True  # the second day of a range ("Friday" of "Monday to Friday")
    if " " not in value:
        return False
    if _AGE_BRACKET.fullmatch(value) or _PART_OF_A_WORK.search(value):
        return True
    parts = _DURATION_JOINT.split(value)
    return len(parts) > 1 and all(_DURATION.fullmatch(p) for p in parts)


def date_span_ok(text: str, start: int, end: int) -> bool:
    """Whether a DATE_TIME span of the NER model is a date worth replacing.

    Dropped: a piece of a longer number (:func:`cut_from_number`); a clock time not right after
    a date; a duration ("every 12 months"); a decade, a quarter, a season or a recurring day;
    a weekly schedule, a day naming a thing, an age bracket or a part of a work
    (:func:`not_a_day`).
    """
    value = text[start:end].strip()
    if not value or cut_from_number(text, start, end) or _RELATIVE.fullmatch(value):
        return False
    if _BARE_YEAR.fullmatch(value) and _not_a_year(text, start, end):
        return False
    if _TIME_ONLY.fullmatch(value) and _CLOCK_MARK.search(value):
        return bool(_DATE_BEFORE.search(text[max(0, start - 24) : start]))
    return not (
        _DURATION.fullmatch(value) or _VAGUE.fullmatch(value) or not_a_day(text, start, end)
    )


_SEASON = r"(?:(?:the|early|late|mid)\s+)?(?:spring|summer|autumn|fall|winter)"
#: A clock time, a duration or a season opening a date span, then a joining word: "30 days of
#: 1937-08-24", "30 years this 1970", "7:15 every Monday", "the summer of 1970" (the date is
#: what follows).
_LEADING = re.compile(
    rf"(?:{_DURATION.pattern}|{_CLOCK}|{_SEASON})\s+"
    r"(?=(?:of|this|since|in|on|every|each|from|until)\b)",
    re.IGNORECASE,
)
#: The joining word after a leading time or duration; "every" and "each" stay with the date.
_JOINT = re.compile(r"(?:(?:of|this|since|in|on|from|until)\s+)?", re.IGNORECASE)
#: A clock time closing a date span after a weekday or a month ("Monday at 3pm",
#: "March 3, 10:30"); after a numeric date it is part of the date and stays.
_TRAILING = re.compile(
    rf",?\s+(?:at\s+|from\s+|around\s+|by\s+)?{_CLOCK}"
    r"(?:\s*(?:-|–|to|until)\s*\d{1,2}(?:[:.]\d{2})?\s*(?:[ap]\.?\s?m\b\.?)?)?$",
    re.IGNORECASE,
)


def trim_date_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without a leading clock time or duration (:data:`_LEADING`) and without a
    trailing clock time after a weekday or a month (:data:`_TRAILING`): what is left is the
    date ("30 days of 1937-08-24" -> "1937-08-24", "Monday at 3pm" -> "Monday"). A time right
    after a numeric date, one space or a "T" between, stays ("1995-06-14 03:25:42")."""
    lead = _LEADING.match(text, start, end)
    if lead:
        joint = _JOINT.match(text, lead.end(), end)
        if joint and re.search(r"\d|[A-Za-z]{3}", text[joint.end() : end]):
            start = joint.end()
    trail = _TRAILING.search(text, start, end)
    if trail and trail.start() > start and _CLOCK_MARK.search(trail.group(0)):
        head = text[start : trail.start()]
        glued = re.match(r"[T ]\d", trail.group(0)) and _DATE_BEFORE.search(
            head + trail.group(0)[0]
        )
        if not glued:
            end = start + len(head.rstrip(" ,"))
    return start, end


#: A numeric date with its time as machines write it: ISO 8601 ("2022-11-07T17:44:42.150687",
#: "2004-05-17 01:27:12+02:00") and a date with its clock time ("03/04/2021 10:32 AM"). The
#: NER model reads these in pieces (a date, then the seconds as a phone number); the whole
#: value is one date.
_NUMERIC_DATE_TIME = re.compile(
    r"(?<![\w.:/-])(?:"
    r"(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
    r"(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,9})?)?(?:Z|[+-]\d\d:?\d\d)?)?"
    r"|(?:0?[1-9]|[12]\d|3[01])[/.-](?:0?[1-9]|[12]\d|3[01])[/.-](?:19|20)\d\d"
    r" (?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?[AaPp]\.?[Mm]\b\.?)?"
    r")(?![\w:/-]|\.\d)"
)


#: Held by every match of :data:`_NUMERIC_DATE_TIME`: "4-05-" of "2004-05-17" (a month from 01
#: to 12), "3/04/20" of "03/04/2021 10:32".
_DATE_SHAPE = re.compile(r"\d-[01]\d-|\d[/.-]\d{1,2}[/.-](?:19|20)")


def find_dates(text: str) -> list[Found]:
    """Numeric dates with their clock times (:data:`_NUMERIC_DATE_TIME`), each one span."""
    if "-" not in text and ":" not in text or not _DATE_SHAPE.search(text):
        return []
    return [Found(m.start(), m.end(), "DATE_TIME", 0.85) for m in _NUMERIC_DATE_TIME.finditer(text)]


#: Weekday and month names of the languages Faker writes dates in (English, French, German,
#: Spanish, Italian, Dutch, Polish, Portuguese, Danish, Norwegian, Czech).
_WEEKDAYS = """
monday tuesday wednesday thursday friday saturday sunday lundi mardi mercredi jeudi vendredi
samedi dimanche montag dienstag mittwoch donnerstag freitag samstag sonntag lunes martes
miércoles jueves viernes sábado domingo lunedì martedì mercoledì giovedì venerdì sabato domenica
maandag dinsdag woensdag donderdag vrijdag zaterdag zondag poniedziałek wtorek środa czwartek
piątek sobota niedziela segunda-feira terça-feira quarta-feira quinta-feira sexta-feira mandag
tirsdag onsdag torsdag fredag lørdag søndag pondělí úterý středa čtvrtek pátek neděle
"""
_MONTHS = """
january february march april may june july august september october november december janvier
février mars avril mai juin juillet août septembre octobre novembre décembre januar februar märz
juni juli oktober dezember enero febrero marzo abril mayo junio julio agosto septiembre octubre
noviembre diciembre gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre
januari februari maart mei augustus styczeń luty marzec kwiecień maj czerwiec lipiec sierpień
wrzesień październik listopad grudzień janeiro fevereiro março junho julho setembro outubro
dezembro marts desember leden únor březen duben květen červen červenec srpen září říjen prosinec
"""
#: Names that are common words, given names or surnames too ("may", "Domingo", "Mars"): they
#: count only with a day number or a year, or (capitalised English months) not at all alone.
_AMBIGUOUS = frozenset(
    "may march mars mai mei maj mayo august april june juni juli julio domingo domenica sabato "
    "sobota listopad".split()
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th|\.|º)?"
_YEAR4 = r"(?:1[89]|20)\d\d"
_WEEKDAY_RE = "(?P<wd>" + trie_pattern(_WEEKDAYS.split()) + ")"
_MONTH_RE = "(?P<mo>" + trie_pattern(_MONTHS.split()) + ")"
#: A weekday, a month, or both, with the day number and the year around them: "dimanche, Juillet
#: 26", "marzo 28, 1976", "24 Septembre 1996", "styczeń 2023", "vrijdag".
_NAMED_DATE = re.compile(
    r"(?i)(?<![\w-])(?:"
    rf"(?:{_WEEKDAY_RE}(?:,\s*|\s+))?(?:(?:the\s+)?(?P<d1>{_DAY})\s+(?:of\s+|de\s+)?)?{_MONTH_RE}"
    rf"(?:\s+(?P<d2>{_DAY})(?![\d:]))?(?:,?\s+(?:de\s+)?(?P<y>{_YEAR4}))?"
    rf"|(?P<wd2>{trie_pattern(_WEEKDAYS.split())})"
    r")(?![\w-])"
)


_NAMES = frozenset((_WEEKDAYS + _MONTHS).split())
_TOKEN = re.compile(r"[\w-]+")
#: The only characters :data:`_NAMED_DATE`'s case folding matches to a letter of a name while
#: ``str.lower`` gives another character ("ſ" is "s"; "İ" lowers to two characters).
_ODD_CASE = re.compile("[\u0130\u0131\u017f]")


def _may_name_a_day(text: str) -> bool:
    r"""Whether :data:`_NAMED_DATE` can match in ``text``: every match holds a weekday or a
    month name as a whole run of ``[\w-]`` characters (the pattern has a space, a comma or
    one of its ends, where no ``[\w-]`` character may stand, on both sides of each name), so
    a text none of whose runs is a name, lower-cased, has no match. Text with a character of
    :data:`_ODD_CASE` is always scanned."""
    if _ODD_CASE.search(text):
        return True
    return not _NAMES.isdisjoint(map(str.lower, _TOKEN.findall(text)))


def find_named_dates(text: str, language: str = "en") -> list[Found]:
    """Dates written with a weekday or month name, in the languages of :data:`_WEEKDAYS`.

    In English text a name alone counts when it is a weekday or a lower-case month that is no
    common word, given name or surname (:data:`_AMBIGUOUS`); with a day number or a year any
    name counts. In other languages a name alone never counts ("rappeler avant vendredi":
    a weekday of no one). Scored above the NER model, so that "Sunday" the model calls a
    person is a date.
    """
    out: list[Found] = []
    if not _may_name_a_day(text):
        return out  # no weekday or month name: most texts
    for m in _NAMED_DATE.finditer(text):
        if language != "en" and not (m.group("d1") or m.group("d2") or m.group("y")):
            continue
        name = m.group("wd2") or m.group("mo")
        alone = m.group("wd2") is not None or not (
            m.group("wd") or m.group("d1") or m.group("d2") or m.group("y")
        )
        if alone and (
            name.lower() in _AMBIGUOUS or (m.group("mo") is not None and not name[0].islower())
        ):
            continue  # "May", "Domingo", "Juni" alone: a word or a name as often as a date
        end = m.end()
        if m.group("d2") and end == m.end("d2") and text[end - 1] == ".":
            end -= 1  # "Juillet 26." ends a sentence
        out.append(Found(m.start(), end, "DATE_TIME", 0.9))
    return out
