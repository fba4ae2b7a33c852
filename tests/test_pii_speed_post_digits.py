"""``has_digit`` answers as a search of the text would (the oracle below: any character of
Unicode's decimal digits, ``str.isdecimal``), however texts are asked about in turn: the same
object twice, equal texts, other texts in between, and threads side by side."""

from __future__ import annotations

import random
import threading

from anon_core.pii.digits_fast import has_digit


def _oracle(text: str) -> bool:
    return any(c.isdecimal() for c in text)


def test_hand_written_texts():
    assert has_digit("call me on 0161") and has_digit("٣ apples")  # an Arabic-Indic three
    assert not has_digit("no digits here") and not has_digit("") and not has_digit("x² ½")
    text = "Anna Lee"
    assert not has_digit(text) and not has_digit(text)  # asked twice: the same answer
    assert has_digit("Lee 7") and not has_digit(text)  # another text in between


def test_generated_texts_in_any_order():
    rng = random.Random(1)
    texts = ["".join(rng.choice("ab 1٣²-") for _ in range(rng.randint(0, 6))) for _ in range(300)]
    for _ in range(3000):
        text = rng.choice(texts)
        assert has_digit(text) == _oracle(text), text


def test_threads_side_by_side():
    texts = [f"text {i}" if i % 2 else f"text {'x' * i}" for i in range(200)]
    wrong = []

    def ask():
        for _ in range(50):
            for text in texts:
                if has_digit(text) != _oracle(text):
                    wrong.append(text)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
