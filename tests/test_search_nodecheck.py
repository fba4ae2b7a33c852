"""The search's compiled per-node check (k-anonymity, distinct and recursive l-diversity).

Each node's figures are checked against class sizes and sensitive counts worked out with
pandas from the records and the hierarchies' labels; whole searches against the general
path's (the same optimum, nodes and trade-off records) and against brute force.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from anon_core import Hierarchy, Problem, make_metric, make_model
from anon_core.data import kernels
from anon_core.privacy.kanonymity import KAnonymity
from anon_core.search.nodecheck import NodeCheck

pytestmark = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is not installed")

QIS = ("age", "zip", "edu", "sex")


def _labels() -> dict[str, list[dict[str, str]]]:
    """Per QI, per level: value -> label (level 0 is the value itself)."""
    ages = [str(a) for a in range(18, 91)]
    zips = [f"{z:05d}" for z in range(13000, 13400, 2)]
    edus = [f"e{i}" for i in range(8)]
    return {
        "age": [
            {a: a for a in ages},
            {a: f"{int(a) // 5 * 5}-{int(a) // 5 * 5 + 4}" for a in ages},
            {a: f"{int(a) // 20 * 20}-{int(a) // 20 * 20 + 19}" for a in ages},
            {a: "*" for a in ages},
        ],
        "zip": [{z: z[:n] + "*" * (5 - n) for z in zips} for n in (5, 4, 3, 0)],
        "edu": [
            {e: e for e in edus},
            {e: f"g{int(e[1]) // 2}" for e in edus},
            {e: "*" for e in edus},
        ],
        "sex": [{s: s for s in "mf"}, {s: "*" for s in "mf"}],
    }


def _frame(seed: int, n: int = 6000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    labels = _labels()
    return pd.DataFrame(
        {
            "age": rng.choice(list(labels["age"][0]), n),
            "zip": rng.choice(list(labels["zip"][0]), n),
            "edu": rng.choice(list(labels["edu"][0]), n),
            "sex": rng.choice(list("mf"), n),
            "s": rng.choice(list("abcdef"), n, p=[0.35, 0.25, 0.15, 0.12, 0.08, 0.05]),
        }
    )


def _problem(frame, models, limit, metric="loss") -> Problem:
    hier = {}
    for q, levels in _labels().items():
        rows = [[lv[v] for lv in levels] for v in levels[0]]
        hier[q] = Hierarchy(np.array(rows, dtype=object), name=q)
    roles = {q: "quasi-identifier" for q in QIS}
    roles["s"] = "sensitive"
    return Problem(frame, roles, hier, [make_model(m) for m in models], limit, make_metric(metric))


def _oracle(frame, levels, k, ld, rl, c):
    """(sorted class sizes, records suppressed, classes released, smallest released) from the
    records grouped by their labels with pandas, each class judged by its sorted counts."""
    labels = _labels()
    keys = pd.DataFrame({q: frame[q].map(labels[q][lv]) for q, lv in zip(QIS, levels, strict=True)})
    keys["s"] = frame["s"]
    counts = keys.groupby([*QIS, "s"]).size().unstack(fill_value=0).to_numpy()
    ranked = -np.sort(-counts, axis=1)  # each class's counts, largest first
    sizes = ranked.sum(axis=1)
    distinct = (ranked > 0).sum(axis=1)
    ok = (sizes >= k) & (distinct >= ld)
    if rl:
        tail = ranked[:, rl - 1 :].sum(axis=1).astype(float)
        ok &= (distinct >= rl) & (ranked[:, 0].astype(float) < c * tail)
    suppressed = int(sizes[~ok].sum())
    kept = sizes[ok] if suppressed else sizes
    return sorted(sizes.tolist()), suppressed, len(kept), int(kept.min()) if len(kept) else 0


@pytest.mark.parametrize(
    ("k", "ld", "rl", "c"),
    [(5, 0, 0, 0.0), (3, 2, 0, 0.0), (2, 0, 3, 2.0), (4, 3, 2, 3.0), (0, 0, 2, 1.5)],
)
def test_every_node_matches_counts_from_the_records(k, ld, rl, c):
    frame = _frame(1)
    models = [{"model": "k-anonymity", "k": k}] if k else []
    if ld:
        models.append({"model": "distinct-l-diversity", "attribute": "s", "l": ld})
    if rl:
        models.append({"model": "recursive-cl-diversity", "attribute": "s", "c": c, "l": rl})
    problem = _problem(frame, models, 0.05)
    assert problem.freq.n_tuples >= 1000  # the compiled kernels' size
    heights = problem.dataset.heights
    check = NodeCheck(
        problem.freq, [0] * len(heights), [h - 1 for h in heights], problem.evaluator.models
    )
    nodes = list(itertools.product(*[range(h) for h in heights]))
    # A random order: nodes roll up from finer checked ones, or are grouped afresh.
    for i in np.random.default_rng(2).permutation(len(nodes)):
        levels = nodes[i]
        node = check.check(levels)
        sizes, suppressed, released, smallest = _oracle(frame, levels, k, ld, rl, c)
        assert sorted(node.sizes.tolist()) == sizes, levels
        assert (node.outliers, node.kept, node.smallest) == (suppressed, released, smallest), levels
        # The classes are numbered as the frequency table numbers them.
        general = problem.freq.classes(levels)
        assert node.sizes.tolist() == general.sizes.tolist()
        assert node.rep.tolist() == general.rep.tolist()


def _records(found):
    return [
        tuple("nan" if isinstance(x, float) and math.isnan(x) else x for x in vars(r).values())
        for r in found.evaluated
    ]


MODEL_SETS = [
    [{"model": "k-anonymity", "k": 5}],
    [{"model": "k-anonymity", "k": 3}, {"model": "k-anonymity", "k": 6}],
    [{"model": "k-anonymity", "k": 3}, {"model": "distinct-l-diversity", "attribute": "s", "l": 3}],
    [
        {"model": "k-anonymity", "k": 3},
        {"model": "recursive-cl-diversity", "attribute": "s", "c": 3, "l": 3},
    ],
    [{"model": "recursive-cl-diversity", "attribute": "s", "c": 2, "l": 2}],
]


@pytest.mark.parametrize("limit", [0.0, 0.04])
@pytest.mark.parametrize("metric", ["loss", "precision", "discernability"])
@pytest.mark.parametrize("models", MODEL_SETS, ids=range(len(MODEL_SETS)))
def test_search_is_the_general_paths(monkeypatch, models, limit, metric):
    frame = _frame(3)
    fast = _problem(frame, models, limit, metric).search()
    with monkeypatch.context() as m:
        m.setattr(NodeCheck, "applies", staticmethod(lambda *a: False))
        general = _problem(frame, models, limit, metric).search()
    assert fast.optimum is not None and general.optimum is not None
    assert fast.optimum.transformation == general.optimum.transformation
    assert fast.optimum.quality.value == general.optimum.quality.value
    assert fast.ties == general.ties
    assert fast.nodes_checked == general.nodes_checked
    assert _records(fast) == _records(general)


def test_search_finds_the_brute_force_optimum():
    frame = _frame(4)
    models = [
        {"model": "k-anonymity", "k": 4},
        {"model": "recursive-cl-diversity", "attribute": "s", "c": 3, "l": 2},
    ]
    problem = _problem(frame, models, 0.03)
    best = None
    for lv in itertools.product(*[range(h) for h in problem.dataset.heights]):
        r = problem.evaluate(lv)
        if r.satisfied and (best is None or (r.quality.value, sum(lv)) < best):
            best = (r.quality.value, sum(lv))
    found = problem.search()
    assert (found.optimum.quality.value, sum(found.optimum.levels)) == best


def test_which_models_the_check_takes():
    problem = _problem(_frame(5), [{"model": "k-anonymity", "k": 2}], 0.0)
    freq = problem.freq

    def takes(*specs):
        return NodeCheck.applies(freq, [make_model(s) for s in specs])

    k = {"model": "k-anonymity", "k": 2}
    distinct = {"model": "distinct-l-diversity", "attribute": "s", "l": 2}
    recursive = {"model": "recursive-cl-diversity", "attribute": "s", "c": 3, "l": 2}
    assert takes(k) and takes(k, distinct) and takes(k, recursive) and takes(distinct, recursive)
    assert not takes(k, {"model": "entropy-l-diversity", "attribute": "s", "l": 2})
    assert not takes(recursive, {**recursive, "c": 4})  # one recursive model only
    assert not takes(k, {"model": "average-reidentification-risk", "threshold": 0.3})

    class Stricter(KAnonymity):  # a verdict of its own: the general path
        def class_ok(self, table, state):
            return table.sizes >= 2 * self.k

    assert not NodeCheck.applies(freq, [Stricter(k=2)])


def test_a_size_only_check_skips_the_histograms_and_is_not_kept():
    frame = _frame(6)
    k, rl, c = 4, 3, 2.0
    models = [
        {"model": "k-anonymity", "k": k},
        {"model": "recursive-cl-diversity", "attribute": "s", "c": c, "l": rl},
    ]
    problem = _problem(frame, models, 0.05)
    heights = problem.dataset.heights
    check = NodeCheck(
        problem.freq, [0] * len(heights), [h - 1 for h in heights], problem.evaluator.models
    )
    levels = (1, 1, 0, 0)  # fine: many classes below k
    labels = _labels()
    keys = pd.DataFrame({q: frame[q].map(labels[q][lv]) for q, lv in zip(QIS, levels, strict=True)})
    sizes = keys.groupby(list(QIS)).size().to_numpy()
    below = int(sizes[sizes < k].sum())
    assert below > 0
    quick = check.check(levels, size_limit=below - 1)
    assert quick.size_outliers == below
    assert all(len(a) == 0 for a in quick.entries)  # no histograms
    full = check.check(levels, size_limit=below)  # within the limit: the whole verdict
    assert full is not quick and full.size_outliers == below
    _, suppressed, released, smallest = _oracle(frame, levels, k, 0, rl, c)
    assert (full.outliers, full.kept, full.smallest) == (suppressed, released, smallest)
    assert check.check(levels) is full  # kept, unlike the quick one


def test_minimal_nodes_have_no_passing_predecessor():
    from anon_core.search import flash

    radix = np.array([3, 4, 2, 5])
    shape = tuple(int(r) for r in radix)
    rng = np.random.default_rng(7)
    status = rng.choice(np.array([-1, 0, 1], dtype=np.int8), size=int(np.prod(radix)))
    ids = np.flatnonzero(status == 1)
    kernels.group_keys(np.zeros(1, dtype=np.int64))  # load the kernels: the compiled form
    found = flash.minimal_nodes(ids, status, radix)
    expected = []
    for idx in ids:  # worked out on the lattice's coordinates (first attribute fastest)
        at = np.unravel_index(idx, shape, order="F")
        preds = [
            np.ravel_multi_index(tuple(a - (j == i) for j, a in enumerate(at)), shape, order="F")
            for i in range(len(shape))
            if at[i] > 0
        ]
        if all(status[p] != 1 for p in preds):
            expected.append(int(idx))
    assert found is not None and found.tolist() == expected
