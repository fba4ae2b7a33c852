"""Whether a text holds a digit, searched once per text for every recognizer that asks.

About a dozen recognizers need a digit (phones, cards, IBANs, postcodes, national numbers) and
skip a text without one; each searched the same text for it again, and in a paragraph whose
only digits are a phone number at its end (or none at all) each search reads the whole text.
:func:`has_digit` remembers the answer for the last text it was asked about (the recognizers of
an engine read one text after another), so the text is searched once.
"""

from __future__ import annotations

import re

#: Any digit (Unicode ``\d`` of Python's ``re``, as in the recognizers' own checks).
DIGIT = re.compile(r"\d")
#: The last text asked about and whether it holds a digit (one tuple, replaced as a whole, so
#: that threads analysing texts side by side never pair one text with another's answer).
_last: tuple[str | None, bool] = (None, False)


def has_digit(text: str) -> bool:
    """Whether ``text`` holds a digit (``DIGIT.search``), searched once for the same text object
    asked about several times in a row."""
    global _last
    last = _last
    if last[0] is text:
        return last[1]
    found = DIGIT.search(text) is not None
    _last = (text, found)
    return found
