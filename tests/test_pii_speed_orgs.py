"""Faster forms of the organisation and name rules' scans find what the plain forms find.

Each check compares a rewritten scan with the expression it replaced (written out here as the
oracle) on the speed benchmark's paragraphs and on hand-made phrases, every cue in three cases.
"""

from __future__ import annotations

import re

import pytest

from anon_core.pii import names_fast, org_lines, organisations
from anon_core.pii.name_lists import NAME_CUE_WORDS
from benchmarks.bench_pii_speed import LANGUAGES, document_text

#: Every cue of ``organisations.ORG_CUES`` written out by hand, each alternative once.
CUE_PHRASES = (
    "works at", "work for", "worked at", "worked for", "working at", "working for",
    "employed by", "employed at", "employer:", "company:", "organisation:", "organization:",
    "firm:", "hired by", "joined", "CEO of", "CFO at", "CTO of", "founder of", "director at",
    "president of", "manager at", "chairman of", "travaille chez", "travaille pour",
    "travaille à", "employé par", "employée chez", "société", "entreprise :", "employeur:",
    "arbeitet bei", "arbeitet für", "beschäftigt bei", "Arbeitgeber:", "Firma", "Unternehmen:",
    "trabaja en", "trabaja para", "empresa", "empleador:", "lavora presso", "lavora per",
    "lavora in", "azienda", "ditta:", "datore di lavoro:",
)  # fmt: skip


def _texts() -> list[str]:
    out: list[str] = []
    for i, language in enumerate(LANGUAGES):
        out += document_text(language, 20_000, 7 + i).split("\n\n")
    for phrase in CUE_PHRASES:
        for cased in (phrase, phrase.upper(), phrase.title()):
            out += [f"She {cased} Acme Ltd. since May.", f"{cased} Weeks-Rivas", f"x{cased} Bo"]
    out += ["Conway Inc., Rossi S.p.A. and Weber GmbH & Co. KG", "the Bank,  Hospital x. Group"]
    out += ["University of Leeds, xUniversity of the Ab", "-Ab-Cd &Ab and Cd, Ab, Cd and Ef"]
    return out


def _spans(pattern: re.Pattern[str], texts: list[str]) -> list[list[tuple[int, int]]]:
    return [[m.span() for m in pattern.finditer(t)] for t in texts]


def test_cue_scan_with_its_first_letters_finds_what_the_plain_scan_finds():
    texts = _texts()
    cues = "|".join(organisations.ORG_CUES)
    plain = re.compile(r"(?i:\b(?:" + cues + r"))[ \t]*")
    fast = organisations._regexes()["cue"]
    assert _spans(fast, texts) == _spans(plain, texts)
    for phrase in CUE_PHRASES:  # each cue is found at all, in any case
        for cased in (phrase, phrase.upper(), phrase.title()):
            assert fast.search(f"She {cased} Acme"), cased
    before = re.compile(r"(?i:\b(?:" + cues + r"))\s*$")
    for text in texts:
        for end in range(0, len(text), 7):
            window = text[max(0, end - 40) : end]
            assert bool(organisations._CUE.search(window)) == bool(before.search(window))


def test_lower_case_cue_and_anchors_opening_with_their_space_find_the_same():
    texts = _texts() + ["i work for kingston-mcbride", "abat x", "joined by wilms gmbh"]
    plain_lower = re.compile(r"\b(?:at|from|for|with|by|joined)[ \t]+")
    assert _spans(org_lines._LOWER_CUE, texts) == _spans(plain_lower, texts)
    forms = organisations._alternation(organisations.LEGAL_FORMS)
    words = organisations._alternation(organisations.ORG_WORDS)
    plain_legal = re.compile(rf"(?<=[\w.)]),? (?:{forms})(?![\w&])")
    plain_word = re.compile(rf"(?<=[\w.]) (?:{words})(?![\w-])")
    rx = organisations._regexes()
    assert _spans(rx["legal"], texts) == _spans(plain_legal, texts)
    assert _spans(rx["org_word"], texts) == _spans(plain_word, texts)
    cap, listed = organisations._CAP, organisations._LISTED
    plain_of = re.compile(
        rf"(?<![\w&-])(?:{organisations._alternation(organisations.ORG_OF_WORDS)}) "
        rf"(?:of|de|du|des|der|für|di|del|della) (?:the )?{cap}(?: {cap}){{0,3}}"
    )
    plain_surnames = re.compile(
        rf"(?<![\w&-])(?:{cap}-{cap}|{listed}|{cap} (?:and|&) {cap})(?![\w-])"
    )
    assert _spans(rx["org_of"], texts) == _spans(plain_of, texts)
    assert _spans(rx["surnames"], texts) == _spans(plain_surnames, texts)
    assert rx["org_of"].search("at the University of Leeds")
    assert not rx["org_of"].search("xUniversity of Leeds")
    assert rx["surnames"].search("Hawkins, Richardson and Santana")
    assert not rx["surnames"].search("&Weeks-Rivas")
    found = sum(map(len, _spans(rx["legal"], texts)))
    assert found >= 3  # Conway Inc., Rossi S.p.A., Weber GmbH & Co. KG at least


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        ("Stewart Inc", True),
        ("Stewart Inc.", True),
        ("Lindner KG,", True),
        ("Lindner KG\n", True),
        ("Lindner KG\n\n", True),  # rstrip() strips the line breaks
        ("Ann Lee", False),
        ("Inc", False),  # a form needs a space before it
        ("Weber GmbH & Co. KG ", True),
    ],
)
def test_legal_form_end_by_hand(span, expected):
    assert organisations._ends_in_legal_form(span) is expected
    end = organisations._legal_form_end()
    plain = end.search(span.rstrip(" .,")) is not None or end.search(span.rstrip()) is not None
    assert plain is expected


def test_cue_word_gate_never_skips_a_text_whose_tokens_hold_a_cue():
    for word in sorted(NAME_CUE_WORDS):
        for cased in (word, word.upper(), word.title()):
            assert names_fast.may_hold_cue(f"Your {cased}? Boyle")
    assert not names_fast.may_hold_cue("Call Ines Quinn at 10.")
