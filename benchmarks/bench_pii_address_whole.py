"""Whole addresses labelled as ONE span, in every Faker locale with an address provider.

    python benchmarks/bench_pii_address_whole.py [--per-kind N] [--seed S] [--errors] [--locale L]

Presidio's evaluation corpus often labels a whole Faker ``street_address()`` (with its unit) or a
whole ``address()`` (street, unit, town, state, postcode, country; on one line or several) as ONE
span. Each row here is one such value inside an English sentence written for the purpose
(:data:`FRAMES`: mid-sentence, at a sentence's end, before a comma and more words, after "at",
"to", "from", "address:", in a list; a sixth of the rows lower-cased). Five values per locale
and draw: the street address, the street address and a unit (``secondary_address()``, where
the locale has one), and ``address()`` as Faker prints it, with its line breaks replaced by ", "
and by " ".

Scored with ``bench_pii_corpus.py``'s type-agnostic protocol (every prediction merged across
types over skip words, a labelled span found at a character IoU >= 0.9 on its non-skip words).
Printed: recall per locale and per value kind, and the words of a labelled span left uncovered
at its end and at its start, counted by word shape and by the Faker part they come from
(``city``, ``postcode``, ``state_abbr``, ...). The address recognizers were tuned on this set:
it measures coverage of the layouts, not generalisation.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import warnings
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: English sentences around one address ({a}); none holds another labelled value.
FRAMES = (
    "She lives at {a} with her two cats.",
    "The parcel was sent to {a} yesterday.",
    "Please send the signed form to {a}.",
    "Our office at {a}, which opened last spring, is closed today.",
    "He moved from {a} to a farm outside town.",
    "Address: {a}",
    "address: {a}\nOpening hours are nine to five.",
    "We looked at three flats: {a}, one near the river and one by the park.",
    "My old address was {a}.",
    "Deliveries to {a} are made on Tuesdays.",
    "From {a} it is a short walk to the station.",
    "The invoice lists {a} as the billing address.",
    "Write to us at {a} if anything is missing.",
    "{a} is where the meeting will take place.",
    "The new tenant at {a} asked about the heating",
    "Is {a} still your home address?",
)
#: Value kinds: the street address, with a unit, the whole address in three layouts, and a
#: listing as some generated corpora write one: a building number, the street address, a unit,
#: the town, the country and the postcode ("20789 Allika 46, Suite 501, Riisa, Estonia 62488"),
#: and its street line alone ("20789 Allika 46 Suite 501").
KINDS = ("street", "street+unit", "address", "address, ", "address ", "listing", "listing street")
_TOKEN = re.compile(r"\{\{\s*(\w+)(?::\s*\w+?)?\s*\}\}")


def _address_provider(fake):
    from faker.providers.address import Provider

    found = [p for p in fake.providers if isinstance(p, Provider)]
    return found[0] if found else None


def _parse(fake, pattern: str, expand: dict[str, str]) -> list[tuple[str, str]]:
    """(text, part) pieces of a Faker format; parts named in ``expand`` are parsed in turn."""
    out: list[tuple[str, str]] = []
    pos = 0
    for m in _TOKEN.finditer(pattern):
        if m.start() > pos:
            out.append((pattern[pos : m.start()], "literal"))
        name = m.group(1)
        if name in expand:
            out += _parse(fake, fake.random_element(expand[name]), {})
        else:
            out.append((str(fake.format(name)), name))
        pos = m.end()
    if pos < len(pattern):
        out.append((pattern[pos:], "literal"))
    return out


def _pieces(fake, provider, kind: str) -> list[tuple[str, str]] | None:
    """The value of ``kind`` as (text, Faker part) pieces, or None where the locale has none."""
    from faker.providers.address import Provider

    own_street = type(provider).street_address is Provider.street_address
    streets = getattr(provider, "street_address_formats", None) if own_street else None
    if kind == "listing street":
        pieces = [(fake.building_number(), "building_number"), (" ", "literal")]
        unit = _pieces(fake, provider, "street+unit") or _pieces(fake, provider, "street")
        return pieces + (unit or [])
    if kind == "listing":
        pieces = [(fake.building_number(), "building_number"), (" ", "literal")]
        pieces += _pieces(fake, provider, "street") or []
        for name in ("secondary_address", "city", "current_country", "postcode"):
            try:
                value = str(getattr(fake, name)()).strip()
            except (AttributeError, KeyError, ValueError, TypeError, IndexError):
                continue
            sep = " " if name == "postcode" else ", "
            pieces += [(sep, "literal"), (value.replace("\n", " "), name)]
        return pieces
    if kind.startswith("street"):
        if streets:
            pieces = _parse(fake, fake.random_element(streets), {})
        else:
            pieces = [(fake.street_address(), "street_address")]
        if kind == "street+unit":
            try:
                unit = fake.secondary_address()
            except AttributeError:
                return None
            pieces += [(" ", "literal"), (unit, "secondary_address")]
        return pieces
    formats = getattr(provider, "address_formats", None)
    if type(provider).address is Provider.address and formats:
        expand = {"street_address": streets} if streets else {}
        pieces = _parse(fake, fake.random_element(formats), expand)
    else:
        pieces = [(fake.address(), "address")]
    sep = {"address": None, "address, ": ", ", "address ": " "}[kind]
    if sep is not None:
        pieces = [(re.sub(r"[ \t]*\n[ \t]*", sep, t), p) for t, p in pieces]
    # Faker's own spaces around a value ("Puerta 8 \n") are no part of the span
    text = "".join(t for t, _ in pieces)
    lead, trail = len(text) - len(text.lstrip()), len(text) - len(text.rstrip())
    out, pos = [], 0
    for t, p in pieces:
        lo, hi = max(pos, lead), min(pos + len(t), len(text) - trail)
        if lo < hi:
            out.append((text[lo:hi], p))
        pos += len(t)
    return out


def whole_set(per_kind: int = 2, seed: int = 29, only: str | None = None) -> list[dict]:
    """Rows {"text", "spans", "parts", "locale", "kind"}: one labelled address each."""
    from faker import Faker
    from faker.config import AVAILABLE_LOCALES

    rng = random.Random(seed)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for locale in sorted(AVAILABLE_LOCALES):
            if only and locale != only:
                continue
            fake = Faker(locale)
            fake.seed_instance(rng.randrange(2**31))
            provider = _address_provider(fake)
            if provider is None:
                continue
            for kind in KINDS:
                for _ in range(per_kind):
                    pieces = _pieces(fake, provider, kind)
                    if not pieces:
                        break
                    frame = rng.choice(FRAMES)
                    before = frame[: frame.index("{a}")]
                    after = frame[frame.index("{a}") + 3 :]
                    value = "".join(t for t, _ in pieces)
                    text = before + value + after
                    if rng.random() < 1 / 6:
                        lowered = text.lower()
                        text = lowered if len(lowered) == len(text) else text
                    parts, pos = [], len(before)
                    for t, p in pieces:
                        parts.append((pos, pos + len(t), p))
                        pos += len(t)
                    spans = [(len(before), len(before) + len(value), "LOCATION")]
                    rows.append(
                        {
                            "text": text,
                            "spans": spans,
                            "parts": parts,
                            "locale": locale,
                            "kind": kind,
                        }
                    )
    return rows


def shape(word: str) -> str:
    """A word's shape: X capital, x lower-case letter, d digit, runs shortened to 2."""
    out = re.sub(
        r"\d", "d", re.sub(r"[^\W\d_]", lambda m: "X" if m.group().isupper() else "x", word)
    )
    return re.sub(r"(.)\1\1+", r"\1\1", out)


def score(rows, predictions, skip) -> dict:
    """Found per locale and kind, and the uncovered words at each end of the spans not found."""
    from benchmarks.bench_pii_corpus import IOU_THRESHOLD, _chars, _words, merge_adjacent

    found, total = Counter(), Counter()
    ends: dict[str, Counter] = defaultdict(Counter)
    errors = []
    for row, pred in zip(rows, predictions, strict=True):
        text, words = row["text"], _words(row["text"], skip)
        guess = merge_adjacent(pred, text, skip, False)
        a, b, _ = row["spans"][0]
        gold = _chars(text, a, b, words)
        over = [(x, y) for x, y, _ in guess if x < b and a < y]
        got = set().union(*(_chars(text, x, y, words) for x, y in over))
        ok = bool(gold) and len(gold & got) / len(gold | got) >= IOU_THRESHOLD
        for key in (row["locale"], "kind " + row["kind"], "all"):
            total[key] += 1
            found[key] += ok
        if ok:
            continue
        inside = [(s, e) for s, e in words if a <= s and e <= b]
        covered = [bool(set(range(s, e)) & got) for s, e in inside]
        marks = "".join("x" if c else "." for c in covered)
        errors.append(
            f"{row['locale']} {row['kind']!r} {marks} {text!r} pred {[text[x:y] for x, y in over]}"
        )
        if not any(covered):
            ends["missed"][row["kind"]] += 1
            continue
        for side, seq in (
            ("end", list(zip(inside, covered, strict=True))[::-1]),
            ("start", zip(inside, covered, strict=True)),
        ):
            for (s, e), c in seq:
                if c:
                    break
                part = next((p for x, y, p in row["parts"] if x <= s < y), "?")
                ends[side + " part"][part] += 1
                ends[side + " shape"][shape(text[s:e])] += 1
        if "." in marks.strip("."):
            ends["middle"][row["kind"]] += 1
        spill = [w for w in _words(text, skip) if (w[0] < a or w[1] > b) and set(range(*w)) & got]
        for s, e in spill:
            ends["spill word"][text[s:e].lower()] += 1
    return {"found": found, "total": total, "ends": ends, "errors": errors}


def main(argv: list[str] | None = None) -> int:
    from benchmarks.bench_pii_corpus import _skip_words, ours

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=2)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--locale", help="one locale only")
    parser.add_argument("--errors", action="store_true", help="print every span not found")
    args = parser.parse_args(argv)
    rows = whole_set(args.per_kind, args.seed, args.locale)
    predictions = ours([r["text"] for r in rows])
    res = score(rows, predictions, _skip_words())
    found, total = res["found"], res["total"]
    print(f"{len(rows)} sentences; recall {found['all'] / total['all']:.3f}")
    for key in sorted(k for k in total if k.startswith("kind ")):
        print(f"  {key[5:]!r:<14} {found[key] / total[key]:.3f} of {total[key]}")
    line = [f"{k} {found[k]}/{total[k]}" for k in sorted(total) if " " not in k and k != "all"]
    print("per locale: " + ", ".join(line))
    for name, counts in sorted(res["ends"].items()):
        print(f"{name}: " + ", ".join(f"{k} {n}" for k, n in counts.most_common(15)))
    if args.errors:
        print("\n".join(res["errors"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
