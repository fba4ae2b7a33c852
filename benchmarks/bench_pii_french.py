"""French text de-identification on a labelled set generated for the purpose: precision, recall, F2.

    python benchmarks/bench_pii_french.py [--sentences N] [--seed S] [--gazetteer-without-french]

Sentences come from the French templates below, written for this benchmark, filled with Faker's
``fr_FR`` provider (names, phones, e-mails, addresses, companies, IBANs, social security numbers
(NIR), cards, dates) and labelled with their character spans as they are generated. The first
:data:`TUNING_TEMPLATES` templates are the only ones whose errors were looked at while the
recognizers were adjusted; the others are held out and give the figures the documentation quotes.

Caveat: the name gazetteer of :mod:`anon_core.pii.names` is built from Faker's person lists, the
same lists that fill these sentences, so every French name here is in it. ``--gazetteer-without-french``
builds the gazetteer without Faker's French locales (``fr_*``) to show what the gazetteer adds on
names it has not seen (names shared with other locales, "Marie", "Martin", still hit).

Two analyzers run on the same sentences, network sockets blocked: ours with every default
(language detection routes each sentence to ``fr_core_news_md``) and a plain Presidio
``AnalyzerEngine`` with the same French model and Presidio's recognizers for French. Scoring is
:mod:`bench_pii_corpus`'s (token and span level, adjacent spans merged, French stop words skipped).
"""

from __future__ import annotations

import argparse
import random
import re
import string
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_pii_corpus as corpus  # noqa: E402

#: The window the dates of the sentences are drawn from (fixed, so every run builds the same set).
DATE_FROM, DATE_TO = date(1946, 1, 1), date(2025, 12, 31)

#: Templates: the first TUNING_TEMPLATES were used while adjusting the recognizers, the rest are
#: held out. Placeholders: {name} {first} {last} {phone} {email} {address} {city} {company}
#: {iban} {nir} {card} {date}.
TEMPLATES = (
    "Bonjour, je m'appelle {name} et j'habite {address}.",
    "Merci de rappeler {name} au {phone} avant vendredi.",
    "Le dossier de Mme {last} a été transmis au service contentieux.",
    "Vous pouvez écrire à {email} pour toute réclamation.",
    "Le virement sera effectué sur le compte {iban} au nom de {name}.",
    "Numéro de sécurité sociale : {nir}",
    "{name}, né le {date} à {city}, est suivi depuis trois ans.",
    "La société {company} a embauché {first} comme stagiaire.",
    "Carte bancaire n° {card}, titulaire {name}.",
    "Rendez-vous pris avec le docteur {last} le {date}.",
    "Adresse de livraison : {address}",
    "{first} et {first2} se sont rencontrés chez {company}.",
    "Pour joindre {first}, composez le {phone}.",
    "Signé : {name}, {city}, le {date}",
    "M. {name} conteste la facture envoyée à {email}.",
    # held out from here
    "Je soussigné {name}, demeurant {address}, certifie sur l'honneur l'exactitude des informations.",
    "Contact en cas d'urgence : {name}, tél. {phone}.",
    "Le patient {name} (NIR {nir}) a été hospitalisé le {date}.",
    "{first} travaille chez {company} depuis le {date}.",
    "Merci d'adresser le courrier à {name}, {address}.",
    "Remboursement sur l'IBAN {iban} demandé par {first} {last}.",
    "L'assurée {name} nous a écrit depuis {email}.",
    "Notre conseillère {first} vous rappellera au {phone}.",
    "Paiement refusé pour la carte {card} de {name}.",
    "Mme {last} habite à {city} depuis son mariage avec {first2}.",
    "Le témoin, {name}, a déclaré avoir vu la voiture.",
    "Veuillez contacter {first} {last} ({email}) pour le devis.",
    "Ordonnance établie par le Dr {last} pour {name}.",
    "Les enfants de {first} et {first2} sont inscrits à l'école de {city}.",
    "Réunion avec {company} à {city} le {date}, en présence de {name}.",
)
TUNING_TEMPLATES = 15
LABELS = {
    "name": "PERSON",
    "first": "PERSON",
    "first2": "PERSON",
    "last": "PERSON",
    "phone": "PHONE_NUMBER",
    "email": "EMAIL_ADDRESS",
    "address": "LOCATION",
    "city": "LOCATION",
    "company": "ORGANIZATION",
    "iban": "IBAN_CODE",
    "nir": "FR_NIR",
    "card": "CREDIT_CARD",
    "date": "DATE_TIME",
}
#: Direct identifiers whose verbatim share is reported (the French national ID is the NIR).
DIRECT = ("PERSON", "PHONE_NUMBER", "CREDIT_CARD", "EMAIL_ADDRESS", "FR_NIR")
_FIELD = re.compile(r"\{(\w+)\}")


def _value(fake, field: str) -> str:
    if field == "name":
        return fake.name()
    if field in ("first", "first2"):
        return fake.first_name()
    if field == "last":
        return fake.last_name()
    if field == "phone":
        return fake.phone_number()
    if field == "email":
        return fake.email()
    if field == "address":
        return fake.address().replace("\n", ", ")
    if field == "city":
        return fake.city()
    if field == "company":
        return fake.company()
    if field == "iban":
        return fake.iban()
    if field == "nir":
        return fake.ssn()
    if field == "card":
        return fake.credit_card_number(card_type=fake.random_element(("visa16", "mastercard")))
    if field == "date":
        # A fixed window, not "the last 80 years": the sentences must not change with the day.
        return fake.date_between(DATE_FROM, DATE_TO).strftime("%d/%m/%Y")
    raise KeyError(field)


def generate(n: int, seed: int) -> list[dict]:
    """``n`` labelled sentences, templates drawn in turn (seeded, reproducible)."""
    from faker import Faker

    fake = Faker("fr_FR")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        template_id = i % len(TEMPLATES) if i < len(TEMPLATES) else rng.randrange(len(TEMPLATES))
        template = TEMPLATES[template_id]
        text, spans, pos = "", [], 0
        for m in _FIELD.finditer(template):
            text += template[pos : m.start()]
            value = _value(fake, m.group(1))
            spans.append((len(text), len(text) + len(value), LABELS[m.group(1)]))
            text += value
            pos = m.end()
        text += template[pos:]
        rows.append({"text": text, "spans": spans, "template": template_id})
    return rows


def french_skip_words() -> set[str]:
    from spacy.lang.fr.stop_words import STOP_WORDS

    words = set(string.punctuation) | set(STOP_WORDS) | set(corpus.SKIP_WORDS)
    words |= {"rue", "avenue", "boulevard", "chemin", "allée", "place", "impasse", "route", "quai"}
    words |= {"m", "mme", "mlle", "dr", "docteur", "cedex", "bis", "ter", "n°", "°"}
    return {w.lower() for w in words}


def presidio_french(texts: list[str]) -> list[list[tuple[int, int, str]]]:
    from presidio_analyzer import AnalyzerEngine, BatchAnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    nlp = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "fr", "model_name": "fr_core_news_md"}],
        }
    ).create_engine()
    analyzer = AnalyzerEngine(
        nlp_engine=nlp, supported_languages=["fr"], default_score_threshold=0.4
    )
    batch = BatchAnalyzerEngine(analyzer_engine=analyzer)
    out = []
    for results in batch.analyze_iterator(texts, language="fr", batch_size=64):
        kept: list[tuple[int, int, str]] = []
        for r in sorted(results, key=lambda r: (-r.score, r.start)):
            if all(r.end <= a or r.start >= b for a, b, _ in kept):
                kept.append((r.start, r.end, corpus.ENTITY_MAP.get(r.entity_type, r.entity_type)))
        out.append(sorted(kept))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=600)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument(
        "--gazetteer-without-french",
        action="store_true",
        help="build the name gazetteer without Faker's French locales (names it has not seen)",
    )
    args = parser.parse_args(argv)
    import spacy

    if not spacy.util.is_package("fr_core_news_md"):
        print("skipped: fr_core_news_md is not installed (pip install 'anon-core[documents]')")
        return 0
    corpus._block_network()
    if args.gazetteer_without_french:
        from anon_core.pii import names

        names.EXCLUDED_LOCALES = ("fr",)
    corpus.DIRECT = DIRECT
    rows = generate(args.sentences, args.seed)
    texts = [r["text"] for r in rows]
    skip = french_skip_words()
    print(f"{len(rows)} sentences, {sum(len(r['spans']) for r in rows)} labelled spans")
    for name, run in (("ours (all defaults)", corpus.ours), ("Presidio, French", presidio_french)):
        started, cpu = time.perf_counter(), time.process_time()
        pred = run(texts)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        for part, keep in (
            ("tuning templates", lambda t: t < TUNING_TEMPLATES),
            ("held-out templates", lambda t: t >= TUNING_TEMPLATES),
        ):
            idx = [i for i, r in enumerate(rows) if keep(r["template"])]
            corpus.report(
                f"{name}: {part} ({len(idx)} sentences)",
                [rows[i] for i in idx],
                [pred[i] for i in idx],
                skip,
            )
        print(f"  time: {wall:.1f} s wall, {cpu:.1f} s CPU (model loading included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
