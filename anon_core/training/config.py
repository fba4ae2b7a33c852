"""The configuration's ``train`` section (validated here; ``anon_core.config`` carries it as given).

::

    "train": {
      "target": "salary-class",         # column to predict (required)
      "epsilon": 1.0,                   # target epsilon of DP-SGD (required, > 0)
      "delta": null,                    # default 1 / (10 n), n = training records; must be < 1/n
      "features": ["age", "sex"],       # default: every other column
      "model": "mlp",                   # or "logistic_regression"
      "hidden": [64, 32],               # MLP hidden layer sizes
      "epochs": 5, "batch_size": 256, "learning_rate": 0.01, "optimizer": "adam",  # or "sgd"
      "max_grad_norm": 1.0,             # per-example gradient clipping norm C
      "accountant": "prv",              # or "rdp"
      "random_state": 0,                # seeds weights, batches, noise, split and bootstrap
      "test_size": 0.3,                 # held-out share (non-members, accuracy)
      "attack": "loss",                 # membership attack the CLI reports: "loss" or "lr"
      "bounds": {"age": [17, 90]},      # optional: data-independent scaling of numeric features
      "categories": {"sex": ["Female", "Male"]},   # optional: data-independent one-hot lists
      "epsilons": [0.5, 1, 2, 4, 8, "inf"],        # grid of the accuracy/leakage curve
      "seeds": 3                        # seeds per point of the curve
    }
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anon_core.errors import ConfigError
from anon_core.training.dpsgd import ACCOUNTANTS, OPTIMIZERS, TrainSettings
from anon_core.training.membership import ATTACKS
from anon_core.training.models import DEFAULT_HIDDEN, MODEL_KINDS
from anon_core.validation import (
    check_choice,
    check_float,
    check_int,
    check_keys,
    check_mapping,
)

TRAIN_KEYS = {
    "target",
    "epsilon",
    "delta",
    "features",
    "model",
    "hidden",
    "epochs",
    "batch_size",
    "learning_rate",
    "optimizer",
    "max_grad_norm",
    "accountant",
    "random_state",
    "test_size",
    "attack",
    "bounds",
    "categories",
    "epsilons",
    "seeds",
}
DEFAULT_CURVE_EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0, math.inf)


@dataclass(frozen=True)
class TrainConfig:
    """A validated ``train`` section."""

    target: str
    epsilon: float
    settings: TrainSettings = field(default_factory=TrainSettings)
    delta: float | None = None
    features: tuple[str, ...] | None = None
    random_state: int = 0
    test_size: float = 0.3
    attack: str = "loss"
    bounds: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    categories: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    epsilons: tuple[float, ...] = DEFAULT_CURVE_EPSILONS
    seeds: int = 3

    def with_overrides(
        self,
        epsilon: float | None = None,
        delta: float | None = None,
        epochs: int | None = None,
        random_state: int | None = None,
    ) -> TrainConfig:
        """A copy with the CLI's overrides (None keeps the section's value), re-validated."""
        raw = self.to_dict()
        for key, value in (
            ("epsilon", epsilon),
            ("delta", delta),
            ("epochs", epochs),
            ("random_state", random_state),
        ):
            if value is not None:
                raw[key] = value
        return parse_train_section(raw)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"target": self.target, "epsilon": self.epsilon}
        if self.delta is not None:
            out["delta"] = self.delta
        if self.features is not None:
            out["features"] = list(self.features)
        out.update(self.settings.to_dict())
        if self.settings.model != "mlp":
            out.pop("hidden")
        out.update(
            random_state=self.random_state,
            test_size=self.test_size,
            attack=self.attack,
            epsilons=[("inf" if math.isinf(e) else e) for e in self.epsilons],
            seeds=self.seeds,
        )
        if self.bounds:
            out["bounds"] = {k: list(v) for k, v in self.bounds.items()}
        if self.categories:
            out["categories"] = {k: list(v) for k, v in self.categories.items()}
        return out


def _epsilon(where: str, value: Any) -> float:
    if value in ("inf", "infinity", "Infinity") or (isinstance(value, float) and math.isinf(value)):
        return math.inf
    return check_float(where, value, 0.0, min_inclusive=False)


def parse_train_section(raw: Any, where: str = "train") -> TrainConfig:
    """Validate the raw ``train`` section into a :class:`TrainConfig` (ConfigError naming the field)."""
    if raw is None:
        raise ConfigError(
            f"The configuration has no '{where}' section: add one, e.g. \"{where}\": "
            '{"target": "income", "epsilon": 1.0}.'
        )
    raw = check_mapping(where, raw)
    check_keys(where, raw, TRAIN_KEYS)
    target = raw.get("target")
    if not isinstance(target, str) or not target:
        raise ConfigError(f"'{where}.target' must name the column to predict, got {target!r}.")
    if "epsilon" not in raw:
        raise ConfigError(
            f"'{where}.epsilon' is missing: give the target privacy budget of DP-SGD, e.g. 1.0 "
            "(smaller is more private)."
        )
    epsilon = check_float(f"{where}.epsilon", raw["epsilon"], 0.0, min_inclusive=False)
    delta = raw.get("delta")
    if delta is not None:
        delta = check_float(f"{where}.delta", delta, 0.0, 1.0, min_inclusive=False)
        if delta >= 1.0:
            raise ConfigError(f"'{where}.delta' must be below 1/n, e.g. 1e-6; got {delta}.")
    features = raw.get("features")
    if features is not None:
        if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
            raise ConfigError(
                f"'{where}.features' must be a list of column names, got {features!r}."
            )
        if not features:
            raise ConfigError(f"'{where}.features' is empty: name at least one column.")
        if target in features:
            raise ConfigError(f"'{where}.features' contains the target {target!r}: remove it.")
        features = tuple(dict.fromkeys(features))
    model = check_choice(f"{where}.model", raw.get("model", "mlp"), MODEL_KINDS)
    hidden = raw.get("hidden", list(DEFAULT_HIDDEN))
    if not isinstance(hidden, list):
        raise ConfigError(f"'{where}.hidden' must be a list of layer sizes, e.g. [64, 32].")
    hidden_t = tuple(check_int(f"{where}.hidden", h, minimum=1, maximum=4096) for h in hidden)
    settings = TrainSettings(
        model=model,
        hidden=hidden_t,
        epochs=check_int(f"{where}.epochs", raw.get("epochs", 5), minimum=1, maximum=10_000),
        batch_size=check_int(f"{where}.batch_size", raw.get("batch_size", 256), minimum=1),
        learning_rate=check_float(
            f"{where}.learning_rate", raw.get("learning_rate", 0.01), 0.0, min_inclusive=False
        ),
        optimizer=check_choice(f"{where}.optimizer", raw.get("optimizer", "adam"), OPTIMIZERS),
        max_grad_norm=check_float(
            f"{where}.max_grad_norm", raw.get("max_grad_norm", 1.0), 0.0, min_inclusive=False
        ),
        accountant=check_choice(f"{where}.accountant", raw.get("accountant", "prv"), ACCOUNTANTS),
    )
    random_state = check_int(f"{where}.random_state", raw.get("random_state", 0), minimum=0)
    test_size = check_float(
        f"{where}.test_size", raw.get("test_size", 0.3), 0.0, 1.0, min_inclusive=False
    )
    if test_size >= 1.0:
        raise ConfigError(f"'{where}.test_size' must be below 1, e.g. 0.3.")
    attack = check_choice(f"{where}.attack", raw.get("attack", "loss"), ATTACKS)
    bounds: dict[str, tuple[float, float]] = {}
    for col, b in check_mapping(f"{where}.bounds", raw.get("bounds") or {}).items():
        if not isinstance(b, list | tuple) or len(b) != 2:
            raise ConfigError(f"'{where}.bounds.{col}' must be [lower, upper], got {b!r}.")
        lo = check_float(f"{where}.bounds.{col}", b[0])
        hi = check_float(f"{where}.bounds.{col}", b[1])
        if not lo < hi:
            raise ConfigError(f"'{where}.bounds.{col}' must have lower < upper, got {b!r}.")
        bounds[str(col)] = (lo, hi)
    categories: dict[str, tuple[str, ...]] = {}
    for col, c in check_mapping(f"{where}.categories", raw.get("categories") or {}).items():
        if not isinstance(c, list) or not c:
            raise ConfigError(f"'{where}.categories.{col}' must be a non-empty list, got {c!r}.")
        categories[str(col)] = tuple(str(v) for v in c)
    eps_raw = raw.get("epsilons", list(DEFAULT_CURVE_EPSILONS))
    if not isinstance(eps_raw, list) or not eps_raw:
        raise ConfigError(
            f"'{where}.epsilons' must be a non-empty list, e.g. [0.5, 1, 2, 4, 8, \"inf\"]."
        )
    epsilons = tuple(_epsilon(f"{where}.epsilons", e) for e in eps_raw)
    seeds = check_int(f"{where}.seeds", raw.get("seeds", 3), minimum=1, maximum=100)
    return TrainConfig(
        target=target,
        epsilon=epsilon,
        settings=settings,
        delta=delta,
        features=features,
        random_state=random_state,
        test_size=test_size,
        attack=attack,
        bounds=bounds,
        categories=categories,
        epsilons=epsilons,
        seeds=seeds,
    )
