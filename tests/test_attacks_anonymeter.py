"""Our attacks against anonymeter 1.1 itself (run in its own venv) on Adult.

Two settings, as in issue #13: the k=5 + distinct 3-diversity(occupation) release at 2%
suppression of a 2/3 : 1/3 split (original and control generalized with the release's
transformation), and the raw table released unprotected. For singling out (multivariate and
univariate), linkability and inference (salary-class, occupation), each risk must lie within
the other implementation's interval.

One pair is left out on the generalized release: inference of salary-class. There nearly every
target ties with several released records at distance 0, anonymeter keeps whichever tied record
its sort puts first (the same one for every target of a class, whatever the seed) and its
figure then depends on the order of the released rows: the same release in three row orders
gave 0.00, 0.10 and 0.06 (n=2000), with intervals that ignore this spread. Our attack draws
among tied records per target (the expectation over row orders). The pair is compared on the
raw table, and the benchmark prints it for the generalized release. The oracle venv is created when missing (pip from the
package index); without it the test skips with the reason.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pandas as pd
import pytest

from anon_core.attacks import get_attack
from anon_core.attacks.battery import attack_inputs
from anon_core.attacks.split import split_frame
from anon_core.privacy.models import make_model
from anon_core.transform.problem import Problem
from tests.conftest import ROOT, needs_shared

N = 500
SEED = 0
MAX_ATTEMPTS = 20_000
AUX = (
    ["sex", "age", "race", "marital-status"],
    ["education", "native-country", "workclass", "salary-class"],
)
SPECS = [
    {"name": "singling-out-multivariate", "n_attacks": N, "max_attempts": MAX_ATTEMPTS},
    {"name": "singling-out-univariate", "n_attacks": N},
    {"name": "linkability", "n_attacks": N, "aux_columns": [list(g) for g in AUX]},
    {
        "name": "inference",
        "key": "inference-salary-class",
        "secret": "salary-class",
        "n_attacks": N,
        "regression": False,
    },
    {
        "name": "inference",
        "key": "inference-occupation",
        "secret": "occupation",
        "n_attacks": N,
        "regression": False,
    },
]

pytestmark = [pytest.mark.slow, needs_shared]


def _oracle_module():
    spec = importlib.util.spec_from_file_location(
        "oracle_env", ROOT / "benchmarks" / "oracle_env.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def oracle_python():
    module = _oracle_module()
    try:
        return module.ensure_oracle_env()
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as exc:
        pytest.skip(f"the anonymeter venv cannot be created here (needs the package index): {exc}")


def _read(path):
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _ours(spec, original, released, control):
    """Our attack of an oracle spec, through the attack registry (the spec's parameters)."""
    params = {k: v for k, v in spec.items() if k not in ("name", "key")}
    return get_attack(spec["name"]).run(original, released, control, random_state=SEED, **params)


def _compare(oracle_python, tmp_path, original, released, control, specs=SPECS):
    paths = []
    for name, frame in (("original", original), ("released", released), ("control", control)):
        path = tmp_path / f"{name}.csv"
        frame.to_csv(path, index=False)
        paths.append(str(path))
    done = subprocess.run(
        [
            str(oracle_python),
            str(ROOT / "benchmarks" / "anonymeter_oracle.py"),
            *paths,
            json.dumps({"attacks": specs, "seed": SEED, "n_jobs": 1}),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout)
    frames = [_read(p) for p in paths]  # the very values anonymeter read
    disagreements = []
    for spec in specs:
        key = spec.get("key", spec["name"])
        ours, t = _ours(spec, *frames), theirs[key]
        lo, hi = t["ci"]
        inside = (
            lo - 1e-9 <= ours.risk <= hi + 1e-9
            and ours.ci[0] - 1e-9 <= t["risk"] <= ours.ci[1] + 1e-9
        )
        if not inside:
            disagreements.append((key, ours.risk, ours.ci, t["risk"], t["ci"]))
    assert not disagreements, disagreements


@pytest.fixture(scope="module")
def adult_split(adult_frame):
    return split_frame(adult_frame, 1 / 3, SEED)


def test_generalized_release_agrees_with_anonymeter(
    oracle_python, tmp_path, adult_split, adult_hierarchies
):
    part, control = adult_split
    roles = {c: "quasi-identifier" for c in part.columns}
    roles["occupation"] = "sensitive"
    problem = Problem(
        part,
        roles,
        {q: h for q, h in adult_hierarchies.items() if roles.get(q) == "quasi-identifier"},
        [
            make_model({"model": "k-anonymity", "k": 5}),
            make_model({"model": "distinct-l-diversity", "attribute": "occupation", "l": 3}),
        ],
        0.02,
    )
    inputs = attack_inputs(problem.dataset, problem.search().optimum, control)
    specs = [s for s in SPECS if s.get("key") != "inference-salary-class"]
    _compare(oracle_python, tmp_path, inputs.original, inputs.released, inputs.control, specs)


def test_unprotected_release_agrees_with_anonymeter(oracle_python, tmp_path, adult_split):
    part, control = adult_split
    _compare(oracle_python, tmp_path, part, part, control)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
