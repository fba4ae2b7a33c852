"""Courtesy titles and ranks right before a person's name: "Sr.", "Frau", "Dott.", "Г-н", "MAJ".

The recognizers find a person's name, and a title opening it when it is one of the few they know
("Dr.", "Ms.", "Prof."). Faker's person providers hold the courtesy titles, academic titles
and ranks of every locale it ships ("Dipl.-Ing.", "Sig.ra", "pani", "Quý ông", "LT COL",
"السيد"): :func:`honorific_spans` reads them once and reports, as ``TITLE``, the ones standing
right before a ``PERSON`` span with only spaces between, several in a row included ("Lt. Col.
James Reed"). Nothing is reported without a name after it ("the Chief said", "Bay Area"), and
name particles ("de", "van", "da") that some locales list as prefixes are no titles.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from anon_core.pii.names import PARTICLES

#: Score of a title found before a name (above the de-identification threshold of 0.35).
HONORIFIC_SCORE = 0.6
#: English titles and ranks Faker's English providers do not list.
ENGLISH_TITLES = (
    "Sir Dame Lady Lord Rev. Revd Fr. Hon. Capt. Sgt. Col. Gen. Lt. Maj. Cpl. Det. Insp. "
    "Supt. Cmdr. Adm. Mstr. Mr Mrs Ms Dr Prof Mx"
).split()
#: Longest run of titles before a name that is looked at, in characters.
_REACH = 60


@functools.lru_cache(maxsize=1)
def honorifics() -> frozenset[str]:
    """Every courtesy title, academic title and rank of Faker's person providers, with
    :data:`ENGLISH_TITLES`, less name particles."""
    import importlib
    import pkgutil

    import faker.providers.person as person

    out = set(ENGLISH_TITLES)
    for module in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"faker.providers.person.{module.name}").Provider
        for attr in ("prefixes", "prefixes_male", "prefixes_female", "prefixes_nonbinary"):
            values = getattr(provider, attr, None) or ()
            out.update(str(v).strip() for v in values if str(v).strip())
    particles = {p.lower() for p in PARTICLES} | {"de la", "del", "le", "la"}
    return frozenset(t for t in out if t.lower() not in particles)


@functools.lru_cache(maxsize=1)
def _title_before() -> re.Pattern[str]:
    """One title ending at the end of the string, then spaces."""
    titles = sorted(honorifics(), key=len, reverse=True)
    alternatives = "|".join(re.escape(t) for t in titles)
    return re.compile(rf"(?<![\w.-])(?:{alternatives})[ \t]+$")


@functools.lru_cache(maxsize=1)
def _longest_title() -> int:
    return max(map(len, honorifics()))


def _title_start(text: str, edge: int) -> int | None:
    """The first offset where a title that :func:`_title_before` finds before ``edge`` may
    start, or None when none can end there: the title is followed by spaces or tabs up to
    ``edge`` (or up to a line break right before it, which ``$`` also accepts), so it ends where
    they start and begins at most the longest title's length before. Searching from there finds
    what a search of the whole reach finds, at a fraction of the cost (most names have no
    title before them)."""
    end = edge - 1 if edge > 0 and text[edge - 1] == "\n" else edge
    stop = end
    while stop > 0 and text[stop - 1] in " \t":
        stop -= 1
    if stop == end:
        return None
    return stop - _longest_title()


def honorific_spans(
    text: str, spans: Iterable[tuple[int, int, str, float]]
) -> list[tuple[int, int, str, float]]:
    """``TITLE`` spans (start, end, entity, score) of the titles right before each ``PERSON``
    span of ``spans`` that no span covers yet."""
    spans = list(spans)
    taken = sorted((a, b) for a, b, _, _ in spans)
    pattern = _title_before()
    out: list[tuple[int, int, str, float]] = []
    for start, _end, entity, _score in spans:
        if entity != "PERSON":
            continue
        edge = start
        for _ in range(3):  # "Lt. Col.", "Prof. Dr.": a few titles in a row
            first = _title_start(text, edge)
            if first is None:
                break
            found = pattern.search(text, max(0, edge - _REACH, first), edge)
            if not found:
                break
            a, b = found.start(), found.group().rstrip(" \t")
            b = a + len(b)
            if any(x < b and a < y for x, y in taken):
                break
            out.append((a, b, "TITLE", HONORIFIC_SCORE))
            taken.append((a, b))
            edge = a
    return out


def persons_after_titles(
    text: str, spans: list[tuple[int, int, str, float]]
) -> list[tuple[int, int, str, float]]:
    """``spans`` with each ``PERSON`` span that starts inside a ``TITLE`` span and runs past it
    starting after the title instead ("Data Entry Clerk Renee Reed": the model's person "Clerk
    Renee Reed" becomes "Renee Reed" beside the title "Data Entry Clerk"), so that neither
    the title nor the name is dropped when overlaps are resolved."""
    titles = [(a, b) for a, b, entity, _ in spans if entity == "TITLE"]
    if not titles:
        return spans
    out = []
    for start, end, entity, score in spans:
        if entity == "PERSON":
            for a, b in titles:
                if a < start < b < end:
                    new_start = b + len(text[b:end]) - len(text[b:end].lstrip())
                    if any(c.isalpha() for c in text[new_start:end]):
                        start = new_start
        out.append((start, end, entity, score))
    return out
