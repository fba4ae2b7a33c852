"""A span found by a pattern finder, and its Presidio form (shared by the attribute finders)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Found:
    """One span found in a text, with its entity type and score."""

    start: int
    end: int
    entity: str
    score: float


def presidio_result(recognizer: str, found: Found) -> Any:
    """A Presidio result with its explanation (Presidio's context enhancer writes into it)."""
    from presidio_analyzer import AnalysisExplanation, RecognizerResult

    explanation = AnalysisExplanation(
        recognizer=recognizer,
        original_score=found.score,
        textual_explanation=f"{found.entity} found by {recognizer}",
    )
    return RecognizerResult(found.entity, found.start, found.end, found.score, explanation)
