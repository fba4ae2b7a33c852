"""The context-word look-up lowering each word once answers as Presidio's own."""

import pytest
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer

from anon_core.pii import speed

presidio = LemmaContextAwareEnhancer._find_supportive_word_in_context

CASES = [
    (["call", "me"], ["phone", "call"], "call"),  # the first context word found wins
    (["telephone"], ["Phone", "tel"], "Phone"),  # a substring, case-insensitive, as written
    (["TÉLÉPHONE", "x"], ["téléphone"], "téléphone"),
    (["ph", "one"], ["phone"], ""),  # never across two words
    (["a\nphone"], ["phone"], "phone"),  # a word holding a line break
    (["ph\none"], ["phone"], ""),
    ([], ["phone"], ""),  # no words around
    ([""], ["phone"], ""),
    (["card"], [], ""),
    (["x"], ["", "x"], ""),  # an empty context word is in any word: found, and it is ""
]


@pytest.mark.parametrize(("words", "context", "expected"), CASES)
def test_supportive_word_is_presidios_answer(words, context, expected):
    assert presidio(words, context, "substring") == expected
    assert speed.supportive_word(words, context, "substring") == expected


def test_a_context_word_with_a_line_break_and_whole_word_mode_use_presidios_own():
    assert speed.supportive_word(["a", "b\nc"], ["b\nc"], "substring") == "b\nc"
    assert speed.supportive_word(["telephone"], ["phone"], "whole_word") == ""
    assert speed.supportive_word(["Phone"], ["phone"], "whole_word") == "phone"


class _Recognizer:
    def __init__(self, name):
        self.id = name


def test_recognizers_by_id_follow_the_list_given():
    first, second = [_Recognizer("a"), _Recognizer("b")], [_Recognizer("c")]
    assert speed._by_id(first) == {"a": first[0], "b": first[1]}
    assert speed._by_id(second) == {"c": second[0]}
    assert speed._by_id(first)["b"] is first[1]
