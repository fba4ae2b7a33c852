"""Accuracy and membership leakage against epsilon, with reference rows for other releases.

:func:`training_curve` trains the configured model at every epsilon of a grid (``math.inf``:
without privacy) for several seeds, and scores each model's held-out accuracy and the
membership attacks' advantage and AUC. **Reference rows** train the same model, without DP,
on other releases of the table (a k-anonymous release, a synthetic release: any DataFrame with
the target and the features):

* a release **aligned** with the table (as many rows, same order: a generalization without
  removed records) is split with the same member / held-out positions, so the model trains on
  the released versions of the members and is scored on the released versions of the held-out
  records;
* any other release (synthetic data, suppressed records removed) trains on all its rows; the
  model is scored on the original held-out records and attacked with the original members and
  non-members. That measures membership of the *original* records, which is meaningful when the
  release was made from the training records only: give a **callable** ``(member rows, seed) ->
  release`` instead of a DataFrame and it is called once per seed with that seed's members
  (:func:`synthetic_release` makes an SDV synthetic release that way).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import to_labels
from anon_core.errors import ConfigError
from anon_core.training.config import TrainConfig
from anon_core.training.dpsgd import train_model
from anon_core.training.experiment import (
    Encoded,
    Split,
    attack_model,
    check_privacy_inputs,
    encode,
    features_of,
    split_table,
)
from anon_core.training.features import fit_features
from anon_core.training.membership import ATTACKS, membership_inference

log = logging.getLogger(__name__)
Progress = Callable[[float, str], None]

COLUMNS = [
    "setting",
    "epsilon",
    "seed",
    "accuracy",
    "attack",
    "advantage",
    "auc",
    "auc_lo",
    "auc_hi",
    "epsilon_spent",
    "noise_multiplier",
    "seconds",
    "cpu_seconds",
]


@dataclass(frozen=True, eq=False)
class TrainingCurve:
    """Long-form scores: one row per (setting, epsilon, seed, attack); see :data:`COLUMNS`.

    ``setting`` is ``dp`` (finite epsilon), ``non_private`` (epsilon inf) or the name of a
    reference release (epsilon NaN).
    """

    target: str
    model: str
    epochs: int
    epsilons: tuple[float, ...]
    seeds: tuple[int, ...]
    scores: pd.DataFrame
    majority_rate: float
    from_data: tuple[str, ...] = ()

    def summary(self, attack: str = "loss") -> pd.DataFrame:
        """Per setting and epsilon: mean and std (ddof 0) over the seeds of accuracy, advantage
        and AUC for ``attack``, and the mean time per epoch (wall and CPU)."""
        part = self.scores[self.scores["attack"] == attack]
        g = part.groupby(["setting", "epsilon"], sort=False, dropna=False)
        out = g.agg(
            accuracy=("accuracy", "mean"),
            accuracy_std=("accuracy", lambda s: float(np.std(s))),
            advantage=("advantage", "mean"),
            advantage_std=("advantage", lambda s: float(np.std(s))),
            auc=("auc", "mean"),
            noise_multiplier=("noise_multiplier", "mean"),
            epsilon_spent=("epsilon_spent", "mean"),
            seconds_per_epoch=("seconds", lambda s: float(np.mean(s)) / self.epochs),
            cpu_per_epoch=("cpu_seconds", lambda s: float(np.mean(s)) / self.epochs),
            seeds=("seed", "nunique"),
        )
        return out.reset_index()

    def to_dict(self) -> dict[str, Any]:
        def clean(v: Any) -> Any:
            if isinstance(v, float) and not math.isfinite(v):
                return None if math.isnan(v) else "inf"
            return v

        def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
            return [
                {k: clean(v) for k, v in row.items()} for row in frame.to_dict(orient="records")
            ]

        return {
            "target": self.target,
            "model": self.model,
            "epochs": self.epochs,
            "epsilons": [clean(e) for e in self.epsilons],
            "seeds": list(self.seeds),
            "majority_rate": self.majority_rate,
            "summary": {a: records(self.summary(a)) for a in ATTACKS},
            "scores": records(self.scores),
            "from_data": list(self.from_data),
        }


def training_rows(
    frame: pd.DataFrame, config: TrainConfig, seed: int | None = None
) -> pd.DataFrame:
    """The member rows of ``frame`` for ``seed`` (default ``config.random_state``): make a
    synthetic reference release from these so that membership of the others stays meaningful."""
    split = split_table(
        frame, config.target, config.test_size, config.random_state if seed is None else seed
    )
    return frame.iloc[split.rows[split.train]]


#: Seconds per training step measured by benchmarks/bench_dp_training.py (MLP 64-32, batch 256,
#: one thread): DP-SGD (per-example gradients, clipping, noise) and plain training; plus the
#: accountant's search for the noise multiplier once per private model.
SECONDS_PER_STEP = {"dp": 0.025, "non_private": 0.003}
SECONDS_PER_ACCOUNTANT = 1.5
SECONDS_PER_EPSILON_CHECK = 0.3  # the accountant's epsilon after each private epoch


def estimate_seconds(
    n_records: int,
    config: TrainConfig,
    epsilons: Sequence[float],
    seeds: int,
    references: int = 0,
) -> float:
    """A rough wall-time estimate of :func:`training_curve` on this machine (shown before a run)."""
    n_train = max(int(n_records * (1 - config.test_size)), 1)
    steps = math.ceil(n_train / config.settings.batch_size) * config.settings.epochs
    private = sum(1 for e in epsilons if math.isfinite(float(e)))
    plain = len(epsilons) - private + references
    per_private = (
        steps * SECONDS_PER_STEP["dp"]
        + SECONDS_PER_ACCOUNTANT
        + config.settings.epochs * SECONDS_PER_EPSILON_CHECK
    )
    per_seed = private * per_private + plain * steps * SECONDS_PER_STEP["non_private"]
    return float(seeds * per_seed)


def synthetic_release(
    rows: pd.DataFrame,
    seed: int,
    roles: Mapping[str, Any] | None = None,
    method: str = "synthetic-gaussian-copula",
) -> pd.DataFrame:
    """A synthetic release of ``rows`` by a registered release method (the extra ``synthetic``).

    ConfigError with the install line when the method's libraries are missing.
    """
    from anon_core.methods import make_method, method_available
    from anon_core.methods.registry import make_context

    ok, why = method_available(method)
    if not ok:
        raise ConfigError(f"The synthetic reference ({method}) cannot run here: {why}.")
    released = make_method({"name": method}).release(
        rows, make_context(rows, roles=roles), random_state=int(seed)
    )
    return released.table


def _reference_rows(
    name: str,
    release: pd.DataFrame,
    frame: pd.DataFrame,
    config: TrainConfig,
    data: Encoded,
    seed: int,
) -> list[dict[str, Any]]:
    """Scores of a non-private model trained on ``release`` (see the module docstring)."""
    split: Split = data.split
    if config.target not in release.columns:
        raise ConfigError(
            f"Reference release {name!r} has no column {config.target!r}: keep the target in it."
        )
    features = [f for f in features_of(frame, config) if f in release.columns]
    if not features:
        raise ConfigError(f"Reference release {name!r} shares no feature with the table.")
    code = {c: i for i, c in enumerate(split.classes)}
    labels = to_labels(release[config.target]).astype(str)
    y_rel = np.array([code.get(v, -1) for v in labels], dtype=np.int64)
    aligned = len(release) == len(frame)
    if aligned:
        rows = release.iloc[split.rows]
        y_rows = y_rel[split.rows]
        train = split.train[y_rows[split.train] >= 0]
        encoder = fit_features(rows.iloc[train], features, dict(config.bounds), {})
        X = encoder.transform(rows)

        def part(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            keep = positions[y_rows[positions] >= 0]
            return X[keep], y_rows[keep]

    else:
        keep = y_rel >= 0
        rows = release[keep]
        encoder = fit_features(rows, features, dict(config.bounds), {})
        X_orig = encoder.transform(frame.iloc[split.rows])
        X_train, y_train = encoder.transform(rows), y_rel[keep]

        def part(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return X_orig[positions], split.y[positions]

    if aligned:
        X_train, y_train = part(split.train)
    if len(y_train) < 2 or len(np.unique(y_train)) < 2:
        raise ConfigError(
            f"Reference release {name!r} has {len(y_train)} training rows with a known class of "
            f"{config.target!r}: too few to train a model."
        )
    settings = config.settings
    if settings.batch_size > len(y_train):
        settings = replace(settings, batch_size=len(y_train))
    model = train_model(X_train, y_train, len(split.classes), settings, random_state=seed)
    Xh, yh = part(split.holdout)
    Xm, ym = part(split.members)
    Xo, yo = part(split.evaluation)
    Xr, yr = part(split.reference)
    train_loss = float(np.mean(model.losses(X_train, y_train)))
    out = []
    for attack in ATTACKS:
        r = membership_inference(
            model,
            Xm,
            ym,
            Xo,
            yo,
            attack=attack,
            X_reference=Xr,
            y_reference=yr,
            train_loss=train_loss,
            random_state=seed,
        )
        out.append(
            dict(
                setting=name,
                epsilon=math.nan,
                seed=seed,
                accuracy=model.accuracy(Xh, yh),
                attack=attack,
                advantage=r.advantage,
                auc=r.auc,
                auc_lo=r.auc_ci[0],
                auc_hi=r.auc_ci[1],
                epsilon_spent=math.nan,
                noise_multiplier=0.0,
                seconds=model.seconds,
                cpu_seconds=model.cpu_seconds,
            )
        )
    return out


def training_curve(
    frame: pd.DataFrame,
    config: TrainConfig,
    epsilons: Sequence[float] | None = None,
    seeds: int | None = None,
    references: Mapping[str, pd.DataFrame | Callable[[pd.DataFrame, int], pd.DataFrame]]
    | None = None,
    progress: Progress | None = None,
) -> TrainingCurve:
    """Accuracy and membership advantage against epsilon (default ``config.epsilons``), over
    ``seeds`` seeds ``config.random_state + i`` (default ``config.seeds``), with one reference
    row set per entry of ``references`` (name -> released DataFrame)."""
    if not isinstance(config, TrainConfig):
        raise ConfigError("'config' must be a TrainConfig from parse_train_section(...).")
    eps_list = tuple(float(e) for e in (config.epsilons if epsilons is None else epsilons))
    if not eps_list or any(not e > 0 for e in eps_list):
        raise ConfigError(f"'epsilons' must be positive numbers (inf allowed), got {eps_list}.")
    n_seeds = config.seeds if seeds is None else int(seeds)
    if n_seeds < 1:
        raise ConfigError(f"'seeds' must be at least 1, got {seeds}.")
    references = dict(references or {})
    for name, release in references.items():
        if not isinstance(release, pd.DataFrame) and not callable(release):
            raise ConfigError(
                f"Reference release {name!r} must be a DataFrame or a function (member rows, "
                "seed) -> DataFrame."
            )
    seed_list = tuple(config.random_state + i for i in range(n_seeds))
    total = len(seed_list) * (len(eps_list) + len(references))
    done = 0
    records: list[dict[str, Any]] = []
    majority, from_data = math.nan, ()
    for seed in seed_list:
        split = split_table(frame, config.target, config.test_size, seed)
        data = encode(frame, config, split)
        majority, from_data = split.majority_rate, data.encoder.from_data
        Xt, yt = data.part("train")
        Xh, yh = data.part("holdout")
        delta = check_privacy_inputs(config, len(yt))
        for eps in eps_list:

            def step(
                f: float, m: str, eps: float = eps, seed: int = seed, done: int = done
            ) -> None:
                if progress is not None:
                    progress((done + f) / total, f"ε = {eps:g}, seed {seed}: {m}")

            model = train_model(
                Xt,
                yt,
                len(split.classes),
                config.settings,
                epsilon=eps,
                delta=delta,
                random_state=seed,
                progress=step,
            )
            accuracy = model.accuracy(Xh, yh)
            for attack in ATTACKS:
                r = attack_model(model, data, attack, seed)
                records.append(
                    dict(
                        setting="non_private" if math.isinf(eps) else "dp",
                        epsilon=eps,
                        seed=seed,
                        accuracy=accuracy,
                        attack=attack,
                        advantage=r.advantage,
                        auc=r.auc,
                        auc_lo=r.auc_ci[0],
                        auc_hi=r.auc_ci[1],
                        epsilon_spent=model.epsilon_spent,
                        noise_multiplier=model.noise_multiplier,
                        seconds=model.seconds,
                        cpu_seconds=model.cpu_seconds,
                    )
                )
            done += 1
        for name, release in references.items():
            if callable(release):
                release = release(frame.iloc[split.rows[split.train]], seed)
            records += _reference_rows(name, release, frame, config, data, seed)
            done += 1
            if progress is not None:
                progress(done / total, f"reference {name}, seed {seed}")
    log.info("training_curve: %d models trained", done)
    return TrainingCurve(
        target=config.target,
        model=config.settings.model,
        epochs=config.settings.epochs,
        epsilons=eps_list,
        seeds=seed_list,
        scores=pd.DataFrame(records, columns=COLUMNS),
        majority_rate=majority,
        from_data=tuple(from_data),
    )
