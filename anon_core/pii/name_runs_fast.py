"""The words of a run of capitalised words (:func:`anon_core.pii.names.find_names`), read once per
distinct run.

The name rules strip a run's opening words (common words such as "Contact" or "Il", a title,
English words that are no name such as "Payee", initials) and keep its words without "'s" and
its names (no initial, particle or suffix). All of that reads the run's token texts only, and
runs recur (a sentence's opening word, a given name, a full name mentioned again), so
:func:`run_words` is read from a table filled on first sight, bounded and bound to the
gazetteer (:class:`~anon_core.pii.names_fast.GazetteerTable`). The functions take the gazetteer
as an argument, so this module imports no rule module (no import cycle with
:mod:`anon_core.pii.names`).
"""

from __future__ import annotations

from typing import Any

from anon_core.pii.name_shapes import given_then_surname, leading_word
from anon_core.pii.names_fast import INITIAL, GazetteerTable, word_shape

#: Words inside a name ("Maika van de Noort", "Luiz da Silva", Irish "Corinna Ó Macháin").
PARTICLES = frozenset("van de der den von da do dos das del della di du la le bin ben al Ó".split())
#: Titles before a surname ("Mr Simonič", "Dr. Kovač"): the next capitalised word is a name.
TITLES = frozenset("mr mrs ms miss mister dr prof madam madame monsieur mme mlle herr frau".split())
#: Suffixes written with a dot, the last word of a run ("Bjarni Haddad Sr.").
DOTTED_SUFFIXES = frozenset({"Jr", "Sr", "Jnr", "Snr"})
#: Words of a run that are no given name or surname.
NOT_IN_NAMES = PARTICLES | DOTTED_SUFFIXES
#: :func:`run_words` of the runs seen, per gazetteer (bounded).
RUN_WORDS = GazetteerTable()

RunWords = tuple[int, bool, tuple[str, ...], tuple[str, ...]]


def run_words(table: dict[Any, Any], texts: tuple[str, ...], gaz: Any) -> RunWords:
    """``(skip, titled, words, names)`` of a run of tokens whose texts are ``texts``, read from
    ``table`` (``RUN_WORDS.of(gaz)``) or decided by :func:`read_run` and kept there."""
    read = table.get(texts)
    if read is None:
        read = table[texts] = read_run(texts, gaz)
    return read


def read_run(texts: tuple[str, ...], gaz: Any) -> RunWords:
    """How many opening tokens of a run are no part of the name (``skip``): common words
    ("Contact Ella H. Snider"; not the first of "April Holmes", a listed given name and a
    surname), then English words in no name list ("Payee Victoria Crin"), then initials;
    whether the last common word stripped is a title (``titled``: "Mr Kastrunek"); and the
    remaining tokens' ``words`` without "'s" and ``names`` (no initial, particle or suffix)."""
    count, i, titled = len(texts), 0, False
    while i < count and texts[i].lower() in gaz.common:
        if count - i == 2 and given_then_surname(texts[i:], gaz):
            break  # "April Holmes", "Hope Oyekan"
        titled = texts[i].lower() in TITLES
        i += 1
    while count - i > 1 and leading_word(texts[i], gaz.is_listed, PARTICLES):
        i += 1  # "Payee Victoria Crin", "Customer Ilze Lāce"
    while i < count and INITIAL.fullmatch(texts[i]):
        i += 1
    shapes = [word_shape(t) for t in texts[i:]]  # (bare, name word, initial, lower word)
    words = tuple(bare for bare, _, _, _ in shapes)
    names = tuple(
        bare for bare, _, initial, _ in shapes if not initial and bare not in NOT_IN_NAMES
    )
    return i, titled, words, names
