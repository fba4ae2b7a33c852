"""The word pass of the job title finder (:func:`anon_core.pii.titles.find_titles`), cheaper:
the words and the gaps between them from one regex call, and the words a title may start at
found from the few job words of the text instead of a look at every word
(``tests/test_pii_speed_attr.py`` compares it with the pass it replaces).
"""

from __future__ import annotations

import re
from itertools import accumulate, compress
from operator import add, itemgetter

#: A word of the title finder (a letter, then letters and ``'’&/-``) and the gap after it: all
#: characters up to the next word's first letter, so the matches of one ``findall`` tile the text
#: from its first word to its end. (Letters, then runs of marks each followed by letters: the
#: words of ``[^\W\d_](?:[^\W\d_]|['’&/-])*``, read a run of letters at a time.)
_WORD_GAP = re.compile(r"([^\W\d_]+(?:['’&/-]+[^\W\d_]*)*)([\W\d_]*)")


def words_and_gaps(text: str) -> tuple[list[str], list[str], list[int]]:
    """The words of ``text`` as ``[^\\W\\d_](?:[^\\W\\d_]|['’&/-])*`` finds them, the gap after
    each (the text up to the next word, or to the end after the last one), and each word's
    start."""
    pairs = _WORD_GAP.findall(text)
    if not pairs:
        return [], [], []
    words, gaps = (list(t) for t in zip(*pairs, strict=True))
    lengths = list(map(add, map(len, words), map(len, gaps)))
    first = len(text) - sum(lengths)
    return words, gaps, list(accumulate(lengths[:-1], initial=first))


def _gap_ok(gap: str) -> bool:
    """Whether a title found by its job word may run over ``gap``: spaces, maybe a hyphen,
    on one line."""
    return gap == " " or ("\n" not in gap and gap.strip() in ("", "-"))


def title_starts(kinds: list[tuple[int, bool]], gaps: list[str], head: int, stop: int) -> list[int]:
    """Indices, in order, of the words a title may start at: a word that starts a title of the
    lists (``kinds[k][1]``), or a word from which a job word (kind ``head``) ends a run of at
    most six words with no stop word (kind ``stop``) and no gap but spaces and a hyphen on one
    line. The words before a job word are read back from it: most texts hold none."""
    out = set(compress(range(len(kinds)), map(itemgetter(1), kinds)))
    for k in compress(range(len(kinds)), map(head.__eq__, map(itemgetter(0), kinds))):
        out.add(k)
        for back in range(k - 1, max(-1, k - 6), -1):
            if kinds[back][0] in (head, stop) or not _gap_ok(gaps[back]):
                break  # another job word is nearer to the words before it
            out.add(back)
    return sorted(out)
