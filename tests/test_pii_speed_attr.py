"""The cheaper scans of the age, title, date and group finders (:mod:`anon_core.pii.attributes_fast`,
:mod:`anon_core.pii.titles_fast`, :mod:`anon_core.pii.nrp_fast`) give what the plain scans they
replace give: each is compared with a slow reference kept here (the code as it was) on
hand-written texts and on generated ones."""

from __future__ import annotations

import random
import re

import pytest

from anon_core.pii import (
    attribute_roles,
    attributes,
    attributes_fast,
    dates,
    nrp_fast,
    titles,
    titles_fast,
)
from anon_core.pii.attribute_roles import age_of_a_thing
from anon_core.pii.found import Found

#: Pieces the generated texts are made of: number words in several cases and glued to other
#: words, digits, age phrases, the four characters that case folding treats apart, names.
_PIECES = (
    "one", "Two", "THREE", "four", "fourteen", "forty-two", "seventeen", "seventy one", "eighty",
    "often", "someone", "phone", "attention", "ſix", "ſeven", "İnci", "ıt", "K", "twelve",
    "twenty-nine", "Ninety", "ELEVEN", "fifty", "fifteen", "thirty", "thirteen", "nineteen",
    "5", "34", "120", "1234", "3.5", "1.5", "07700 900123", "9:30", "50%", "45kg", "2019",
    "years old", "year-old", "yrs old", "y/o", "aged", "age", "Age:", "at the age of", "turned",
    "will turn", "is", "was", "I am", "I'm", "she is", "he was", "my son is", "who is", "At",
    "at", ",", ".", "(", ")", "\n", "Ann", "Lee", "Tom", "Ella Snider", "died at", "retired at",
    "ans", "âgé de", "Jahre alt", "jährige", "tiene", "años", "ha", "anni", "età:", "birthday",
    "how old is he?", "The building is", "whisky", "ages", "and up", "the", "a", "on", "Friday",
)  # fmt: skip


def _generated(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pieces = [rng.choice(_PIECES) for _ in range(rng.randint(1, 25))]
        glue = [rng.choice((" ", " ", " ", "", "-", ", ")) for _ in pieces]
        out.append("".join(p + g for p, g in zip(pieces, glue, strict=True)))
    return out


_HAND = [
    "",
    "no numbers here at all",
    "Tom is 34 and Ann is forty-two.",
    "She was seventeen when she turned eighteen; someone often phoned at ten.",
    "A ſix-year-old and a ſeventeen year old boy.",
    "İstanbul: my son is 7. K is 5",
    "Call 07700 900123 or 020 7946 0000 before 9:30, ask for Ann (34).",
    "He died at 91 in 2019, aged ninety-one.",
    "Elle a 34 ans. Er ist 40 Jahre alt. Tiene 25 años. Ha 30 anni.",
]


def _anchor_reference(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in attributes._AGE_ANCHOR.finditer(text)]


@pytest.mark.parametrize("text", _HAND + _generated(1, 400))
def test_number_spans_match_the_one_scan(text):
    got = attributes_fast.number_spans(text, attributes._AGE_ANCHOR, attributes._NUMBER_WORD)
    assert got == _anchor_reference(text)


def test_number_spans_by_hand():
    text = "someone is 34, Ann seventeen; ſix 1234"
    # "one" of "someone", "34", "seven" of "seventeen" (the alternation lists "seven" before
    # "seventeen", and "teen" starts no number word), "ſix" by case folding; "1234" has four
    # digits
    expected = [(4, 7), (11, 13), (19, 24), (30, 33)]
    assert (
        attributes_fast.number_spans(text, attributes._AGE_ANCHOR, attributes._NUMBER_WORD)
        == expected
    )


def test_patterns_needed_by_hand():
    bits = attributes_fast.need_bits((("year",), ("age", "turn"), ("year", "is")))
    assert attributes_fast.patterns_needed("he is 34 years old", bits) == [0, 2]
    assert attributes_fast.patterns_needed("at the age of 3", bits) == [1]
    assert attributes_fast.patterns_needed("nothing", bits) == []


def _find_ages_reference(text: str) -> list[Found]:
    """find_ages as it was: one case-insensitive anchor scan, each pattern's words tested."""
    out: dict[int, Found] = {}
    windows: list[list[int]] = []
    for m in attributes._AGE_ANCHOR.finditer(text):
        a, b = max(0, m.start() - 60), min(len(text), m.end() + 30)
        if windows and a <= windows[-1][1]:
            windows[-1][1] = b
        else:
            windows.append([a, b])
    for a, b in windows:
        window = text[a:b].lower()
        for regex, score, needs in attributes._age_regexes():
            if not any(word in window for word in needs):
                continue
            for m in regex.finditer(text, a, b):
                number = m.start("n")
                if age_of_a_thing(text, number, m.end("n")):
                    continue
                start = m.start("cue") if "cue" in regex.groupindex else number
                has_unit = "unit" in regex.groupindex and m.group("unit")
                end = m.end("unit") if has_unit else m.end("n")
                best = out.get(number)
                if best is None or (end - start, score) > (best.end - best.start, best.score):
                    out[number] = Found(start, end, "AGE", score)
    return sorted(out.values(), key=lambda f: f.start)


@pytest.mark.parametrize("text", _HAND + _generated(2, 400))
def test_find_ages_matches_the_reference(text):
    assert attributes.find_ages(text) == _find_ages_reference(text)


def test_find_ages_by_hand():
    text = "Tom is 34 and Ann is forty-two. A ſix-year-old boy."
    got = [(text[f.start : f.end], f.score) for f in attributes.find_ages(text)]
    assert got == [("34", 0.5), ("forty-two", 0.5), ("ſix-year-old", 0.85)]


# =============================================================================== titles
def _find_titles_reference(text: str) -> list[Found]:
    """find_titles as it was: every word looked at, from a list of (start, end, lower) made
    by one match at a time, and the honorific scan run on every text."""
    lists = titles.title_lists()
    words = [(m.start(), m.end(), m.group().lower()) for m in titles._WORD.finditer(text)]
    near = [False] * len(words)
    starts = [False] * len(words)
    reach = 99
    for k in range(len(words) - 1, -1, -1):
        end, word = words[k][1], words[k][2]
        kind = titles._word_kind(word, lists)
        starts[k] = kind[1]
        if kind[0] == titles._HEAD:
            reach = 0
        elif kind[0] == titles._STOP:
            reach = 99
        else:
            gap = text[end : words[k + 1][0]] if k + 1 < len(words) else "\n"
            reach = reach + 1 if "\n" not in gap and gap.strip() in ("", "-") else 99
        near[k] = reach <= 5
    out: list[Found] = []
    i = 0
    while i < len(words):
        if not near[i] and not starts[i]:
            i += 1
            continue
        runs = [1]
        known_upto = 1
        prefix = words[i][2]
        for n in range(2, min(max(lists.longest, 6), len(words) - i) + 1):
            gap = text[words[i + n - 2][1] : words[i + n - 1][0]]
            prefix = f"{prefix} {words[i + n - 1][2]}"
            if "\n" in gap or gap.strip() not in ("", "-", ",", "/", "(", ")"):
                break
            if prefix not in lists.prefixes:
                if n <= 6 and gap == " ":
                    runs.append(n)
                    continue
                break
            runs.append(n)
            known_upto = n
        best = None
        ctx = None
        for n in sorted(runs, reverse=True):
            chunk = words[i : i + n]
            last = chunk[-1][2]
            if n > known_upto and not (last in lists.heads or last.endswith(titles._JOB_ENDINGS)):
                continue
            if n > known_upto and n >= 3 and titles._given_next(text, chunk[-3][1]):
                continue
            gaps = {text[a[1] : b[0]].strip() for a, b in zip(chunk, chunk[1:], strict=False)}
            if gaps - {"", "-"} and " ".join(w for _, _, w in chunk) not in lists.phrases:
                continue
            if ctx is None:
                ctx = titles._Before(text, chunk[0][0])
            score = titles._title_score(text, chunk, lists, ctx)
            if score:
                start, end = chunk[0][0], titles._of_end(text, chunk[-1][1], chunk[-1][2])
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
    regex = titles._HONORIFIC_LOWER if text.islower() else titles._HONORIFIC
    honorifics = [Found(m.start(), m.end(), "TITLE", 0.6) for m in regex.finditer(text)]
    honorifics = [h for h in honorifics if all(h.end <= f.start or f.end <= h.start for f in out)]
    return sorted(out + honorifics, key=lambda f: f.start)


_TITLE_PIECES = (
    "Ann", "Lee", "Laura Hayes", "Teresa Woodward", "Denise Carpenter", "the", "The", "our", "a",
    "is", "works as a", "Job title:", "Beruf:", "travaille comme", "nurse", "Nurse", "clerk",
    "sewer pipe cleaner", "Senior Software Engineer", "software engineer", "chief financial "
    "officer", "Head", "head", "of", "marketing", "Human Resources", "Director", "director",
    "Vice president", "sales", "and", "air conditioning", "mechanic", "Heating", "IT", "support",
    "specialist", "Echocardiographer", "phlebotomist", "Buddhist", "tourist", "de", "des",
    "hospital", "Therapist, sports", "Accountant, chartered", "Dr.", "Dr", "Ms", "Mrs.", "prof.",
    "mr.", "Sr.", "Mme", "ſir", "Receptionist", "(", ")", ",", "-", "–", "|", ".", ":", "\n",
    "\n\n", "  ", "at Acme", "said", "called", "Youth Worker", "Programmer", "lead", "project",
    "took", "Lifeguard", "groundskeeper", "infirmière", "Abfallberaterin", "x/y", "O'Neil",
    "rock&roll", "3", "42", "_",
)  # fmt: skip


def _title_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pieces = [rng.choice(_TITLE_PIECES) for _ in range(rng.randint(1, 30))]
        glue = [rng.choice((" ", " ", " ", "", "\n", ", ", " - ")) for _ in pieces]
        text = "".join(p + g for p, g in zip(pieces, glue, strict=True))
        out.append(text.lower() if rng.random() < 0.15 else text)
    return out


_TITLE_HAND = [
    "",
    "...",
    "Ines Quinn, Senior Software Engineer at Acme, met the chief financial officer and "
    "Dr. Blake, a consultant physician.\nJob title: sewer pipe cleaner",
    "Laura Hayes, the sewer pipe cleaner, said hello. Programmer Teresa Woodward will lead.",
    "our new clerk is ann; Head of Human Resources; Vice president of sales and marketing",
    "Ann Lee - Court reporter\nAnn Lee (Receptionist)\nHeating and air conditioning mechanic",
    "dr. blake and prof. mace met mr. lee",
    "Il travaille comme infirmière à l'hôpital de Lyon. Beruf: Abfallberaterin",
]


@pytest.mark.parametrize("text", _TITLE_HAND + _title_texts(3, 500))
def test_find_titles_matches_the_reference(text):
    assert titles.find_titles(text) == _find_titles_reference(text)


def test_words_and_gaps_by_hand():
    text = "  Ann's x-ray, 3 rock&roll/pop_"
    words, gaps, starts = titles_fast.words_and_gaps(text)
    assert words == ["Ann's", "x-ray", "rock&roll/pop"]
    assert gaps == [" ", ", 3 ", "_"]
    assert starts == [2, 8, 17]
    assert titles_fast.words_and_gaps("42 ...") == ([], [], [])


def test_title_starts_by_hand():
    head, stop, other = 0, 1, 2
    # words: a(stop) b c d(head) e f g h i j k(head); gaps all one space but a line break
    # after "e"
    kinds = [(stop, False), (other, False), (other, True), (head, False), (other, False)]
    kinds += [(other, False)] * 5 + [(head, False)]
    gaps = [" "] * 11
    gaps[4] = "\n"
    # "b", "c" before the first job word (not "a", a stop word); "c" starts a known title;
    # five words before "k": "f" to "j", not "e" (the line ends after it)
    assert titles_fast.title_starts(kinds, gaps, head, stop) == [1, 2, 3, 5, 6, 7, 8, 9, 10]
    gaps[4] = " "  # one line: six words back from "k" would reach "e"; five do
    assert titles_fast.title_starts(kinds, gaps, head, stop) == [1, 2, 3, 5, 6, 7, 8, 9, 10]


# =============================================================================== dates
_DATE_PIECES = (
    "Monday", "monday", "MONDAY", "Friday,", "vendredi", "Juillet", "juillet", "26", "3rd", "the",
    "of", "de", "1976", "2024", "May", "may", "mai", "maison", "segunda-feira", "lundi-mardi",
    "sunday_", "ſunday", "İ", "ı", "Mars", "marzo", "28,", "styczeń", "środa", "ŚRODA", "Juni",
    "2004-05-17", "2022-11-07T17:44:42.150687", "03/04/2021 10:32 AM", "12.03.2024", "020-7946",
    "1995-06-14 03:25:42", "9:30", "-", ":", "/", ".", ",", "\n", "Ann", "met", "on", "x-",
)  # fmt: skip


def _date_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pieces = [rng.choice(_DATE_PIECES) for _ in range(rng.randint(1, 20))]
        glue = [rng.choice((" ", " ", "", ", ", "  ", "-")) for _ in pieces]
        out.append("".join(p + g for p, g in zip(pieces, glue, strict=True)))
    return out


_DATE_HAND = [
    "",
    "Could you send the signed form to Ann before Friday?",
    "Pourriez-vous envoyer le formulaire avant vendredi ? dimanche, Juillet 26.",
    "la maison de mai; the 3rd of May, 1976; lundi-mardi; ſunday",
    "Admitted 2004-05-17 01:27:12+02:00, seen 03/04/2021 10:32 AM, call 020-7946-0000",
]


def _find_named_dates_reference(text: str, language: str) -> list[Found]:
    out = []
    for m in dates._NAMED_DATE.finditer(text):
        if language != "en" and not (m.group("d1") or m.group("d2") or m.group("y")):
            continue
        name = m.group("wd2") or m.group("mo")
        alone = m.group("wd2") is not None or not (
            m.group("wd") or m.group("d1") or m.group("d2") or m.group("y")
        )
        if alone and (
            name.lower() in dates._AMBIGUOUS
            or (m.group("mo") is not None and not name[0].islower())
        ):
            continue
        end = m.end()
        if m.group("d2") and end == m.end("d2") and text[end - 1] == ".":
            end -= 1
        out.append(Found(m.start(), end, "DATE_TIME", 0.9))
    return out


def _find_dates_reference(text: str) -> list[Found]:
    return [
        Found(m.start(), m.end(), "DATE_TIME", 0.85)
        for m in dates._NUMERIC_DATE_TIME.finditer(text)
    ]


@pytest.mark.parametrize("text", _DATE_HAND + _date_texts(4, 500))
def test_date_finders_match_the_reference(text):
    for language in ("en", "fr"):
        assert dates.find_named_dates(text, language) == _find_named_dates_reference(text, language)
    assert dates.find_dates(text) == _find_dates_reference(text)


def test_named_dates_by_hand():
    text = "la maison de mai; the 3rd of May, 1976; ſunday"
    got = [text[f.start : f.end] for f in dates.find_named_dates(text)]
    assert got == ["the 3rd of May, 1976", "ſunday"]  # "mai" alone is ambiguous


# =============================================================================== groups (NRP)
def _find_nrp_reference(text: str, language: str) -> list[Found]:
    """find_nrp as it was: every list's pattern run on every text."""
    out: list[Found] = []
    taken: set[int] = set()
    all_lower = text.islower()
    for k, (regex, score, may_be_language) in enumerate(attributes._nrp_regexes(language)):
        if k == 1 and not all_lower:
            continue
        if k == 0:  # the pattern as it was, without the look-ahead for a capital
            regex = re.compile(regex.pattern.removeprefix("(?=[A-Z])"))
        for m in regex.finditer(text):
            start, end = m.span()
            if not taken.isdisjoint(range(start, end)):
                continue
            word = m.group().lower()
            if (
                may_be_language
                and word in attribute_roles.LANGUAGE_WORDS
                and attributes._after_language_cue(text, start)
            ):
                continue
            if may_be_language and attribute_roles.names_a_thing(
                text, word, end, word in attribute_roles.LANGUAGE_WORDS
            ):
                continue
            taken.update(range(start, end))
            out.append(Found(start, end, "NRP", score))
    for start, end in attribute_roles.lower_case_groups(text) if all_lower else ():
        if taken.isdisjoint(range(start, end)):
            out.append(Found(start, end, "NRP", 0.5))
    return sorted(out, key=lambda f: f.start)


_NRP_PIECES = (
    "French", "french", "Polish", "polish", "African-American", "Afro-Caribbean", "Anglo-Indian",
    "Deutsche", "Deutscher", "Deutschen", "deutsch", "deutsche", "Muslima", "Muslime",
    "Italienerin", "katholisch", "Türkin", "türkisch", "español", "española", "españolas",
    "italiani", "italiane", "francese", "francesi", "américaine", "américains", "turque",
    "grecques", "juive", "musulmane", "atheist", "atheists", "Atheist", "agnostic", "agnostics",
    "atheist's", "d'italiana", "l’española", "Deutsche's", "x-deutsch", "deutschx", "speaks",
    "in", "into", "press", "version", "is", "a", "my", "neighbour", "Ann", "Lee", "the", ",",
    ".", "-", "'", "’", "\n", "Jehovah's Witness", "Costa Rican", "Buddhist", "Labour Party",
)  # fmt: skip


def _nrp_texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pieces = [rng.choice(_NRP_PIECES) for _ in range(rng.randint(1, 16))]
        glue = [rng.choice((" ", " ", " ", ", ", "", "-", "'")) for _ in pieces]
        text = "".join(p + g for p, g in zip(pieces, glue, strict=True))
        out.append(text.lower() if rng.random() < 0.15 else text)
    return out


_NRP_HAND = [
    "",
    "Her parents are Welsh; she speaks French and is a devout Catholic.",
    "Il est français, elle est américaine; sono italiani; es española.",
    "Er ist Deutscher, sie ist Türkin und katholisch. an atheist's view",
    "i am filipino. my neighbour is polish.",
]


@pytest.mark.parametrize("text", _NRP_HAND + _nrp_texts(7, 500))
def test_find_nrp_matches_the_reference(text):
    for language in ("en", "fr"):
        assert attributes.find_nrp(text, language) == _find_nrp_reference(text, language)


def test_expand_by_hand():
    assert sorted(nrp_fast.expand("Deutsche[rn]?")) == ["Deutsche", "Deutschen", "Deutscher"]
    assert sorted(nrp_fast.expand("Muslim(?:a|in|e)?")) == [
        "Muslim", "Muslima", "Muslime", "Muslimin",
    ]  # fmt: skip
    assert nrp_fast.expand(r"a\-b") == ["a-b"]
    for unsupported in ("a+", "a*", "(?:a(?:b))", "[^a]", "a{2}", "a.b"):
        with pytest.raises(ValueError, match="unsupported"):
            nrp_fast.expand(unsupported)


def test_lists_needed_by_hand():
    lists = ((frozenset({"atheist"}), True), (frozenset({"deutsch"}), False))
    assert nrp_fast.lists_needed("an atheist's view", lists) == [False, False]
    assert nrp_fast.lists_needed("deutsch's, atheist", lists) == [True, True]
    assert nrp_fast.lists_needed("x-deutsch", lists) == [False, False]


def test_every_listed_word_matches_its_pattern():
    """The spelled-out words of each list are words its pattern finds whole."""
    regexes = attributes._nrp_regexes("fr")
    for (words, _), regex in zip(attributes._nrp_words("fr"), regexes[2:], strict=True):
        assert words
        for word in words:
            assert [m.group() for m in regex[0].finditer(f" {word} ")] == [word]
