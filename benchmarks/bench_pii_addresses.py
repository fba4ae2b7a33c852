"""Street addresses and postcodes in text: a labelled development set generated with Faker's locales.

    python benchmarks/bench_pii_addresses.py [--per-template N] [--seed S] [--errors] [--places]

Faker (MIT licence, in the environment) writes addresses as each locale lays them out (UK
"Flat 3\\nHopkins Shore\\nEast Harriet\\nS6 7LJ", German "Beckergasse 8\\n63608 Zschopau",
Italian "Strada Taliercio, 47\\n56011, Gabella (PI)", ...). They are put into English sentences
written for the purpose (:data:`TEMPLATES`: on one line after a cue, multi-line after a name,
quoted "> " lines, city and country, a postcode after a cue word), with the span of each, and a
few sentences holding numbers and capitalised words but no address (:data:`NEGATIVES`).

The set is analysed as ``anon-core deidentify`` does (every default) and scored with the span
and token protocols of ``bench_pii_corpus.py`` (Presidio's: adjacent spans merged over skip
words, a span found at a character overlap of at least 0.9; our STREET_ADDRESS counts as
LOCATION). Printed: per type, and recall of whole addresses per locale. The recognizers were
tuned on this set, so it measures coverage of the layouts, not generalisation.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Faker locales and the country each one's addresses are in.
LOCALES = {
    "en_US": "United States", "en_GB": "United Kingdom", "en_AU": "Australia", "en_CA": "Canada",
    "en_IE": "Ireland", "de_DE": "Germany", "de_AT": "Austria", "de_CH": "Switzerland",
    "fr_FR": "France", "fr_CH": "Switzerland", "es_ES": "Spain", "it_IT": "Italy",
    "nl_NL": "Netherlands", "nl_BE": "Belgium", "pt_PT": "Portugal", "pt_BR": "Brazil",
    "pl_PL": "Poland", "da_DK": "Denmark", "sv_SE": "Sweden", "no_NO": "Norway",
    "fi_FI": "Finland", "cs_CZ": "Czech Republic",
}  # fmt: skip
#: Sentences with one slot: {a} an address on one line (line breaks as ", "), {m} the address
#: on several lines, {q} quoted lines, {c} "city, country", {p} a postcode alone; {n} a name.
TEMPLATES = (
    "I live at {a}.",
    "Please ship the order to {a} before Friday.",
    "Our office moved to {a} last year.",
    "Address: {a}",
    "Ship to:\n{n}\n{m}",
    "{n}\n{m}\nTel. {t}",
    "> From: {n}\n> {q}",
    "Send the signed forms to {n}, {a}, by post.",
    "She moved from {c} in 2019.",
    "My zip code is {p}.",
    "Postcode: {p}",
)
#: Sentences with numbers and capitalised words but no address and no place.
NEGATIVES = (
    "The invoice lists 300 Euros 45 days ago.",
    "Chapter 5 covers Spring 2020 and Windows 10.",
    "We sold 12 Golden Delicious and 40 Granny Smith at the market.",
    "Room 101 is on Floor 3, next to Gate 12.",
    "Version 2 of the Report was signed on 14 March 2021.",
    "She scored 98 Points in Round 2 of the Open.",
    "Take 2 Tablets every 8 hours for 5 days.",
    "Flight 447 boards at 10:45 from Terminal 2.",
    "The meeting is at 3 pm in Conference Room B.",
    "Order 55213 contains 3 Blue Widgets and 1 Red Lamp.",
    "Page 17 of Annex 4 lists 250 Items.",
    "He was born in 1987 and joined Team 6 in 2010.",
)


#: Places in prose, each part its own labelled span as in Presidio's corpus (merged when adjacent):
#: {C} a town of the row's locale, {c} the same in lower case, {K} a country, {S} a US state,
#: {A} a state's abbreviation, {s} a street address on one line, {z} a postcode alone (ZIP_CODE),
#: {Z} a postcode inside an address (LOCATION: the corpus labels an address's numbers as part of
#: the address); {n} a name.
PLACE_TEMPLATES = (
    "I grew up in {C}.",
    "{C} is lovely, with a river and old bridges.",
    "We drove from {C} straight through to {D} without a break.",
    "The workshop takes place in {C}, {K}.",
    "He now lives in {C}, {S}.",
    "Send the contract to {s}, {C}, {A} {Z}.",
    "She was born in {K} but grew up abroad.",
    "Our shop at {s} opens at 9.",
    "New address: {s}, {Z} {C}",
    "The weather in {C} was awful.",
    "They relocated to {S} for work.",
    "Ship to:\n{s}\n{C}, {A} {Z}",
    "{n} from {C} called about the invoice.",
    "The parcel left our depot in {C} and is on its way.",
    "i moved to {c} with my kids",
    "Flights to {C} are cheap.",
    "My zip is {z} and I live in {C}.",
    "Our head office: {s}, {C} {Z}, {K}",
    "Contact: {n}, {C}",
    "Is {C} far from the border of {K}?",
    "Our team is based in {C}, {A}.",
)
#: Sentences with capitalised common words and numbers but no place.
PLACE_NEGATIVES = (
    "The Board met on Tuesday to discuss Growth Targets.",
    "Our Team won the Cup after Extra Time.",
    "See Section 4 of the Agreement for Payment Terms.",
    "Call Support at extension 204 if the Printer jams.",
    "Sales rose 12 percent in the Third Quarter.",
    "The Doctor prescribed 20 mg twice a day.",
    "Happy Birthday from all of us at Accounts!",
    "Please review Appendix B before the Kick-off.",
    "Top Gun and Star Wars were on TV last night.",
    "He ordered Fish and Chips with Extra Salt.",
)

_SLOTS = {"{a}": "LOCATION", "{m}": "LOCATION", "{q}": "LOCATION", "{c}": "LOCATION",
          "{p}": "ZIP_CODE", "{n}": "PERSON", "{t}": "PHONE_NUMBER", "{C}": "LOCATION",
          "{D}": "LOCATION", "{K}": "LOCATION", "{S}": "LOCATION",
          "{A}": "LOCATION", "{s}": "LOCATION", "{z}": "ZIP_CODE", "{Z}": "LOCATION"}  # fmt: skip


def _fill(template: str, values: dict[str, str]) -> tuple[str, list[tuple[int, int, str]]]:
    """The sentence and the labelled span of every slot filled in."""
    import re

    text, spans, pos = "", [], 0
    for m in re.finditer(r"\{[a-zA-Z]\}", template):
        text += template[pos : m.start()]
        value = values[m.group(0)]
        spans.append((len(text), len(text) + len(value), _SLOTS[m.group(0)]))
        text += value
        pos = m.end()
    return text + template[pos:], spans


def development_set(per_template: int = 2, seed: int = 7) -> list[dict]:
    """Rows {"text", "spans": [(start, end, type)], "locale"}: addresses as LOCATION spans,
    postcodes alone as ZIP_CODE, names as PERSON, the phone as PHONE_NUMBER; the negatives have
    no span. Deterministic for a seed."""
    from faker import Faker

    rng = random.Random(seed)
    rows: list[dict] = []
    for locale, country in LOCALES.items():
        fake = Faker(locale)
        fake.seed_instance(rng.randrange(2**31))
        namer = Faker("en_US")
        namer.seed_instance(rng.randrange(2**31))
        for template in TEMPLATES:
            for _ in range(per_template):
                lines = [ln.strip() for ln in fake.address().split("\n") if ln.strip()]
                values = {
                    "{a}": ", ".join(lines),
                    "{m}": "\n".join(lines),
                    "{q}": "\n> ".join(lines),
                    "{c}": f"{fake.city()}, {country}",
                    "{p}": fake.postcode(),
                    "{n}": namer.name(),
                    "{t}": "555 0100",
                }
                text, spans = _fill(template, values)
                rows.append({"text": text, "spans": spans, "locale": locale})
    rows += [{"text": t, "spans": [], "locale": "none"} for t in NEGATIVES]
    return rows


#: Locales whose Faker towns are bare surnames ("Gauthier", "Larsen", "Nunes"): no text tells
#: them from a person, so they are left out of the place set.
_SURNAME_TOWNS = frozenset({"fr_FR", "fr_CH", "pt_BR", "no_NO"})


def place_set(per_template: int = 2, seed: int = 11) -> list[dict]:
    """Rows like :func:`development_set`'s from :data:`PLACE_TEMPLATES`: towns, countries and
    states in prose, street and postcode as separate spans; the negatives have no span. US
    states and abbreviations come from en_US whatever the row's locale."""
    from faker import Faker

    rng = random.Random(seed)
    us = Faker("en_US")
    us.seed_instance(seed)
    rows: list[dict] = []
    for locale, country in LOCALES.items():
        if locale in _SURNAME_TOWNS:
            continue
        fake = Faker(locale)
        fake.seed_instance(rng.randrange(2**31))
        for template in PLACE_TEMPLATES:
            for _ in range(per_template):
                town = fake.city()
                values = {
                    "{C}": town,
                    "{D}": fake.city(),
                    "{c}": town.lower(),
                    "{K}": country,
                    "{S}": us.state(),
                    "{A}": us.state_abbr(),
                    "{s}": fake.street_address().replace("\n", ", ").strip(),
                    "{z}": fake.postcode(),
                    "{n}": us.name(),
                    "{Z}": fake.postcode(),
                }
                text, spans = _fill(template, values)
                rows.append({"text": text, "spans": spans, "locale": locale})
    rows += [{"text": t, "spans": [], "locale": "none"} for t in PLACE_NEGATIVES]
    return rows


def predict(texts: list[str]) -> list[list[tuple[int, int, str]]]:
    from benchmarks.bench_pii_corpus import ours

    return ours(texts)


def main(argv: list[str] | None = None) -> int:
    from benchmarks.bench_pii_corpus import _skip_words, merge_adjacent, report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-template", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--errors", action="store_true", help="print the missed addresses")
    parser.add_argument(
        "--places", action="store_true", help="the set of towns, countries and streets in prose"
    )
    args = parser.parse_args(argv)
    if args.places:
        rows = place_set(args.per_template, args.seed + 4)
    else:
        rows = development_set(args.per_template, args.seed)
    predictions = predict([r["text"] for r in rows])
    skip = _skip_words()
    print(f"{len(rows)} sentences, {sum(len(r['spans']) for r in rows)} labelled spans")
    title = "places in prose" if args.places else "Faker addresses, all locales"
    report(f"development set ({title})", rows, predictions, skip)
    found, total = Counter(), Counter()
    for row, pred in zip(rows, predictions, strict=True):
        for start, end, kind in row["spans"]:
            if kind not in ("LOCATION", "ZIP_CODE"):
                continue
            total[row["locale"]] += 1
            places = [p for p in pred if p[2] in ("LOCATION", "ZIP_CODE")]
            merged = merge_adjacent(places, row["text"], skip, typed=False)
            hit = [(a, b) for a, b, _ in merged if a < end and start < b]
            text = row["text"]
            gold = {i for i in range(start, end) if not text[i].isspace()}
            guess = {i for a, b in hit for i in range(a, b) if not text[i].isspace()}
            ok = bool(guess) and len(gold & guess) / len(gold | guess) >= 0.9
            found[row["locale"]] += ok
            if args.errors and not ok:
                print(f"  MISS {row['locale']} {kind}: {text!r} -> {[text[a:b] for a, b in hit]}")
    print("\n| locale | found | labelled | recall |\n| --- | --- | --- | --- |")
    for locale in sorted(total):
        print(
            f"| {locale} | {found[locale]} | {total[locale]} | {found[locale] / total[locale]:.3f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
