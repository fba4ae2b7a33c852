"""Bounded memory of the search: sparse sensitive histograms, their roll-up, the sparse
hierarchical t-closeness, and the class-table cache bounded by bytes.

Expected values are worked by hand or come from an independent dense computation.
"""

from __future__ import annotations

import gc
import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from anon_core import Hierarchy, make_model
from anon_core.data.builders import interval_hierarchy, masking_hierarchy
from anon_core.data.class_cache import ClassCache
from anon_core.data.dataset import Dataset
from anon_core.data.frequency import FrequencyTable

kernels = pytest.importorskip("anon_core.data.kernels")
needs_numba = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is not installed")


def _hand_table(compiled: bool) -> FrequencyTable:
    """Two QIs (q: q1,q2 -> *; r: r1,r2 -> *), sensitive s with a 3-level hierarchy
    (a, b under X; c under Y; * on top). Rows, worked below:

        q1 r1 a | q1 r1 b | q1 r2 a | q2 r1 c | q2 r1 c | q2 r2 b
    """
    frame = pd.DataFrame(
        {
            "q": ["q1", "q1", "q1", "q2", "q2", "q2"],
            "r": ["r1", "r1", "r2", "r1", "r1", "r2"],
            "s": ["a", "b", "a", "c", "c", "b"],
        }
    )
    hier = {
        "q": Hierarchy(np.array([["q1", "*"], ["q2", "*"]], dtype=object)),
        "r": Hierarchy(np.array([["r1", "*"], ["r2", "*"]], dtype=object)),
        "s": Hierarchy(np.array([["a", "X", "*"], ["b", "X", "*"], ["c", "Y", "*"]], dtype=object)),
    }
    roles = {"q": "quasi-identifier", "r": "quasi-identifier", "s": "sensitive"}
    freq = FrequencyTable(Dataset(frame, roles, hier), compiled=compiled)
    freq.use_kernels = compiled and kernels.AVAILABLE
    return freq


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_numba)])
def test_sparse_histograms_hand_worked_and_rolled_up(compiled):
    freq = _hand_table(compiled)
    # Sensitive codes by first appearance: a=0, b=1, c=2.
    # (0, 0): classes (q1 r1) {a, b}, (q1 r2) {a}, (q2 r1) {c, c}, (q2 r2) {b}.
    fine = freq.classes((0, 0))
    assert fine.sizes.tolist() == [2, 1, 2, 1]
    cls, val, cnt = fine.sparse_hist("s")
    assert list(zip(cls.tolist(), val.tolist(), cnt.tolist(), strict=True)) == [
        (0, 0, 1),
        (0, 1, 1),
        (1, 0, 1),
        (2, 2, 2),
        (3, 1, 1),
    ]
    # (0, 1): r generalized: q1 {a, b, a}, q2 {c, c, b}.
    coarse = freq.classes((0, 1))
    cls, val, cnt = coarse.sparse_hist("s")
    assert list(zip(cls.tolist(), val.tolist(), cnt.tolist(), strict=True)) == [
        (0, 0, 2),
        (0, 1, 1),
        (1, 1, 1),
        (1, 2, 2),
    ]
    assert coarse.distinct_values("s").tolist() == [2, 2]
    blocks = list(coarse.dense_hist("s"))
    assert len(blocks) == 1 and blocks[0][0] == 0
    np.testing.assert_array_equal(blocks[0][1], [[2, 1, 0], [0, 1, 2]])
    # (1, 1): rolled up from (0, 1)'s two classes and its histogram: one class {a:2, b:2, c:2}.
    top = freq.classes((1, 1))
    assert top._live_parent() is coarse
    cls, val, cnt = top.sparse_hist("s")
    assert (cls.tolist(), val.tolist(), cnt.tolist()) == ([0, 0, 0], [0, 1, 2], [2, 2, 2])
    assert top.tuple_class.tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_numba)])
def test_hierarchical_t_closeness_hand_worked(compiled):
    """Li et al.'s hierarchical EMD. Global Q = (a 2/6, b 2/6, c 2/6).
    Class q1 (levels (0, 1)): P = (2/3, 1/3, 0); extras P - Q = (1/3, 0, -1/3). Under X the
    extras are (1/3, 0): no cost there (nothing negative to meet); X carries +1/3 and Y -1/3
    up to the root, where they meet at height 2 of 2: EMD = 1/3. Class q2: P = (0, 1/3, 2/3),
    extras (-1/3, 0, 1/3), the same by symmetry: 1/3."""
    freq = _hand_table(compiled)
    model = make_model({"model": "hierarchical-distance-t-closeness", "attribute": "s", "t": 0.3})
    model.validate(freq)
    state = model.prepare(freq)
    emd = model.measure(freq.classes((0, 1)), state)
    np.testing.assert_allclose(emd, [1 / 3, 1 / 3], rtol=0, atol=1e-15)
    assert model.class_ok(freq.classes((0, 1)), state).tolist() == [False, False]
    # Everything generalized: one class with the global distribution.
    assert model.measure(freq.classes((1, 1)), state).tolist() == [0.0]


def _random_problem(seed: int, n: int = 3000, m: int = 60):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(str),
            "zip": rng.choice([f"{z:05d}" for z in rng.integers(10000, 99999, 80)], n),
            "s": (np.minimum(rng.geometric(0.05, n), m) * 7).astype(str),
        }
    )
    values = sorted(frame["s"].unique(), key=int)
    s_rows = [[v, f"g{int(v) // 70}", f"h{int(v) // 210}", "*"] for v in values]
    hier = {
        "age": interval_hierarchy(frame["age"].unique(), width=5, fanout=2),
        "zip": masking_hierarchy(frame["zip"].unique(), levels=4),
        "s": Hierarchy(np.array(s_rows, dtype=object)),
    }
    roles = {"age": "quasi-identifier", "zip": "quasi-identifier", "s": "sensitive"}
    return Dataset(frame, roles, hier)


def _dense_hierarchical_emd(table, model, state) -> np.ndarray:
    """The dense definition, independently: per class the extras Q*size - P*total, summed
    into each inner node, cost sum_h h/H * (S_{h-1} - S_h)."""
    global_counts, onehots, top = state[0], state[1], state[2]
    total = float(global_counts.sum())
    _, dense = next(iter(table.dense_hist(model.attribute)))
    sizes = table.sizes.astype(float)
    extra = global_counts[None, :] * sizes[:, None] - dense * total
    below = np.maximum(extra, 0.0).sum(axis=1)
    cost = np.zeros(len(sizes))
    for h, onehot in enumerate(onehots, start=1):
        extra = extra @ onehot
        here = np.maximum(extra, 0.0).sum(axis=1)
        cost += (h / top) * (below - here)
        below = here
    return cost / (total * sizes)


@needs_numba
@pytest.mark.parametrize("seed", [1, 2])
def test_sparse_hierarchical_t_closeness_is_bit_identical_to_dense(seed):
    ds = _random_problem(seed)
    freq = FrequencyTable(ds)
    freq.use_kernels = True
    model = make_model({"model": "hierarchical-distance-t-closeness", "attribute": "s", "t": 0.2})
    state = model.prepare(freq)
    for lv in itertools.product(*[range(h) for h in ds.heights]):
        table = freq.classes(lv)
        sparse = model.measure(table, state)
        assert np.array_equal(sparse, _dense_hierarchical_emd(table, model, state)), lv


@needs_numba
@pytest.mark.parametrize("n_classes,m", [(50, 7), (5000, 900)])  # dense scratch; counting sort
def test_group_pairs_matches_unique_then_bincount(n_classes, m):
    rng = np.random.default_rng(n_classes)
    n_tuples, n = 3000, 4000
    mapping = rng.integers(0, n_classes, n_tuples)
    idx = rng.integers(0, n_tuples, n)
    val = rng.integers(0, m, n)
    cnt = rng.integers(1, 5, n)
    key = mapping[idx] * m + val
    uniq, inv = np.unique(key, return_inverse=True)
    want = (uniq // m, uniq % m, np.bincount(inv, weights=cnt).astype(np.int64))
    got = kernels.group_pairs(mapping, idx, val, cnt, n_classes, m)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


@dataclass(eq=False)
class _Table:
    levels: tuple[int, ...]
    nbytes: int
    classes: int = 1
    cache: ClassCache | None = None

    @property
    def n_classes(self) -> int:
        return self.classes


def test_class_cache_evicts_least_recently_used_by_bytes():
    cache = ClassCache(capacity=10, n_qis=2, budget=100)
    a, b, c = _Table((0, 0), 40), _Table((0, 1), 40), _Table((1, 0), 40)
    cache.put(a.levels, a)
    cache.put(b.levels, b)
    assert cache.get(a.levels) is a  # a is now more recent than b
    cache.put(c.levels, c)  # 120 > 100: b, the least recently used, goes
    assert cache.get(b.levels) is None and b.cache is None
    assert cache.get(a.levels) is a and cache.get(c.levels) is c and cache.bytes == 80
    # A cached table that grows pushes out others, never itself.
    cache.grew(c, 50)
    assert cache.get(a.levels) is None and cache.get(c.levels) is c and cache.bytes == 90
    # The finest table below a transformation: freed slots are below nothing.
    assert cache.finest_below((1, 1)) is c and cache.finest_below((0, 1)) is None


def test_class_cache_bounded_by_count():
    cache = ClassCache(capacity=2, n_qis=1, budget=10**9)
    tables = [_Table((i,), 1) for i in range(3)]
    for t in tables:
        cache.put(t.levels, t)
    assert len(cache) == 2 and cache.get((0,)) is None


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_numba)])
def test_small_cache_gives_the_same_tables(compiled):
    """With a cache too small to keep parents, tables are regrouped instead of rolled up
    from freed parents, and every class table and histogram is the same."""
    ds = _random_problem(3, n=2000)
    small, large = FrequencyTable(ds), FrequencyTable(ds)
    small.use_kernels = large.use_kernels = compiled
    small._cache.budget = 64 * 1024
    nodes = list(itertools.product(*[range(h) for h in ds.heights]))
    order = np.random.default_rng(3).permutation(len(nodes))
    peak = 0
    for i in order:
        a, b = small.classes(nodes[i]), large.classes(nodes[i])
        gc.collect()  # parents evicted from the small cache are freed now
        for x, y in zip(a.sparse_hist("s"), b.sparse_hist("s"), strict=True):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(a.tuple_class, b.tuple_class)
        np.testing.assert_array_equal(a.sizes, b.sizes)
        peak = max(peak, small._cache.bytes)
        del a, b
    assert peak <= small._cache.budget + 64 * 1024  # at most one table over, while it grows


@pytest.mark.parametrize("lower,upper", [((0, 0, 0), (2, 3, 1)), ((1, 0, 2), (3, 2, 4))])
def test_lattice_regions_are_the_up_and_down_sets(lower, upper):
    """The view of a node's up-set (down-set) selects exactly the nodes at or above (below)
    it in every attribute, by brute force over the lattice."""
    from anon_core.search.lattice import Lattice, node_region

    lattice = Lattice(lower, upper)
    nodes = lattice.nodes()
    shape = tuple(int(r) for r in lattice.radix)
    for idx in range(lattice.size):
        for up in (True, False):
            flags = np.zeros(lattice.size, dtype=bool)
            node_region(flags, shape, nodes[idx] - lattice.lower, up)[...] = True
            want = (nodes >= nodes[idx]).all(axis=1) if up else (nodes <= nodes[idx]).all(axis=1)
            np.testing.assert_array_equal(flags, want)
