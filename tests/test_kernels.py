"""Compiled grouping kernels against numpy's path, and the search honouring a metric's goal."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from anon_core import ConfigError, Problem, make_model
from anon_core.data.builders import interval_hierarchy, masking_hierarchy, ordered_hierarchy
from anon_core.data.dataset import Dataset
from anon_core.data.frequency import FrequencyTable
from anon_core.quality.metrics import Loss, MetricValue

kernels = pytest.importorskip("anon_core.data.kernels")
pytestmark = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is not installed")


def _frame(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(str),
            "zip": rng.choice([f"{z:05d}" for z in rng.integers(10000, 99999, 40)], n),
            "edu": rng.choice([f"e{i}" for i in range(9)], n),
            "s": rng.choice(list("abcdefg"), n),
        }
    )


def _dataset(frame: pd.DataFrame) -> Dataset:
    hier = {
        "age": interval_hierarchy(frame["age"].unique(), width=5, fanout=2),
        "zip": masking_hierarchy(frame["zip"].unique(), levels=4),
        "edu": ordered_hierarchy(frame["edu"].unique(), sizes=[3]),
    }
    roles = {"age": "quasi-identifier", "zip": "quasi-identifier", "edu": "quasi-identifier"}
    return Dataset(frame, roles | {"s": "sensitive"}, hier)


def _same_table(a, b) -> None:
    np.testing.assert_array_equal(a.tuple_class, b.tuple_class)
    np.testing.assert_array_equal(a.sizes, b.sizes)
    np.testing.assert_array_equal(a.codes, b.codes)
    for x, y in zip(a.sparse_hist("s"), b.sparse_hist("s"), strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_compiled_and_numpy_paths_agree_on_random_lattices(seed):
    """Every node, visited in a random order (so roll-ups start from varied cached tables)."""
    ds = _dataset(_frame(seed, 600))
    compiled, plain = FrequencyTable(ds), FrequencyTable(ds)
    compiled.use_kernels, plain.use_kernels = True, False  # small tables default to numpy
    nodes = list(itertools.product(*[range(h) for h in ds.heights]))
    order = np.random.default_rng(seed).permutation(len(nodes))
    for i in order:
        _same_table(compiled.classes(nodes[i]), plain.classes(nodes[i]))


def test_frequency_table_built_by_the_kernel_equals_numpy(monkeypatch):
    from anon_core.data import frequency

    ds = _dataset(_frame(4, 900))
    monkeypatch.setattr(frequency, "KERNEL_MIN_ROWS", 0)
    compiled = FrequencyTable(ds)
    monkeypatch.setattr(frequency, "KERNEL_MIN_ROWS", 10**12)
    plain = FrequencyTable(ds)
    for name in ("row_tuple", "tuples", "counts"):
        np.testing.assert_array_equal(getattr(compiled, name), getattr(plain, name))
    for field in ("tuple_idx", "value", "count", "global_counts"):
        np.testing.assert_array_equal(
            getattr(compiled.sensitive["s"], field), getattr(plain.sensitive["s"], field)
        )


def _first_appearance(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Oracle: pandas' factorization (ids by first appearance) and each id's first row."""
    inv, uniq = pd.factorize(key, sort=False)
    first = np.array([np.flatnonzero(inv == g)[0] for g in range(len(uniq))], dtype=np.int64)
    return inv, first


@pytest.mark.parametrize("radices", [(3, 4, 2), (5000, 7000, 9000)])  # direct and hashed tables
def test_group_levels_matches_pandas_factorize(radices):
    rng = np.random.default_rng(7)
    n = 3000
    gen = np.stack([rng.integers(0, r, n) for r in radices]).astype(np.int32)
    weights = rng.integers(1, 5, n).astype(np.int64)
    inv, first, sizes = kernels.group_levels(
        gen, np.arange(len(radices), dtype=np.int64), np.asarray(radices, np.int64), weights
    )
    key = np.zeros(n, dtype=np.int64)
    for row, r in zip(gen, radices, strict=True):
        key = key * r + row
    exp_inv, exp_first = _first_appearance(key)
    np.testing.assert_array_equal(inv, exp_inv)
    np.testing.assert_array_equal(first, exp_first)
    np.testing.assert_array_equal(sizes, np.bincount(exp_inv, weights=weights).astype(np.int64))


def test_roll_up_matches_mapping_then_grouping():
    rng = np.random.default_rng(3)
    ups = [np.array([0, 0, 1, 1, 2], np.int32), np.array([0, 1, 0, 1], np.int32)]
    codes = np.stack([rng.integers(0, 5, 200), rng.integers(0, 4, 200)], axis=1).astype(np.int32)
    weights = rng.integers(1, 9, 200).astype(np.int64)
    offsets = np.array([0, 5], np.int64)
    inv, new_codes, sizes = kernels.roll_up(
        codes, np.concatenate(ups), offsets, np.array([3, 2], np.int64), weights
    )
    mapped = np.stack([ups[0][codes[:, 0]], ups[1][codes[:, 1]]], axis=1)
    exp_inv, exp_first = _first_appearance(mapped[:, 0] * 2 + mapped[:, 1])
    np.testing.assert_array_equal(inv, exp_inv)
    np.testing.assert_array_equal(new_codes, mapped[exp_first])
    np.testing.assert_array_equal(sizes, np.bincount(exp_inv, weights=weights).astype(np.int64))


class _Retained(Loss):
    """1 - Loss, to be maximised: the search must find Loss's optimum."""

    key = "retained-test"
    label = "Retained information (test)"
    goal = "maximize"

    def compute(self, table, suppressed, state) -> MetricValue:
        return MetricValue(self.key, 1.0 - super().compute(table, suppressed, state).value)

    def lower_bounds(self, freq, nodes, state):  # a bound of Loss, wrong for this metric
        return super().lower_bounds(freq, nodes, state)


def _brute_best(problem: Problem, sign: int) -> tuple[float, int]:
    best = None
    for lv in itertools.product(*[range(h) for h in problem.dataset.heights]):
        r = problem.evaluate(lv)
        if r.satisfied:
            key = (round(sign * r.quality.value, 9), sum(lv))
            best = key if best is None or key < best else best
    assert best is not None
    return best


@pytest.mark.parametrize("limit", [0.0, 0.1])
@pytest.mark.parametrize(
    "models",
    [
        [{"model": "k-anonymity", "k": 4}],
        [
            {"model": "k-anonymity", "k": 2},
            {"model": "distinct-l-diversity", "attribute": "s", "l": 2},
        ],
    ],
)
def test_search_maximises_a_maximising_metric(limit, models):
    frame = _frame(5, 150)
    ds = _dataset(frame)
    hier = {q: ds.columns[q].hierarchy for q in ds.qis}
    roles = {q: "quasi-identifier" for q in ds.qis} | {"s": "sensitive"}
    made = [make_model(m) for m in models]
    problem = Problem(frame, roles, hier, made, limit, _Retained())
    found = problem.search()
    assert found.goal == "maximize"
    value, level_sum = _brute_best(problem, -1)
    assert found.optimum is not None
    assert -found.optimum.quality.value == pytest.approx(value, abs=1e-9)
    assert sum(found.optimum.levels) == level_sum
    # The oracle of the oracle: minimising Loss picks a node of the same quality.
    by_loss = Problem(frame, roles, hier, made, limit, Loss()).search().optimum
    assert 1.0 - by_loss.quality.value == pytest.approx(found.optimum.quality.value, abs=1e-9)
    # Pareto frontier: quality never gets worse (lower) as risk grows.
    front = found.pareto_frontier()
    assert all(a["quality"] < b["quality"] for a, b in itertools.pairwise(front))


def test_unknown_goal_is_refused():
    class Sideways(Loss):
        goal = "sideways"

    frame = _frame(6, 60)
    ds = _dataset(frame)
    hier = {q: ds.columns[q].hierarchy for q in ds.qis}
    roles = {q: "quasi-identifier" for q in ds.qis}
    problem = Problem(
        frame, roles, hier, [make_model({"model": "k-anonymity", "k": 2})], 0.0, Sideways()
    )
    with pytest.raises(ConfigError, match="'minimize' or 'maximize', got 'sideways'"):
        problem.search()


# ----------------------------------------------------------- DuckDB release in SQL
TRICKY = ["plain", "a,b", 'say "hi"', "#tag", "two\nlines", "ünï", " lead", "=1+2", "x;y"]


def _tricky_csv(path, n: int = 400, seed: int = 4) -> None:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(n)],
            "q1": rng.choice(TRICKY, n),
            "q2": rng.integers(20, 60, n).astype(str),
            "free": rng.choice(TRICKY + [None], n),
            "s": rng.choice(["u", "v", "w"], n),
        }
    )
    frame.loc[rng.random(n) < 0.05, "q2"] = None
    frame.to_csv(path, index=False, lineterminator="\n")


def _tricky_config(path) -> dict:
    q1 = [[v, "g1" if i % 2 else 'g,"2"', "*"] for i, v in enumerate(TRICKY)]
    q2 = [[str(a), f"{a // 10 * 10}s", "*"] for a in range(20, 60)] + [["NULL", "none", "*"]]
    return {
        "input": {"path": str(path)},
        "attributes": {
            "id": {"role": "identifier"},
            "q1": {"role": "quasi-identifier", "hierarchy": {"table": q1}},
            "q2": {"role": "quasi-identifier", "hierarchy": {"table": q2}},
            "free": {"role": "insensitive"},
            "s": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 6}],
        "suppression_limit": 0.3,
    }


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("mode", ["remove", "mask"])
def test_duckdb_sql_release_equals_the_batch_release(tmp_path, fmt, mode):
    """Oracle: the engine's Arrow-batch path (the release writer before the SQL one)."""
    pytest.importorskip("duckdb")
    from anon_core.config import parse_config
    from anon_core.release.engines import get_engine
    from anon_core.release.plan import build_release_plan
    from anon_core.transform.problem import Problem as Prob

    data = tmp_path / "tricky.csv"
    _tricky_csv(data)
    engine = get_engine("duckdb", {"batch_rows": 128})
    try:
        problem = Prob.from_source(parse_config(_tricky_config(data), tmp_path), engine)
        levels = {"q1": 0, "q2": 0}
        result = problem.evaluate(levels)
        assert result.suppressed_records > 0  # the test needs suppressed classes
        plan = build_release_plan(
            problem.dataset, result, mode, list(problem.source.columns), problem.input_roles
        )
        assert engine._release_query(problem.source, plan, fmt, tmp_path / f"x.{fmt}", True)
        got = engine.release(problem.source, plan, tmp_path / f"sql.{fmt}")
        ref = engine.release_batches(problem.source, plan, tmp_path / f"batches.{fmt}")
    finally:
        engine.close()
    assert got.rows == ref.rows
    if fmt == "csv":
        assert got.path.read_bytes() == ref.path.read_bytes()
    else:
        pd.testing.assert_frame_equal(pd.read_parquet(got.path), pd.read_parquet(ref.path))


def test_first_use_from_two_threads_at_once(monkeypatch):
    """Two sessions' first searches may load the kernels at the same time: one load (under a
    lock), and both group exactly as numpy does."""
    import threading

    monkeypatch.setattr(kernels, "_compiled", {})
    assert not kernels.loaded()
    rng = np.random.default_rng(5)
    cols = np.stack([rng.integers(0, 7, 5_000), rng.integers(0, 3, 5_000)]).astype(np.int32)
    out: list = []

    def group() -> None:
        out.append(
            kernels.group_levels(
                cols, np.arange(2, dtype=np.int64), np.array([7, 3]), np.ones(5_000, np.int64)
            )
        )

    threads = [threading.Thread(target=group) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert kernels.loaded() and len(out) == 2
    key = cols[0].astype(np.int64) * 3 + cols[1]
    codes, uniques = pd.factorize(key)  # numbering by first appearance
    for group_of, first, sizes in out:
        np.testing.assert_array_equal(group_of, codes)
        np.testing.assert_array_equal(key[first], uniques)
        np.testing.assert_array_equal(sizes, np.bincount(codes))


def test_frequency_table_without_kernels_equals_with():
    """FrequencyTable(compiled=False) (a file's one-off release) gives the same table and
    classes as the compiled path."""
    frame = _frame(11, 20_000)
    a = FrequencyTable(_dataset(frame), compiled=False)
    b = FrequencyTable(_dataset(frame))
    assert not a.use_kernels and b.use_kernels
    np.testing.assert_array_equal(a.tuples, b.tuples)
    np.testing.assert_array_equal(a.counts, b.counts)
    for lv in [(0, 0, 0), (1, 2, 1), (3, 1, 0), (1, 2, 2)]:
        np.testing.assert_array_equal(a.classes(lv).sizes, b.classes(lv).sizes)
