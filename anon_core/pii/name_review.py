"""The NER model's spans reviewed against the names :mod:`anon_core.pii.names` finds.

:func:`review_entities` keeps the model's spans, relabels organisations and places that are names,
cuts person spans at colons, quotes and line ends, drops identifier words and phone numbers read
as dates, adds the names the model missed and tags other mentions of the names found;
:func:`name_aware_recognizer_class` is Presidio's ``SpacyRecognizer`` with that review.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Sequence
from typing import Any

from anon_core.pii.name_lists import (
    IDENTIFIER_WORDS,
    NAME_CUE_WORDS,
    NOT_NAME_WORDS,
    ORG_EXTRA_WORDS,
    PLACE_WORDS,
    ROLE_WORDS,
    SURNAME_PLACE_WORDS,
    english_words,
    is_english,
    unknown_name_run,
)
from anon_core.pii.name_review_fast import holds_name_word
from anon_core.pii.names import (
    MEDIUM,
    NAME_WORD,
    PARTICLES,
    STRONG,
    Gazetteer,
    NameSpan,
    find_names,
    gazetteer,
    overlaps,
)
from anon_core.pii.names_fast import POSSESSIVE, GazetteerTable
from anon_core.pii.not_entities import english_not_name, generic_phrase, shouted_words
from anon_core.pii.web_addresses import split_at_web_addresses

#: A date or time names a day, a month, a season, a holiday or has digits; else it is a duration.
_DATE_WORD = re.compile(
    r"\d|\b(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|mon|tues?|wed|thu(?:rs?)?|fri|sat|sun|spring|summer|autumn|fall|"
    r"winter|christmas|easter|noon|midnight|tonight|today|yesterday|tomorrow)\b",
    re.IGNORECASE,
)
#: A run of digits no name, place or organization holds (IBANs, cards, phones, IDs).
_LONG_NUMBER = re.compile(r"\d{6,}|(?:\d[ .-]?){9,}")
#: A run of digits with single separators; one of 7 digits or more without a date or time in it
#: is a phone or an identifier the NER model folded into a DATE_TIME ("69 91 02 37 tomorrow").
_DIGIT_RUN = re.compile(r"\d(?:[ ./()-]?\d)+")
#: A run that is a date (and an hour), years, or a compact date: the whole run, not a piece
#: ("04.67.29.89.65" holds "04.67.29" but is a phone).
_DATE_RUN = re.compile(
    r"(?:\d{4}([-/.])\d{1,2}\1\d{1,2}|\d{1,2}([-/.])\d{1,2}\2\d{2,4})(?: \d{1,2})?"
    r"|(?:(?:19|20)\d\d[ /-]?)+|(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
)
#: Words after which a capitalised word is a place ("in Florence", "moved to Houston").
_PLACE_LEAD = re.compile(
    r"\b(?:in|to|from|at|near|into|via|across|around|outside|inside|visit|visited|visiting|"
    r"towards?|leaves?)\s+$",
    re.IGNORECASE,
)


#: French place cues before a town ("né à", "habite à", "demeurant à", "originaire de", "la ville
#: de"): whatever capitalised words follow are a place, over the surname rules ("né à Lebrun").
_FRENCH_PLACE_CUE = re.compile(
    r"\b(?:née?s?|habite|habitait|habitant|demeurant|domiciliée?s?|résidant|réside|vit|vivant|"
    r"installée?s?|originaire|située?s?|ville|commune|mairie|école|collège|lycée|"
    r"hôpital|région|département|village)\s+(?:à|au|aux|en|de|d['’]|du)\s*$",
    re.IGNORECASE,
)
#: A bare "à" before one capitalised word ("à Lebrun"), or a word between a comma and ", le"
#: and a date ("Signé : Ines Leroy, Grondin, le 20/09/2001").
_A_BEFORE = re.compile(r"(?:^|[\s'’])à\s+$")
#: How the text before a town ends for :data:`_FRENCH_PLACE_CUE` or :data:`_A_BEFORE` to match
#: (their last word, in lower case, spaces aside).
_CUE_ENDS = ("à", "au", "aux", "en", "de", "d'", "d’", "du")
_DATE_AFTER = re.compile(r"^,?\s+le\s+\d")
#: Patterns the reviews below use, compiled once.
_LAST_CAPITALISED = re.compile(r"[A-Z][a-z]+\.?$")
_SAINT_BEFORE = re.compile(r"\bSainte? $")
_NOT_DIGIT = re.compile(r"\D")
_ALNUM_WORD = re.compile(r"[^\W_]+")
_LETTER_WORD = re.compile(r"[^\W\d_]+")
_CUT = re.compile(r"[:\"“”]| [-–—] ")
_TRAILING_JUNK = re.compile(r"(?:\s+[^\sA-Za-zÀ-ÖØ-öø-ÿ\u0100-\u017f]+)+$")
_LOWER_AFTER_SPACE = re.compile(r"(?<=\s)[a-z]+\b")
#: A town's shape: "Saint Roger", "Pires-sur-Mer", "Noël-les-Bains", "MorvanVille", "RémyBourg".
_TOWN_SHAPE = re.compile(
    r"(?:Saint|Sainte|St|Ste)[ -]\S+|(?:\S+ )?\S+-(?:sur|sous|lès|les|en|la|le|de|du|aux)-\S+"
    r"|\S+(?:ville|Ville|bourg|Bourg)"
)


def french_place(text: str, start: int, end: int, gaz: Gazetteer | None = None) -> bool:
    """Whether the words ``text[start:end]`` stand where a French text names a town: after a
    place cue ("né à", "habite à", "l'école de"); after a bare "à" when one word that is no given
    name or a town's shape ("à Lebrun", "à Saint Roger"; "à Louis" stays a person unless a date
    follows: "à Louis le 3 mai"); or between a comma and ", le" and a date ("..., Grondin, le
    20/09/2001"). A place cue wins over the name rules: many French towns are surnames."""
    span = text[start:end]
    if "\n" in span or not span[:1].isupper():
        return False
    before = text[max(0, start - 40) : start]
    if not (before.endswith(", ") or before.rstrip()[-3:].lower().endswith(_CUE_ENDS)):
        return False  # every rule below needs a cue word, "à" or ", " just before: most spans
    if _FRENCH_PLACE_CUE.search(before):
        return True
    one_word = " " not in span or bool(_TOWN_SHAPE.fullmatch(span))
    date_after = bool(_DATE_AFTER.match(text[end : end + 12]))
    if _A_BEFORE.search(before) and one_word:
        given = gaz is not None and " " not in span and gaz.is_given(span)
        return not given or date_after or bool(_TOWN_SHAPE.fullmatch(span))
    return one_word and date_after and before.endswith(", ")


def _english_word_alone(
    text: str, start: int, end: int, entity: str, gaz: Gazetteer | None
) -> bool:
    """Whether a person span of the model is one capitalised English word that no list knows as a
    name, after a capitalised word inside a sentence ("Cautionary Tales"): the title of a work,
    not a person; after a title ("Mr Tales") it stays a person."""
    span = text[start:end]
    if gaz is None or entity != "PERSON" or " " in span:
        return False  # two words or more are no one capitalised word (most spans)
    word = POSSESSIVE.sub("", span)
    if not NAME_WORD.fullmatch(word):
        return False
    low = word.lower()
    before = text[max(0, start - 30) : start].rstrip()
    previous = _LAST_CAPITALISED.search(before)
    head = before[: previous.start()].rstrip() if previous else ""
    return (
        previous is not None
        and head[-1:] not in ("", ".", "!", "?", ":", ";", '"')  # "Then Tales": a sentence start
        and previous.group().rstrip(".").lower() not in _TITLE_WORDS
        and low not in gaz.given
        and low not in gaz.family
        and is_english(low)
    )


def _no_name(text: str, start: int, end: int, gaz: Gazetteer | None) -> bool:
    """Whether a person span of the model holds no name: common English words only, none a
    given name or surname of the gazetteer ("Cloud", "Customer Support", "Volunteers"), words of
    offices and web pages ("Order Status") or words in capitals ("PLEASE CALL"); after a title
    ("Mr Cloud") it stays a person (:mod:`anon_core.pii.not_entities`)."""
    if gaz is None or not _words_no_name(text[start:end], gaz):
        return False
    previous = _LAST_CAPITALISED.search(text[max(0, start - 12) : start].rstrip())
    return previous is None or previous.group().rstrip(".").lower() not in _TITLE_WORDS


@functools.lru_cache(maxsize=8192)
def _generic_place(span: str, gaz: Gazetteer) -> bool:
    """:func:`generic_phrase` of a place span of the model, decided once per span text (the
    same towns recur in a document)."""
    return generic_phrase(span, gaz)


#: The endings :data:`POSSESSIVE` matches, for ``str.endswith``.
_POSSESSIVE_ENDS = ("'s", "’s")


def _words_no_name(span: str, gaz: Gazetteer) -> bool:
    """The words of :func:`_no_name`, decided once per span text (names recur in a document;
    a bounded table bound to the gazetteer: :class:`~anon_core.pii.names_fast.GazetteerTable`)."""
    table = _NO_NAME_SPANS.of(gaz)
    verdict = table.get(span)
    if verdict is None:
        verdict = table[span] = _span_words_no_name(span, gaz)
    return verdict


_NO_NAME_SPANS = GazetteerTable(8192)


def _span_words_no_name(span: str, gaz: Gazetteer) -> bool:
    """Whether a span's words hold no name (:func:`english_not_name`, :func:`generic_phrase` or
    :func:`shouted_words`); a span holding a word that none of the three takes (a name) is
    decided at once (:func:`~anon_core.pii.name_review_fast.holds_name_word`: the same verdict)."""
    if holds_name_word(span, gaz):
        return False
    return english_not_name(span, gaz) or generic_phrase(span, gaz) or shouted_words(span, gaz)


#: Greetings the name rules may take into a name run ("Hey Maya", "Yo Ann").
_GREETING = re.compile(r"(?i:hey|hiya|yo|howdy|cheers|greetings),?\s+(?=\w)")
#: Titles before a surname: "Mr Baker" stays a person.
_TITLE_WORDS = frozenset("mr mrs ms miss mister dr prof sir madam lady lord".split())


def _town_start(text: str, start: int, end: int, gaz: Gazetteer | None) -> int | None:
    """Where the town that ``text[start:end]`` names starts (with a "Saint " or "Sainte " before
    it: "Saint Roger"), when :func:`french_place` says it stands as a town; else None."""
    saint = (  # the pattern needs "Saint" in the window: most spans have none (read in place)
        _SAINT_BEFORE.search(text[max(0, start - 7) : start])
        if text.find("Saint", max(0, start - 7), start) >= 0
        else None
    )
    if saint and french_place(text, start - len(saint.group()), end, gaz):
        return start - len(saint.group())
    return start if french_place(text, start, end, gaz) else None


def _holds_number(text: str) -> bool:
    """Whether ``text`` holds a run of 7 or more digits that is no date, time or year range."""
    return any(
        len(_NOT_DIGIT.sub("", m.group(0))) >= 7 and not _DATE_RUN.fullmatch(m.group(0))
        for m in _DIGIT_RUN.finditer(text)
    )


def _only_identifier_words(text: str) -> bool:
    words = _ALNUM_WORD.findall(text.lower())
    return bool(words) and all(w in IDENTIFIER_WORDS or w.isdigit() for w in words)


def review_entities(
    text: str,
    entities: Sequence[tuple[int, int, str, float]],
    names: Sequence[NameSpan],
    common: frozenset[str] = frozenset(),
    gaz: Gazetteer | None = None,
) -> list[tuple[int, int, str, float]]:
    """The model's spans, reviewed against the name spans, plus the name spans it missed.

    ``entities`` are (start, end, Presidio entity, score) from the NER model; ``common`` the
    words that may stand beside a name inside the model's span (the gazetteer's common words).
    With ``gaz``, a one-word place of the model that is a name and no known place becomes a
    person (:func:`_place_or_person`), and the surname or given name of a full name found in
    the text is a person wherever else it stands (:func:`_repeated_mentions`).
    """
    out: list[tuple[int, int, str, float]] = []
    claimed: list[NameSpan] = []
    # an e-mail address or URL inside a span is the pattern recognizers': cut out, with words
    # beside it that hold no name ("mailto:", "Thanks")
    entities = split_at_web_addresses(text, entities, gaz)
    for start, end, entity, score in entities:
        town = _town_start(text, start, end, gaz) if entity in ("PERSON", "LOCATION") else None
        if town is not None:  # a place cue wins over the name rules ("né à Lebrun")
            start, entity = town, "LOCATION"
        elif entity == "PERSON":
            reviewed = _review_person(text, start, end, common)
            if reviewed is None or _english_word_alone(text, *reviewed, gaz):
                continue
            start, end, entity = reviewed
            if entity == "PERSON" and _no_name(text, start, end, gaz):
                continue  # "Customer Support", "Settings", "DO NOT REPLY": words, no name
        if (
            entity == "LOCATION"
            and town is None
            and gaz is not None
            and _place_or_person(text, start, end, gaz)
        ):
            entity, score = "PERSON", max(score, STRONG)
        if entity in ("PERSON", "ORGANIZATION", "LOCATION") and text.find("\n", start, end) >= 0:
            end = start + len(
                text[start:end].split("\n", 1)[0].rstrip()
            )  # a name ends at a line end
            if end <= start:
                continue
        if entity in ("PERSON", "ORGANIZATION", "LOCATION") and text.endswith(
            _POSSESSIVE_ENDS, start, end
        ):  # :data:`POSSESSIVE` at the end: no line break is left in such a span (cut above)
            end -= 2
        if entity == "ORGANIZATION" and _only_identifier_words(text[start:end]):
            continue
        if entity == "LOCATION" and gaz is not None and _generic_place(text[start:end], gaz):
            continue  # "Invoice", "the Head Office": words of offices, no place
        # (the pattern has no anchor, look-around or boundary: searched in place as on a slice)
        if entity in ("PERSON", "ORGANIZATION", "LOCATION") and _LONG_NUMBER.search(
            text, start, end
        ):
            continue  # "IBAN FR76 3000 ..." as a person: the number is the pattern recognizers'

        if entity in ("ORGANIZATION", "LOCATION"):
            inside = [n for n in names if start <= n.start and n.end <= end]
            need = MEDIUM if entity == "ORGANIZATION" else STRONG
            rest = text[start : inside[0].start] + " " + text[inside[0].end : end] if inside else ""
            if (
                len(inside) == 1
                and inside[0].score >= need
                and all(w.lower() in common for w in _LETTER_WORD.findall(rest))
            ):  # the name and common words ("Contact Ella H. Snider", "Ms Ines Quinn's")
                claimed.append(inside[0])
                out.append((inside[0].start, inside[0].end, "PERSON", max(score, inside[0].score)))
                continue
        if entity == "DATE_TIME" and not _DATE_WORD.search(text[start:end]):
            continue  # a duration ("a couple of months", "years"): no date to link on
        if entity == "DATE_TIME" and _holds_number(text[start:end]):
            continue  # a phone number read as a date: the digits are the pattern recognizers'
        out.append((start, end, entity, score))
    for name in names:
        if name in claimed:
            continue
        if name.score < STRONG and _no_name(text, name.start, name.end, gaz):
            continue  # "Server", "Volunteers": English words the name rules took for a name
        greeting = _GREETING.match(text, name.start, name.end)
        if greeting:  # "Hey Maya": the greeting is no part of the name
            name = NameSpan(greeting.end(), name.end, name.score)
        n_start, n_end = name.start, name.end
        clash = [e for e in out if e[0] < n_end and n_start < e[1]]  # overlaps, inline
        cover = [e for e in clash if e[2] == "PERSON" and e[0] <= name.start and name.end <= e[1]]
        if cover:  # the model's name already covers it (a longer name run wins the overlap),
            # with the run's score when higher: it then wins over a place or a title rule's
            # piece across it ("Thanks, Georgia" of "Thanks, Georgia Storey")
            # (in place: an entry equal to a covering one covers the name too, so the entries
            # raised are those the test below picks; the others stay as they are)
            for k, (a, b, e, sc) in enumerate(out):
                if e == "PERSON" and a <= n_start and n_end <= b and sc < name.score:
                    out[k] = (a, b, e, name.score)
            continue
        other = [e for e in clash if e[2] in ("LOCATION", "ORGANIZATION")]
        if other and all(
            name.start <= e[0] and e[1] <= name.end and e[1] - e[0] < name.end - name.start
            for e in other
        ):
            if name.score >= MEDIUM:  # the model's "Ágnes" (an organization) of "Ágnes Földesy"
                out = [e for e in out if e not in other]
                clash = [e for e in clash if e not in other]
                other = []
        if other and name.score < STRONG:
            continue
        town = _town_start(text, name.start, name.end, gaz)
        if town is not None:
            if not any(overlaps((e[0], e[1]), (town, name.end)) for e in out):
                out.append((town, name.end, "LOCATION", name.score))
            continue
        inner = [e for e in clash if e[2] == "PERSON" and name.start <= e[0] and e[1] <= name.end]
        if inner:  # the model's shorter name inside ("Ágnes" of "Ágnes Földesy"): the run wins
            out = [e for e in out if e not in inner]
        score = max([name.score] + [e[3] for e in inner])
        out.append((name.start, name.end, "PERSON", score))
    if gaz is not None:
        out = _repeated_mentions(text, out, gaz)
        out = [
            (a, b, "ORGANIZATION", sc)
            if e == "PERSON" and _compound_brand(text[a:b], gaz)
            else (a, b, e, sc)
            for a, b, e, sc in out
        ]
    return out


def _compound_brand(span: str, gaz: Gazetteer) -> bool:
    """Whether a one-word person span is two English words of four letters or more run together
    and no name of the gazetteer ("Datamarket", "Hellowallet", "Poweradvocate"): a company's or
    a product's name. It is relabelled, not dropped, so the word stays covered. A span shorter
    than 8 characters or with a space (no one capitalised word) is none, read first."""
    if len(span) < 8 or " " in span:
        return False  # most person spans: the rules below need one word of 8 letters or more
    word = POSSESSIVE.sub("", span)
    low = word.lower()
    if not NAME_WORD.fullmatch(word) or "-" in word or gaz.is_name(low) or len(low) < 8:
        return False
    english = english_words()
    return any(
        low[:i] in english and low[i:] in english and low[i:] not in _SURNAME_ENDINGS
        for i in range(4, len(low) - 3)
    )


#: Second halves that make surnames, not brands ("Goldberg", "Silverstein", "Blackwood").
_SURNAME_ENDINGS = frozenset(
    "berg burg stein mann feld baum dorf thal wood field ford worth well land holm dahl lund "
    "gren ström strom quist qvist hart hardt wald".split()
)


def _review_person(
    text: str, start: int, end: int, common: frozenset[str]
) -> tuple[int, int, str] | None:
    """The start, end and entity of a model's PERSON span after review, or None to drop it.

    A name does not cross a colon, a quotation mark or a spaced dash ("Ann Lee - Clerk"):
    'Heather:"I'm Daniel' keeps the speaker, "Name:John Smith" the words after a cue or role
    word. A span of identifier or cue words only ("Tel", "Surname") is no name; a span in
    lower case stops at a common word ("cormac had given ..."); one holding a place word
    ("Victoria Station") is a place, one holding an organization word ("Van Lines") an
    organization, unless it is a name and a surname-like place word ("Fletcher Hill").
    """
    reviewed = _reviewed_span(text[start:end], common)
    if reviewed is None:
        return None
    return start + reviewed[0], start + reviewed[1], reviewed[2]


@functools.lru_cache(maxsize=8192)
def _reviewed_span(span: str, common: frozenset[str]) -> tuple[int, int, str] | None:
    """:func:`_review_person` on the span's text alone (it reads nothing around it), offsets
    in the span; decided once per span text (names recur in a document)."""
    start, end = 0, len(span)
    cut = _CUT.search(span)
    if cut:
        head = span[: cut.start()].strip()
        tail = span[cut.end() :]
        if head.lower() in _HEAD_WORDS or not head:
            start = end - len(tail.lstrip(' "“”:'))
        else:
            end = len(span[: cut.start()].rstrip())
        if end <= start or not (NAME_WORD.match(span[start:end]) or span[start:end].islower()):
            return None
    if _only_identifier_words(span[start:end]) or span[start:end].lower() in NAME_CUE_WORDS:
        return None
    junk = _TRAILING_JUNK.search(span[start:end])
    if junk and junk.start() > 0:  # "Darijo Čurin ג€": a name ends at its last Latin word
        end = start + junk.start()
    if span[start:end].islower():
        for m in _LOWER_AFTER_SPACE.finditer(span[start:end]):
            if m.group() in common and m.group() not in PARTICLES:  # "cormac had given ..."
                end = start + len(span[start : start + m.start()].rstrip())
                break
    return start, end, place_or_organisation(span[start:end]) or "PERSON"


#: Words of places and organizations (:func:`place_or_organisation`), joined once.
_OTHER_WORDS = NOT_NAME_WORDS | ORG_EXTRA_WORDS
#: Words before a colon that are no name ("Name:", "Tel:"), joined once.
_HEAD_WORDS = ROLE_WORDS | NAME_CUE_WORDS | IDENTIFIER_WORDS


def place_or_organisation(span: str) -> str | None:
    """The place or organization a span is by its words ("Victoria Station", "Van Lines"), or
    None (a person; "Fletcher Hill": a name and a surname-like place word). Both reviews use it."""
    words = [w.lower() for w in _LETTER_WORD.findall(span)]
    other = _OTHER_WORDS
    if not other.isdisjoint(words) and not (
        len(words) == 2 and words[0] not in other and words[1] in SURNAME_PLACE_WORDS
    ):
        return "LOCATION" if any(w in PLACE_WORDS for w in words) else "ORGANIZATION"
    return None


def _place_or_person(text: str, start: int, end: int, gaz: Gazetteer) -> bool:
    """Whether a one-word span the model calls a place is a person's name: a given name or a
    surname of the gazetteer ("Magnus", "Franciska's") or a word no list knows ("Gelvina":
    :func:`unknown_name_run`) that is no city, region or country and does not follow a word
    that leads to a place ("in Florence", "to Houston")."""
    word = POSSESSIVE.sub("", text[start:end].strip())
    return (
        not _PLACE_LEAD.search(text[max(0, start - 20) : start])
        and bool(NAME_WORD.fullmatch(word))
        and (gaz.is_name(word) or unknown_name_run([word], gaz.is_name, gaz.common))
        and word.lower() not in gaz.places
    )


def _repeated_mentions(
    text: str, out: list[tuple[int, int, str, float]], gaz: Gazetteer
) -> list[tuple[int, int, str, float]]:
    """Each word of a full name (two or more capitalised words, or in lower case two words or
    more, one of them a name of the gazetteer) found as PERSON is a person wherever else it
    stands, as written, in the text ("... Faina Yefremova's ... early Yefremova", "eric g.
    samoylova's ... early samoylova"), over the model's place or organization on that word
    alone. Each word is looked up with ``str.find`` (no pattern compiled per text)."""
    words: set[str] = set()
    for start, end, entity, _ in out:
        if entity != "PERSON":
            continue
        span = text[start:end]
        parts = NAME_WORD.findall(span)
        if len(parts) < 2 and span.islower():
            parts = _LOWER_PART.findall(span)
            if not any(gaz.is_name(w) for w in parts):
                parts = []
        if len(parts) >= 2:
            words.update(w for w in parts if w.lower() not in gaz.common)
    if not words or all(text.find(w, text.find(w) + 1) < 0 for w in words):
        # each word stands once in the text: in the person span it was read from, so every
        # mention below would overlap a person span and be left (the same result, sooner)
        return out
    mentions = set()
    size = len(text)
    for word in words:
        i = text.find(word)
        while i >= 0:
            j = i + len(word)
            # no character that continues a word (a letter, digit, "_" or "-") just before or
            # after it, read in place (no slice and no call a match)
            before = text[i - 1] if i else ""
            after = text[j] if j < size else ""
            if not (
                (before and (before.isalnum() or before in "_-"))
                or (after and (after.isalnum() or after in "_-"))
            ):
                mentions.add((i, j))
            i = text.find(word, i + 1)
    persons = sorted((a, b) for a, b, e, _ in out if e == "PERSON")
    starts = [a for a, _ in persons]
    reach = list(itertools.accumulate((b for _, b in persons), max))  # furthest end so far
    for span in _leftmost_longest(mentions):
        k = bisect.bisect_left(starts, span[1])  # persons[:k] start before the span ends
        if k and reach[k - 1] > span[0]:
            continue  # a person span overlaps it
        out = [
            e for e in out if not (e[2] in ("LOCATION", "ORGANIZATION") and (e[0], e[1]) == span)
        ]
        out.append((span[0], span[1], "PERSON", STRONG))
    return out


#: The words of a name in lower case ("eric g. samoylova": "eric", "samoylova").
_LOWER_PART = re.compile(r"[^\W\d_]{2,}")


def _leftmost_longest(spans: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans without overlaps, as a regex alternation longest first would find them."""
    kept: list[tuple[int, int]] = []
    for a, b in sorted(spans, key=lambda s: (s[0], -s[1])):
        if not kept or a >= kept[-1][1]:
            kept.append((a, b))
    return kept


def name_aware_recognizer_class() -> type:
    """Presidio's ``SpacyRecognizer`` whose spans are reviewed by :func:`review_entities`."""
    from presidio_analyzer import RecognizerResult
    from presidio_analyzer.predefined_recognizers import SpacyRecognizer

    class NameAwareNerRecognizer(SpacyRecognizer):
        """The NER model's spans, with gazetteer names added and organizations reviewed."""

        def analyze(self, text: str, entities: Any, nlp_artifacts: Any = None) -> list[Any]:
            if not nlp_artifacts or nlp_artifacts.tokens is None:
                return super().analyze(text, self.supported_entities, nlp_artifacts)
            # the model's spans of the supported types, as the base class reads them (without
            # its results and explanations, which the review below would drop)
            supported = self.supported_entities
            base = []
            for ent, score in zip(nlp_artifacts.entities, nlp_artifacts.scores, strict=False):
                label = ent.label_
                if label in supported:
                    base.append((ent.start_char, ent.end_char, label, score))
            names = find_names(nlp_artifacts.tokens, text=text)
            reviewed = review_entities(
                text,
                base,
                names,
                gazetteer().common,
                gazetteer(),
            )
            return [
                RecognizerResult(entity, start, end, score)
                for start, end, entity, score in reviewed
                if entity in entities
            ]

    return NameAwareNerRecognizer
