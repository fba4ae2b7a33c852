"""A span found by a pattern finder, its Presidio form, and word-list regexes (shared by the
attribute and date finders)."""

from __future__ import annotations

import re
from collections.abc import Iterable
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


def trie_pattern(words: Iterable[str]) -> str:
    """One regex alternative for literal ``words``, their common beginnings written once
    ("Pol(?:ish|e)"): the regex engine then reads each letter once instead of once per word.
    Longer continuations come first, so the longest word that fits is tried first, as in a
    list sorted by length."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def depth(node: dict[str, Any]) -> int:
        return max((1 + depth(child) for key, child in node.items() if key), default=0)

    def build(node: dict[str, Any]) -> str:
        branches = sorted((key for key in node if key), key=lambda k: -depth(node[k]))
        parts = [re.escape(key) + build(node[key]) for key in branches]
        if not parts:
            return ""
        body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
        return "(?:" + body + ")?" if "" in node else body

    return build(trie)
