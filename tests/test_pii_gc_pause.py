"""Fewer garbage collections during a text batch: thresholds raised inside, restored after."""

from __future__ import annotations

import gc
import threading

import pytest

from anon_core.pii.gc_pause import YOUNG_THRESHOLD, fewer_collections


@pytest.fixture(autouse=True)
def _default_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_raised_inside_and_restored_after():
    with fewer_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_after_an_exception():
    with pytest.raises(ValueError), fewer_collections():
        raise ValueError("boom")
    assert gc.get_threshold() == (700, 10, 10)


def test_nested_and_overlapping_batches_restore_once_the_last_ends():
    entered, release = threading.Event(), threading.Event()

    def other_batch():
        with fewer_collections():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=other_batch)
    with fewer_collections():
        thread.start()
        assert entered.wait(10)
    # the other thread's batch still runs: the threshold stays raised
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    release.set()
    thread.join(10)
    assert gc.get_threshold() == (700, 10, 10)


def test_collection_switched_off_by_the_caller_stays_off():
    gc.set_threshold(0, 10, 10)
    with fewer_collections():
        assert gc.get_threshold()[0] == 0
    assert gc.get_threshold() == (0, 10, 10)


def test_a_threshold_the_caller_set_higher_is_kept():
    gc.set_threshold(YOUNG_THRESHOLD * 2, 10, 10)
    with fewer_collections():
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD * 2
    assert gc.get_threshold() == (YOUNG_THRESHOLD * 2, 10, 10)


def test_fewer_young_collections_while_a_batch_runs():
    counts = []

    def churn():
        before = gc.get_stats()[0]["collections"]
        junk = [[i] for i in range(20_000)]
        del junk
        return gc.get_stats()[0]["collections"] - before

    counts.append(churn())
    with fewer_collections():
        counts.append(churn())
    # 20,000 new lists: about 28 young collections at 700, none at 50,000
    assert counts[0] >= 20
    assert counts[1] <= 1
