"""Large analyses in worker processes give the bytes of one process; the slimmed spaCy pipelines.

The paragraphs are hand-written (names, numbers and addresses invented). The reference of every
comparison is computed in the test: the single-process run, or spaCy's full pipeline loaded
afresh with ``spacy.load``.
"""

from __future__ import annotations

import logging
import os
import re
import signal

import pytest

from anon_core.errors import ConfigError
from anon_core.pii import workers
from anon_core.pii.documents import deidentify_bytes
from anon_core.pii.engine import DEFAULT_MODEL, load_engine
from anon_core.pii.text import deidentify_texts
from anon_core.services.documents import text_config

spacy = pytest.importorskip("spacy")

ENGLISH = [
    "Please call Margaret Holloway on +44 20 7946 0958 before Friday. She lives in Leeds.",
    "Refund to IBAN GB82 WEST 1234 5698 7654 32 as agreed with Julian Okafor last week.",
    "Send the scan to j.okafor@example.org and copy Priya Raman, who runs the ward in Bristol.",
    "Patient Tobias Whitcombe gave his number as (617) 555-0142 and his card 4539 1488 0343 6467.",
    "Dr. Eleanor Voss saw the patient on 3 March 2024 at St Mary's Hospital in London.",
]
FRENCH = [
    "Veuillez contacter Camille Lefèvre au 06 12 34 56 78 avant lundi, elle habite à Lyon.",
    "Le virement doit partir vers FR76 3000 6000 0112 3456 7890 189 dès demain matin.",
    "Madame Hélène Dubois a écrit depuis helene.dubois@exemple.fr hier soir à propos du dossier.",
    "Le dossier de Amélie Garnier est suivi par Rémi Chevalier à Bordeaux depuis janvier.",
    "Monsieur Jean-Baptiste Moreau a payé avec la carte 4970 1012 3456 7893 à Nantes.",
]


def _document(paragraphs: list[str], repeat: int) -> bytes:
    """``repeat`` copies of the paragraphs, each copy's names made distinct by a number."""
    blocks = [f"{p} (Note {i}.)" for i in range(repeat) for p in paragraphs]
    return "\n\n".join(blocks).encode("utf-8")


@pytest.fixture(autouse=True, scope="module")
def _stop_workers():
    yield
    workers.shutdown_workers()


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of a few paragraphs, every chunk sent to one worker process."""
    monkeypatch.setattr(workers, "CHUNK_CHARS", 400)
    monkeypatch.setattr(workers, "PARALLEL_MIN_CHARS", 800)
    monkeypatch.setattr(workers, "CALLER_WORKS", False)


def _run(data: bytes, name: str, count: str, monkeypatch) -> tuple[bytes, dict]:
    monkeypatch.setenv(workers.WORKERS_ENV, count)
    out, summary = deidentify_bytes(data, name, text_config(None))
    return out, summary.to_dict()


def _remote_chunks(caplog) -> list[tuple[int, int]]:
    found = []
    for record in caplog.records:
        m = re.match(r"analysed \d+ texts in (\d+) chunks, (\d+) of them", record.getMessage())
        if m:
            found.append((int(m.group(1)), int(m.group(2))))
    return found


@pytest.mark.parametrize(("paragraphs", "language"), [(ENGLISH, "en"), (FRENCH, "fr")])
def test_document_bytes_identical_with_workers(
    paragraphs, language, small_chunks, monkeypatch, caplog
):
    data = _document(paragraphs, 6)
    single, single_summary = _run(data, "letter.txt", "0", monkeypatch)
    with caplog.at_level(logging.INFO, logger="anon_core.pii.workers"):
        parallel, parallel_summary = _run(data, "letter.txt", "1", monkeypatch)
    assert parallel == single
    assert parallel_summary == single_summary
    assert single_summary["language"] == language
    assert single_summary["entities"].get("PERSON", 0) >= 6  # something was found and replaced
    runs = _remote_chunks(caplog)
    assert runs and all(chunks >= 2 and remote == chunks for chunks, remote in runs)


def test_mixed_language_values_identical_with_workers(small_chunks, monkeypatch, caplog):
    """Values detected one by one (a table column): English and French engines, both in workers."""
    values = [f"{p} (Ref {i}.)" for i in range(4) for p in ENGLISH + FRENCH]
    cfg = text_config(None)
    monkeypatch.setenv(workers.WORKERS_ENV, "0")
    single = deidentify_texts(values, cfg)
    monkeypatch.setenv(workers.WORKERS_ENV, "1")
    with caplog.at_level(logging.INFO, logger="anon_core.pii.workers"):
        parallel = deidentify_texts(values, cfg)
    assert [r.language for r in single] == ["en"] * 5 + ["fr"] * 5 + (["en"] * 5 + ["fr"] * 5) * 3
    assert parallel == single
    assert len(_remote_chunks(caplog)) == 2  # one routed run per language, each in a worker


def test_caller_and_worker_share_the_chunks(monkeypatch):
    monkeypatch.setattr(workers, "CHUNK_CHARS", 400)
    monkeypatch.setattr(workers, "PARALLEL_MIN_CHARS", 800)
    data = _document(ENGLISH, 8)
    workers.shutdown_workers()
    single, _ = _run(data, "notes.txt", "0", monkeypatch)
    first, _ = _run(data, "notes.txt", "1", monkeypatch)  # the worker is still starting
    second, _ = _run(data, "notes.txt", "1", monkeypatch)
    assert first == single and second == single


def test_progress_that_raises_stops_the_run(small_chunks, monkeypatch):
    monkeypatch.setenv(workers.WORKERS_ENV, "1")
    engine = load_engine(DEFAULT_MODEL)
    texts = [f"{p} (Note {i}.)" for i in range(6) for p in ENGLISH]
    calls = []

    def progress(done: int, total: int) -> None:
        calls.append((done, total))
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        workers.analyse_in_chunks(
            engine, texts, workers.Job(DEFAULT_MODEL, "en"), progress=progress
        )
    assert calls == [(1, len(workers.chunks_of(texts)))]


def test_a_killed_worker_gives_one_clear_error_and_the_next_run_works(small_chunks, monkeypatch):
    import multiprocessing

    monkeypatch.setenv(workers.WORKERS_ENV, "1")
    engine = load_engine(DEFAULT_MODEL)
    texts = [f"{p} (Note {i}.)" for i in range(6) for p in ENGLISH]
    job = workers.Job(DEFAULT_MODEL, "en")
    reference = workers.analyse_in_chunks(engine, texts, job)  # starts the worker
    before = {p.pid for p in multiprocessing.active_children()}
    assert before
    for pid in before:
        os.kill(pid, signal.SIGKILL)
    for child in multiprocessing.active_children():
        child.join(timeout=10)
    with pytest.raises(ConfigError, match=f"worker process .* {workers.WORKERS_ENV}=0") as info:
        workers.analyse_in_chunks(engine, texts, job)
    assert "\n" not in str(info.value)
    again = workers.analyse_in_chunks(engine, texts, job)  # new workers
    assert [[(r.entity_type, r.start, r.end, r.score) for r in res] for res in again] == [
        [(r.entity_type, r.start, r.end, r.score) for r in res] for res in reference
    ]


def test_chunks_are_runs_of_whole_texts():
    texts = ["a" * 5, "b" * 3, "c" * 4, "d" * 9, "e"]
    assert workers.chunks_of(texts, 8) == [range(2), range(2, 4), range(4, 5)]
    assert workers.chunks_of(texts, 100) == [range(5)]
    assert workers.chunks_of([], 8) == []


def test_worker_count_from_the_environment():
    assert workers.worker_count({workers.WORKERS_ENV: "0"}) == 0
    assert workers.worker_count({workers.WORKERS_ENV: "3"}) == 3
    assert workers.worker_count({workers.WORKERS_ENV: "999"}) == workers.MAX_WORKERS
    assert 0 <= workers.worker_count({}) <= workers.MAX_WORKERS
    for bad in ("-1", "two", "1.5"):
        with pytest.raises(ConfigError, match=workers.WORKERS_ENV):
            workers.worker_count({workers.WORKERS_ENV: bad})


# ----------------------------------------------------------------------------- slimmed pipelines
def _entities(doc) -> list[tuple[int, int, str]]:
    return [(e.start_char, e.end_char, e.label_) for e in doc.ents]


def test_english_ner_alone_finds_what_the_full_pipeline_finds():
    """The engine runs the NER component alone; spaCy's full pipeline, loaded here, is the reference."""
    engine = load_engine(DEFAULT_MODEL)
    slim = engine.analyzer.nlp_engine.nlp["en"]
    assert slim.pipe_names[0] == "ner"
    full = spacy.load(DEFAULT_MODEL)
    assert {"tok2vec", "parser", "lemmatizer"} <= set(full.pipe_names)
    for text in ENGLISH:
        assert _entities(slim(text)) == _entities(full(text)), text


def test_french_ner_alone_keeps_hyphenated_names_the_parser_splits():
    """A deliberate difference: in fr_core_news_md the parser's sentence boundaries cut
    "Georges-Isaac Lemoine" after "Georges" and "-", and the NER then finds no person; the NER
    alone (no parser) finds the whole name. Names and offsets counted by hand."""
    engine = load_engine("fr_core_news_md", "fr")
    if engine.notice:
        pytest.skip("fr_core_news_md is not installed")
    slim = engine.analyzer.nlp_engine.nlp["fr"]
    full = spacy.load("fr_core_news_md")
    text = "Georges-Isaac Lemoine souhaite changer l'adresse du compte."
    assert (0, 21, "PER") in _entities(slim(text))
    assert (0, 21, "PER") not in _entities(full(text))
    for sentence in FRENCH:  # sentences the parser does not cut: the same entities
        assert _entities(slim(sentence)) == _entities(full(sentence)), sentence


def test_workers_never_rerun_the_main_script(small_chunks, monkeypatch, tmp_path):
    """Under the dashboard (and AppTest) ``__main__`` is a page script: a spawned worker must not
    run it. Here ``__main__`` is a script that would leave a marker file and then fail."""
    import sys
    import types

    marker = tmp_path / "ran.txt"
    script = tmp_path / "page.py"
    script.write_text(
        f"open({str(marker)!r}, 'w').write('ran')\nraise RuntimeError('a page script ran')\n"
    )
    page = types.ModuleType("__main__")
    page.__file__ = str(script)
    workers.shutdown_workers(wait=True)  # start new workers under this __main__
    monkeypatch.setitem(sys.modules, "__main__", page)
    data = _document(ENGLISH, 4)
    single, _ = _run(data, "letter.txt", "0", monkeypatch)
    parallel, _ = _run(data, "letter.txt", "1", monkeypatch)
    assert parallel == single
    assert not marker.exists()
    assert sys.modules["__main__"] is page  # put back after the workers started


# ----------------------------------------------------------------------------- whole files
def _ran_tasks(caplog) -> list[tuple[int, int]]:
    found = []
    for record in caplog.records:
        m = re.match(r"ran (\d+) tasks, (\d+) of them", record.getMessage())
        if m:
            found.append((int(m.group(1)), int(m.group(2))))
    return found


def _folder(root) -> None:
    """Six small documents (English and French text, a DOCX) and one that is not UTF-8."""
    docx = pytest.importorskip("docx")
    root.mkdir()
    for i in range(3):
        (root / f"en-{i}.txt").write_bytes(_document(ENGLISH[i:] + ENGLISH[:i], 1))
        (root / f"fr-{i}.txt").write_bytes(_document(FRENCH[i:] + FRENCH[:i], 1))
    document = docx.Document()
    for paragraph in ENGLISH:
        document.add_paragraph(paragraph)
    document.save(root / "letter.docx")
    (root / "broken.txt").write_bytes(b"caf\xe9 au lait with Anna Berger")


def test_folder_identical_when_files_run_in_a_worker(tmp_path, monkeypatch, caplog):
    """Every file de-identified in the worker process (the caller takes none) gives the bytes,
    logs and failures of one process, in the same order."""
    from anon_core.services.documents import LOG_CSV, LOG_JSON, deidentify_folder

    _folder(tmp_path / "in")
    monkeypatch.setenv(workers.WORKERS_ENV, "0")
    single = deidentify_folder(tmp_path / "in", tmp_path / "one")
    monkeypatch.setenv(workers.WORKERS_ENV, "1")
    monkeypatch.setattr(workers, "CALLER_WORKS", False)
    with caplog.at_level(logging.INFO, logger="anon_core.pii.workers"):
        parallel = deidentify_folder(tmp_path / "in", tmp_path / "two")
    ran = _ran_tasks(caplog)  # every file but the DOCX (large against this batch) in the worker
    assert len(ran) == 1 and ran[0][0] == ran[0][1] == 7
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "two").iterdir())
    assert len(names) == 9  # 7 documents and the two logs (the broken file is not written)
    for name in names:  # the logs too: the same hashes and counts
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
    assert [r.name for r in parallel.records] == [r.name for r in single.records]
    assert [n for n, _e in parallel.failed] == ["broken.txt"]
    assert parallel.failed == single.failed
    assert LOG_JSON in names and LOG_CSV in names
    assert single.entity_totals().get("PERSON", 0) >= 7  # names were found and replaced


def test_uploads_identical_with_the_caller_and_a_worker(monkeypatch, caplog):
    from anon_core.services.documents import deidentify_uploads

    files = [(f"note-{i}.txt", _document(ENGLISH[i:] + FRENCH[:i], 1)) for i in range(5)]
    monkeypatch.setenv(workers.WORKERS_ENV, "0")
    single = deidentify_uploads(files)
    monkeypatch.setenv(workers.WORKERS_ENV, "1")
    workers.shutdown_workers(wait=True)
    _run(b"Warm up: Anna Berger.", "w.txt", "1", monkeypatch)  # start the worker
    with caplog.at_level(logging.INFO, logger="anon_core.pii.workers"):
        parallel = deidentify_uploads(files)
    assert parallel.outputs == single.outputs
    assert parallel.records == single.records
    assert _ran_tasks(caplog)[0][0] == 5


def test_run_tasks_gives_each_outcome_and_raises_none_of_them(monkeypatch):
    from anon_core.pii.documents import document_kind

    monkeypatch.setenv(workers.WORKERS_ENV, "1")
    monkeypatch.setattr(workers, "CALLER_WORKS", False)
    tasks = [("a.txt",), ("b.exe",), ("c.DOCX",), ("d.tif",)]
    got = dict(workers.run_tasks(document_kind, tasks, sizes=[1, 2, 3, 4]))
    assert got[0] == "txt" and got[2] == "docx" and got[3] == "tiff"
    assert isinstance(got[1], ConfigError) and "b.exe" in str(got[1])


def test_progress_that_raises_stops_a_batch_of_uploads(monkeypatch):
    from anon_core.services.documents import deidentify_uploads

    monkeypatch.setenv(workers.WORKERS_ENV, "1")
    files = [(f"note-{i}.txt", _document(ENGLISH, 1)) for i in range(6)]
    calls = []

    def progress(fraction: float, message: str) -> None:
        calls.append(fraction)
        if fraction > 0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        deidentify_uploads(files, progress=progress)
    assert calls[0] == 0.0 and 0 < calls[-1] < 1


def test_a_file_large_against_the_batch_is_split_across_processes(monkeypatch):
    from anon_core.services import documents

    monkeypatch.setenv(workers.WORKERS_ENV, "1")  # two processes: large above a quarter
    assert documents.large_files([100, 10, 10, 10]) == [True, False, False, False]
    assert documents.large_files([10] * 8) == [False] * 8
    assert documents.large_files([5]) == [True]


def test_the_caller_and_the_worker_end_together(monkeypatch, caplog):
    """Four tasks of 0.6 s (sleeps, so the machine's load does not change them) with one
    worker: the worker holds one task at a time and gets the next as soon as it ends, so the
    caller runs two and the worker two, and the batch takes about two tasks' time. Worked by
    hand for a worker holding two tasks at once: it would take tasks 0, 1 and 2 while the
    caller ran task 3, then the caller would wait for two of them (about 1.8 s)."""
    import time

    monkeypatch.setenv(workers.WORKERS_ENV, "1")
    list(workers.run_tasks(time.sleep, [(0,), (0,)]))  # starts the worker
    workers._pool[1].result(timeout=600)  # ready: its engines are loaded
    start = time.perf_counter()
    with caplog.at_level(logging.INFO, logger="anon_core.pii.workers"):
        outcomes = dict(workers.run_tasks(time.sleep, [(0.6,)] * 4))
    elapsed = time.perf_counter() - start
    assert outcomes == {0: None, 1: None, 2: None, 3: None}
    assert _ran_tasks(caplog)[-1] == (4, 2)
    assert elapsed < 1.6
