"""Faster forms of the name rules and of the name review find what the plain forms find.

Each check compares a rewritten scan or a shortcut with the code it replaced (written out here
as the oracle) on the speed benchmark's paragraphs, on hand-made phrases and on generated ones.
"""

from __future__ import annotations

import bisect
import itertools
import random
import re

import pytest

from anon_core.pii import (
    name_context,
    name_review,
    name_review_fast,
    name_runs_fast,
    name_shapes,
    names,
    names_fast,
    org_lines,
    organisations,
)
from anon_core.pii.found import trie_pattern
from anon_core.pii.name_lists import LOWER, UPPER
from anon_core.pii.not_entities import (
    GENERIC_WORDS,
    english_not_name,
    generic_phrase,
    shouted_words,
)
from benchmarks.bench_pii_speed import LANGUAGES, document_text


def _paragraphs() -> list[str]:
    out: list[str] = []
    for i, language in enumerate(LANGUAGES):
        out += document_text(language, 15_000, 11 + i).split("\n\n")
    return out


def _generated(count: int, seed: int) -> list[str]:
    """Texts of capitalised and lower-case words, marks, line breaks and verbs in random order:
    many places where the scans' look-behinds and repeats decide."""
    rng = random.Random(seed)
    pieces = [
        "Almeida", "Soares", "Ann", "Éloïse", "Ann's", "Lee’s", "de", "has", "was", "moved",
        "lives", "the", "x", "A", ".", "!", "?", ",", ":", "\n", "Inc", "GmbH", "sarl", "S.A.",
        "ltd", "Co.", "B.V.", "1", "_", "-", "é", "Ó", "Mac", "Hill", "Works", "Up", "With",
    ]  # fmt: skip
    out = []
    for _ in range(count):
        words = rng.choices(pieces, k=rng.randint(1, 14))
        seps = rng.choices([" ", " ", " ", "", "  ", ", ", ". "], k=len(words))
        out.append("".join(w + s for w, s in zip(words, seps, strict=True)))
    return out


HAND = [
    "Almeida has moved to Porto. Soares was here.\nCosta is ok! Ferreira did",
    "xAlmeida has", "A. Almeida has", "Almeida  has", "Almeida has", "\nÉlodie lives",
    "Follow Up With Patricia Desrosiers In A Couple Of Months",
    "Ann's Bob's Cid Dan Eve Fay", "Aa Bb Cc Dd", "Aa Bb Cc Dd Ee", "AB Cd Ef Gh Ij Kl",
    "Meier GmbH, Rossi srl, Dupont, SARL et Jansen b.v.", "1 GmbH", "x, gmbh", ", GmbH",
]  # fmt: skip


def _texts() -> list[str]:
    return _paragraphs() + HAND + _generated(3000, 5)


def _spans(pattern: re.Pattern[str], texts: list[str]) -> list[list[tuple]]:
    return [[m.span() + m.groups() for m in pattern.finditer(t)] for t in texts]


def test_scans_reading_their_capital_first_find_what_the_plain_scans_find():
    texts = _texts()
    opening = re.compile(
        rf"(?:^|(?<=[.!?] )|(?<=\n))([{UPPER}][{LOWER}]{{2,}}) "
        rf"(?:{name_context._SUBJECT_VERBS})\b"
    )
    title_run = re.compile(rf"(?:[{UPPER}][{LOWER}]+(?:['’]s)? ){{4,}}[{UPPER}][{LOWER}]+")
    assert _spans(name_context._SURNAME_OPENING, texts) == _spans(opening, texts)
    assert _spans(name_context._TITLE_RUN, texts) == _spans(title_run, texts)
    # the hand-made cases are found at all
    found = [m.group(1) for m in name_context._SURNAME_OPENING.finditer(HAND[0])]
    assert found == ["Almeida", "Soares", "Costa", "Ferreira"]
    assert not name_context._SURNAME_OPENING.search("xAlmeida has")
    # "A" has no lower-case letter: the run of capitalised words ends before it
    assert (
        name_context._TITLE_RUN.search(HAND[6]).group() == "Follow Up With Patricia Desrosiers In"
    )
    assert not name_context._TITLE_RUN.search("Aa Bb Cc Dd")


def test_lower_case_form_scan_reading_its_comma_or_space_first_finds_the_same():
    texts = _texts()
    plain = re.compile(
        rf"(?<=[^\W\d_]),? (?:{trie_pattern(org_lines._DISTINCT_FORMS)})(?![\w&/])",
        re.IGNORECASE,
    )
    assert _spans(org_lines._FORM_IN_TEXT, texts) == _spans(plain, texts)
    assert [m.group() for m in org_lines._FORM_IN_TEXT.finditer("wilms gmbh, 1, sarl")] == [" gmbh"]


def _no_name_plain(span: str, gaz: names.Gazetteer) -> bool:
    return english_not_name(span, gaz) or generic_phrase(span, gaz) or shouted_words(span, gaz)


def _spans_to_review() -> list[str]:
    gaz = names.gazetteer()
    words = ["Ann", "Rose", "Baker", "Will", "Customer", "Support", "Service", "Cloud", "Sales"]
    words += ["Settings", "Volunteers", "Goldberg", "Szöllösy", "McKinsey", "O'Neil's", "&"]
    words += ["Jean-Pierre", "Billing", "Department", "Great", "Call", "the", "Our", "FAQ"]
    words += sorted(GENERIC_WORDS)[:40] + sorted(gaz.given)[:20] + sorted(gaz.family)[-20:]
    rng = random.Random(3)
    out = [
        "Customer Support", "Ann Lee", "DO NOT REPLY", "the Billing Department", "FAQ & HR",
        "Call Customer Service", "Rose", "Sales", "SMITH", "IBM", "Order Status", "Cloud",
        "Jean-Pierre Rossi", "O'Neil's", "ÉLODIE MARTIN", "Page Two", "Great Service", "",
    ]  # fmt: skip
    for _ in range(3000):
        chosen = rng.choices(words, k=rng.randint(1, 4))
        cased = [rng.choice([w, w.upper(), w.lower(), w.title()]) for w in chosen]
        out.append(" ".join(cased))
    for text in _paragraphs()[:300]:  # the model's kind of spans: capitalised runs
        out += re.findall(rf"[{UPPER}][\w'’-]*(?: [{UPPER}][\w'’-]*)*", text)
    return out


def test_person_span_word_tests_with_the_name_word_shortcut_equal_the_three_tests():
    gaz = names.gazetteer()
    spans = _spans_to_review()
    for span in spans:
        assert name_review._span_words_no_name(span, gaz) == _no_name_plain(span, gaz), span
    for span in spans[:50] + spans[:50]:  # read from the table, the first time and again
        assert name_review._words_no_name(span, gaz) == _no_name_plain(span, gaz), span
    assert sum(_no_name_plain(s, gaz) for s in spans) > 100  # both verdicts are tested
    assert sum(not _no_name_plain(s, gaz) for s in spans) > 100


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("Ines", True),  # a given name: no test takes it
        ("Szöllösy", True),  # a word in no list
        ("Customer", False),  # a generic word
        ("Cloud", False),  # a common English word
        ("ANN", False),  # capitals: shouted words may take it
        ("&", False),
        ("the", False),  # a glue word
    ],
)
def test_name_word_by_hand(word, expected):
    assert name_review_fast.name_word(word, names.gazetteer()) is expected


def test_gazetteer_tables_are_bounded_and_start_again_for_another_gazetteer():
    table = names_fast.GazetteerTable(size=3)
    gaz, other = object(), object()
    values = table.of(gaz)
    values.update(a=1, b=2)
    assert table.of(gaz) is values
    values["c"] = 3
    assert table.of(gaz) == {}  # full: started again
    table.of(gaz)["d"] = 4
    assert table.of(other) == {}  # another gazetteer: started again


def _read_run_plain(texts, gaz):
    """The opening words of a run stripped as :func:`names.find_names` did token by token (the
    oracle), with its words and names."""
    run = list(texts)
    titled = False
    while run and run[0].lower() in gaz.common:
        if len(run) == 2 and name_shapes.given_then_surname(run, gaz):
            break
        titled = run[0].lower() in name_runs_fast.TITLES
        run = run[1:]
    while len(run) > 1 and name_shapes.leading_word(run[0], gaz.is_listed, names.PARTICLES):
        run = run[1:]
    while run and re.fullmatch(r"[A-Z]\.?", run[0]):
        run = run[1:]
    words = tuple(re.sub(r"['’]s$", "", t) for t in run)
    kept = tuple(
        w
        for w in words
        if not re.fullmatch(r"[A-Z]\.?", w) and w not in name_runs_fast.NOT_IN_NAMES
    )
    return len(texts) - len(run), titled, words, kept


def _runs_to_read() -> list[tuple[str, ...]]:
    runs = [
        ("Contact", "Ella", "H.", "Snider"), ("April", "Holmes"), ("Mr", "Kastrunek"),
        ("Payee", "Victoria", "Crin"), ("J.", "R.", "Smith"), ("The",), ("Ines", "Quinn's"),
        ("Dear", "Mr", "Bjarni", "Haddad", "Sr"), ("Fenne", "van", "den", "Bergh"), (),
        ("Il",), ("Customer", "Ilze", "Lāce"), ("Hope", "Oyekan"), ("B",), ("Type", "B"),
        ("Faina", "D", "Yefremova"), ("Fletcher", "Hill"), ("Peace", "Ekwueme"), ("A", "B", "C"),
    ]  # fmt: skip
    for text in _paragraphs()[:300]:
        runs += [tuple(m.split()) for m in re.findall(r"[A-Z][\w'’.]*(?: [A-Z][\w'’.]*)*", text)]
    return runs


def test_runs_read_once_per_distinct_run_equal_the_token_by_token_reading():
    gaz = names.gazetteer()
    table = name_runs_fast.RUN_WORDS.of(gaz)
    runs = _runs_to_read()
    for texts in runs + runs:  # decided, then read from the table
        assert name_runs_fast.run_words(table, texts, gaz) == _read_run_plain(texts, gaz), texts
    assert name_runs_fast.read_run(("Contact", "Ella", "H.", "Snider"), gaz)[0] == 1
    assert name_runs_fast.read_run(("Mr", "Kastrunek"), gaz)[:2] == (1, True)
    assert name_runs_fast.read_run(("April", "Holmes"), gaz)[0] == 0


def test_run_scores_read_from_the_table_equal_the_rules():
    gaz = names.gazetteer()
    for english, start in itertools.product((True, False), (True, False)):
        table = names._RUN_SCORES.of(gaz)
        for texts in _runs_to_read():
            _, _, words, kept = _read_run_plain(texts, gaz)
            plain = names._run_score(list(kept), gaz, start)
            if not plain and names._initial_between(list(words), gaz):
                plain = names.MEDIUM
            elif (
                not plain and english and names_fast.unknown_name_run(kept, gaz.is_name, gaz.common)
            ):
                plain = names.WEAK
            for _ in range(2):  # decided, then read from the table
                assert names._scored_run(table, words, kept, gaz, start, english) == plain, texts


def _mentions_plain(text, out, gaz):
    """The repeated-mention rule as written before its shortcut (the oracle)."""
    words: set[str] = set()
    for start, end, entity, _ in out:
        if entity != "PERSON":
            continue
        span = text[start:end]
        parts = names_fast.NAME_WORD.findall(span)
        if len(parts) < 2 and span.islower():
            parts = re.findall(r"[^\W\d_]{2,}", span)
            if not any(gaz.is_name(w) for w in parts):
                parts = []
        if len(parts) >= 2:
            words.update(w for w in parts if w.lower() not in gaz.common)
    if not words:
        return out
    mentions = set()
    for word in words:
        i = text.find(word)
        while i >= 0:
            j = i + len(word)
            before = text[i - 1] if i else ""
            after = text[j] if j < len(text) else ""
            if not (
                (before and (before.isalnum() or before in "_-"))
                or (after and (after.isalnum() or after in "_-"))
            ):
                mentions.add((i, j))
            i = text.find(word, i + 1)
    persons = sorted((a, b) for a, b, e, _ in out if e == "PERSON")
    starts = [a for a, _ in persons]
    reach = list(itertools.accumulate((b for _, b in persons), max))
    kept: list[tuple[int, int]] = []
    for a, b in sorted(mentions, key=lambda s: (s[0], -s[1])):
        if not kept or a >= kept[-1][1]:
            kept.append((a, b))
    for span in kept:
        k = bisect.bisect_left(starts, span[1])
        if k and reach[k - 1] > span[0]:
            continue
        out = [
            e for e in out if not (e[2] in ("LOCATION", "ORGANIZATION") and (e[0], e[1]) == span)
        ]
        out.append((span[0], span[1], "PERSON", names.STRONG))
    return out


def _entities(text: str, rng: random.Random) -> list[tuple[int, int, str, float]]:
    """Capitalised runs and lower-case pairs of ``text`` as persons, places or organisations."""
    out = []
    pattern = r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*|\b[a-z]{3,} [a-z]{3,}\b"
    for m in re.finditer(pattern, text):
        kind = rng.choice(["PERSON", "PERSON", "LOCATION", "ORGANIZATION"])
        out.append((m.start(), m.end(), kind, 0.85))
    return out


def test_repeated_mentions_with_the_once_only_shortcut_equal_the_plain_rule():
    gaz = names.gazetteer()
    rng = random.Random(9)
    texts = _paragraphs() + [
        "Faina Yefremova's note reached early Yefremova",
        "Faina Yefremova wrote",
        "eric samoylova's note ... early samoylova",
        "Ann Roberts and Robert Roberts met Roberts-Smith",
        "Jean Dupont, Jean Martin; later Dupont",
    ]
    for base in list(texts):  # each paragraph again with a word of a name repeated
        words = re.findall(r"[A-Z][a-z]+", base)
        if words:
            texts.append(f"{base} Then {rng.choice(words)} left.")
    changed = 0
    for text in texts:
        out = _entities(text, rng)
        expected = _mentions_plain(text, list(out), gaz)
        assert name_review._repeated_mentions(text, list(out), gaz) == expected, text
        changed += expected != out
    assert changed > 20  # the rule adds mentions in many texts, the shortcut in none


def test_month_and_irish_particle_scans_reading_their_first_letter_find_the_same():
    texts = _texts() + [
        "Dear April Taylor, May Lee and JUNE SMITH; xApril Taylor, in May Lee's time",
        "Rowena Mac Giolla Mhóir, Aoife Ní Bhriain, Seán Ó MADAIDHIN, x Ua Néill,xMac Ab",
        "'May Ann, .June Ann, -August Ann, April Ann-Marie, May Ann Lee, MAY ANN",
    ]
    rest = name_shapes._MONTH_NAME.pattern.split(")) ", 1)[1]
    month = re.compile(r"(?<![\w'’.-])(?:April|May|June|August|APRIL|MAY|JUNE|AUGUST) " + rest)
    rest = name_shapes._IRISH_SURNAME.pattern.split("(?:ac|hic|", 1)[1].split("))", 1)[1]
    irish = re.compile(r"(?<= )(?:Mac|Mhic|Nic|Ní|Ó|Ua|MAC|MHIC|NIC|NÍ|UA)" + rest)
    assert _spans(name_shapes._MONTH_NAME, texts) == _spans(month, texts)
    assert _spans(name_shapes._IRISH_SURNAME, texts) == _spans(irish, texts)
    assert [m.group(1) for m in name_shapes._MONTH_NAME.finditer(texts[-3])] == [
        "Taylor", "Lee", "SMITH", "Lee",
    ]  # fmt: skip
    found = [m.group() for m in name_shapes._IRISH_SURNAME.finditer(texts[-2])]
    assert found == ["Mac Giolla Mhóir", "Ní Bhriain", "Ó MADAIDHIN", "Ua Néill"]


def test_legal_form_end_read_without_stripping_a_last_letter_equals_the_plain_test():
    end = organisations._legal_form_end()
    rng = random.Random(4)
    forms = list(organisations.LEGAL_FORMS)
    tails = ["", ".", ",", " ", "\n", " .", ".\n", "\n\n", "s", "x"]
    spans = ["Inc", "Ann Lee", "", "x", "Weber GmbH & Co. KG", "Stewart Inc."]
    for _ in range(4000):
        head = rng.choice(["Weber", "Ann Lee", "Rossi", "", "x-", "Dupont et"])
        spans.append(head + rng.choice([" ", "", ", "]) + rng.choice(forms) + rng.choice(tails))
    hits = 0
    for span in spans:
        plain = end.search(span.rstrip(" .,")) is not None or end.search(span.rstrip()) is not None
        assert organisations._ends_in_legal_form(span) is plain, span
        hits += plain
    assert 1000 < hits < len(spans) - 500  # both answers are tested


def _listed_names_plain(tokens, found, gaz):
    """The listed-surname rule as it read every token (the oracle)."""
    joiners = {",", "and", "&", "et", "und", "y", "e"}
    starts = {s.start for s in found}
    found_words = {(s.start, s.end) for s in found}
    out = []
    for i, tok in enumerate(tokens):
        joined = [
            tokens[i + 2 * step]
            for step in (-1, 1)
            if 0 <= i + 2 * step < len(tokens) and tokens[i + step].text in joiners
        ]
        if not joined or tok.idx in starts or not names_fast.NAME_WORD.fullmatch(tok.text):
            continue
        if i + 1 < len(tokens) and names_fast.NAME_WORD.fullmatch(tokens[i + 1].text):
            continue
        joined = [n for n in joined if names_fast.NAME_WORD.fullmatch(n.text)]
        if gaz.is_family(tok.text):
            ok = any(
                gaz.is_name(n.text) or (n.idx, n.idx + len(n.text)) in found_words for n in joined
            )
        else:
            low = tok.text.lower()
            surname = low not in names._NO_NAME or low in names.SURNAME_PLACE_WORDS
            loose = (low in gaz.family and surname) or names._unknown(tok.text, gaz)
            ok = loose and any(gaz.is_name(n.text) for n in joined)
        if ok:
            out.append(names.NameSpan(tok.idx, tok.idx + len(tok.text), names.MEDIUM))
    return out


def test_listed_surnames_read_beside_joiners_only_equal_the_token_by_token_rule():
    import spacy

    gaz = names.gazetteer()
    nlp = spacy.blank("en")
    texts = _paragraphs()[:400] + [
        "Usamov and Bowers", "Kónya, Becker and Vasquez", "Dale and White", "and Bowers",
        "Bowers and", ", Becker", "Becker ,", "Park and Mann met", "Nekolná and Pearson",
        "Ann Lee and Bowers", "White House and Dale", "x & Bowers & y",
    ]  # fmt: skip
    hits = 0
    for k, text in enumerate(texts):
        doc = nlp(text)
        tokens = names._read_tokens(doc, text)
        found = names.find_names(doc, text=text) if k % 2 else []
        expected = _listed_names_plain(tokens, found, gaz)
        assert names._listed_names(tokens, found, gaz) == expected, text
        hits += len(expected)
    assert hits >= 5
