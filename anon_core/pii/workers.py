"""Large analyses split across worker processes, with the results of one process.

The spaCy NER model is most of the cost of de-identifying text (about two thirds on mixed
European text), and one Python process runs it on one core. A large input (at least
:data:`PARALLEL_MIN_CHARS` characters, e.g. a long document or a column of many distinct
values) is cut into chunks of whole texts of about :data:`CHUNK_CHARS` characters; the calling
process analyses chunks from the end while worker processes analyse chunks from the start, and
the results are put back in the order of the texts.

Why the output is the same as in one process: each text is analysed whole by the same engine
(the same model, language, recognizers and settings, built by :func:`load_engine` in the
worker), spaCy's results for a text do not depend on the other texts of its batch, and only
what the caller reads of Presidio's results travels back (entity type, start, end, score, in
Presidio's order). ``tests/test_pii_workers.py`` compares the bytes of de-identified documents
made with and without workers.

* Workers are started once, with ``spawn`` (no fork of a threaded server), and kept for later
  calls; each loads the English engine when it starts and other languages' engines on first
  use. Until the first worker is ready the calling process analyses every chunk itself, so a
  first small run is never slower than without workers.
* :data:`WORKERS_ENV` sets how many workers run besides the calling process (default: the
  number of CPU cores this process may use, minus one; ``0``: no worker).
* Texts and results go over the executor's pipe between processes of this program; nothing is
  written to a file. Each worker holds one chunk at a time and is given the next as soon as it
  ends.
* Whole tasks (:func:`run_tasks`, e.g. one document each) run the same way: the workers take
  the largest first, the calling process the smallest, and no process waits at the end of a
  document while another one is left. A task run here or in a worker analyses its texts in its
  own process only (no chunks inside a task).
* A worker that dies (killed, out of memory) gives one :class:`ConfigError` saying so and how to
  run without workers; the next call starts new workers. An exception raised by the analysis in
  a worker is raised as it would be in one process. An exception in the calling process (Ctrl-C,
  or a ``progress`` callback that raises to cancel) cancels the chunks not yet started.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import signal
import sys
import threading
import types
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from anon_core.errors import ConfigError
from anon_core.pii import names
from anon_core.pii.engine import (
    BUILT,
    DEFAULT_MODEL,
    LANGUAGE,
    PiiEngine,
    RecognizerSpec,
    build_recognizers,
    load_engine,
)

log = logging.getLogger(__name__)

#: Environment variable: worker processes besides the calling one (``0``: analyse in one process).
WORKERS_ENV = "ANON_CORE_PII_WORKERS"
#: At most this many workers, whatever the variable says (each holds its own spaCy models).
MAX_WORKERS = 16
#: Characters of whole texts per chunk (about half a second of analysis on one core).
CHUNK_CHARS = 20_000
#: Inputs with fewer characters are analysed in the calling process only.
PARALLEL_MIN_CHARS = 2 * CHUNK_CHARS
#: Whether the calling process analyses chunks too (tests turn it off to send every chunk to a worker).
CALLER_WORKS = True

#: One text's results as they travel back: (entity type, start, end, score), in Presidio's order.
Found = tuple[tuple[str, int, int, float], ...]


@dataclass(frozen=True)
class Job:
    """What a worker needs to build the caller's engine and analyse as the caller would."""

    model: str | None
    language: str
    specs: tuple[RecognizerSpec, ...] = ()
    allow_list: tuple[str, ...] | None = None
    score_threshold: float = 0.35
    entities: tuple[str, ...] | None = None
    batch_size: int = 64
    #: The name gazetteer's left-out locales in the caller (a benchmark setting).
    excluded_locales: tuple[str, ...] = ()


def worker_count(environ: dict[str, str] | None = None) -> int:
    """Worker processes to run besides the calling one (:data:`WORKERS_ENV`, else cores - 1)."""
    raw = (os.environ if environ is None else environ).get(WORKERS_ENV)
    if raw is None or not raw.strip():
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            cores = os.cpu_count() or 1
        return min(max(cores - 1, 0), MAX_WORKERS)
    try:
        count = int(raw)
    except ValueError:
        count = -1
    if count < 0:
        raise ConfigError(
            f"{WORKERS_ENV}={raw!r} is not a number of worker processes: set it to 0 (analyse in "
            f"this process only) or a whole number up to {MAX_WORKERS}."
        )
    return min(count, MAX_WORKERS)


def chunks_of(texts: Sequence[str], size: int | None = None) -> list[range]:
    """Consecutive runs of whole texts of at least ``size`` characters (default
    :data:`CHUNK_CHARS`; the last run may be shorter)."""
    size = CHUNK_CHARS if size is None else size
    out, start, chars = [], 0, 0
    for i, text in enumerate(texts):
        chars += len(text)
        if chars >= size:
            out.append(range(start, i + 1))
            start, chars = i + 1, 0
    if start < len(texts):
        out.append(range(start, len(texts)))
    return out


def _found(results: Sequence[Sequence[Any]]) -> list[Found]:
    return [
        tuple((r.entity_type, int(r.start), int(r.end), float(r.score)) for r in res)
        for res in results
    ]


def _analyse(engine: PiiEngine, job: Job, texts: list[str]) -> list[Found]:
    return _found(
        engine.analyze_batch(
            texts,
            ad_hoc=build_recognizers(job.specs, engine.language),
            allow_list=list(job.allow_list) if job.allow_list is not None else None,
            score_threshold=job.score_threshold,
            entities=list(job.entities) if job.entities is not None else None,
            batch_size=job.batch_size,
        )
    )


# ----------------------------------------------------------------------------- in the worker
def _start_worker(engines: Sequence[tuple[str | None, str]] = ()) -> None:
    """Worker start: Ctrl-C is the caller's to handle; the English engine and the other
    ``engines`` the caller had built (``(model, language)``) are loaded ahead, so that the
    worker does not load them in the middle of a run while the caller analyses."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ[WORKERS_ENV] = "0"  # a task in a worker analyses in the worker only
    load_engine(DEFAULT_MODEL, LANGUAGE)
    names.gazetteer()
    for model, language in engines:
        load_engine(model, language)


def _ready() -> bool:
    return True


def _worker_chunk(job: Job, texts: list[str]) -> list[Found]:
    names.EXCLUDED_LOCALES = job.excluded_locales
    return _analyse(load_engine(job.model, job.language), job, texts)


def _worker_task(excluded: tuple[str, ...], fn: Callable[..., Any], args: tuple) -> Any:
    names.EXCLUDED_LOCALES = excluded
    return fn(*args)


# ----------------------------------------------------------------------------- the pool
@contextlib.contextmanager
def _plain_main() -> Iterator[None]:
    """Spawn workers as if ``__main__`` were a bare module.

    A spawned process first re-runs the parent's ``__main__`` file. Under the dashboard that is
    the page script Streamlit is running (Streamlit installs each page as ``__main__``), and
    under Streamlit's AppTest a generated script that only runs inside AppTest; a worker must
    run neither. While the workers start, ``sys.modules["__main__"]`` is a module with no file,
    so the child imports nothing but this module's functions.
    """
    main = sys.modules.get("__main__")
    named = getattr(getattr(main, "__spec__", None), "name", None)
    if main is None or named is not None or getattr(main, "__file__", None) is None:
        yield  # run as a module (python -m) or interactively: nothing to re-run
        return
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


_lock = threading.Lock()
#: Per thread: whether a task of :func:`run_tasks` runs in this thread (then no chunks).
_here = threading.local()
_pool: tuple[ProcessPoolExecutor, Future, int] | None = None


def _executor(count: int) -> tuple[ProcessPoolExecutor, Future] | None:
    """The shared pool of ``count`` workers (started on first use), or None if it cannot start."""
    global _pool
    with _lock:
        if _pool is not None and _pool[2] != count:
            _pool[0].shutdown(wait=False, cancel_futures=True)
            _pool = None
        if _pool is None:
            try:
                executor = ProcessPoolExecutor(
                    max_workers=count,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker,
                    initargs=(tuple(BUILT)[-3:],),  # the engine cache holds four
                )
                # One job per worker while none is idle spawns every worker now, under a plain
                # __main__ (see _plain_main); the first job's end says a worker is ready.
                with _plain_main():
                    started = [executor.submit(_ready) for _ in range(count)]
                _pool = (executor, started[0], count)
            except (OSError, RuntimeError) as exc:
                log.warning(
                    "worker processes cannot start (%s): text is analysed in this process",
                    type(exc).__name__,
                )
                return None
        return _pool[0], _pool[1]


def shutdown_workers(wait: bool = False) -> None:
    """Stop the worker processes (the next large analysis starts new ones); ``wait``: until
    they have exited."""
    global _pool
    with _lock:
        if _pool is not None:
            _pool[0].shutdown(wait=wait, cancel_futures=True)
            _pool = None


def _result(future: Future) -> list[Found]:
    try:
        return future.result()
    except BrokenProcessPool:
        shutdown_workers()
        raise ConfigError(
            "A worker process analysing the text stopped before it finished (killed, or out of "
            f"memory); nothing was written. Run again, or set {WORKERS_ENV}=0 to analyse in one "
            "process."
        ) from None


def analyse_in_chunks(
    engine: PiiEngine,
    texts: Sequence[str],
    job: Job,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> list[list[Any]]:
    """Presidio-style results per text (objects with entity_type, start, end, score), in order.

    Small inputs, or ``0`` workers: ``engine.analyze_batch`` in this process. Large inputs: in
    chunks, here and in the workers. ``progress(done, total)`` is called after each chunk; an
    exception raised from it stops the run (chunks not yet started are cancelled).
    """
    from presidio_analyzer import RecognizerResult

    texts = [str(t) for t in texts]
    count = worker_count()
    chunks = chunks_of(texts)
    if (
        count == 0
        or getattr(_here, "in_task", False)
        or sum(len(t) for t in texts) < PARALLEL_MIN_CHARS
        or len(chunks) < 2
    ):
        found = _analyse(engine, job, texts)
    else:
        found = _run_chunks(engine, texts, job, chunks, count, progress)
    return [[RecognizerResult(e, s, t, score) for e, s, t, score in res] for res in found]


def _run_chunks(
    engine: PiiEngine,
    texts: list[str],
    job: Job,
    chunks: list[range],
    count: int,
    progress: Callable[[int, int], None] | None,
) -> list[Found]:
    parts: list[list[Found] | None] = [None] * len(chunks)
    remote = [0]

    def part(k: int) -> list[str]:
        return [texts[i] for i in chunks[k]]

    runs = _schedule(
        range(len(chunks)),
        count,
        remote=lambda pool, k: pool.submit(_worker_chunk, job, part(k)),
        here=lambda k: _analyse(engine, job, part(k)),
        outcome=_result,
        tally=remote,
    )
    with contextlib.closing(runs):  # an exception here (progress) cancels what is not started
        for done, (k, result) in enumerate(runs, start=1):
            parts[k] = result
            if progress is not None:
                progress(done, len(chunks))
    log.info(
        "analysed %d texts in %d chunks, %d of them in %d worker process(es)",
        len(texts),
        len(chunks),
        remote[0],
        count,
    )
    return [found for part in parts for found in part or ()]


def _schedule(
    order: Sequence[int],
    count: int,
    *,
    remote: Callable[[ProcessPoolExecutor, int], Future],
    here: Callable[[int], Any],
    outcome: Callable[[Future], Any],
    tally: list[int],
) -> Iterator[tuple[int, Any]]:
    """``(i, value)`` for every ``i`` of ``order`` as each ends: the workers take items from
    the start of ``order``, this process from the end (none while :data:`CALLER_WORKS` is off
    and workers run). ``remote`` submits an item to the pool, ``here`` runs it in this process,
    ``outcome`` reads a worker's future; ``tally[0]`` counts the items sent to workers. Closing
    the generator cancels the items not started.

    Each worker holds one item at a time and gets the next as soon as it ends (from the pool's
    own thread, while this process analyses), so no item waits queued behind a worker's
    current one while this process has nothing left to do: the processes end together, within
    one item."""
    pool = _executor(count)
    pending = deque(order)
    running: dict[Future, int] = {}
    ended: queue.SimpleQueue[tuple[int, Future]] = queue.SimpleQueue()
    lock = threading.RLock()
    stop = threading.Event()

    def feed() -> None:
        with lock:
            while not stop.is_set() and pool is not None and pending and len(running) < count:
                i = pending.popleft()
                try:
                    future = remote(pool[0], i)
                except (BrokenProcessPool, RuntimeError):  # broken, or shut down meanwhile
                    future = Future()
                    future.set_exception(BrokenProcessPool("broken"))
                running[future] = i
                tally[0] += 1
                future.add_done_callback(one_ended)

    def one_ended(future: Future) -> None:
        with lock:
            ended.put((running.pop(future), future))
        feed()

    started = False
    try:
        while True:
            if not started and pool is not None and pool[1].done():
                _result(pool[1])  # a pool that broke while starting: one clear error
                started = True
            if started:
                feed()
            while not ended.empty():
                i, future = ended.get()
                yield i, outcome(future)
            with lock:
                mine = pending.pop() if pending and (CALLER_WORKS or pool is None) else None
                left = bool(pending or running)
            if mine is not None:
                yield mine, here(mine)
            elif not left:
                if ended.empty():
                    return
            elif started:
                ended.put(ended.get())  # wait for a worker's item to end
            else:  # this process leaves the items to workers still starting
                wait([pool[1]], timeout=0.05, return_when=FIRST_COMPLETED)  # type: ignore[index]
    finally:
        stop.set()
        with lock:
            pending.clear()
            for future in list(running):  # a cancelled future's callback leaves ``running``
                future.cancel()


# ----------------------------------------------------------------------------- whole tasks
def _outcome(future: Future) -> Any:
    try:
        return future.result()
    except BrokenProcessPool:
        return _result(future)  # a dead worker: one clear error, raised
    except Exception as exc:  # noqa: BLE001 - the task's own error, given to the caller
        return exc


def _run_here(fn: Callable[..., Any], args: tuple) -> Any:
    _here.in_task = True
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - the task's own error, given to the caller
        return exc
    finally:
        _here.in_task = False


def run_tasks(
    fn: Callable[..., Any],
    tasks: Sequence[tuple],
    *,
    sizes: Sequence[int] | None = None,
) -> Iterator[tuple[int, Any]]:
    """``fn(*task)`` for every task, here and in the worker processes: yields ``(index,
    outcome)`` as each task ends, the outcome being what ``fn`` returned or the exception it
    raised. ``fn`` must be a module-level function and the tasks picklable (they travel to the
    workers over a pipe). Workers take the largest tasks first (``sizes``), this process the
    smallest; with 0 workers or one task, the tasks run here in order.

    A worker that dies raises :class:`ConfigError`. Closing the generator (an exception in the
    loop that reads it, under ``contextlib.closing``) cancels the tasks not yet started.
    """
    count = worker_count()
    order = list(range(len(tasks)))
    if sizes is not None:
        order.sort(key=lambda i: -sizes[i])
    if count == 0 or len(tasks) < 2 or getattr(_here, "in_task", False):
        for i in range(len(tasks)):
            yield i, _run_here(fn, tasks[i])
        return
    excluded = tuple(names.EXCLUDED_LOCALES)
    remote = [0]
    runs = _schedule(
        order,
        count,
        remote=lambda pool, i: pool.submit(_worker_task, excluded, fn, tasks[i]),
        here=lambda i: _run_here(fn, tasks[i]),
        outcome=_outcome,
        tally=remote,
    )
    with contextlib.closing(runs):
        yield from runs
    log.info("ran %d tasks, %d of them in %d worker process(es)", len(tasks), remote[0], count)
