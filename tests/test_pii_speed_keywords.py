"""Context keywords of lemmas the vocabulary has never seen: the engine's shortcut gives what
Presidio's own ``NlpArtifacts.set_keywords`` gives (the oracle, run after it on each word)."""

from __future__ import annotations

import pytest

pytest.importorskip("presidio_analyzer")

from presidio_analyzer.nlp_engine import NlpArtifacts  # noqa: E402

from anon_core.pii import speed  # noqa: E402
from anon_core.pii.engine import DEFAULT_MODEL, load_engine  # noqa: E402

# Words made up for this test (so not in any vocabulary yet), stop words in odd cases,
# punctuation-only runs, Presidio's excluded lemmas and colon-joined words.
WORDS = [
    "zqxberger",
    "Zqxberger",
    "ZQXWELL",
    "BeCaUsEqq",
    "becausE",
    "NEVERTHELESS",
    "‽‽",
    "¡¿",
    "…—",
    "-PRON-",
    "be",
    "zqx:qzx",
    "ZQX:the",
    "qq:",
    "Ägyptenqq",
    "naïveqq",
    "’sqq",
    "12qq34",
]


@pytest.mark.skipif(not speed.ENABLED, reason="the speed set-up is off")
def test_new_lemmas_get_presidios_keywords():
    engine = load_engine(DEFAULT_MODEL)
    nlp_engine = engine.analyzer.nlp_engine
    if not hasattr(nlp_engine, "keyword_parts_of"):
        pytest.skip("no spaCy model installed")
    language = engine.language
    vocab = nlp_engine.nlp[language].vocab
    new = [w for w in WORDS if w not in vocab]
    assert len(new) >= len(WORDS) - 4, "the made-up words should be new to the vocabulary"
    caches = nlp_engine.__dict__.setdefault("keyword_caches", {})
    for w in WORDS:
        caches.get(language, {}).pop(w, None)
    asked = set(WORDS)
    ours = dict(zip(asked, nlp_engine.keyword_parts_of(asked, language), strict=True))
    assert all(w not in vocab for w in new), "the shortcut must not add lemmas to the vocabulary"
    for w in WORDS:
        expected = tuple(NlpArtifacts.set_keywords(nlp_engine, [w], language))
        assert ours[w] == expected, w


def test_hand_worked_keywords():
    engine = load_engine(DEFAULT_MODEL)
    nlp_engine = engine.analyzer.nlp_engine
    if not hasattr(nlp_engine, "keyword_parts_of"):
        pytest.skip("no spaCy model installed")
    words = ["Zqxphone", "becausE", "‽‽", "be", "Zqx:Qzx"]
    got = {w: nlp_engine.keyword_parts_of({w}, engine.language)[0] for w in words}
    assert got == {
        "Zqxphone": ("zqxphone",),
        "becausE": (),  # an English stop word in any case
        "‽‽": (),  # punctuation only
        "be": (),  # Presidio leaves 'be' out
        "Zqx:Qzx": ("zqx", "qzx"),
    }
