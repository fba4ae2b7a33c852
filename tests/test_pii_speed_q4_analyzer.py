"""The lean ``AnalyzerEngine.analyze`` (anon_core.pii.analyzer_fast) against Presidio's own."""

from __future__ import annotations

import random

import pytest

from anon_core.pii import analyzer_fast
from anon_core.pii.engine import load_engine

TEXTS = [
    "Call John Smith on +44 20 7946 0958 or write to john.smith@example.com today.",
    "Patient born 03/04/1961, SSN 078-05-1120, card 4111 1111 1111 1111, phone 212-555-0199.",
    "IBAN DE89 3704 0044 0532 0130 00 and IP 192.168.10.4; server at https://example.org/x.",
    "Nothing to see here at all.",
    "",
    "Rufen Sie Herrn Weber unter 030 1234567 an; Passnummer C01X00T47.",
]


def _view(results):
    return [
        (r.entity_type, r.start, r.end, round(r.score, 9), r.analysis_explanation is None)
        for r in results
    ]


@pytest.fixture(scope="module")
def analyzer():
    return load_engine(None, "en").analyzer


def test_installed_presidio_is_the_reviewed_version(analyzer):
    # Otherwise the lean method is never used and the tests below compare Presidio with itself.
    assert analyzer_fast.reviewed()
    assert analyzer.analyze.__name__ == "analyze" and "lean" in analyzer.analyze.__qualname__


@pytest.mark.parametrize(
    "kwargs",
    [
        {"score_threshold": 0.35},
        {"score_threshold": 0.0},
        {"score_threshold": 0.35, "entities": ["PHONE_NUMBER", "EMAIL_ADDRESS"]},
        {"score_threshold": 0.35, "return_decision_process": True},
        {"score_threshold": 0.35, "allow_list": ["john.smith@example.com"]},
        {"score_threshold": 0.35, "context": ["phone", "card"]},
        {"score_threshold": None},  # Presidio's own method: per recognizer thresholds
        {"score_threshold": 0.35, "entities": ["NO_SUCH_TYPE", "PHONE_NUMBER"]},  # warns
    ],
)
def test_lean_analyze_finds_what_presidios_finds(analyzer, kwargs):
    from presidio_analyzer import AnalyzerEngine

    for text in TEXTS:
        expected = _view(AnalyzerEngine.analyze(analyzer, text, "en", **kwargs))
        assert _view(analyzer.analyze(text, "en", **kwargs)) == expected
        # twice: the kept lists give the same answer the second time
        assert _view(analyzer.analyze(text, "en", **kwargs)) == expected
    if kwargs == {"score_threshold": 0.35}:
        assert _view(analyzer.analyze(TEXTS[0], "en", score_threshold=0.35))  # finds something


def test_a_recognizer_added_later_is_used(analyzer):
    from presidio_analyzer import Pattern, PatternRecognizer

    text = "Ticket ZQX-998877 was closed."
    assert not [r for r in analyzer.analyze(text, "en", score_threshold=0.1) if r.start == 7]
    ticket = PatternRecognizer(
        supported_entity="TICKET_Q4", patterns=[Pattern("ticket", r"ZQX-\d{6}", 0.9)]
    )
    analyzer.registry.add_recognizer(ticket)
    try:
        found = analyzer.analyze(text, "en", score_threshold=0.1)
        assert ("TICKET_Q4", 7, 17) in [(r.entity_type, r.start, r.end) for r in found]
    finally:
        analyzer.registry.recognizers.remove(ticket)
    assert not [r for r in analyzer.analyze(text, "en", score_threshold=0.1) if r.start == 7]


def _result(entity, start, end, score):
    from presidio_analyzer import RecognizerResult

    return RecognizerResult(entity, start, end, score)


def test_remove_duplicates_hand_worked():
    a = _result("PERSON", 0, 10, 0.8)
    inside_lower = _result("PERSON", 2, 5, 0.5)  # contained, lower score: dropped
    inside_higher = _result("PERSON", 2, 5, 0.9)  # contained, higher score: kept
    a_again = _result("PERSON", 0, 10, 0.8)  # equal to a: the first (a) is kept
    zero = _result("PHONE_NUMBER", 20, 30, 0.0)  # zero score: dropped
    other_type = _result("LOCATION", 2, 5, 0.5)  # another type: not compared with PERSON
    got = analyzer_fast.remove_duplicates(
        [a, inside_lower, inside_higher, a_again, zero, other_type]
    )
    assert [id(r) for r in got] == [id(inside_higher), id(a), id(other_type)]


def test_remove_duplicates_equals_presidios_on_generated_results():
    from presidio_analyzer import EntityRecognizer

    rng = random.Random(4)
    for _ in range(400):
        results = []
        for _ in range(rng.randint(0, 14)):
            start = rng.randint(0, 20)
            results.append(
                _result(
                    rng.choice(["PERSON", "LOCATION", "DATE_TIME"]),
                    start,
                    start + rng.randint(0, 8),
                    rng.choice([0.0, 0.3, 0.5, 0.85, 0.85, 1.0]),
                )
            )
        expected = [id(r) for r in EntityRecognizer.remove_duplicates(list(results))]
        assert [id(r) for r in analyzer_fast.remove_duplicates(results)] == expected
