"""Small PyTorch classifiers for tabular data: an MLP, and logistic regression as its one-layer case.

PyTorch and Opacus are an optional extra (``pip install -e ".[training]"``); they are imported
only when a model is built, and :func:`require_training` turns their absence into one clear
:class:`~anon_core.errors.ConfigError`.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from anon_core.errors import ConfigError

#: Model kinds: an MLP with ReLU hidden layers, or logistic regression (no hidden layer).
MODEL_KINDS = ("mlp", "logistic_regression")
DEFAULT_HIDDEN = (64, 32)
INSTALL_HINT = (
    'DP-SGD training needs PyTorch and Opacus: install the extra with pip install -e ".[training]" '
    "(torch==2.13.0 CPU build and opacus)."
)


def training_available() -> bool:
    """True when torch and opacus can be imported (without importing them)."""
    return all(importlib.util.find_spec(m) is not None for m in ("torch", "opacus"))


@functools.cache
def require_training() -> SimpleNamespace:
    """torch and opacus, imported once; ConfigError with the install line when missing."""
    if not training_available():
        raise ConfigError(INSTALL_HINT)
    import opacus
    import torch
    from opacus.accountants.utils import get_noise_multiplier

    return SimpleNamespace(torch=torch, opacus=opacus, get_noise_multiplier=get_noise_multiplier)


def build_model(
    kind: str, n_inputs: int, n_classes: int, hidden: Sequence[int] = DEFAULT_HIDDEN
) -> Any:
    """A ``torch.nn.Sequential`` classifier giving ``n_classes`` logits.

    ``mlp``: Linear-ReLU per entry of ``hidden``, then Linear; ``logistic_regression``: one
    Linear layer (multinomial logistic regression). Only layers Opacus supports (no batch norm).
    """
    if kind not in MODEL_KINDS:
        raise ConfigError(f"'model' must be one of {list(MODEL_KINDS)}, got {kind!r}.")
    nn = require_training().torch.nn
    layers: list[Any] = []
    width = int(n_inputs)
    if kind == "mlp":
        for size in hidden:
            layers += [nn.Linear(width, int(size)), nn.ReLU()]
            width = int(size)
    layers.append(nn.Linear(width, int(n_classes)))
    return nn.Sequential(*layers)
