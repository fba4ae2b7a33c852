"""The engine's speed set-up (:mod:`anon_core.pii.speed`) finds what Presidio's plain analyzer
finds: same entity types, offsets, scores and order.

The reference is computed in the test: the same recognizers in Presidio's own ``AnalyzerEngine``
with its own context enhancer, NLP artifacts and spaCy ops (``speed.ENABLED = False``). The
paragraphs are hand-written (names, numbers and addresses invented), in English, French, German,
Spanish and Italian, with the shapes each prefilter relies on: Unicode and full-width digits, a
Kelvin sign, IPv6 without decimal digits, upper-case cue words and URLs.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from anon_core.pii import speed
from anon_core.pii.engine import DEFAULT_MODEL, load_engine

pytest.importorskip("spacy")
ROOT = Path(__file__).resolve().parents[1]

TEXTS = {
    "en": [
        "Please call Margaret Holloway on +44 20 7946 0958 before Friday. She lives in Leeds.",
        "Refund to IBAN GB82 WEST 1234 5698 7654 32 as agreed with Julian Okafor last week.",
        "Send the scan to j.okafor@example.org and copy Priya Raman, who runs the ward in Bristol.",
        "Patient Tobias Whitcombe gave his number as (617) 555-0142 and his card 4539 1488 0343 6467.",
        "Dr. Eleanor Voss saw the patient on 3 March 2024 at St Mary's Hospital in London.",
        "DR. ANNA BERG and MR. Tom Hale met my name is vitoria at WWW.EXAMPLE.COM yesterday.",
        "The router answered from fe80::abcd and ::, then from 192.168.0.12 at 10:45.",
        "No digits here, only Hannah Lindqvist and her brother Oskar in Uppsala",
        "Full-width ０２０ ７９４６ ０９５８ and Arabic-Indic ٠١٢٣٤٥٦٧٨٩ digits, a \u212aelvin sign.",
        "Her SSN is 123-45-6789, passport 912345678, licence A1234567, born 1985-11-30.",
        "Visit https://clinic.example.com/patients?id=42 or mail info@clinic.example.com.",
        "",
        "Mrs Okonkwo, aged 67, 6446 Franklin Road, Boston, MA 02139. Call me Ishaan.",
        "Mail <ana.lis@example.com>, see (www.example.org/a?b=1) or 'https://example.net/x'.",
        "Write to\u00a0tom@example.co.uk\u2003or visit\nexample.io, e.g. ok.\tbye@x.de",
        "Tel:0612345678 or phone: 555-0142, Fax:the zip:02139 and be:there",
    ],
    "fr": [
        "Veuillez contacter Camille Lefèvre au 06 12 34 56 78 avant lundi, elle habite à Lyon.",
        "Le virement doit partir vers FR76 3000 6000 0112 3456 7890 189 dès demain matin.",
        "Madame Hélène Dubois a écrit depuis helene.dubois@exemple.fr hier soir à propos du dossier.",
        "Monsieur Jean-Baptiste Moreau, numéro de sécurité sociale 2 69 05 49 588 157 80.",
        "Le dossier de Amélie Garnier est suivi par Rémi Chevalier à Bordeaux depuis janvier.",
    ],
    "de": [
        "Sie erreichen Herrn Jürgen Käßler unter 030 12345678 oder juergen@beispiel.de.",
        "Frau Dr. Ilse Brandtner wohnt in der Lindenstraße 12, 10115 Berlin.",
    ],
    "es": [
        "Puede contactar con Lucía Fernández en el 699 956 915 o en lucia@ejemplo.es.",
        "El señor Álvaro Quintana vive en Calle Mayor 5, Madrid, DNI 12345678Z.",
    ],
    "it": [
        "Potete contattare Giulia Bianchi al 347 123 4567 o a giulia.bianchi@esempio.it.",
        "Il signor Marco Esposito abita in Via Roma 10, Napoli; IBAN IT60X0542811101000000123456.",
    ],
}


def _labeled_notes(limit: int = 120) -> list[str]:
    with (ROOT / "sample_data" / "pii_labeled.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[:limit]
    return [row[c] for row in rows for c in ("notes", "comment")]


def _found(engine, texts, threshold=0.35):
    results = engine.analyze_batch(texts, score_threshold=threshold)
    return [[(r.entity_type, r.start, r.end, round(r.score, 9)) for r in res] for res in results]


@pytest.fixture(scope="module")
def engines():
    """(tuned, plain) engines for English and French; the cache holds tuned ones afterwards."""
    out = {}
    for model, language in ((DEFAULT_MODEL, "en"), ("fr_core_news_md", "fr")):
        load_engine.cache_clear()
        tuned = load_engine(model, language)
        speed.ENABLED = False
        try:
            load_engine.cache_clear()
            plain = load_engine(model, language)
        finally:
            speed.ENABLED = True
            load_engine.cache_clear()
        out[language] = (tuned, plain)
    yield out
    load_engine.cache_clear()


def test_tuned_english_engine_finds_what_presidio_finds(engines):
    tuned, plain = engines["en"]
    texts = [t for lang in ("en", "de", "es", "it") for t in TEXTS[lang]] + _labeled_notes()
    expected = _found(plain, texts)
    assert sum(map(len, expected)) > 500  # the corpus is not empty of findings
    assert _found(tuned, texts) == expected


def test_tuned_french_engine_finds_what_presidio_finds(engines):
    tuned, plain = engines["fr"]
    if tuned.notice:
        pytest.skip("fr_core_news_md is not installed")
    texts = TEXTS["fr"] + TEXTS["en"][:4]
    expected = _found(plain, texts)
    assert sum(map(len, expected)) > 20
    assert _found(tuned, texts) == expected


def test_context_words_raise_scores_as_presidio_does(engines):
    """A weak pattern next to its context word gets Presidio's +0.35; the plain engine is the
    reference, and the raise is visible (so the enhancer really ran)."""
    tuned, plain = engines["en"]
    texts = ["My zip is 02139.", "Shelf 02139 holds it."]
    expected = _found(plain, texts, threshold=0.0)
    assert _found(tuned, texts, threshold=0.0) == expected
    zip_scores = [max(s for e, *_r, s in res if e == "ZIP_CODE") for res in expected]
    assert zip_scores[0] > zip_scores[1]


# ----------------------------------------------------------------------------- the prefilters
def test_prefilters_derived_from_patterns():
    digit, at = speed.pattern_prefilter([r"\b\d{5}\b"]), speed.pattern_prefilter([r"\w+[@]\w+"])
    assert digit is not None and digit.search("x ٣ y") and not digit.search("no digits")
    assert at is not None and at.search("a@b") and not at.search("a at b")
    # a branch needs only what both sides need; an optional part needs nothing
    assert speed.pattern_prefilter([r"(?:\d{3}|abc)x"]) is None
    assert speed.pattern_prefilter([r"(?:\d{3})?abc"]) is None
    assert speed.pattern_prefilter([r"(?:\d{3}|[0-9]a)"]) is not None
    # a look-behind's text must be in the text too; a negative one proves nothing
    assert speed.pattern_prefilter([r"(?<=#)\w+"]).search("#tag")
    assert speed.pattern_prefilter([r"(?<!\d)\w+"]) is None
    # every pattern of the recognizer must need it
    assert speed.pattern_prefilter([r"\d+", r"[a-z]+"]) is None
    # letters are never required (a case-insensitive pattern matches the other case)
    assert speed.pattern_prefilter([r"abc"]) is None
    # a syntax Python's parser does not read: no prefilter
    assert speed.pattern_prefilter([r"\p{Lu}\d"]) is None


def test_cue_prefilter_is_case_insensitive_like_the_pattern():
    import regex

    flags = regex.IGNORECASE | regex.MULTILINE | regex.DOTALL
    pattern = r"(?:(?<=Dr\.\ )|(?<=my\ name\ is\ ))[A-Z]\w+"
    cue = speed.cue_prefilter([pattern], flags)
    assert cue.search("DR. Berg") and cue.search("MY NAME IS Ana") and not cue.search("Drive on")
    assert speed.cue_prefilter([r"\d+(?<=1)"], flags) is None  # not led by cues


def test_every_prefiltered_recognizer_skips_only_texts_it_cannot_match():
    """Each recognizer with a prefilter, run bare (its own analyze) on texts without what the
    prefilter needs, finds nothing there: the prefilter never hides a match."""
    engine = load_engine(DEFAULT_MODEL)
    bare_texts = [
        re.sub(r"[\d@:#/]", " ", t) for lang in TEXTS for t in TEXTS[lang]
    ] + _labeled_notes(40)
    prefiltered = [r for r in engine.analyzer.registry.recognizers if getattr(r, "prefiltered", 0)]
    assert len(prefiltered) >= 12
    for recognizer in prefiltered:
        needed = speed.prefilter_for(recognizer)
        bare = type(recognizer).analyze.__get__(recognizer)
        for text in bare_texts:
            if needed.search(text) is None:
                assert not bare(text, recognizer.supported_entities, None), (recognizer.name, text)


# ----------------------------------------------------------------------------- the run filter
#: Texts where a URL or an e-mail address touches quotes, brackets, Unicode spaces (no-break,
#: em space), a zero-width space (not a space) and the ends of the text.
RUN_TEXTS = [
    "https://example.com/a",
    "x@example.org",
    "'www.example.org' and \"a@b.example.com\" (c@d.fr) <e@f.de> [g.h@i.it]",
    "a\u00a0b@c.de x\u2003y.com z\u200bw.com end.\u212aelvin.com 3.5 e.g. Dr.Who",
    "mailto:a@b.com?subject=x, http://a.b.c.d.example.co.uk/p/q.html#f ok",
    "lines\nend.com\n\tmid@x.org\r\nlast.net",
    "no address here at all.",
    "a.b" * 400 + " " + "c@d" * 300 + ".com",
    "Licence A1234567, id 123456789, H12345678; 12AB34567 then 1BoatSLRHtKNngkdXEeobR76b53LETtpyT",
    "hosts 192.168.0.1/24, 10.0.0.255. fe80::1%eth0 ::1 ::ffff:10.1.2.3 and 2001:db8::1.5 x",
    "account 0123456789012 card 4111111111111111 DEA AB1234563 and 1.2.3.4.5 ok",
]


def test_runs_of_are_the_words_holding_the_needed_character():
    """Hand-worked: the runs of non-space characters holding '@' (or a dot before a non-space
    character), any whitespace ending a run, a run read once however many matches it holds."""
    at = speed._compiled("@")
    assert speed.runs_of("mail x@y.org now", at) == [(5, 12)]
    assert speed.runs_of("a@b\u00a0c d@e@f", at) == [(0, 3), (6, 11)]
    assert speed.runs_of("no address", at) == []
    dot = speed._compiled(r"\.\S")
    assert speed.runs_of("End. See a.com, 1.5", dot) == [(9, 15), (16, 19)]


@pytest.mark.parametrize("name", sorted(set(speed.RUNS) - {"OfflineEmailRecognizer"}))
def test_run_filter_finds_what_the_whole_text_gives(name):
    """Presidio's own recognizer on the whole text is the reference: reading only the runs
    that can hold a match, it finds the same spans, scores and order."""
    from presidio_analyzer import predefined_recognizers

    recognizer = getattr(predefined_recognizers, name)()
    needed = speed.runs_for(recognizer)
    assert needed is not None  # the reviewed patterns are Presidio's current ones
    on_runs = speed._runs_guarded(recognizer.analyze, needed)
    texts = RUN_TEXTS + [t for lang in TEXTS for t in TEXTS[lang]] + _labeled_notes(60)
    found = 0
    for text in texts:
        whole = [(r.start, r.end, r.score) for r in recognizer.analyze(text, [])]
        assert [(r.start, r.end, r.score) for r in on_runs(text, [])] == whole, text
        found += len(whole)
    assert found >= 1  # each recognizer finds something here (1 to 56 spans)


def test_run_filter_only_for_the_reviewed_patterns():
    from presidio_analyzer import Pattern
    from presidio_analyzer.predefined_recognizers import EmailRecognizer, UrlRecognizer

    assert speed.runs_for(UrlRecognizer(patterns=[Pattern("any", r"\w+ \w+", 0.5)])) is None
    assert speed.runs_for(EmailRecognizer()) is not None


# ----------------------------------------------------------------------------- NLP artifacts
def test_artifacts_read_from_arrays_equal_the_token_by_token_values(engines):
    """Lemmas (the lower-case forms), token offsets and the keyword set, checked against
    spaCy's tokens and Presidio's own ``set_keywords``; the batch yields the texts given."""
    from presidio_analyzer.nlp_engine import NlpArtifacts

    for language in ("en", "fr"):
        tuned, _plain = engines[language]
        if tuned.notice:
            continue
        nlp_engine = tuned.analyzer.nlp_engine
        texts = TEXTS[language] + TEXTS["en"][:3]
        out = list(nlp_engine.process_batch(texts, language, batch_size=4))
        assert [text for text, _a in out] == texts
        for _text, art in out:
            doc = art.tokens
            assert art.lemmas == [t.lower_ for t in doc]
            assert art.tokens_indices == [t.idx for t in doc]
            assert art.token_ends == [t.idx + len(t) for t in doc]
            expected = NlpArtifacts.set_keywords(nlp_engine, [t.lower_ for t in doc], language)
            asked = {t.lower_ for t in doc} | set(expected) | {"", "zzz", "the", "phone:"}
            assert {w for w in asked if w in art.keyword_set} == set(expected)


# ----------------------------------------------------------------------------- our recognizers
def _generated_paragraphs(size: int = 12000) -> list[str]:
    """Seeded paragraphs of the speed benchmark's text, in each language, plus the hand-written
    texts above (Unicode digits, odd spaces, empty text)."""
    pytest.importorskip("faker")
    from benchmarks.bench_pii_speed import document_text

    out = [t for texts in TEXTS.values() for t in texts]
    for i, language in enumerate(("en", "fr", "de", "es", "it")):
        out += document_text(language, size, 3 + i).split("\n\n")
    return out


def test_name_rules_read_the_tokens_spacy_gives():
    """Tokens read from the doc's arrays carry spaCy's own text, trailing space, offset and
    flags, token by token; names found with the text given equal those found without."""
    import spacy

    from anon_core.pii import names

    nlp = spacy.blank("en")
    texts = _generated_paragraphs() + [
        "  Two  spaces\n\nand a\ttab 🙂 Zoë Ångström-Ås, 12\u00a0Rue"
    ]
    for text in texts:
        doc = nlp(text)
        read = [
            (t.text, t.whitespace_, t.idx, t.is_space, t.is_alpha)
            for t in names._read_tokens(doc, text)
        ]
        assert read == [(t.text, t.whitespace_, t.idx, t.is_space, t.is_alpha) for t in doc]
        assert names.find_names(doc, text=text) == names.find_names(doc)


def test_street_ending_gate_holds_in_every_match_of_the_ending_patterns():
    """The three patterns of street endings ("Søndergade 52", "Drubinstraße 47-26") are skipped
    in a text without the gate: so every match of theirs must hold a match of the gate, checked
    on the address benchmark's Faker addresses of 22 locales and the generated paragraphs,
    and the old loop (every pattern run) must yield what the gated one yields."""
    from anon_core.pii import addresses
    from benchmarks.bench_pii_addresses import development_set

    pats = addresses._patterns()
    texts = [row["text"] for row in development_set(per_template=2, seed=11)]
    texts += _generated_paragraphs(6000) + ["Bahnhofstrasse S/N", "Hauptstr. 5", "Nørregade  12b"]
    matched = 0
    for text in texts:
        for pattern in pats["core"][2:5]:
            for m in pattern.finditer(text):
                matched += 1
                assert pats["ending_gate"].search(m.group(0)), m.group(0)
        every = [
            (m.start(), m.end())
            for i, pattern in enumerate(pats["core"])
            for m in pattern.finditer(text)
        ]
        gated = [(s, e) for s, e, strong in addresses._cores(text, pats) if strong]
        assert set(gated) <= set(every)
    assert matched >= 100  # the set exercises the patterns (132 matches when written)


def test_attribute_scores_rise_only_over_a_model_span_of_the_same_offsets():
    """A weak attribute finding over a model span of the same offsets gets 0.86 unless that span
    may be a name ("Christian": a given name); a strong finding, a span of other offsets and a
    text with no finding read no model span (an entity whose text raises shows it)."""
    from types import SimpleNamespace

    from anon_core.pii.attributes import attribute_recognizers

    def ent(text, start, end, label):
        return SimpleNamespace(text=text[start:end], start_char=start, end_char=end, label_=label)

    age, _title, nrp = attribute_recognizers("en")[:3]
    text = "They are Welsh and Christian, from Tuvalu."
    art = SimpleNamespace(
        entities=[ent(text, 9, 14, "NORP"), ent(text, 19, 28, "NORP"), ent(text, 35, 41, "GPE")]
    )
    found = [(r.start, r.end, r.score) for r in nrp.analyze(text, ["NRP"], art)]
    assert found == [(9, 14, 0.86), (19, 28, 0.6)]

    class Unread:
        start_char, end_char, label_ = 0, 5, "NORP"

        @property
        def text(self):
            raise AssertionError("a model span no finding shares was read")

    assert nrp.analyze("Hello there.", ["NRP"], SimpleNamespace(entities=[Unread()])) == []
    text = "She is 42 years old and he is 7."
    art = SimpleNamespace(entities=[Unread(), ent(text, 30, 31, "CARDINAL")])
    found = [(r.start, r.end, r.score) for r in age.analyze(text, ["AGE"], art)]
    assert found == [(7, 19, 0.9), (30, 31, 0.86)]


def test_age_anchor_finds_what_the_plain_alternation_finds():
    """The anchor's look-ahead on first letters skips nothing the plain pattern (written here
    without it) finds: every English number word in three cases, the long s that folds to
    's' ("ſix"), words inside words ("someone") and the generated paragraphs."""
    from anon_core.pii import attributes

    spelled = attributes._SPELLED.replace("?P<n>", "")
    plain = re.compile(r"(?<!\d)\d{1,3}(?!\d)|(?i:" + spelled + r")")
    words = (
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
        "eighty ninety twenty-one ninety nine"
    ).split()
    texts = [f"aged {w}, {w.upper()} or {w.title()}." for w in words]
    texts += ["ſix ſeventy someone 1234 12 x9y 007", *_generated_paragraphs(6000)]
    for text in texts:
        got = [m.span() for m in attributes._AGE_ANCHOR.finditer(text)]
        assert got == [m.span() for m in plain.finditer(text)], text
    for w in words:
        assert len(list(attributes._AGE_ANCHOR.finditer(f"aged {w}, {w.upper()}"))) == 2, w


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We met Usamov and Bowers today.", ["Usamov", "Bowers"]),
        ("Kónya, Becker and others", ["Kónya", "Becker"]),
        # the listed word first or third in the text: the joiner check at both ends of the list
        ("Becker, Kónya", ["Becker", "Kónya"]),
        ("Dale and White House", ["Dale"]),  # "White House": a capitalised word follows
    ],
)
def test_listed_surnames_at_the_edges_of_the_text(text, expected):
    """The listing rule looks only at words with a joiner ("and", ",") and a word beyond it
    beside them: a list at the very start or end of a text is still read."""
    import spacy

    from anon_core.pii.names import find_names

    doc = spacy.blank("en")(text)
    assert sorted(text[n.start : n.end] for n in find_names(doc)) == sorted(expected)


def test_one_look_behind_for_all_name_cues_matches_one_per_cue():
    """The cue pattern's single look-behind finds, with Presidio's flags, what one look-behind
    a cue (the form written here) finds: each cue before a name in three cases, cues inside
    longer words ("Misses Kay"), a name after two cues ("Dr. Son Smith") and generated text."""
    import regex

    from anon_core.pii import engine

    name = r"(?-i:" + engine._NAME_WORD + r"(?: " + engine._NAME_WORD + r"){0,2})\b"
    per_cue = "(?:" + "|".join(f"(?<={re.escape(c)})" for c in engine._NAME_CUES) + ")" + name
    flags = regex.DOTALL | regex.MULTILINE | regex.IGNORECASE
    spec = next(s for s in engine.BUILTIN_RECOGNIZERS if s.name == "Person after a title or role")
    ours, plain = regex.compile(spec.patterns[0], flags), regex.compile(per_cue, flags)
    texts = [
        f"Seen by {c}Ines Quinn-Royce. {c.upper()}Tom Hale; {c.lower()}ada"
        for c in engine._NAME_CUES
    ]
    texts += [
        "Misses Kay, Dr. Son Smith, mr. Bo Li and MRS Åsa Öberg",
        *_generated_paragraphs(6000),
    ]
    found = 0
    for text in texts:
        spans = [m.span() for m in ours.finditer(text)]
        assert spans == [m.span() for m in plain.finditer(text)], text
        found += len(spans)
    assert found >= 2 * len(engine._NAME_CUES)  # each cue's "Ines Quinn-Royce" and "Tom Hale"


def test_name_aware_recognizer_reviews_the_spans_presidio_reads(engines):
    """The NER recognizer reads the model's spans itself; the review then gets the spans
    Presidio's ``SpacyRecognizer.analyze`` returns (the form before the shortcut, written
    here), and finds the same results on the hand-written and generated paragraphs."""
    from presidio_analyzer import RecognizerResult
    from presidio_analyzer.predefined_recognizers import SpacyRecognizer

    from anon_core.pii.name_review import review_entities
    from anon_core.pii.names import find_names, gazetteer

    def before(rec, text, entities, art):
        base = SpacyRecognizer.analyze(rec, text, rec.supported_entities, art)
        spans = [(r.start, r.end, r.entity_type, r.score) for r in base]
        reviewed = review_entities(
            text, spans, find_names(art.tokens), gazetteer().common, gazetteer()
        )
        return [RecognizerResult(e, s, t, sc) for s, t, e, sc in reviewed if e in entities]

    checked = 0
    for language in ("en", "fr"):
        tuned, _plain = engines[language]
        if tuned.notice:
            continue
        # the registered recognizer is a subclass of the same name (organisations reviewed
        # after it): the class itself is the last of that name in the MRO
        rec, cls = [
            (r, c)
            for r in tuned.analyzer.registry.recognizers
            for c in type(r).__mro__
            if c.__name__ == "NameAwareNerRecognizer"
        ][-1]
        nlp_engine = tuned.analyzer.nlp_engine
        texts = TEXTS[language] + _generated_paragraphs(3000)[-40:]
        for text, art in nlp_engine.process_batch(texts, language, batch_size=16):
            wanted = ["PERSON", "LOCATION", "ORGANIZATION", "NRP", "DATE_TIME"]
            got = [
                (r.entity_type, r.start, r.end, r.score)
                for r in cls.analyze(rec, text, wanted, art)
            ]
            old = [(r.entity_type, r.start, r.end, r.score) for r in before(rec, text, wanted, art)]
            assert got == old, text
            checked += bool(got)
    assert checked >= 20
