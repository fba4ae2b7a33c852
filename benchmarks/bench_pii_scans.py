"""Recall of identifiers on synthetic scans: labelled sentences rendered as 300 dpi pages under
scanner-like conditions, de-identified through OCR, and the share of identifier words boxed.

There are no real scans here, so this is a proxy, and says so:

* Sentences: ten templates written for this benchmark (never used to tune the recognizers),
  filled with seeded values: phone numbers, e-mail addresses, Luhn-valid card numbers and IBANs
  from Faker, and names that are either invented from syllables and checked to be in none of
  Faker's name lists (``--names invented``, the default: the name gazetteer is built from
  Faker's lists, so Faker's names would measure the gazetteer) or Faker's own names of seven
  European locales (``--names faker``). Every word of a filled value is labelled.
* Pages: A4 at 300 dpi (2480 x 3508 pixels), DejaVu Sans at 42 px (10 pt), one sentence per
  paragraph. Conditions (seeded): ``clean`` (as rendered), ``scanner`` (rotation up to
  +/-1.5 degrees, Gaussian blur radius 0.7, pixel noise sigma 12) and ``poor`` (rotation up to
  +/-3 degrees, blur 1.2, noise 25, saved as JPEG quality 60) and ``fax`` (rotation up to
  +/-2 degrees, blur 0.8, noise 20, then halved to 150 dpi).
* Each page goes through the engine of ``anon-core deidentify`` as a PNG or JPEG image
  (:func:`anon_core.pii.documents.deidentify_bytes`: tesseract, the document's language, the
  default text section, black boxes).
* Oracle, independent of the pipeline: where each word lands is known from Pillow's layout and
  the rotation applied; a word counts as **boxed** when at least 90% of the pixels in the
  middle of its box are black in the output image. The same share is given for the other words
  (boxes over words that are not identifiers), for the same sentences analysed as plain text
  (a word is covered when a found span overlaps it: what OCR costs), and for words tesseract
  read exactly (its word whose box holds the word's centre has the same characters).

Run: ``python -m benchmarks.bench_pii_scans [--sentences 48] [--seed 0]`` (needs tesseract).
Prints a table per condition; no timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import random
import re
import resource
import shutil
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
PAGE = (2480, 3508)
MARGIN = 160
FONT_PX = 42
LINE = int(FONT_PX * 1.45)
PARAGRAPH = int(FONT_PX * 1.2)
TEMPLATES = (
    "Please call {PERSON} on {PHONE_NUMBER} before Friday.",
    "The referral for {PERSON} was sent to {EMAIL_ADDRESS} yesterday.",
    "{PERSON} paid with card {CREDIT_CARD} at the front desk.",
    "Refund the deposit to {PERSON}, account {IBAN_CODE}, within ten days.",
    "Dr. {PERSON} asked us to ring {PHONE_NUMBER} about the results.",
    "Signed by {PERSON} on behalf of the ward.",
    "Contact: {PERSON}, {PHONE_NUMBER}, {EMAIL_ADDRESS}",
    "Send the discharge letter to {PERSON} and copy {EMAIL_ADDRESS}.",
    "The visit of {PERSON} was moved; her phone is {PHONE_NUMBER}.",
    "Card {CREDIT_CARD} belongs to {PERSON} according to the clinic.",
)
LOCALES = ("en_GB", "en_US", "fr_FR", "de_DE", "es_ES", "it_IT", "nl_NL")
PHONE_LOCALES = ("en_GB", "en_US", "fr_FR", "de_DE")
CONDITIONS = {
    "clean": {"angle": 0.0, "blur": 0.0, "noise": 0.0, "format": "png"},
    "scanner": {"angle": 1.5, "blur": 0.7, "noise": 12.0, "format": "png"},
    "poor": {"angle": 3.0, "blur": 1.2, "noise": 25.0, "format": "jpeg"},
    "fax": {"angle": 2.0, "blur": 0.8, "noise": 20.0, "format": "png", "scale": 0.5},
}
TYPES = ("PERSON", "PHONE_NUMBER", "EMAIL_ADDRESS", "CREDIT_CARD", "IBAN_CODE")


@dataclass
class Word:
    text: str
    label: str | None  # the entity type of the value it belongs to, or None
    sentence: int
    start: int  # offsets in its sentence
    end: int
    box: tuple[float, float, float, float] = (0, 0, 0, 0)


SYLLABLES = (
    "ka",
    "lo",
    "ven",
    "dri",
    "mar",
    "tel",
    "sun",
    "bra",
    "ko",
    "rin",
    "dal",
    "fe",
    "gor",
    "mi",
    "nad",
    "os",
    "pel",
    "qua",
    "ros",
    "ta",
    "ul",
    "vik",
    "wen",
    "yar",
    "zel",
    "bo",
    "cha",
    "der",
)


def faker_name_words() -> set[str]:
    """Every given name and surname Faker ships for :data:`LOCALES` (lower case)."""
    from faker import Faker

    words: set[str] = set()
    for locale in LOCALES:
        for provider in Faker(locale).providers:
            for attr in ("first_names", "last_names", "first_names_male", "first_names_female"):
                values = getattr(provider, attr, ())
                words |= {str(v).lower() for v in values}
    return words


def invented_name(rng: random.Random, known: set[str]) -> str:
    """A capitalised two-word name of random syllables that no Faker locale lists."""
    while True:
        first = "".join(rng.choice(SYLLABLES) for _ in range(2)).capitalize()
        last = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
        if first.lower() not in known and last.lower() not in known:
            return f"{first} {last}"


def sentences(n: int, seed: int, names: str = "invented") -> list[tuple[str, list[Word]]]:
    """``n`` filled templates, each with its words and their labels; ``names`` is ``invented``
    (syllables, in no name list) or ``faker`` (Faker's names, which the name gazetteer holds)."""
    from faker import Faker

    rng = random.Random(seed)
    fakers = {loc: Faker(loc) for loc in sorted(set(LOCALES) | set(PHONE_LOCALES))}
    for i, f in enumerate(fakers.values()):
        f.seed_instance(seed * 100 + i)
    known = faker_name_words() if names == "invented" else set()
    out = []
    for k in range(n):
        template = TEMPLATES[k % len(TEMPLATES)]
        text, spans = "", []
        for piece in re.split(r"(\{[A-Z_]+\})", template):
            if not piece.startswith("{"):
                text += piece
                continue
            entity = piece[1:-1]
            if entity == "PERSON" and names == "invented":
                value = invented_name(rng, known)
            elif entity == "PERSON":
                f = fakers[rng.choice(LOCALES)]
                value = f"{f.first_name()} {f.last_name()}"
            elif entity == "PHONE_NUMBER":
                value = fakers[rng.choice(PHONE_LOCALES)].phone_number()
            elif entity == "EMAIL_ADDRESS":
                value = fakers["en_GB"].email()
            elif entity == "CREDIT_CARD":
                digits = fakers["en_US"].credit_card_number(card_type="visa16")
                value = " ".join(digits[i : i + 4] for i in range(0, len(digits), 4))
            else:
                raw = fakers[rng.choice(("de_DE", "fr_FR", "nl_NL", "es_ES"))].iban()
                value = " ".join(raw[i : i + 4] for i in range(0, len(raw), 4))
            spans.append((len(text), len(text) + len(value), entity))
            text += value
        words = []
        for m in re.finditer(r"\S+", text):
            label = next((e for a, b, e in spans if m.start() < b and a < m.end()), None)
            words.append(Word(m.group(), label, k, m.start(), m.end()))
        out.append((text, words))
    return out


def layout(batch: list[tuple[str, list[Word]]]):
    """Draw the sentences on A4 pages; yields (image, words on it) with each word's box."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(FONT), FONT_PX)
    space = font.getlength(" ")
    pages, image, placed, y = [], None, [], PAGE[1]
    for _text, words in batch:
        x0 = MARGIN
        # a sentence never splits over two pages
        needed = LINE * (1 + int(sum(font.getlength(w.text) + space for w in words) // 2000))
        if image is None or y + needed > PAGE[1] - MARGIN:
            if image is not None:
                pages.append((image, placed))
            image, placed, y = Image.new("L", PAGE, 255), [], MARGIN
        draw = ImageDraw.Draw(image)
        x = x0
        for w in words:
            width = font.getlength(w.text)
            if x + width > PAGE[0] - MARGIN:
                x, y = x0, y + LINE
            left, top, right, bottom = draw.textbbox((x, y), w.text, font=font)
            draw.text((x, y), w.text, font=font, fill=0)
            w.box = (left, top, right, bottom)
            placed.append(w)
            x += width + space
        y += LINE + PARAGRAPH
    if image is not None:
        pages.append((image, placed))
    return pages


def degrade(image, condition: dict, rng: random.Random):
    """The scanned page: rotated about its centre, blurred, noisy; and the rotation angle."""
    import numpy as np
    from PIL import Image, ImageFilter

    angle = rng.uniform(-condition["angle"], condition["angle"])
    out = image.rotate(angle, center=(PAGE[0] / 2, PAGE[1] / 2), fillcolor=255)
    if condition["blur"]:
        out = out.filter(ImageFilter.GaussianBlur(condition["blur"]))
    if condition["noise"]:
        pixels = np.asarray(out, dtype=np.float32)
        noise = np.random.default_rng(rng.randrange(2**32)).normal(
            0, condition["noise"], pixels.shape
        )
        out = Image.fromarray(np.clip(pixels + noise, 0, 255).astype(np.uint8), "L")
    scale = condition.get("scale", 1.0)
    if scale != 1.0:  # a lower resolution (a fax is about 200 x 100 dpi, 150 dpi here)
        size = (round(PAGE[0] * scale), round(PAGE[1] * scale))
        out = out.resize(size, Image.Resampling.BILINEAR)
    return out, angle


def moved(box, angle: float) -> tuple[float, float, float, float]:
    """``box`` after PIL's rotation by ``angle`` degrees about the page centre (the rotated
    centre, with the box's size)."""
    cx, cy = PAGE[0] / 2, PAGE[1] / 2
    x, y = (box[0] + box[2]) / 2 - cx, (box[1] + box[3]) / 2 - cy
    t = math.radians(angle)
    nx, ny = cx + x * math.cos(t) + y * math.sin(t), cy - x * math.sin(t) + y * math.cos(t)
    hw, hh = (box[2] - box[0]) / 2, (box[3] - box[1]) / 2
    return (nx - hw, ny - hh, nx + hw, ny + hh)


def boxed(output, box) -> bool:
    """At least 90% of the pixels in the middle of ``box`` (60% of its width, 50% of its
    height) are black."""
    import numpy as np

    left, top, right, bottom = box
    w, h = right - left, bottom - top
    crop = output.crop(
        (
            int(left + 0.2 * w),
            int(top + 0.25 * h),
            int(right - 0.2 * w) + 1,
            int(bottom - 0.25 * h) + 1,
        )
    )
    return float((np.asarray(crop.convert("L")) < 60).mean()) >= 0.9


def _clean(text: str) -> str:
    return re.sub(r"[^\w@.+-]", "", text).strip(".,;:")


def ocr_read(image, words: list[Word], boxes) -> list[bool]:
    """For each word: tesseract's word whose box holds its centre has the same characters."""
    from anon_core.pii.ocr import ocr_image

    page = ocr_image(image)
    found = []
    for w, b in zip(words, boxes, strict=True):
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        hit = next(
            (
                page.blocks[o.block][o.start : o.end]
                for o in page.words
                if o.box[0] <= cx <= o.box[2] and o.box[1] <= cy <= o.box[3]
            ),
            "",
        )
        found.append(_clean(hit) == _clean(w.text))
    return found


def text_covered(batch, cfg) -> list[bool]:
    """The same sentences analysed as plain text: is each word overlapped by a found span?"""
    from anon_core.services.pii import deidentify_texts

    results = deidentify_texts([t for t, _ in batch], cfg)
    out = []
    for (_text, words), result in zip(batch, results, strict=True):
        for w in words:
            out.append(any(s.start < w.end and w.start < s.end for s in result.found))
    return out


def share(hits: list[bool]) -> str:
    return f"{sum(hits) / len(hits):.1%} ({sum(hits)}/{len(hits)})" if hits else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=48)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    parser.add_argument(
        "--names",
        choices=("invented", "faker"),
        default="invented",
        help="invented names (in no name list: the model and context cues must find them) or "
        "Faker's (the name gazetteer is built from Faker's lists, so these are easy)",
    )
    parser.add_argument("--no-ocr-detail", action="store_true", help="skip the OCR read figure")
    args = parser.parse_args(argv)
    if shutil.which("tesseract") is None or not FONT.is_file():
        print("needs tesseract-ocr and fonts-dejavu-core (see .ci/run); nothing measured.")
        return 0
    from anon_core.pii.documents import deidentify_bytes
    from anon_core.services.documents import text_config

    cfg = text_config(None)
    batch = sentences(args.sentences, args.seed, args.names)
    words = [w for _t, ws in batch for w in ws]
    in_text = text_covered(batch, cfg)
    covered_text = {id(w): hit for w, hit in zip(words, in_text, strict=True)}
    print(
        f"{args.sentences} sentences, {len(words)} words, "
        f"{sum(w.label is not None for w in words)} identifier words; {args.names} names; "
        f"seed {args.seed}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    for name in args.conditions.split(","):
        condition = CONDITIONS[name]
        rng = random.Random(f"{args.seed}-{name}")
        results: dict[int, bool] = {}
        read: dict[int, bool] = {}
        wall, cpu, pages = time.perf_counter(), time.process_time(), 0
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = children.ru_utime + children.ru_stime
        for image, placed in layout(sentences(args.sentences, args.seed, args.names)):
            pages += 1
            scan, angle = degrade(image, condition, rng)
            kind = condition["format"]
            buffer = io.BytesIO()
            scan.save(
                buffer,
                format="JPEG" if kind == "jpeg" else "PNG",
                **({"quality": 60} if kind == "jpeg" else {}),
            )
            out, _summary = deidentify_bytes(
                buffer.getvalue(), f"page.{'jpg' if kind == 'jpeg' else 'png'}", cfg
            )
            from PIL import Image

            output = Image.open(io.BytesIO(out))
            scale = condition.get("scale", 1.0)
            boxes = [tuple(v * scale for v in moved(w.box, angle)) for w in placed]
            for w, b in zip(placed, boxes, strict=True):
                results[(w.sentence, w.start)] = boxed(output, b)
            if not args.no_ocr_detail:
                for w, hit in zip(placed, ocr_read(scan, placed, boxes), strict=True):
                    read[(w.sentence, w.start)] = hit
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = children.ru_utime + children.ru_stime - child
        print(
            f"\n== {name}: {pages} page(s), {round(300 * condition.get('scale', 1.0))} dpi, "
            f"rotation up to {condition['angle']} deg, blur {condition['blur']}, noise "
            f"{condition['noise']}, {condition['format'].upper()}; "
            f"{wall:.0f} s wall, {cpu:.0f} s CPU here and {child:.0f} s in tesseract, "
            f"load {os.getloadavg()[0]:.1f}"
        )
        print(
            f"{'words':<16} {'boxed on the scan':<22} {'covered as text':<22} {'read exactly by OCR':<22}"
        )
        groups = [(t, [w for w in words if w.label == t]) for t in TYPES]
        groups.append(("all identifiers", [w for w in words if w.label is not None]))
        groups.append(("other words", [w for w in words if w.label is None]))
        for label, group in groups:
            keys = [(w.sentence, w.start) for w in group]
            print(
                f"{label:<16} {share([results[k] for k in keys]):<22} "
                f"{share([covered_text[id(w)] for w in group]):<22} "
                f"{share([read[k] for k in keys]) if read else '-':<22}"
            )
    counts = Counter(w.label for w in words if w.label)
    print("\nidentifier words per type:", dict(sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
