"""Places and addresses in English prose: a labelled development set for span extents.

    python benchmarks/bench_pii_address_prose.py [--per-template N] [--seed S] [--errors]

Faker (MIT licence, in the environment) gives the values of several locales: street addresses
with their units ("2328 Figueroa Skyway Apt. 290"), made-up towns ("Port Jennifer", "Lake
Brianborough"), states and their abbreviations, postcodes, countries, whole addresses
(``address()``, on one line or several). They fill English sentences written for the purpose
(:data:`TEMPLATES`), each part labelled as its own span the way Presidio's evaluation corpus
labels them: street with its number and unit, town, state, country and a postcode written
after a state or town ``LOCATION``, a postcode alone ``ZIP_CODE``, a whole foreign address one
``LOCATION``; the words around
them (a name, a date, a company, a web address) carry their own labels, and "in", "near", "on"
none.

Scored with ``bench_pii_corpus.py``'s protocol (adjacent spans merged over skip words, per type
and across types for "PII"; a span found at a character IoU >= 0.9). ``--errors`` prints every
merged span found with a wrong extent, missed, or predicted where nothing is labelled, grouped
by template. The recognizers were tuned on this set: it measures coverage of the layouts, not
generalisation.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Locales of the towns, streets and whole addresses; the first is used most.
LOCALES = ("en_US", "en_US", "en_US", "en_GB", "en_AU", "en_CA", "de_DE", "es_ES", "it_IT", "nl_NL")
#: Country of each locale, written after its towns.
COUNTRIES = {
    "en_US": "United States", "en_GB": "United Kingdom", "en_AU": "Australia", "en_CA": "Canada",
    "de_DE": "Germany", "es_ES": "Spain", "it_IT": "Italy", "nl_NL": "Netherlands",
}  # fmt: skip
#: Slots: {s} street address, {C}/{D} towns, {S} state, {A} state abbreviation, {z} postcode
#: alone, {Z} postcode after a state or town (part of the place, as the corpus labels it),
#: {K}/{L} countries, {X} a whole address on one line, {M} on several lines, {n} a name, {d} a
#: date, {o} a company, {u} a web address, {t} a phone number.
SLOTS = {
    "{s}": "LOCATION", "{C}": "LOCATION", "{D}": "LOCATION", "{S}": "LOCATION",
    "{A}": "LOCATION", "{z}": "ZIP_CODE", "{Z}": "LOCATION", "{K}": "LOCATION", "{L}": "LOCATION",
    "{X}": "LOCATION", "{M}": "LOCATION", "{n}": "PERSON", "{d}": "DATE_TIME",
    "{o}": "ORGANIZATION", "{u}": "URL", "{t}": "PHONE_NUMBER", "{c}": "LOCATION",
    "{k}": "LOCATION", "{W}": "LOCATION",
}  # fmt: skip
TEMPLATES = (
    "{n} lives at {s}, {C}, {A} {Z}.",
    "Please mail the check to:\n{n}\n{s}\n{C}, {A} {Z}",
    "Our new office is at {s}\n{C}, {A} {Z}\n{K}",
    "I moved to {C}, {S} in {d}.",
    "She was born in {C}, {K} and now works for {o}.",
    "The store near {C}, {A} closes early on Sundays.",
    "My zip code is {z}.",
    "Zip: {z}",
    "The form lists {S} {Z} as her home state.",
    "Send the parcel to {X} by {d}.",
    "Address:\n{M}\nPhone: {t}",
    "{n} from {C} called about the refund.",
    "We drove from {C} to {D} in one day.",
    "Visit {u} to find our shop in {C}, {A}.",
    "The {o} branch at {s} in {C} is closed.",
    "Flights from {C}, {K} to {D}, {L} were cancelled.",
    "{C} is where {n} grew up.",
    "The package was delivered to {s} {C} {A} {Z} on {d}.",
    "He lives in {C}, {S}, {K}.",
    "Please update my address to {s}, {C} {Z}.",
    "Our warehouse in {C} ships to {K}.",
    "{n}, {s}, {C}",
    "The conference will be held in {C} on {d}.",
    "I work at {o} in {C}, {S}.",
    "Born in {S}, raised in {C}.",
    "The team visited {C}, {S} and then {K}.",
    "We are based in {C} {S}.",
    "Ship to {s}, {C}, {S} {Z}, {K}",
    "i used to live in {c} before moving to {k}",
    "Her parents emigrated from {W} to {C}.",
    "Contact us at our {C} office:\n{s}\n{C} {Z}",
    "The flat in {C} {Z} was sold.",
    "{n} has been living in {C} since {d}.",
    "Where is {s}? Is it near {C}?",
    "Office address: {X}\nWeb: {u}",
    "The closest city to {C}, {A} is {D}.",
    "{C}, {K}, {d}",
    "Postal code {z}, {C}",
    "We have stores in {C}, {D} and {W}.",
)


#: Types of :data:`LOCALE_TEMPLATES`' slots.
LOCALE_SLOTS = {
    "{b}": "LOCATION", "{s}": "LOCATION", "{u}": "LOCATION", "{C}": "LOCATION", "{K}": "LOCATION",
    "{Z}": "LOCATION", "{n}": "PERSON", "{o}": "ORGANIZATION",
}  # fmt: skip


def _fill(
    template: str, values: dict[str, str], slots: dict[str, str] = SLOTS
) -> tuple[str, list[tuple[int, int, str]]]:
    text, spans, pos = "", [], 0
    for m in re.finditer(r"\{[a-zA-Z]\}", template):
        text += template[pos : m.start()]
        value = values[m.group(0)]
        spans.append((len(text), len(text) + len(value), slots[m.group(0)]))
        text += value
        pos = m.end()
    return text + template[pos:], spans


def _one(fake, name: str, fallback):
    try:
        return getattr(fake, name)()
    except AttributeError:
        return getattr(fallback, name)()


def development_set(per_template: int = 4, seed: int = 29) -> list[dict]:
    """Rows {"text", "spans", "template", "locale"}; deterministic for a seed."""
    from faker import Faker

    rng = random.Random(seed)
    fakers = {}
    for locale in dict.fromkeys(LOCALES):
        fakers[locale] = Faker(locale)
        fakers[locale].seed_instance(rng.randrange(2**31))
    us = fakers["en_US"]
    rows = []
    for index, template in enumerate(TEMPLATES):
        for _ in range(per_template):
            locale = rng.choice(LOCALES)
            fake = fakers[locale]
            other = fakers[rng.choice(LOCALES)]
            lines = [ln.strip() for ln in fake.address().split("\n") if ln.strip()]
            values = {
                "{s}": fake.street_address().replace("\n", ", ").strip(),
                "{C}": fake.city(),
                "{D}": other.city(),
                "{S}": _one(fake, "state", us) if locale != "en_GB" else us.state(),
                "{A}": _one(fake, "state_abbr", us),
                "{z}": fake.postcode(),
                "{Z}": fake.postcode(),
                "{K}": COUNTRIES[locale],
                "{W}": us.country(),
                "{L}": COUNTRIES.get(other.locales[0], "France"),
                "{X}": ", ".join(lines),
                "{M}": "\n".join(lines),
                "{n}": us.name(),
                "{d}": us.date(pattern="%B %d, %Y"),
                "{o}": us.company(),
                "{u}": us.domain_name(),
                "{t}": us.numerify("(###) 555-0###"),
            }
            values["{c}"], values["{k}"] = values["{C}"].lower(), values["{W}"].lower()
            text, spans = _fill(template, values)
            rows.append({"text": text, "spans": spans, "template": index, "locale": locale})
    return rows


#: Layouts of addresses as Presidio's evaluation corpus writes them, every piece its own span: a
#: number before the street ({b}), the street with its number ({s}), a unit line ({u}), the town
#: ({C}), the country ({K}) and a postcode after it ({Z}); {n} a name, {o} a company.
LOCALE_TEMPLATES = (
    "{n}\n\n{b} {s}\n {u}\n {C}\n\n {K} {Z}",
    ">{n}\n>{o}\n>{n}\n>{b} {s}\n>{u}\n>{C}\n>{K} {Z}",
    "{n} lives at {b} {s}, {C}",
    "{n} had given {n} his address: {b} {s}, {C}",
    "{n} lives on {s} street.",
    "{n}\n{o}\n{b} {s} {u}, {C}, {K} {Z}",
    "{n} spent a year at {o}, and the following year at {o} in {C}, which later became {o}.",
    "Send it to {s}, {Z} {C}, {K}.",
)


def _locale_value(fake, name: str) -> str | None:
    try:
        return str(getattr(fake, name)()).replace("\n", " ").strip() or None
    except (AttributeError, KeyError, ValueError, TypeError, IndexError):
        return None


def locale_set(per_locale: int = 3, seed: int = 29) -> list[dict]:
    """Rows in every Faker locale with an address provider, laid out like the corpus's addresses.

    Towns are written in capitals in a fifth of the rows and the whole text in lower case in a
    tenth, as the corpus does. Rows {"text", "spans", "template", "locale"}.
    """
    import warnings

    from faker import Faker
    from faker.config import AVAILABLE_LOCALES

    rng = random.Random(seed)
    us = Faker("en_US")
    us.seed_instance(seed)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for locale in sorted(AVAILABLE_LOCALES):
            fake = Faker(locale)
            fake.seed_instance(rng.randrange(2**31))
            for _ in range(per_locale):
                street = _locale_value(fake, "street_address")
                city = _locale_value(fake, "city")
                if street is None or city is None:
                    break
                if rng.random() < 0.2:
                    city = city.upper()
                index = rng.randrange(len(LOCALE_TEMPLATES))
                values = {
                    "{b}": us.building_number(),
                    "{s}": street,
                    "{u}": _locale_value(fake, "secondary_address") or us.secondary_address(),
                    "{C}": city,
                    "{K}": _locale_value(fake, "current_country") or us.country(),
                    "{Z}": _locale_value(fake, "postcode") or us.postcode(),
                    "{n}": _locale_value(fake, "name") or us.name(),
                    "{o}": us.company(),
                }
                text, spans = _fill(LOCALE_TEMPLATES[index], values, LOCALE_SLOTS)
                if rng.random() < 0.1 and len(text.lower()) == len(text):
                    text = text.lower()
                rows.append({"text": text, "spans": spans, "template": index, "locale": locale})
    return rows


def decompose(rows, predictions, skip) -> tuple[Counter, list[str]]:
    """Type-agnostic merged spans: found / boundary / missed per gold types, spurious per type."""
    from benchmarks.bench_pii_corpus import IOU_THRESHOLD, _chars, _words, merge_adjacent

    counts: Counter = Counter()
    lines = []
    for row, pred in zip(rows, predictions, strict=True):
        text, words = row["text"], _words(row["text"], skip)
        gold = merge_adjacent(row["spans"], text, skip, False)
        guess = merge_adjacent(pred, text, skip, False)
        for a, b, _ in gold:
            chars = _chars(text, a, b, words)
            if not chars:
                continue
            kinds = "+".join(sorted({k for s, e, k in row["spans"] if s < b and a < e}))
            over = [(x, y) for x, y, _ in guess if x < b and a < y]
            got = set().union(*(_chars(text, x, y, words) for x, y in over))
            if not got:
                kind = "missed"
            elif len(chars & got) / len(chars | got) < IOU_THRESHOLD:
                kind = "boundary"
            else:
                kind = "found"
            counts[kind, kinds] += 1
            if kind != "found":
                lines.append(
                    f"{row['locale']} T{row['template']:02d} {kind.upper()} {kinds} {text[a:b]!r} "
                    f"pred: {[text[x:y] for x, y in over]}"
                )
        for x, y, _ in guess:
            if _chars(text, x, y, words) and not any(a < y and x < b for a, b, _ in gold):
                kinds = "+".join(sorted({k for s, e, k in pred if s < y and x < e}))
                counts["spurious", kinds] += 1
                lines.append(
                    f"{row['locale']} T{row['template']:02d} SPURIOUS {kinds} {text[x:y]!r}"
                )
    return counts, sorted(lines)


def main(argv: list[str] | None = None) -> int:
    from benchmarks.bench_pii_corpus import _skip_words, ours, report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-template", type=int, default=4)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--errors", action="store_true", help="print every wrong extent")
    parser.add_argument(
        "--locales", action="store_true", help="addresses of every Faker locale, corpus layouts"
    )
    parser.add_argument("--only", help="decompose the spans of this type only (e.g. LOCATION)")
    args = parser.parse_args(argv)
    if args.locales:
        rows = locale_set(args.per_template, args.seed)
    else:
        rows = development_set(args.per_template, args.seed)
    predictions = ours([r["text"] for r in rows])
    skip = _skip_words()
    print(f"{len(rows)} sentences, {sum(len(r['spans']) for r in rows)} labelled spans")
    report("development set (places and addresses in prose)", rows, predictions, skip)
    if args.only:
        rows = [{**r, "spans": [s for s in r["spans"] if s[2] == args.only]} for r in rows]
        predictions = [[p for p in pred if p[2] == args.only] for pred in predictions]
    counts, lines = decompose(rows, predictions, skip)
    print("\ntype-agnostic merged spans:")
    for (kind, types), n in sorted(counts.items(), key=lambda kv: (kv[0][0], -kv[1])):
        print(f"  {kind} {types}: {n}")
    if args.errors:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
