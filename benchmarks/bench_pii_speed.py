"""Speed of document de-identification: megabytes of mixed-language text, and a 20-page DOCX.

* **Text**: ``--mb`` megabytes (default 10) of UTF-8 text in ``--files`` documents (default 50),
  each in one language, English, French, German, Spanish and Italian in turn. Paragraphs of
  three to five sentences from the hand-written patterns of ``bench_language`` filled with
  seeded Faker names and places, plus a phone number or an e-mail address in every other
  paragraph. The files go through :func:`anon_core.services.documents.deidentify_uploads`
  (the dashboard's Documents page; ``anon-core deid-docs`` runs a folder the same way): each
  file is de-identified by :func:`anon_core.pii.documents.deidentify_bytes`, files side by side
  in this process and the worker processes of :mod:`anon_core.pii.workers` (``--workers``,
  default: cores - 1; ``0``: this process only). ``--one-by-one``: each file through
  ``deidentify_bytes`` in turn, its paragraphs in chunks across the processes (the protocol
  before files ran side by side).
* **DOCX**: a document of ``--pages`` pages (default 20; about 450 words a page, a table and a
  header), built with python-docx, de-identified the same way; the median of three runs.

Models are loaded once before timing (their load time is printed apart; workers load theirs when
they start, during the first DOCX run). Wall time, CPU time of this process, CPU time of this
process and its workers together (the workers' time is read when they exit at the end, so it
covers the whole run, their model loading included) and the load average are printed; nothing
is written to disk and no timing is asserted. Faker's output depends on Python's string hashing,
so set ``PYTHONHASHSEED=0`` to time the same text twice (the SHA-256 of the text is printed). Run:
``python -m benchmarks.bench_pii_speed [--mb 10] [--files 50] [--pages 20] [--workers N]``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import random
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_language import PATTERNS  # noqa: E402

LANGUAGES = ("en", "fr", "de", "es", "it")
LOCALE = {"en": "en_GB", "fr": "fr_FR", "de": "de_DE", "es": "es_ES", "it": "it_IT"}
CONTACT = {
    "en": "You can reach {n} on {phone} or at {mail}.",
    "fr": "Vous pouvez joindre {n} au {phone} ou à {mail}.",
    "de": "Sie erreichen {n} unter {phone} oder {mail}.",
    "es": "Puede contactar con {n} en el {phone} o en {mail}.",
    "it": "Potete contattare {n} al {phone} o a {mail}.",
}


def document_text(language: str, size: int, seed: int) -> str:
    """About ``size`` bytes of UTF-8 paragraphs in ``language``."""
    from faker import Faker

    fake = Faker(LOCALE[language])
    fake.seed_instance(seed)
    rng = random.Random(seed)
    paragraphs, total = [], 0
    while total < size:
        count = rng.randint(3, 5)
        sentences = [
            rng.choice(PATTERNS[language]).format(n=fake.name(), p=fake.city())
            for _ in range(count)
        ]
        if len(paragraphs) % 2 == 0:
            sentences.append(
                CONTACT[language].format(
                    n=fake.name(), phone=fake.phone_number(), mail=fake.email()
                )
            )
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        total += len(paragraph.encode("utf-8")) + 2
    return "\n\n".join(paragraphs)


def docx_document(pages: int, seed: int) -> bytes:
    import docx

    text = document_text("en", pages * 2800, seed)  # about 450 words of 6 bytes a page
    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = "Case file: confidential"
    for i, paragraph in enumerate(text.split("\n\n")):
        document.add_paragraph(paragraph)
        if i % 25 == 24:
            table = document.add_table(rows=2, cols=2)
            table.cell(0, 0).text, table.cell(0, 1).text = "Contact", "Phone"
            table.cell(1, 0).text, table.cell(1, 1).text = (
                "Anna Berger",
                "+44 20 7946 0958",
            )
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    value = fn()
    return time.perf_counter() - w0, time.process_time() - c0, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=10.0)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-text", action="store_true")
    parser.add_argument("--one-by-one", action="store_true", help="files in turn, not side by side")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes (default: cores - 1)",
    )
    args = parser.parse_args(argv)
    if args.workers is not None:
        os.environ["ANON_CORE_PII_WORKERS"] = str(args.workers)
    from anon_core.pii.documents import deidentify_bytes
    from anon_core.pii.language import detect_languages, engine_for
    from anon_core.pii.workers import shutdown_workers, worker_count
    from anon_core.services.documents import deidentify_uploads, text_config

    cfg = text_config(None)
    wall, cpu, _ = timed(
        lambda: [engine_for(code) for code in LANGUAGES] + [detect_languages(["warm up text"])]
    )
    print(f"models loaded in {wall:.1f} s wall, {cpu:.1f} s CPU; load {os.getloadavg()[0]:.1f}")
    print(f"{worker_count()} worker process(es) besides this one, {os.cpu_count()} cores")
    deidentify_bytes(b"Please call Anna Berger on 020 7946 0958.", "warm.txt", cfg)

    docx_bytes = docx_document(args.pages, args.seed)
    runs = [timed(lambda: deidentify_bytes(docx_bytes, "case.docx", cfg)) for _ in range(3)]
    summary = runs[-1][2][1]
    print(
        f"DOCX of {args.pages} pages ({len(docx_bytes) / 1e3:.0f} kB, {summary.blocks} paragraphs, "
        f"{sum(summary.entities.values())} entities): median of 3 "
        f"{statistics.median(r[0] for r in runs):.2f} s wall, "
        f"{statistics.median(r[1] for r in runs):.2f} s CPU; load {os.getloadavg()[0]:.1f}"
    )
    if args.skip_text:
        shutdown_workers(wait=True)
        return 0
    size = int(args.mb * 1_000_000 / args.files)
    files = [
        (
            f"doc-{i:03d}.txt",
            document_text(LANGUAGES[i % 5], size, args.seed + i).encode("utf-8"),
        )
        for i in range(args.files)
    ]
    total = sum(len(d) for _n, d in files)
    digest = hashlib.sha256(b"".join(d for _n, d in files)).hexdigest()[:12]
    load_before = os.getloadavg()[0]
    found, languages = 0, {}

    def run_all():
        nonlocal found
        if not args.one_by_one:
            run = deidentify_uploads(files)
            for record in run.records:
                found += record.total
                languages[record.language] = languages.get(record.language, 0) + 1
            return
        for name, data in files:
            _out, s = deidentify_bytes(data, name, cfg)
            found += sum(s.entities.values())
            languages[s.language] = languages.get(s.language, 0) + 1

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    children_before = children.ru_utime + children.ru_stime
    wall, cpu, _ = timed(run_all)
    shutdown_workers(wait=True)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers_cpu = children.ru_utime + children.ru_stime - children_before
    print(
        f"text: {total / 1e6:.2f} MB in {len(files)} files (sha256 {digest}; languages found "
        f"{languages}), "
        f"{found:,} entities: {wall:.1f} s wall, {cpu:.1f} s CPU here, "
        f"{cpu + workers_cpu:.1f} s CPU with the workers, {total / 1e6 / wall:.3f} MB/s; "
        f"load {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
