"""Person names beyond the small NER model: gazetteers, token shape, and the model's spans reviewed.

Only small spaCy pipelines install offline, and they miss names they have not seen ("Homero
Portillo", "Usamov and Bowers") or call them organizations or places. :class:`NameAwareNerRecognizer`
(:mod:`anon_core.pii.name_review`) replaces Presidio's ``SpacyRecognizer``: it keeps the model's
spans, then

* finds runs of capitalised words (with middle initials) whose given name or surname is in the
  gazetteer, and single given names; a surname alone only beside another name ("Kónya, Becker and
  Vasquez", "Dale and White"), after a title ("Mr Kastrunek") or before "said" ("Bailly said");
  two lower-case words when the first is a given name and the second a surname;
* turns an ORGANIZATION or LOCATION span of the model into PERSON when it is such a name run
  (an ORGANIZATION span needs one gazetteer word, a LOCATION span a given name and a surname);
* drops ORGANIZATION spans made only of identifier words ("IBAN", "SSN", "Card") and digits: the
  small model tags the word "IBAN" before an IBAN as an organization;
* finds names after "name" cues ("Last name? Boyle"), with a middle initial between two unknown
  words ("Faina D. Yefremova"), and, in text written all in lower case, given names that are no
  English word ("the true gender of bertram"), lists of given names ("nina, corvin and peter")
  and names after cue words ("i talked to voicu");
* reviews the model's PERSON spans (a name stops at a colon or a quote; "Tel" is no name; "Victoria
  Station" is a place) and its one-word places that are names and no known place ("Magnus");
* tags every other mention of a word of a full name found ("... early Yefremova").

The gazetteer is every Latin-script given name and surname of Faker's person providers (all its
locales; Faker is MIT-licensed and ships them in the package, so nothing is downloaded), minus
common words: Faker's English and French lorem word lists and spaCy's English stop words, so that
"Will", "May" or "Young" alone are not names. Loaded once (about 0.4 s).
"""

from __future__ import annotations

import functools
import importlib
import itertools
import logging
import pkgutil
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from anon_core.pii.name_lists import (
    CUE_GLUE,
    IDENTIFIER_WORDS,
    INITIAL_STOP_WORDS,
    LEADING_WORDS,
    LOWER,
    NAME_CUE_WORDS,
    NOT_NAME_WORDS,
    ORG_EXTRA_WORDS,
    ROLE_WORDS,
    SURNAME_PLACE_WORDS,
    UPPER,
    english_words,
    is_english,
    place_names,
    provider_items,
)
from anon_core.pii.name_runs_fast import (
    DOTTED_SUFFIXES,
    PARTICLES,
    RUN_WORDS,
    TITLES,
    run_words,
)
from anon_core.pii.name_shapes import (
    capital_word,
    capitals_alone,
    extend_name,
    extend_start,
    given_then_surname,
    merge_overlapping,
    shape_names,
)
from anon_core.pii.names_fast import (
    INITIAL,
    LOWER_WORD,
    NAME_WORD,
    GazetteerTable,
    may_hold_cue,
    read_tokens,
    unknown_run,
    unknown_word,
)

log = logging.getLogger(__name__)
_LOWER_WORD, _INITIAL = LOWER_WORD, INITIAL
_LATIN = re.compile(rf"[{UPPER}{LOWER}'’-]{{2,}}")
_LIST_JOINERS = frozenset({",", "and", "&", "et", "und", "y", "e"})
#: Verbs after which a lone surname opening a sentence is a person ("Bailly said ...").
_SPEECH_VERBS = frozenset(
    "said says told asked replied added wrote explained confirmed agreed noted called".split()
)
#: Verbs after a lower-case word opening a sentence that make it a subject ("selma is from").
_LOWER_SUBJECT_VERBS = frozenset("is was has had said says told asked called wrote".split())
#: Words after which a lower-case word may be a name in a text written all in lower case
#: ("i talked to voicu", "ask riitta if ...").
_LOWER_CUES = frozenset(
    "to ask asked tell told with met meet call called thank thanks dear hi hello hey".split()
)
#: Words that make a run of capitalised words no person ("Avenue", "Lines", "IBAN").
_NO_NAME = NOT_NAME_WORDS | ORG_EXTRA_WORDS | IDENTIFIER_WORDS
#: Scores: a name run with a given name and a surname outranks the model's ORGANIZATION (0.85).
STRONG, MEDIUM, WEAK = 0.9, 0.7, 0.5


@dataclass(frozen=True)
class Gazetteer:
    """Lower-case given names and surnames, and the common words that are never a name alone."""

    given: frozenset[str]
    family: frozenset[str]
    common: frozenset[str]
    #: Lower-case names of cities, regions and countries ("paris", "georgia"): a word the model
    #: calls a place stays a place when it is one, even if it is a given name too.
    places: frozenset[str] = frozenset()

    def is_given(self, word: str) -> bool:
        w = word.lower()
        return w in self.given and w not in self.common

    def is_family(self, word: str) -> bool:
        w = word.lower()
        return w in self.family and w not in self.common

    def is_name(self, word: str) -> bool:
        return self.is_given(word) or self.is_family(word)

    def is_listed(self, word: str) -> bool:
        """Whether the word is a given name or a surname, a common word or not ("Will")."""
        w = word.lower()
        return w in self.given or w in self.family


def _provider_words(provider: Any, prefixes: Sequence[str]) -> Iterable[str]:
    for item in provider_items(provider, lambda attr: attr.startswith(tuple(prefixes))):
        if isinstance(item, str):
            yield from (w.lower() for w in item.split() if _LATIN.fullmatch(w))


#: Faker locales left out of the gazetteer by default (prefixes, e.g. ("fr",)): a benchmark
#: sets it to measure names the gazetteer has not seen.
EXCLUDED_LOCALES: tuple[str, ...] = ()


@functools.lru_cache(maxsize=2)
def gazetteer(excluded: tuple[str, ...] | None = None) -> Gazetteer:
    """Faker's given names and surnames of every locale (Latin script), minus common words.

    ``excluded``: locale prefixes left out (default :data:`EXCLUDED_LOCALES`).
    """
    if excluded is None:
        return gazetteer(EXCLUDED_LOCALES)
    from spacy.lang.en.stop_words import STOP_WORDS

    try:
        import faker.providers.person as person
        from faker.providers.lorem.en_US import Provider as EnglishWords
        from faker.providers.lorem.fr_FR import Provider as FrenchWords
    except ImportError:  # a core dependency; without it names come from the model and cues only
        log.warning("Faker is not installed: no name gazetteer (pip install faker)")
        return Gazetteer(frozenset(), frozenset(), frozenset(STOP_WORDS))

    given: set[str] = set()
    family: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        if module.name.startswith(excluded):
            continue
        provider = getattr(
            importlib.import_module(f"{person.__name__}.{module.name}"), "Provider", None
        )
        if provider is None:
            continue
        given.update(_provider_words(provider, ("first_name", "first_romanized")))
        family.update(_provider_words(provider, ("last_name", "last_romanized")))
    common = {w.lower() for w in EnglishWords.word_list} | {
        w.lower() for w in FrenchWords.word_list
    }
    common |= {w.lower() for w in STOP_WORDS} | NOT_NAME_WORDS | IDENTIFIER_WORDS | LEADING_WORDS
    return Gazetteer(frozenset(given), frozenset(family), frozenset(common), place_names())


# =============================================================================== finding names
@dataclass(frozen=True)
class NameSpan:
    start: int
    end: int
    score: float


def _sentence_start(tokens: Sequence[Any], i: int) -> bool:
    j = i - 1
    while j >= 0 and tokens[j].is_space:
        j -= 1
    return j < 0 or tokens[j].text in {".", "!", "?", ":", ";", '"', ">", "-", "(", "…"}


def _runs(tokens: Sequence[Any]) -> list[list[int]]:
    """Runs of capitalised words and middle initials joined by single spaces (one line)."""
    runs: list[list[int]] = []
    current: list[int] = []
    for i, tok in enumerate(tokens):
        text = tok.bare  # without "'s"; its shape read once per distinct word (names_fast)
        if (
            tok.name_word
            or (current and tok.initial)
            or (
                current
                and text in PARTICLES
                and tok.whitespace_ == " "
                and _particle_run(tokens, i)
            )
        ):
            current.append(i)
            if tok.whitespace_ != " " or text != tok.text:  # punctuation, a line end or 's
                runs.append(current)
                current = []
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    out = []
    for run in runs:  # an initial cannot end a name ("Type B")
        while run and _INITIAL.fullmatch(tokens[run[-1]].text):
            run = run[:-1]
        if run:
            out.append(run)
    return out


def _particle_run(tokens: Sequence[Any], i: int) -> bool:
    """Whether the particles from token ``i`` lead to a capitalised word on the same line
    ("Fenne van den Bergh", "Luiz da Silva")."""
    j = i
    while j < len(tokens) and tokens[j].text in PARTICLES and tokens[j].whitespace_ == " ":
        j += 1
    return j < len(tokens) and j > i and bool(NAME_WORD.fullmatch(tokens[j].text))


def _run_score(words: Sequence[str], gaz: Gazetteer, sentence_start: bool) -> float:
    """How much a run of capitalised words looks like a person's name (0: not a name)."""
    lowered = [w.lower() for w in words]
    if len(words) == 2 and gaz.is_given(words[0]) and lowered[1] in SURNAME_PLACE_WORDS:
        return MEDIUM  # "Fletcher Hill", "Ava West": a given name and a surname-like place word
    if not words or not _NO_NAME.isdisjoint(lowered) or len(words) > 4:
        return 0.0
    if len(words) == 1:
        if gaz.is_given(words[0]):
            return MEDIUM
        return 0.0
    first, last = words[0], words[-1]
    if any(w in gaz.common for w in lowered[:1]) and not gaz.is_family(last):
        return 0.0
    if gaz.is_given(first) and gaz.is_family(last):
        return STRONG
    if gaz.is_given(first) or (gaz.is_family(last) and not sentence_start):
        return MEDIUM
    if gaz.is_family(last) and (lowered[0] not in gaz.common or given_then_surname(words, gaz)):
        return MEDIUM  # "Peace Ekwueme": a given name that is an English word too, a surname
    return 0.0


#: The scores of :func:`_run_score`, per distinct run and sentence start (bounded).
_RUN_SCORES = GazetteerTable()


def _scored_run(
    table: dict[Any, Any],
    words: tuple[str, ...],
    names: tuple[str, ...],
    gaz: Gazetteer,
    sentence_start: bool,
    english: bool,
) -> float:
    """The score of a run by its words alone (:func:`_run_score`; else a middle initial between
    two names, :func:`_initial_between`; else, in English text, a name no list knows,
    :func:`unknown_run`), which reads nothing but its arguments (``names`` are read from
    ``words``), decided once per distinct run ("Il", "The", a given name alone recur);
    ``table``: the run scores of ``gaz``, ``_RUN_SCORES.of(gaz)``, read once per text."""
    key = (words, sentence_start, english)
    score = table.get(key)
    if score is None:
        score = _run_score(names, gaz, sentence_start)
        if not score and _initial_between(words, gaz):
            score = MEDIUM  # "Faina D. Yefremova": a middle initial between two unknown names
        elif not score and english and unknown_run(names, gaz):
            score = WEAK
        table[key] = score
    return score


def _lower_case_names(tokens: Sequence[Any], gaz: Gazetteer, english: bool) -> list[NameSpan]:
    """Two lower-case words, a given name then a surname, maybe with a middle initial between
    ("eva kleist", "benjamin a seiler"), and a surname of the gazetteer after them ("santino
    gabriel aguirre": the second word was a second given name)."""
    out: list[NameSpan] = []
    count = len(tokens)
    for i, a in enumerate(tokens):
        if a.whitespace_ != " " or not a.lower_word or i + 1 >= count:
            continue
        j = i + 1
        b = tokens[j]
        if len(b.text) == 1 and b.text.isalpha() and b.whitespace_ == " " and i + 2 < count:
            j, b = i + 2, tokens[i + 2]  # a middle initial
        if not b.lower_word or a.text in gaz.common or b.text in gaz.common:
            continue
        if a.text in PARTICLES or (out and a.idx < out[-1].end):
            continue  # "van den" of "Fenne van den Bergh"; the rest of a name found
        given, family = a.text in gaz.given, b.text in gaz.family
        if (
            (given and family)
            or (english and given and _unknown(b.text, gaz))
            or (english and family and _unknown(a.text, gaz))
            or (english and given and j == i + 2 and not is_english(b.text))  # "leidy t muris"
        ):  # "veta līce": a given name and a word no list knows (English text only)
            end = b.idx + len(b.text)
            c = tokens[j + 1] if b.whitespace_ == " " and j + 1 < len(tokens) else None
            if c is not None and c.text in gaz.family and c.text not in gaz.common:
                end = c.idx + len(c.text)  # "santino gabriel aguirre": a second given name
            out.append(NameSpan(a.idx, end, WEAK))
    return out


def _unknown(word: str, gaz: Gazetteer) -> bool:
    """A word in no list: no name, no English word, no common word, no place."""
    return unknown_word(word, gaz.common)


def _initial_between(words: Sequence[str], gaz: Gazetteer) -> bool:
    """Two capitalised words with a middle initial between them, neither a common word."""
    return (
        len(words) == 3
        and bool(_INITIAL.fullmatch(words[1]))
        and not any(w.lower() in gaz.common for w in (words[0], words[2]))
        and words[0].lower() not in INITIAL_STOP_WORDS
        and not any(w.lower() in NOT_NAME_WORDS or w.lower() in IDENTIFIER_WORDS for w in words)
    )


def _after_name_cues(tokens: Sequence[Any], gaz: Gazetteer) -> list[NameSpan]:
    """One to three capitalised words or words in capitals after "name" and a "?", ":", "-" or
    "is" ("What's your last name? Boyle", "Name: Ines Quinn"); a line break ends the name."""
    out = []
    for i, tok in enumerate(tokens):
        if tok.text.lower() not in NAME_CUE_WORDS:
            continue
        j = i + 1
        while j < len(tokens) and (tokens[j].text.lower() in CUE_GLUE or tokens[j].is_space):
            j += 1
        if j == i + 1 or j >= len(tokens):
            continue
        run: list[Any] = []
        while j < len(tokens) and len(run) < 4:
            text = tokens[j].text
            particle = text in PARTICLES and j + 1 < len(tokens)
            if not (
                NAME_WORD.fullmatch(text)
                or capital_word(text)  # "Name: JAAN TAMM"
                or (run and _INITIAL.fullmatch(text))
                or (particle and NAME_WORD.fullmatch(tokens[j + 1].text))
            ):
                break
            run.append(tokens[j])
            if "\n" in tokens[j].whitespace_ or tokens[j].whitespace_ != " ":
                break
            j += 1
        while run and (_INITIAL.fullmatch(run[-1].text) or capitals_alone(run)):
            run.pop()  # an initial ends no name; one word in capitals alone ("README") is none
        if run and (run[0].text in PARTICLES or run[0].text.lower() not in gaz.common):
            out.append(NameSpan(run[0].idx, run[-1].idx + len(run[-1].text), STRONG))
    return out


def _lower_case_given_names(
    tokens: Sequence[Any], found: list[NameSpan], gaz: Gazetteer
) -> list[NameSpan]:
    """In a text written all in lower case, a given name of the gazetteer that is no English word
    (WordNet's, shipped with spaCy's English pipeline: :func:`english_words`) and no common word:
    "the true gender of bertram", "mika: who are you?"."""
    words = english_words()
    if not words:
        return []
    taken = [(n.start, n.end) for n in found]
    out = []
    for tok in tokens:
        w = tok.text
        span = (tok.idx, tok.idx + len(w))
        if (
            tok.lower_word
            and w in gaz.given
            and w not in gaz.common
            and w not in words
            and not any(overlaps(span, t) for t in taken)
        ):
            out.append(NameSpan(span[0], span[1], WEAK))
    return out


def _listed_names(tokens: Sequence[Any], found: list[NameSpan], gaz: Gazetteer) -> list[NameSpan]:
    """A lone surname listed with a name ("Usamov and Bowers", "Kónya, Becker"): a surname of the
    gazetteer beside a name of it or a name found; a surname that is a common word too ("Dale and
    White", "Park and Mann") or a word no list knows ("Nekolná and Pearson") beside a name of the
    gazetteer. The word stands alone: the next word is no capitalised one ("White House")."""
    starts = {s.start for s in found}
    found_words = {(s.start, s.end) for s in found}
    out = []
    count = len(tokens)
    joiner = [t.text in _LIST_JOINERS for t in tokens]
    # only the tokens just before or after a joiner with a word beyond it (1 <= j < count - 1)
    for i in sorted({k for j in range(1, count - 1) if joiner[j] for k in (j - 1, j + 1)}):
        tok = tokens[i]
        joined = [
            tokens[i + 2 * step]
            for step in (-1, 1)
            if 0 <= i + 2 * step < len(tokens) and tokens[i + step].text in _LIST_JOINERS
        ]
        if not joined or tok.idx in starts or not NAME_WORD.fullmatch(tok.text):
            continue
        if i + 1 < len(tokens) and NAME_WORD.fullmatch(tokens[i + 1].text):
            continue
        joined = [n for n in joined if NAME_WORD.fullmatch(n.text)]
        if gaz.is_family(tok.text):
            ok = any(
                gaz.is_name(n.text) or (n.idx, n.idx + len(n.text)) in found_words for n in joined
            )
        else:
            low = tok.text.lower()
            surname = low not in _NO_NAME or low in SURNAME_PLACE_WORDS  # "Park", "West"
            loose = (low in gaz.family and surname) or _unknown(tok.text, gaz)
            ok = loose and any(gaz.is_name(n.text) for n in joined)
        if ok:
            out.append(NameSpan(tok.idx, tok.idx + len(tok.text), MEDIUM))
    return out


def _lower_case_lists(tokens: Sequence[Any], gaz: Gazetteer) -> list[NameSpan]:
    """In a text written all in lower case, the words of a list ("they had 3: nina, corvin and
    aivaras") when half of them or more are given names of the gazetteer, or one is and the
    others are in no list ("olga, vrelidsa and kastrunek"); common words excepted."""
    out: list[NameSpan] = []
    i = 0
    while i < len(tokens):
        items = [tokens[i]] if tokens[i].lower_word else []
        j = i
        while items and j + 2 < len(tokens) and tokens[j + 1].text in _LIST_JOINERS:
            k = j + 2
            if tokens[j + 1].text == "," and tokens[k].text in ("and", "&") and k + 1 < len(tokens):
                k += 1  # the serial comma: "a, b, and c"
            if not tokens[k].lower_word:
                break
            items.append(tokens[k])
            j = k
        given = sum(t.text in gaz.given for t in items)
        if len(items) >= 2 and (
            2 * given >= len(items)
            or (given and all(t.text in gaz.given or _unknown(t.text, gaz) for t in items))
        ):
            out += [
                NameSpan(t.idx, t.idx + len(t.text), WEAK)
                for t in items
                if t.text not in gaz.common and (t.text in gaz.given or t.text not in gaz.places)
            ]
        i = max(j, i) + 1
    return out


def _after_lower_cues(tokens: Sequence[Any], gaz: Gazetteer) -> list[NameSpan]:
    """In a text written all in lower case, a word after "to", "ask", "with", "thanks", ... that
    is a given name of the gazetteer (an English word too: "ask attila") or in no list ("i
    talked to voicu"), or that opens a sentence before "is", "was", "had", "said", ... ("selma is
    from ...", "cormac had given ...")."""
    out = []
    for i, tok in enumerate(tokens):
        w = tok.text
        if not tok.lower_word or w in gaz.common:
            continue
        cue = i > 0 and tokens[i - 1].text in _LOWER_CUES
        subject = (
            _sentence_start(tokens, i)
            and i + 1 < len(tokens)
            and tokens[i + 1].text in _LOWER_SUBJECT_VERBS
        )
        if not (cue or subject):
            continue
        if (w in gaz.given and w not in gaz.places) or _unknown(w, gaz):
            out.append(NameSpan(tok.idx, tok.idx + len(w), WEAK))
    return out


def _speakers(tokens: Sequence[Any], gaz: Gazetteer) -> list[NameSpan]:
    """A word opening a line and followed by a colon: a speaker ("Ubul: What a wife.",
    'Heather:"I'm ...'); capitalised and no common word, or in lower case a given name."""
    out = []
    count = len(tokens)
    for i, tok in enumerate(tokens):
        colon_next = i + 1 < count and tokens[i + 1].text[:1] == ":"
        if not colon_next and ":" not in tok.text:
            continue  # most words: no colon on or after them
        line_start = i == 0 or "\n" in tokens[i - 1].text or "\n" in tokens[i - 1].whitespace_
        word, _, rest = tok.text.partition(":")
        if not line_start or not ((colon_next and not rest) or rest[:1] in {'"', "“"}):
            continue
        low = word.lower()
        if low in gaz.common or low in ROLE_WORDS or low in NAME_CUE_WORDS:
            continue
        if not gaz.is_name(word) and is_english(word):
            continue  # "Attendees:", "Witness:": a heading, not a speaker
        if NAME_WORD.fullmatch(word) or (_LOWER_WORD.fullmatch(word) and low in gaz.given):
            out.append(NameSpan(tok.idx, tok.idx + len(word), WEAK))
    return out


def _titled_or_speaking(
    tokens: Sequence[Any], run: list[int], names: Sequence[str], titled: bool, gaz: Gazetteer
) -> bool:
    """A run of one or two capitalised words after a title ("Mr Simonič"; the title may be a
    separate token: "Dr. Kovač"), or a lone surname of the gazetteer before a speech verb
    ("Bailly said ..."); no word of it a common word or a place or organization word."""
    if not 1 <= len(names) <= 2 or any(
        w.lower() in gaz.common or w.lower() in _NO_NAME for w in names
    ):
        return False
    j = run[0] - 1
    if j >= 0 and tokens[j].text == ".":
        j -= 1
    title = tokens[j].text if j >= 0 else ""
    if titled or (title.lower().rstrip(".") in TITLES and title[:1].isupper()):
        return True
    nxt = run[-1] + 1
    return (
        len(names) == 1
        and gaz.is_family(names[0])
        and nxt < len(tokens)
        and tokens[nxt].text in _SPEECH_VERBS
    )


#: The doc's tokens, read once with each word's shape (:func:`names_fast.read_tokens`).
_read_tokens = read_tokens


def find_names(doc: Any, gaz: Gazetteer | None = None, text: str | None = None) -> list[NameSpan]:
    """Person names in a spaCy ``Doc`` by gazetteer and token shape (no model needed).

    ``text``, when given, is the doc's text (``doc.text``, which spaCy rebuilds token by token
    on each read)."""
    gaz = gaz or gazetteer()
    if text is None:
        text = doc.text
    tokens = _read_tokens(doc, text)
    found: list[NameSpan] = []
    # a cell of one word ("Silver" in an insurance-plan column) has no context to tell a name
    single_word = len(list(itertools.islice((t for t in tokens if t.is_alpha), 2))) <= 1
    english = getattr(doc, "lang_", "en") == "en"
    run_scores, read_runs = _RUN_SCORES.of(gaz), RUN_WORDS.of(gaz)
    for run in _runs(tokens):
        # the opening words that are no part of the name stripped, words and names read once
        # per distinct run (:func:`~anon_core.pii.name_runs_fast.read_run`)
        skip, titled, words, names = run_words(read_runs, tuple([tokens[i].text for i in run]), gaz)
        run = run[skip:]
        if not run:
            continue
        score = _scored_run(run_scores, words, names, gaz, _sentence_start(tokens, run[0]), english)
        if not score and _titled_or_speaking(tokens, run, names, titled, gaz):
            score = MEDIUM
        if score and not (single_word and len(names) == 1):
            last = tokens[run[-1]]
            end = last.idx + len(last.bare)  # without "'s"
            if end == last.idx + len(last.text) and text[end : end + 1] in ("-", ",", " "):
                end = extend_name(text, end)  # a hyphened surname, a suffix (no "'s" before)
            elif last.text in DOTTED_SUFFIXES and text[end : end + 1] == ".":
                end += 1  # "Haddad Sr." ending a sentence: spaCy splits the dot off
            start = tokens[run[0]].idx
            if text[start - 2 : start] == ". ":
                start = extend_start(text, start)  # initials before the name ("J. R. Smith")
            found.append(NameSpan(start, end, score))
    found += [NameSpan(a, b, MEDIUM) for a, b in shape_names(text, tokens, gaz, _NO_NAME, english)]
    found += _lower_case_names(tokens, gaz, english)
    found += _after_name_cues(tokens, gaz) if may_hold_cue(text) else []
    found += _speakers(tokens, gaz) if ":" in text else []  # a speaker needs a colon
    if text == text.lower() and english:
        found += _lower_case_given_names(tokens, found, gaz)
        found += _lower_case_lists(tokens, gaz)
        found += _after_lower_cues(tokens, gaz)
    found += _listed_names(tokens, found, gaz)
    return [NameSpan(a, b, score) for a, b, score in merge_overlapping(found)]


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two (start, end) spans share a character."""
    return a[0] < b[1] and b[0] < a[1]
