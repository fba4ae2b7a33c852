"""One training experiment: split, encode, train privately and not, attack both.

:func:`split_table` holds out ``test_size`` of the records (stratified by the target, seeded):
the training records are the **members**; the held-out ones are the **non-members** and the
accuracy test set. Half of the held-out records (the *reference* half) calibrate the
likelihood-ratio attack; the other half are the evaluation non-members, matched in number by a
seeded sample of members. :func:`train_and_attack` is what ``anon-core train`` runs. RMIA
(:mod:`anon_core.training.rmia`) trains its reference models on the reference half only, so
neither the members nor the evaluation non-members ever train a reference model.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import to_labels
from anon_core.errors import AnonError, ConfigError
from anon_core.training.config import TrainConfig
from anon_core.training.dpsgd import TrainedModel, default_delta, train_model
from anon_core.training.features import FeatureEncoder, fit_features
from anon_core.training.membership import MembershipResult, membership_inference
from anon_core.training.rmia import RmiaResult, rmia_attack

log = logging.getLogger(__name__)
Progress = Callable[[float, str], None]


@dataclass(frozen=True, eq=False)
class Split:
    """Row positions of the members (training) and of the held-out records, and the labels."""

    classes: tuple[str, ...]
    y: np.ndarray  # class codes of every kept row
    rows: np.ndarray  # positions (in the frame) of the rows with a target
    train: np.ndarray  # indices into rows
    holdout: np.ndarray
    reference: np.ndarray  # half of holdout: calibrates the lr attack
    evaluation: np.ndarray  # the other half: evaluation non-members
    members: np.ndarray  # a sample of train, as many as evaluation

    @property
    def majority_rate(self) -> float:
        counts = np.bincount(self.y[self.holdout], minlength=len(self.classes))
        return float(counts.max() / max(counts.sum(), 1))

    def to_dict(self) -> dict[str, Any]:
        return {
            "classes": list(self.classes),
            "train": int(len(self.train)),
            "holdout": int(len(self.holdout)),
            "members": int(len(self.members)),
            "evaluation": int(len(self.evaluation)),
            "reference": int(len(self.reference)),
        }


def split_table(frame: pd.DataFrame, target: str, test_size: float, random_state: int) -> Split:
    """The seeded member / non-member split of ``frame`` by ``target`` (see the module docstring)."""
    from sklearn.model_selection import train_test_split

    if target not in frame.columns:
        raise ConfigError(
            f"'train.target' is {target!r}, which is not a column. Columns are: {list(frame.columns)}."
        )
    present = ~frame[target].isna().to_numpy()
    labels = to_labels(frame[target]).astype(str)[present]
    classes = tuple(sorted(set(labels)))
    if len(classes) < 2:
        raise ConfigError(
            f"'train.target' {target!r} has only one class ({classes[0] if classes else 'none'}): "
            "a classifier needs at least two. Choose another target."
        )
    code = {c: i for i, c in enumerate(classes)}
    y = np.fromiter((code[v] for v in labels), dtype=np.int64, count=len(labels))
    idx = np.arange(len(y))
    counts = np.bincount(y)
    stratify = y if counts.min() >= 2 else None
    try:
        train, holdout = train_test_split(
            idx, test_size=test_size, random_state=random_state, stratify=stratify
        )
    except ValueError as exc:
        raise ConfigError(
            f"'train.test_size' {test_size} cannot split {len(y)} records: {exc}. Use more records "
            "or another test_size."
        ) from None
    if len(holdout) < 4 or len(train) < 2:
        raise ConfigError(
            f"Only {len(train)} training and {len(holdout)} held-out records: too few to train and "
            "attack a model. Use more records or another 'test_size'."
        )
    rng = np.random.default_rng(np.random.SeedSequence([random_state, 3]))
    shuffled = rng.permutation(holdout)
    reference, evaluation = shuffled[: len(shuffled) // 2], shuffled[len(shuffled) // 2 :]
    members = rng.choice(train, size=min(len(train), len(evaluation)), replace=False)
    return Split(
        classes=classes,
        y=y,
        rows=np.flatnonzero(present),
        train=np.sort(train),
        holdout=np.sort(holdout),
        reference=np.sort(reference),
        evaluation=np.sort(evaluation),
        members=np.sort(members),
    )


@dataclass(frozen=True, eq=False)
class Encoded:
    """The design matrices of one split (encoder fitted on the training rows only)."""

    encoder: FeatureEncoder
    X: np.ndarray  # every kept row
    split: Split

    def part(self, which: str) -> tuple[np.ndarray, np.ndarray]:
        positions = getattr(self.split, which)
        return self.X[positions], self.split.y[positions]


def features_of(frame: pd.DataFrame, config: TrainConfig) -> tuple[str, ...]:
    """The configured features, or every column but the target."""
    if config.features is None:
        return tuple(str(c) for c in frame.columns if c != config.target)
    missing = [f for f in config.features if f not in frame.columns]
    if missing:
        raise ConfigError(
            f"'train.features' names {missing}, which are not columns. Columns are: {list(frame.columns)}."
        )
    return config.features


def encode(frame: pd.DataFrame, config: TrainConfig, split: Split) -> Encoded:
    rows = frame.iloc[split.rows]
    features = features_of(frame, config)
    encoder = fit_features(
        rows.iloc[split.train], features, dict(config.bounds), dict(config.categories)
    )
    return Encoded(encoder, encoder.transform(rows), split)


def check_privacy_inputs(config: TrainConfig, n_train: int) -> float:
    """The delta to use (default 1/(10 n)); ConfigError for delta >= 1/n or batch size > n."""
    if config.settings.batch_size > n_train:
        raise ConfigError(
            f"'train.batch_size' is {config.settings.batch_size} but only {n_train} records are used "
            f"for training: choose a batch size of at most {n_train}."
        )
    delta = default_delta(n_train) if config.delta is None else config.delta
    if delta >= 1.0 / n_train:
        raise ConfigError(
            f"'train.delta' is {delta:g} but must be below 1/n = {1.0 / n_train:.3g} for n = {n_train} "
            "training records (a larger delta allows leaking whole records). Leave it out for 1/(10 n)."
        )
    return delta


def attack_model(
    model: TrainedModel, data: Encoded, attack: str, random_state: int
) -> MembershipResult:
    """The membership attack on ``model``: sampled members against the evaluation non-members."""
    Xm, ym = data.part("members")
    Xo, yo = data.part("evaluation")
    Xr, yr = data.part("reference")
    Xt, yt = data.part("train")
    train_loss = float(np.mean(model.losses(Xt, yt)))
    return membership_inference(
        model,
        Xm,
        ym,
        Xo,
        yo,
        attack=attack,
        X_reference=Xr,
        y_reference=yr,
        train_loss=train_loss,
        random_state=random_state,
    )


def rmia_model(
    model: TrainedModel,
    data: Encoded,
    config: TrainConfig,
    epsilon: float,
    progress: Progress | None = None,
) -> tuple[RmiaResult | None, str | None]:
    """RMIA on ``model``: reference models trained like it (DP-SGD at ``epsilon``, or not
    private for ``math.inf``) on the reference half; (None, why) when it cannot run."""
    Xm, ym = data.part("members")
    Xo, yo = data.part("evaluation")
    Xr, yr = data.part("reference")
    k = len(data.split.classes)

    def train_reference(X: np.ndarray, y: np.ndarray, seed: int) -> TrainedModel:
        settings = replace(config.settings, batch_size=min(config.settings.batch_size, len(y)))
        return train_model(X, y, k, settings, epsilon=epsilon, random_state=seed)

    try:
        result = rmia_attack(
            model, Xm, ym, Xo, yo, Xr, yr, train_reference,
            random_state=config.random_state, progress=progress,
        )  # fmt: skip
    except AnonError as exc:
        log.info("RMIA could not run: %s", exc)
        return None, str(exc)
    return result, None


@dataclass(frozen=True, eq=False)
class TrainRunResult:
    """A DP-SGD model and its non-private baseline, their accuracy and membership leakage."""

    config: TrainConfig
    encoder: FeatureEncoder
    classes: tuple[str, ...]
    private: TrainedModel
    baseline: TrainedModel
    accuracy: float
    baseline_accuracy: float
    majority_rate: float
    membership: MembershipResult
    baseline_membership: MembershipResult
    n_train: int
    n_holdout: int
    rmia: RmiaResult | None = None
    baseline_rmia: RmiaResult | None = None
    rmia_note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``anon-core train`` prints (the issue's shape)."""

        def mia(r: MembershipResult) -> dict[str, Any]:
            return {"advantage": r.advantage, "auc": r.auc, "ci": list(r.auc_ci)}

        return {
            "target": self.config.target,
            "model": self.config.settings.model,
            "epsilon_spent": self.private.epsilon_spent,
            "delta": self.private.delta,
            "noise_multiplier": self.private.noise_multiplier,
            "epochs": self.config.settings.epochs,
            "accuracy": self.accuracy,
            "baseline_accuracy": self.baseline_accuracy,
            "majority_rate": self.majority_rate,
            "membership": mia(self.membership),
            "baseline_membership": mia(self.baseline_membership),
            "rmia": None if self.rmia is None else self.rmia.summary(),
            "baseline_rmia": None if self.baseline_rmia is None else self.baseline_rmia.summary(),
            "dp_audit": self.dp_audit(),
        }

    def dp_audit(self) -> dict[str, Any]:
        """The DP model's attacks against the bound its (epsilon spent, delta) allows
        (:mod:`anon_core.training.dp_check`): a violation is an implementation fault."""
        from anon_core.training.dp_check import dp_audit_block

        attacks = {
            self.membership.attack: (self.membership.advantage, self.membership.advantage_ci),
            "rmia": None if self.rmia is None else (self.rmia.advantage, self.rmia.advantage_ci),
        }
        return dp_audit_block(self.private.epsilon_spent, self.private.delta, attacks)

    def details(self) -> dict[str, Any]:
        """Everything else: settings, per-epoch history, both attacks' full results, encoding."""
        return {
            "config": self.config.to_dict(),
            "classes": list(self.classes),
            "private": self.private.to_dict(),
            "baseline": self.baseline.to_dict(),
            "membership": self.membership.to_dict(),
            "baseline_membership": self.baseline_membership.to_dict(),
            "rmia": None if self.rmia is None else self.rmia.to_dict(),
            "baseline_rmia": None if self.baseline_rmia is None else self.baseline_rmia.to_dict(),
            "rmia_note": self.rmia_note,
            "encoding": self.encoder.to_dict(),
            "from_data": list(self.encoder.from_data),
            "n_train": self.n_train,
            "n_holdout": self.n_holdout,
        }


def train_and_attack(
    frame: pd.DataFrame, config: TrainConfig, progress: Progress | None = None
) -> TrainRunResult:
    """Train the configured model with DP-SGD and without privacy (same seed), score both on the
    held-out records and attack both with the configured membership attack and with RMIA."""
    if not isinstance(config, TrainConfig):
        raise ConfigError("'config' must be a TrainConfig from parse_train_section(...).")
    split = split_table(frame, config.target, config.test_size, config.random_state)
    data = encode(frame, config, split)
    Xt, yt = data.part("train")
    Xh, yh = data.part("holdout")
    delta = check_privacy_inputs(config, len(yt))
    k = len(split.classes)

    def part(lo: float, hi: float) -> Progress | None:
        if progress is None:
            return None
        return lambda f, m: progress(lo + (hi - lo) * f, m)

    private = train_model(
        Xt,
        yt,
        k,
        config.settings,
        epsilon=config.epsilon,
        delta=delta,
        random_state=config.random_state,
        progress=part(0.0, 0.5),
    )
    baseline = train_model(
        Xt,
        yt,
        k,
        config.settings,
        epsilon=math.inf,
        random_state=config.random_state,
        progress=part(0.5, 0.65),
    )
    membership = attack_model(private, data, config.attack, config.random_state)
    baseline_membership = attack_model(baseline, data, config.attack, config.random_state)
    rmia, note = rmia_model(private, data, config, config.epsilon, part(0.65, 0.85))
    baseline_rmia, _ = rmia_model(baseline, data, config, math.inf, part(0.85, 0.97))
    if progress is not None:
        progress(1.0, "membership attacks done")
    return TrainRunResult(
        config=config,
        encoder=data.encoder,
        classes=split.classes,
        private=private,
        baseline=baseline,
        accuracy=private.accuracy(Xh, yh),
        baseline_accuracy=baseline.accuracy(Xh, yh),
        majority_rate=split.majority_rate,
        membership=membership,
        baseline_membership=baseline_membership,
        n_train=len(yt),
        n_holdout=len(yh),
        rmia=rmia,
        baseline_rmia=baseline_rmia,
        rmia_note=note,
    )
