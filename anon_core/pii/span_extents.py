"""Extents of the name, organisation and place spans: words that are no part of a name cut off,
spans that name nothing dropped.

The small English model runs a name or a place into the words around it ("Meet Iwo Dobroń",
"Discover Amerikaans-Samoa", "Greetings Lisbon") and calls words of films, magazines and shop
windows names ("Zoolander is a 2017 Polish comedy film", "Vogue magazine", "Winter Deals").
:func:`refine_spans` reviews every PERSON, ORGANIZATION and LOCATION span once the recognizers
are done:

* :func:`trim_span` cuts a greeting or an inviting verb before a name ("Dear", "Meet", "Call",
  "Visit", :data:`LEAD_WORDS`), a verb of WordNet opening the sentence that no name takes (before
  a person or a place, any common English word: "Historic Ostróda"), "the", lower-case English
  words after a capitalised name ("Jacob Miller said"), and the common words before a known town
  or country (:func:`place_suffix`: "Lovely Lisbon" is "Lisbon");
* :func:`spurious` drops a greeting or an inviting verb alone ("Welcome", "Thanks"), the title
  of a work (after or before "film", "movie", "book", "song", "show", "magazine",
  "newspaper"..., in quotes after them, or the subject of "... is a 2017 Polish comedy film"), a
  periodical named by English words ("Entertainment Weekly"), a season's offer ("Winter Deals",
  "Spring Collection") and one common English word that no list knows as a name opening a
  sentence before "the", a pronoun, a preposition or a noun ("Subscribe to our newsletter").

A word that is a given name or a surname of the gazetteer is never cut, and a span that holds a
given name and another word is never dropped as a title: recall before precision.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from anon_core.pii.name_lists import NOT_NAME_WORDS, PLACE_WORDS, ROLE_WORDS, wordnet_index
from anon_core.pii.names import PARTICLES, Gazetteer, gazetteer
from anon_core.pii.not_entities import common_word, english, generic_word

KINDS = frozenset({"PERSON", "ORGANIZATION", "LOCATION"})
#: Greetings, closings and inviting verbs that open a span and are no part of a name, lower case.
LEAD_WORDS = frozenset(
    """
    dear hi hello hey thanks thank greetings welcome regards cheers sincerely congratulations
    congrats meet call visit contact email e-mail ask join discover explore enjoy see book fly
    travel tour watch subscribe follow text phone ring message thx ty
    """.split()
)
#: Words that open a town's or a place's name: never cut from it ("New Carol", "Bad Kissingen").
_PLACE_OPENERS = NOT_NAME_WORDS | frozenset(
    "bad great grand little big old long upper lower fort sankt st ste sainte le la el los".split()
)
#: First words of towns' names ("Historic East Sara": a town, though the model calls it a firm).
_TOWN_OPENERS = frozenset("north south east west new lake port mount fort saint san santa".split())
#: Nouns of works whose title the model takes for a name or an organisation ("the film Inception").
WORK_WORDS = (
    "film|movie|book|novel|song|album|single|show|series|sitcom|magazine|newspaper|journal|"
    "podcast|documentary|play|musical|opera|game|video|poem|painting|comic|cartoon|anime|ep"
)
#: Words after a work noun that make it a person's trade ("film director", "book editor").
_TRADE_WORDS = (
    "director|directors|producer|producers|critic|critics|maker|makers|star|stars|actor|actors|"
    "actress|writer|writers|editor|editors|student|students|fan|fans|buff|buffs|composer|host|"
    "reviewer|publisher|agent|designer|developer|studio|company|festival|club|lover|lovers"
)
_WORK_BEFORE = re.compile(rf"\b(?:{WORK_WORDS})s?\s+[\"“'‘]?$", re.IGNORECASE)
#: Works named by a title standing before the noun ("Vogue magazine", "Friends series"). Before
#: a novel, a film, a song, a painting... a name is mostly their maker ("a Dickens novel", "the
#: Spielberg film", "a Monet painting"): a person, kept.
TITLE_FIRST_WORKS = "magazine|newspaper|journal|podcast|show|series|sitcom|documentary|game"
_WORK_AFTER = re.compile(
    rf"^[\"”'’]?\s+(?:{TITLE_FIRST_WORKS})\b(?!\s+(?:{_TRADE_WORDS})\b)", re.IGNORECASE
)
#: Words that never stand between "is a" and a work's genre ("is a big fan of the show").
_NOT_IN_A_GENRE = "(?:of|the|for|in|on|at|with|who|and|to|that|which|fan|member|part|host)"
#: "Zoolander is a 2017 Polish action-comedy film": the subject of a sentence naming a work.
_IS_A_WORK = re.compile(
    rf"^\s+(?:is|was)\s+(?:an?|the)\s+(?:(?!{_NOT_IN_A_GENRE}\b)[\w'-]+\s+){{0,5}}?"
    rf"(?:{WORK_WORDS}|comedy|drama|"
    rf"thriller|sequel|franchise)\b(?!\s+(?:{_TRADE_WORDS})\b)",
    re.IGNORECASE,
)
#: Last words of a periodical's title ("Entertainment Weekly", "Travel Magazine").
_PERIODICAL = frozenset("weekly daily monthly magazine gazette journal review digest".split())
#: Seasons and holidays that open a shop's offer ("Winter Deals", "Summer Sale").
_SEASONS = frozenset(
    "spring summer autumn fall winter holiday holidays christmas easter halloween".split()
)
_TITLES = frozenset("mr mrs ms miss mister dr prof sir madam lady lord".split())
_WORD = re.compile(r"[^\W\d_]+(?:['’.-][^\W\d_]+)*\.?")
_SENTENCE_END = re.compile(r"(?:^|[.!?:;\n>(\[\"“]|^\W+)\s*$")


def _words(text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    """(start, end) of each word between ``start`` and ``end`` of ``text``."""
    offsets = _word_offsets(text[start:end])
    return offsets if start == 0 else tuple((start + a, start + b) for a, b in offsets)


@functools.lru_cache(maxsize=32768)
def _word_offsets(piece: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each word of ``piece``, once per distinct span text."""
    return tuple(m.span() for m in _WORD.finditer(piece))


@functools.lru_cache(maxsize=8192)
def _bare(word: str) -> str:
    """``word`` in lower case without a possessive or a closing dot ("Lee's": "lee")."""
    return _POSSESSIVE.sub("", word).rstrip(".").lower()


_POSSESSIVE = re.compile(r"['’]s$")


@functools.lru_cache(maxsize=1)
def _verbs() -> frozenset[str]:
    index = wordnet_index()
    return index.get("verb", frozenset()) if index else frozenset()


@functools.lru_cache(maxsize=1)
def _countries() -> frozenset[str]:
    from faker.providers.address.en import Provider

    return frozenset(n.split(" (")[0].lower() for n in Provider.countries)


def known_place(words: str, gaz: Gazetteer) -> bool:
    """Whether ``words`` (any case) name a town, region or country of the gazetteer or Faker's
    list of countries ("Lisbon", "Bad Kissingen", "Poland")."""
    low = words.lower()
    return low in gaz.places or low in _countries()


def _sentence_start(text: str, start: int) -> bool:
    return bool(_SENTENCE_END.search(text[max(0, start - 6) : start]))


def _cuttable(word: str, gaz: Gazetteer) -> bool:
    """A word no name or place takes: not a given name or surname, not a place's first word."""
    low = _bare(word)
    if low in LEAD_WORDS:
        return not gaz.is_listed(low)
    return (
        not gaz.is_listed(low)
        and low not in _PLACE_OPENERS
        and low not in ROLE_WORDS
        and low not in _TITLES  # "Miss Kate Griffiths": the title stays with the name
    )


def place_suffix(text: str, words: tuple[tuple[int, int], ...], gaz: Gazetteer) -> int | None:
    """The index of the first word of the known place that ends the span (one to three words)
    when every word before it is a common English word ("Sunny Lisbon", "Hotels Poland"), else
    None. A span that is a place as a whole ("Bad Kissingen", "New Carol") is left whole."""
    if len(words) < 2 or not _cuttable(text[words[0][0] : words[0][1]], gaz):
        return None  # every run of words before the place opens with the first word
    if known_place(" ".join(_bare(text[a:b]) for a, b in words), gaz):
        return None
    for k in range(min(3, len(words) - 1), 0, -1):
        tail = words[len(words) - k :]
        if not text[tail[0][0]].isupper():
            continue
        if not known_place(" ".join(_bare(text[a:b]) for a, b in tail), gaz):
            continue
        head = [text[a:b] for a, b in words[: len(words) - k]]
        if text[words[len(words) - k - 1][1] : tail[0][0]].strip():
            continue  # "Chine (Rép. pop.)": a bracket or a comma between, no run of words
        if all(
            _cuttable(w, gaz) and (_bare(w) in LEAD_WORDS or common_word(_bare(w), gaz))
            for w in head
        ):
            return len(words) - k
    return None


def trim_span(
    text: str, start: int, end: int, entity: str, gaz: Gazetteer
) -> tuple[int, int, str] | None:
    """The span without the words around the name or place (see the module's doc), or None when
    nothing of it is left."""
    return _trim(text, start, end, entity, gaz, lambda at: _sentence_start(text, at))


def _trim(
    text: str,
    start: int,
    end: int,
    entity: str,
    gaz: Gazetteer,
    opens_sentence: Callable[[int], bool],
) -> tuple[int, int, str]:
    """:func:`trim_span`'s rules. They read ``text`` between ``start`` and ``end`` only, and what
    comes before a word only through ``opens_sentence`` (whether the word at an offset opens a
    sentence): :func:`_decided_alone` relies on it to decide a span from its own text. A span that
    is a known place is left whole; that is checked last, only when a word would be cut."""
    words = whole = _words(text, start, end)
    if not words:
        return start, end, entity
    first, last, kind = words[0], words[-1], entity
    lower = text[start:end].islower()
    # the words before the name: greetings, inviting verbs, "the", a sentence's opening verb
    while len(words) > 1:
        a, b = words[0]
        word, nxt = text[a:b], text[words[1][0] : words[1][1]]
        low = _bare(word)
        if lower or not nxt[:1].isupper() or not _cuttable(word, gaz) and low != "the":
            break
        if text[b : words[1][0]].strip(" ,"):
            break  # "Chine (Rép. pop.)": a bracket between, one name
        # a verb opening the sentence ("Discover Kenya"), or for a person or a place any common
        # word ("Historic Ostróda", "Sunny Volania"; "General Motors" stays a firm)
        opener = (
            opens_sentence(a)
            and (low in _verbs() or entity != "ORGANIZATION" or _bare(nxt) in _TOWN_OPENERS)
            and common_word(low, gaz)
            and (low in _verbs() or len(words) > 2 or words[1][1] - words[1][0] > 2)
        )  # "Collective Ip": a firm's name, no common word before two letters
        if not (low in LEAD_WORDS or low == "the" or opener):
            break
        if opener and _bare(text[words[-1][0] : words[-1][1]]) in PLACE_WORDS:
            break  # "Park Avenue", "Turn Lane": the verb opens a street's name
        words = words[1:]
    # lower-case words after a capitalised name ("Jacob Miller said")
    while len(words) > 1 and not lower:
        a, b = words[-1]
        word = text[a:b]
        previous = text[words[-2][0] : words[-2][1]]
        if not word.islower() or word in PARTICLES or len(word) < 3 or not english(word):
            break
        if previous.islower():
            break  # "Territori Francesi del sud": a particle and a word of the name
        words = words[:-1]
    cut = place_suffix(text, words, gaz)
    if cut is not None:
        words, entity = words[cut:], "LOCATION"
    if (words[0], words[-1], entity) == (first, last, kind):
        return start, end, entity
    if any(known_place(text[first[0] : b], gaz) for _, b in whole[1:]) or known_place(
        " ".join(_bare(text[a:b]) for a, b in whole), gaz
    ):
        return start, end, kind  # "British Indian Ocean Territory (...)", "Lao People's ..."
    # the span's own ends where no word was cut ("'s-Heer Arendskerke", "Chine (Rép. pop.)")
    new_start = start if words[0] == first else words[0][0]
    new_end = end if words[-1] == last else words[-1][1]
    return new_start, new_end, entity


def _person_like(text: str, words: tuple[tuple[int, int], ...], gaz: Gazetteer) -> bool:
    """A given name of the gazetteer and another word ("Jane Eyre"), or one word that is a given
    name or a surname ("Please show Warren the room"): kept, a person may be meant."""
    if len(words) == 1:
        return gaz.is_listed(_bare(text[words[0][0] : words[0][1]]))
    return any(gaz.is_given(_bare(text[a:b])) for a, b in words)


class _Facts(NamedTuple):
    """What :func:`spurious` reads from a span's own words, apart from the text around it."""

    one_common_word: bool  # one common English word, no name nor place (may open a phrase)
    place: bool  # a known place as a whole: never dropped
    greeting: bool  # a greeting or an inviting verb alone ("Welcome", "Thanks")
    person_like: bool  # :func:`_person_like`: no title of a work
    offer: bool  # a periodical ("Entertainment Weekly") or a season's offer ("Winter Deals")


def _facts(piece: str, entity: str, gaz: Gazetteer) -> _Facts | None:
    """:class:`_Facts` of a span that is ``piece``, or None when it holds no word."""
    words = _words(piece, 0, len(piece))
    if not words:
        return None
    bare = [_bare(piece[a:b]) for a, b in words]
    index = wordnet_index()
    one_common_word = (
        len(words) == 1
        and piece[:1].isupper()
        and piece[1:].islower()
        and common_word(piece, gaz)  # "Nigeria", "Goldberg": nouns only, proper names among them
        and not known_place(bare[0], gaz)  # "Nice to meet you" may be the town
        and bool(index)
        and not gaz.is_listed(bare[0])  # "Warren from Boston", "Grace the manager"
    )
    greeting = (
        len(words) == 1
        and piece[0].isupper()
        and not piece.isupper()
        and _cuttable(piece, gaz)
        and bare[0] in LEAD_WORDS
    )  # "became Adaptive": a firm
    offer = (
        entity == "ORGANIZATION"
        and len(words) > 1
        and bare[-1] in _PERIODICAL
        and all(not gaz.is_listed(w) and common_or_noun(w) for w in bare[:-1])
    )  # "Entertainment Weekly"
    last = bare[-1]
    if (
        not offer
        and len(words) > 1
        and any(w in _SEASONS for w in bare)
        and (generic_word(last) or common_word(last, gaz))
    ):
        offer = all(w in _SEASONS or generic_word(w) or common_word(w, gaz) for w in bare)
    return _Facts(
        one_common_word,
        known_place(" ".join(bare), gaz),
        greeting,
        _person_like(piece, words, gaz),
        offer,
    )


@functools.lru_cache(maxsize=32768)
def _known_facts(piece: str, entity: str) -> _Facts | None:
    """:func:`_facts` with the default gazetteer, once per distinct span text and type."""
    return _facts(piece, entity, gazetteer())


def spurious(text: str, start: int, end: int, entity: str, gaz: Gazetteer) -> bool:
    """Whether the span names nothing personal (see the module's doc)."""
    facts = _facts(text[start:end], entity, gaz)
    return facts is not None and _spurious_here(text, start, end, facts, gaz)


def _spurious_here(text: str, start: int, end: int, facts: _Facts, gaz: Gazetteer) -> bool:
    """:func:`spurious` of a span whose own words give ``facts``: the text around the span is read
    only when a rule needs it (most names are person-like and no offer: nothing to read)."""
    if facts.one_common_word and _opens_a_phrase(text, start, end, gaz):
        return True  # "Love from all of us", "Grace period ends", "Mark the date"
    if facts.place:
        return False
    if not (facts.greeting or facts.offer or not facts.person_like and _work(text, start, end)):
        return False  # "Welcome", "Thanks": a greeting, no name; a title of a work; an offer
    previous = _PREVIOUS_WORD.search(text[max(0, start - 30) : start])
    return not (previous and previous.group(1).lower() in _TITLES)  # "Mr Cloud"


def _work(text: str, start: int, end: int) -> bool:
    """Whether the span is the title of a work: "the film Inception", "Vogue magazine",
    "Zoolander is a 2017 Polish comedy film"."""
    before, after = text[max(0, start - 30) : start], text[end : end + 80]
    if _WORK_BEFORE.search(before) or _WORK_AFTER.match(after):
        return True
    return _sentence_start(text, start) and bool(_IS_A_WORK.match(after))


_PREVIOUS_WORD = re.compile(r"(\w+)\.?\s*$")


#: Words that follow a verb or a noun, never a person's name opening a sentence ("Love the new
#: design", "Faith in the brand", "Bill me later").
_AFTER_A_WORD = frozenset(
    "the a an this that these those my your our their its me us them it of in to for from with "
    "on at into".split()
)
#: Nouns after a surname that make it a family's or a file's ("Smith family", "Baker account").
_FAMILY_NOUNS = frozenset(
    "family household residence estate account case file report house home children kids "
    "brothers sisters twins group team".split()
)


def _opens_a_phrase(text: str, start: int, end: int, gaz: Gazetteer) -> bool:
    """Whether the span, one capitalised common English word that is no given name or surname of
    the gazetteer (:attr:`_Facts.one_common_word`), opens a sentence before a word that follows
    no name there: "the", a pronoun or a preposition ("Sparkle from the new range") or a
    lower-case noun that is no verb ("Whisper edition"). A name of the gazetteer is kept whatever
    follows ("Warren from Boston", "Grace the manager", and so "Grace period" too): recall
    first."""
    if not _sentence_start(text, start):
        return False
    follower = _FOLLOWER.match(text, end)
    if not follower:
        return False
    nxt = follower.group(1)
    if nxt in _AFTER_A_WORD:
        return True
    if nxt in _FAMILY_NOUNS or gaz.is_listed(nxt):
        return False
    index = wordnet_index()
    forms = [nxt, nxt[:-1]] if nxt.endswith("s") else [nxt]
    return any(f in index["noun"] for f in forms) and not any(
        f in index["verb"] or f in index["adj"] for f in forms
    )


_FOLLOWER = re.compile(r" ([a-z]+)\b")


def common_or_noun(word: str) -> bool:
    """Whether ``word`` (lower case) is in WordNet's index (any part of speech)."""
    index = wordnet_index()
    return bool(index) and any(word in part for part in index.values())


class _Asked(Exception):
    """Raised by :func:`_decided_alone`'s stand-in for ``opens_sentence`` when :func:`_trim` asks
    a question whose answer was not given: ``at`` is the offset of the word asked about."""

    def __init__(self, at: int) -> None:
        super().__init__(at)
        self.at = at


@functools.lru_cache(maxsize=32768)
def _decided_alone(
    piece: str, entity: str, answers: tuple[bool, ...]
) -> tuple[tuple[int, int, str], _Facts | None] | int:
    """:func:`trim_span` of a span whose text is ``piece`` (offsets from its start), with the
    default gazetteer, and the :func:`_known_facts` of what is left of it, given ``answers``: the
    replies, in the order :func:`_trim` asks them, to whether a word opens a sentence. When
    :func:`_trim` asks one more question than ``answers`` holds, the offset of the word it asks
    about (an ``int``) is returned instead, for the caller to answer from the text around the span
    and ask again with that answer added.

    :func:`_trim` reads the text between the span's ends only, and what comes before a word only
    through those questions; so the same text, type and replies give the same cut wherever the
    span stands, and one entry per distinct text, type and replies (a bounded cache) replays the
    rules: most spans ask nothing, and those that ask (a capitalised word before the name that
    may open the sentence) ask once or twice."""
    replies = iter(answers)

    def opens_sentence(at: int) -> bool:
        reply = next(replies, None)
        if reply is None:
            raise _Asked(at)
        return reply

    try:
        cut = _trim(piece, 0, len(piece), entity, gazetteer(), opens_sentence)
    except _Asked as asked:
        return asked.at
    return cut, _known_facts(piece[cut[0] : cut[1]], cut[2])


def refine_spans(
    text: str, spans: Iterable[tuple[int, int, str, float]]
) -> list[tuple[int, int, str, float]]:
    """``spans`` (start, end, entity, score) with the PERSON, ORGANIZATION and LOCATION spans
    trimmed (:func:`trim_span`) and the spurious ones dropped (:func:`spurious`); others as given.

    The same results as those two functions, with the default gazetteer: what a span's own text
    decides is worked out once per distinct text, type and reply to each question of whether a
    word opens a sentence (:func:`_decided_alone`, :func:`_known_facts`; bounded caches), and
    the text around it is read only where a rule needs it: to answer those questions, and in
    :func:`_spurious_here`."""
    gaz = gazetteer()
    out = []
    for start, end, entity, score in spans:
        if entity not in KINDS:
            out.append((start, end, entity, score))
            continue
        piece, answers = text[start:end], ()
        decided = _decided_alone(piece, entity, answers)
        while not isinstance(decided, tuple):  # a word's offset: does it open a sentence here?
            answers += (_sentence_start(text, start + decided),)
            decided = _decided_alone(piece, entity, answers)
        cut, facts = decided
        start, end, entity = start + cut[0], start + cut[1], cut[2]
        if facts is not None and _spurious_here(text, start, end, facts, gaz):
            continue
        out.append((start, end, entity, score))
    return out
