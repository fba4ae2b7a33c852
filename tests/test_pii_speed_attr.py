"""The cheaper scans of the age finder (:mod:`anon_core.pii.attributes_fast`) give what the plain
scans they replace give: each is compared with a slow reference kept here (the code as it was)
on hand-written texts and on generated ones."""

from __future__ import annotations

import random

import pytest

from anon_core.pii import attributes, attributes_fast
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
