"""Presidio's pattern loop without its per-call bookkeeping finds what Presidio's own finds."""

from __future__ import annotations

import pytest

from anon_core.pii import speed_patterns

pytest.importorskip("presidio_analyzer")

TEXTS = [
    "SSN 123-45-6789 and 078-05-1120 (an invalid one), card 4539 1488 0343 6467 or 4539 1488 0343 6468.",
    "Mail ana@example.org, b@c.fr; IBAN GB82 WEST 1234 5698 7654 32 and ZIP 02139-1234.",
    "Nothing to find here.",
    "",
]


def _found(recognizer, text):
    return [
        (
            r.entity_type,
            r.start,
            r.end,
            r.score,
            r.analysis_explanation.textual_explanation,
            r.analysis_explanation.validation_result,
        )
        for r in recognizer.analyze(text, recognizer.supported_entities)
    ]


@pytest.mark.parametrize(
    "name", ["UsSsnRecognizer", "CreditCardRecognizer", "EmailRecognizer", "IbanRecognizer"]
)
def test_lean_loop_finds_what_presidio_finds(name):
    """Presidio's own recognizer is the reference (validated and invalidated matches included:
    the card with a wrong check digit, the SSN 078-05-1120 Presidio rejects)."""
    from presidio_analyzer import predefined_recognizers

    cls = getattr(predefined_recognizers, name)
    plain, lean = cls(), cls()
    assert speed_patterns.lean_pattern_analysis(lean)
    found = 0
    for text in TEXTS:
        expected = _found(plain, text)
        assert _found(lean, text) == expected, text
        found += len(expected)
    assert found >= 1


def test_only_over_the_reviewed_source(monkeypatch):
    from presidio_analyzer.predefined_recognizers import UsSsnRecognizer

    monkeypatch.setattr(speed_patterns, "REVIEWED_PATTERN_ANALYSIS", "0" * 16)
    recognizer = UsSsnRecognizer()
    assert not speed_patterns.lean_pattern_analysis(recognizer)
    assert "_PatternRecognizer__analyze_patterns" not in vars(recognizer)
    assert not speed_patterns.lean_pattern_analysis(object())
