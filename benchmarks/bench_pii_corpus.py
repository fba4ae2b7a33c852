"""Text de-identification on Presidio's own evaluation corpus: per-entity precision, recall, F2.

    python benchmarks/bench_pii_corpus.py /work/data-presidio [--limit N] [--with-organizations]

The folder holds ``synth_dataset_v2.json`` from microsoft/presidio-research (MIT licence):
1,500 synthetic English sentences with international names, addresses, phones, cards, ...,
and their labelled character spans. The data is not part of this project; without the folder
the script prints why and exits 0 (skipped).

Two analyzers run on the same sentences in the same process, network sockets blocked:

* **ours**: :func:`anon_core.pii.deidentify_texts` with every default (language routing, our
  recognizers and filters, score threshold 0.35), i.e. what ``anon-core deidentify`` and the
  ``text`` section do;
* **Presidio defaults**: a plain ``AnalyzerEngine`` with the same spaCy model
  (``en_core_web_sm`` 3.8) and Presidio's predefined recognizers, score threshold 0.4 as in
  presidio-research's evaluation notebook; overlapping results keep the highest score.

Labels are mapped to Presidio's entity names as presidio-research does
(``PresidioAnalyzerWrapper.presidio_entities_map``: STREET_ADDRESS and GPE -> LOCATION,
DOMAIN_NAME -> URL, ...); our STREET_ADDRESS predictions count as LOCATION too.

Two protocols, both re-implemented here (presidio-evaluator itself is not installed):

* **token level**: words (``\\w+`` or one punctuation mark) outside skip words (punctuation,
  spaCy's English stop words, "street", "st.", ...) get the gold type of the span covering them
  and the predicted type of the prediction covering them; per type TP/FP/FN;
* **span level** (presidio-research's ``SpanEvaluator`` defaults): adjacent spans separated only
  by skip words are merged first, in the labels and in the predictions alike (per type; across
  types for "PII"), as its ``_merge_adjacent_spans`` does; a gold span is then found when the
  predictions of its type overlapping it reach a character IoU >= 0.9, counted on the characters
  of non-skip words; a prediction is correct when it is part of such a match.

"PII" is the same count with every type merged into one. Every table is printed twice: on all
sentences, and on the sentences of the templates not looked at while the name cue phrases were
chosen (:data:`TUNED_TEMPLATES`), the figure for text the recognizers were not tuned on. F2 weighs recall four times as much
as precision. The last table is the share of person, phone, card, e-mail and SSN words left
verbatim (not covered by any prediction): what stays readable after de-identification.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import string
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA_FILE = "synth_dataset_v2.json"
ENTITY_MAP = {
    "PERSON": "PERSON",
    "STREET_ADDRESS": "LOCATION",
    "GPE": "LOCATION",
    "LOCATION": "LOCATION",
    "ORGANIZATION": "ORGANIZATION",
    "CREDIT_CARD": "CREDIT_CARD",
    "DATE_TIME": "DATE_TIME",
    "TITLE": "TITLE",
    "PHONE_NUMBER": "PHONE_NUMBER",
    "AGE": "AGE",
    "NRP": "NRP",
    "EMAIL_ADDRESS": "EMAIL_ADDRESS",
    "ZIP_CODE": "ZIP_CODE",
    "DOMAIN_NAME": "URL",
    "URL": "URL",
    "IBAN_CODE": "IBAN_CODE",
    "US_SSN": "US_SSN",
    "IP_ADDRESS": "IP_ADDRESS",
    "US_DRIVER_LICENSE": "US_DRIVER_LICENSE",
}
#: Templates (``template_id``) of the sentences looked at while choosing the name cue phrases
#: of :mod:`anon_core.pii.engine` (45 missed names drawn from the first 750 sentences): the
#: sentences of the other templates are held out, never used to tune anything.
TUNED_TEMPLATES = frozenset(
    {40, 43, 48, 58, 69, 77, 86, 90, 91, 95, 97, 101, 103, 104, 105, 106, 116, 120, 122, 126,
     130, 136, 137, 139, 144, 153, 159, 167, 170, 173, 175, 184, 199, 200}
)  # fmt: skip
#: Direct identifiers whose verbatim share is reported.
DIRECT = ("PERSON", "PHONE_NUMBER", "CREDIT_CARD", "EMAIL_ADDRESS", "US_SSN")
IOU_THRESHOLD = 0.9
TOKEN = re.compile(r"\w+|[^\w\s]")


#: presidio-research's skip words (``evaluation/skipwords.py``) besides punctuation, whitespace
#: and spaCy's English stop words; "mr", "mrs" and "inc" because our tokens split off the dot.
SKIP_WORDS = (
    "'s", "street", "st.", "st", "de", "rue", "via", "and", "a", "the", "or", "do", "as", "of",
    "day", "address", "country", "state", "city", "zip", "po", "apt", "unit", "corner", "p.o.",
    "box", "suite", "mr.", "mrs.", "miss", "year", "years", "y/o", "month", "months", "old",
    "morning", "noon", "afternoon", "night", "evening", "this", "first", "last", "week", "weeks",
    "weekend", "days", "age", "ago", "inc", "inc.", "ltd", "mr", "mrs",
)  # fmt: skip


def _skip_words() -> set[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    words = set(string.punctuation) | set(STOP_WORDS) | set(SKIP_WORDS)
    return {w.lower() for w in words}


def _block_network() -> None:
    def refuse(*args, **kwargs):
        raise OSError("network access is blocked in bench_pii_corpus")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]


def load_corpus(folder: Path, limit: int | None) -> list[dict]:
    data = json.loads((folder / DATA_FILE).read_text(encoding="utf-8"))
    rows = []
    for item in data[:limit]:
        spans = [
            (s["start_position"], s["end_position"], ENTITY_MAP[s["entity_type"]])
            for s in item["spans"]
            if s["entity_type"] in ENTITY_MAP
        ]
        rows.append({"text": item["full_text"], "spans": spans, "template": item["template_id"]})
    return rows


# =============================================================================== analyzers
def ours(texts: list[str]) -> list[list[tuple[int, int, str]]]:
    from anon_core.pii import deidentify_texts, validate_text_section

    cfg = validate_text_section({"columns": ["text"]})
    results = deidentify_texts(texts, cfg)
    return [
        [(s.start, s.end, ENTITY_MAP.get(s.entity, s.entity)) for s in r.found] for r in results
    ]


def presidio_defaults(texts: list[str]) -> list[list[tuple[int, int, str]]]:
    from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    from anon_core.pii.engine import DEFAULT_MODEL

    nlp = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": DEFAULT_MODEL}],
        }
    ).create_engine()
    analyzer = AnalyzerEngine(nlp_engine=nlp, default_score_threshold=0.4)
    batch = BatchAnalyzerEngine(analyzer_engine=analyzer)
    out = []
    for results in batch.analyze_iterator(texts, language="en", batch_size=64):
        kept: list[tuple[int, int, str]] = []
        for r in sorted(results, key=lambda r: (-r.score, r.start)):
            if all(r.end <= a or r.start >= b for a, b, _ in kept):
                kept.append((r.start, r.end, ENTITY_MAP.get(r.entity_type, r.entity_type)))
        out.append(sorted(kept))
    return out


# =============================================================================== scoring
def _words(text: str, skip: set[str]) -> list[tuple[int, int]]:
    return [m.span() for m in TOKEN.finditer(text) if m.group().lower() not in skip]


def _type_at(spans, a: int, b: int) -> str | None:
    for start, end, kind in spans:
        if start < b and a < end:
            return kind
    return None


def token_counts(rows, predictions, skip) -> tuple[Counter, Counter, Counter, Counter, Counter]:
    tp, fp, fn = Counter(), Counter(), Counter()
    direct_total, direct_left = Counter(), Counter()
    for row, pred in zip(rows, predictions, strict=True):
        for a, b in _words(row["text"], skip):
            gold = _type_at(row["spans"], a, b)
            guess = _type_at(pred, a, b)
            if gold is not None and gold == guess:
                tp[gold] += 1
            else:
                if gold is not None:
                    fn[gold] += 1
                if guess is not None:
                    fp[guess] += 1
            if gold is not None and guess is not None:
                tp["PII"] += 1
            elif gold is not None:
                fn["PII"] += 1
            elif guess is not None:
                fp["PII"] += 1
            if gold in DIRECT:
                direct_total[gold] += 1
                direct_left[gold] += guess is None
    return tp, fp, fn, direct_total, direct_left


def _chars(text: str, start: int, end: int, words) -> set[int]:
    out: set[int] = set()
    for a, b in words:
        lo, hi = max(a, start), min(b, end)
        if lo < hi:
            out.update(range(lo, hi))
    return out


def merge_adjacent(spans, text: str, skip: set[str], typed: bool = True) -> list:
    """Spans of one type (any type with ``typed=False``) joined when only skip words lie between.

    presidio-research's ``SpanEvaluator`` builds spans from token tags and merges adjacent spans
    of the same type separated only by skip words, punctuation or whitespace
    (``_merge_adjacent_spans``), for the annotations and the predictions alike; its type-agnostic
    figure tags every entity "PII" first, so there spans of different types merge too. An
    address labelled as six pieces (number, street, unit, city, country, postcode) is one span.
    """
    out: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(spans):
        kind = kind if typed else "PII"
        if out:
            a, b, k = out[-1]
            between = text[b:start] if start > b else ""
            if k == kind and all(w.lower() in skip for w in TOKEN.findall(between)):
                out[-1] = (a, max(b, end), k)
                continue
        out.append((start, end, kind))
    return out


def span_counts(rows, predictions, skip) -> tuple[Counter, Counter, Counter, Counter]:
    """(gold found, gold total, predictions correct, predictions total) per type and "PII".

    Gold spans and predictions are first merged as presidio-research does
    (:func:`merge_adjacent`): per type for the per-type figures, across types for "PII".
    """
    found, gold_total, correct, pred_total = Counter(), Counter(), Counter(), Counter()
    for row, pred in zip(rows, predictions, strict=True):
        text, words = row["text"], _words(row["text"], skip)
        for typed in (True, False):
            gold_spans = merge_adjacent(row["spans"], text, skip, typed)
            pred_spans = merge_adjacent(pred, text, skip, typed)
            good: set[int] = set()
            for start, end, kind in gold_spans:
                gold = _chars(text, start, end, words)
                if not gold:
                    continue
                gold_total[kind] += 1
                chosen = [
                    i
                    for i, (a, b, k) in enumerate(pred_spans)
                    if a < end and start < b and k == kind
                ]
                guess = set().union(
                    *(_chars(text, pred_spans[i][0], pred_spans[i][1], words) for i in chosen)
                )
                if guess and len(gold & guess) / len(gold | guess) >= IOU_THRESHOLD:
                    found[kind] += 1
                    good.update(chosen)
            for i, (a, b, kind) in enumerate(pred_spans):
                if not _chars(text, a, b, words):
                    continue
                pred_total[kind] += 1
                correct[kind] += i in good
    return found, gold_total, correct, pred_total


def _f2(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 5 * precision * recall / (4 * precision + recall)


def _row(name: str, precision: float, recall: float, support: int) -> str:
    return f"| {name} | {precision:.3f} | {recall:.3f} | {_f2(precision, recall):.3f} | {support} |"


def report(title: str, rows, predictions, skip) -> dict:
    tp, fp, fn, direct_total, direct_left = token_counts(rows, predictions, skip)
    found, gold_total, correct, pred_total = span_counts(rows, predictions, skip)
    types = sorted(set(gold_total) - {"PII"}, key=lambda k: -gold_total[k]) + ["PII"]
    figures: dict = {"token": {}, "span": {}}
    print(f"\n## {title}\n")
    print("| entity | token P | token R | token F2 | span P | span R | span F2 | gold spans |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for kind in types:
        tp_, fp_, fn_ = tp[kind], fp[kind], fn[kind]
        tok_p = tp_ / (tp_ + fp_) if tp_ + fp_ else 0.0
        tok_r = tp_ / (tp_ + fn_) if tp_ + fn_ else 0.0
        sp_p = correct[kind] / pred_total[kind] if pred_total[kind] else 0.0
        sp_r = found[kind] / gold_total[kind] if gold_total[kind] else 0.0
        figures["token"][kind] = (tok_p, tok_r, _f2(tok_p, tok_r))
        figures["span"][kind] = (sp_p, sp_r, _f2(sp_p, sp_r))
        label = f"**{kind}** (all types)" if kind == "PII" else kind
        print(
            f"| {label} | {tok_p:.3f} | {tok_r:.3f} | {_f2(tok_p, tok_r):.3f} "
            f"| {sp_p:.3f} | {sp_r:.3f} | {_f2(sp_p, sp_r):.3f} | {gold_total[kind]} |"
        )
    total, left = sum(direct_total.values()), sum(direct_left.values())
    print("\nDirect-identifier words left verbatim (not covered by any prediction):")
    for kind in DIRECT:
        if direct_total[kind]:
            share = direct_left[kind] / direct_total[kind]
            print(f"  {kind}: {direct_left[kind]} of {direct_total[kind]} ({share:.1%})")
    print(f"  all five: {left} of {total} ({left / max(total, 1):.1%})")
    figures["verbatim"] = left / max(total, 1)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help=f"folder holding {DATA_FILE}")
    parser.add_argument("--limit", type=int, default=None, help="first N sentences only")
    parser.add_argument(
        "--with-organizations",
        action="store_true",
        help="trial: our analyzer with spaCy's ORG label kept (ignored by default)",
    )
    args = parser.parse_args(argv)
    if not (args.folder / DATA_FILE).is_file():
        print(
            f"skipped: {args.folder / DATA_FILE} not found. Take data/{DATA_FILE} from "
            "https://github.com/microsoft/presidio-research (MIT licence) into that folder."
        )
        return 0
    _block_network()
    if args.with_organizations:
        from anon_core.pii import engine

        ignored = engine.NER_CONFIGURATION["labels_to_ignore"]
        engine.NER_CONFIGURATION["labels_to_ignore"] = [x for x in ignored if x != "ORGANIZATION"]
    rows = load_corpus(args.folder, args.limit)
    texts = [r["text"] for r in rows]
    skip = _skip_words()
    print(f"{len(rows)} sentences, {sum(len(r['spans']) for r in rows)} labelled spans")
    timings = {}
    predictions = {}
    for name, run in (
        ("ours (all defaults)", ours),
        ("Presidio defaults, same model", presidio_defaults),
    ):
        started, cpu = time.perf_counter(), time.process_time()
        predictions[name] = run(texts)
        timings[name] = (time.perf_counter() - started, time.process_time() - cpu)
    held = [i for i, r in enumerate(rows) if r["template"] not in TUNED_TEMPLATES]
    for name, pred in predictions.items():
        report(f"{name}: all sentences", rows, pred, skip)
        wall, cpu = timings[name]
        print(f"  time: {wall:.1f} s wall, {cpu:.1f} s CPU (model loading included)")
        report(
            f"{name}: held out ({len(held)} sentences of templates not used for tuning)",
            [rows[i] for i in held],
            [pred[i] for i in held],
            skip,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
