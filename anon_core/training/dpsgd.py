"""DP-SGD with Opacus, and non-private training of the same model as the baseline.

DP-SGD (Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar and Zhang, "Deep learning with
differential privacy", CCS 2016) clips each example's gradient to ``max_grad_norm`` and adds
Gaussian noise of standard deviation ``noise_multiplier * max_grad_norm`` to every batch's sum.
Batches are drawn by **Poisson sampling** (each record independently with probability
``sample_rate = 1 / batches per epoch``), which the privacy accounting assumes; Opacus'
``DPDataLoader`` does it. The noise multiplier is the smallest one (to Opacus' tolerance)
whose accounted epsilon after ``epochs`` epochs is at most the target, found by Opacus'
``get_noise_multiplier``; epsilon spent so far is read from the same accountant after every
epoch (``EpochRecord.epsilon_spent``).

Accountant: ``"prv"`` (default; Gopi, Lee and Wutschitz, "Numerical composition of
differential privacy", NeurIPS 2021) computes the privacy curve of the subsampled Gaussian
numerically and gives a tighter epsilon than ``"rdp"`` (Mironov, "Renyi differential privacy",
CSF 2017; the Abadi et al. moments accountant) - so less noise for the same target (about
10 % less at epsilon 1 on our settings) and higher accuracy. It is Opacus' own default.
``"rdp"`` is the classic upper bound, kept for comparison with papers that report it.

Determinism: ``random_state`` seeds the initial weights (``torch.manual_seed``), the batch
sampler (a ``torch.Generator`` given to the data loader) and the DP noise (a second generator
given to Opacus), and training runs under ``torch.use_deterministic_algorithms(True)`` (restored
afterwards) on one intra-op thread. The same seed then gives bit-identical weights, losses and
accuracies with the same torch build on the same CPU family; another torch version or CPU
instruction set (different BLAS kernels) may differ in the last bits, and so may a run where
other code changed torch's global settings in between. ``secure_mode`` is off: seeded noise is for experiments, not
for releasing a model (Opacus' secure mode draws noise from /dev/urandom and cannot be seeded).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anon_core.errors import ConfigError
from anon_core.training.models import DEFAULT_HIDDEN, MODEL_KINDS, build_model, require_training
from anon_core.validation import check_choice, check_float, check_int

log = logging.getLogger(__name__)

ACCOUNTANTS = ("prv", "rdp")
DEFAULT_ACCOUNTANT = "prv"
OPTIMIZERS = ("adam", "sgd")
Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class TrainSettings:
    """Model and hyper-parameters shared by the private and the non-private run."""

    model: str = "mlp"
    hidden: tuple[int, ...] = DEFAULT_HIDDEN
    epochs: int = 5
    batch_size: int = 256
    learning_rate: float = 0.01
    optimizer: str = "adam"
    max_grad_norm: float = 1.0
    accountant: str = DEFAULT_ACCOUNTANT

    def __post_init__(self) -> None:
        check_choice("model", self.model, MODEL_KINDS)
        check_int("epochs", self.epochs, minimum=1, maximum=10_000)
        check_int("batch_size", self.batch_size, minimum=1)
        check_float("learning_rate", self.learning_rate, 0.0, min_inclusive=False)
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        check_float("max_grad_norm", self.max_grad_norm, 0.0, min_inclusive=False)
        check_choice("accountant", self.accountant, ACCOUNTANTS)
        for h in self.hidden:
            check_int("hidden", h, minimum=1, maximum=4096)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "hidden": list(self.hidden) if self.model == "mlp" else [],
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "learning_rate": self.learning_rate,
            "optimizer": self.optimizer,
            "max_grad_norm": self.max_grad_norm,
            "accountant": self.accountant,
        }


@dataclass(frozen=True)
class EpochRecord:
    """One epoch: its mean training loss and the epsilon spent so far (inf when not private)."""

    epoch: int
    loss: float
    epsilon_spent: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "epoch": self.epoch,
            "loss": self.loss,
            "epsilon_spent": None if math.isinf(self.epsilon_spent) else self.epsilon_spent,
        }


@dataclass(frozen=True, eq=False)
class TrainedModel:
    """A trained classifier and its privacy accounting (``module`` is the torch model, eval mode)."""

    module: Any = field(repr=False)
    n_classes: int
    private: bool
    target_epsilon: float
    delta: float
    epsilon_spent: float
    noise_multiplier: float
    sample_rate: float
    settings: TrainSettings
    history: tuple[EpochRecord, ...]
    random_state: int
    seconds: float
    cpu_seconds: float

    def _logits(self, X: np.ndarray) -> Any:
        torch = require_training().torch
        with torch.no_grad():
            return self.module(torch.as_tensor(np.asarray(X, dtype=np.float32)))

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        torch = require_training().torch
        return torch.softmax(self._logits(X), dim=1).numpy().astype(float)

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self._logits(X).argmax(dim=1).numpy()

    def losses(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Per-example cross-entropy loss (what the loss-threshold attack reads)."""
        torch = require_training().torch
        logits = self._logits(X)
        target = torch.as_tensor(np.asarray(y, dtype=np.int64))
        return torch.nn.functional.cross_entropy(logits, target, reduction="none").numpy()

    def accuracy(self, X: np.ndarray, y: np.ndarray) -> float:
        return float(np.mean(self.predict(X) == np.asarray(y)))

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isinf(x) else float(x)

        return {
            "private": self.private,
            "target_epsilon": num(self.target_epsilon),
            "epsilon_spent": num(self.epsilon_spent),
            "delta": self.delta,
            "noise_multiplier": self.noise_multiplier,
            "sample_rate": self.sample_rate,
            "settings": self.settings.to_dict(),
            "history": [h.to_dict() for h in self.history],
            "random_state": self.random_state,
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
        }


def default_delta(n: int) -> float:
    """The default delta, 1 / (10 n) for n training records (well below 1/n)."""
    return 1.0 / (10 * int(n))


@functools.lru_cache(maxsize=256)
def noise_multiplier_for(
    epsilon: float,
    delta: float,
    sample_rate: float,
    epochs: int,
    accountant: str = DEFAULT_ACCOUNTANT,
) -> float:
    """The noise multiplier whose accounted epsilon after ``epochs`` epochs is <= ``epsilon``.

    Opacus' ``get_noise_multiplier`` (a bisection on the accountant; its result never exceeds
    the target). Larger for smaller epsilon, delta or more epochs.
    """
    epsilon = check_float("epsilon", epsilon, 0.0, min_inclusive=False)
    check_choice("accountant", accountant, ACCOUNTANTS)
    lib = require_training()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RDP's "optimal order is the largest alpha" notes
        return float(
            lib.get_noise_multiplier(
                target_epsilon=epsilon,
                target_delta=delta,
                sample_rate=sample_rate,
                epochs=epochs,
                accountant=accountant,
            )
        )


@contextlib.contextmanager
def _deterministic(torch: Any) -> Iterator[None]:
    """Deterministic algorithms and one intra-op thread for the block, restored afterwards.

    One thread fixes the order of floating-point sums whatever the machine's core count, and
    small models gain nothing from more (on a shared 2-core machine they lose).
    """
    before, threads = torch.are_deterministic_algorithms_enabled(), torch.get_num_threads()
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before)
        torch.set_num_threads(threads)


def _seeds(random_state: int) -> tuple[int, int, int]:
    """Independent seeds for the weights, the batch sampler and the noise."""
    a, b, c = np.random.SeedSequence([int(random_state), 15]).generate_state(3)
    return int(a), int(b), int(c)


def train_model(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    settings: TrainSettings,
    epsilon: float = math.inf,
    delta: float | None = None,
    random_state: int = 0,
    progress: Progress | None = None,
) -> TrainedModel:
    """Train ``settings.model`` on ``X`` (float features) and ``y`` (class codes 0..k-1).

    ``epsilon`` finite: DP-SGD with Opacus at the target (``epsilon``, ``delta``; default delta
    1/(10 n)); ``math.inf``: the same model, seed and batch size trained without privacy
    (shuffled batches, no clipping, no noise). ``progress(fraction, message)`` is called after
    every epoch with the epsilon spent so far.
    """
    lib = require_training()
    torch = lib.torch
    X = np.asarray(X, dtype=np.float32)
    y = np.asarray(y, dtype=np.int64)
    n = len(y)
    if X.ndim != 2 or len(X) != n:
        raise ConfigError(f"'X' must be a matrix with one row per label, got shape {X.shape}.")
    if settings.batch_size > n:
        raise ConfigError(
            f"'batch_size' is {settings.batch_size} but there are only {n} training records: "
            f"choose a batch size of at most {n}."
        )
    private = not math.isinf(float(epsilon))
    if private:
        epsilon = check_float("epsilon", epsilon, 0.0, min_inclusive=False)
    delta = default_delta(n) if delta is None else float(delta)
    if private and not 0 < delta < 1.0 / n:
        raise ConfigError(
            f"'delta' must be in (0, 1/n) = (0, {1.0 / n:.3g}) for n = {n} training records, got "
            f"{delta:g}: a larger delta allows leaking whole records. The default is 1/(10 n)."
        )
    random_state = check_int("random_state", random_state, minimum=0)
    seed_w, seed_batch, seed_noise = _seeds(random_state)
    t0, c0 = time.perf_counter(), time.process_time()
    with _deterministic(torch), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.manual_seed(seed_w)
        module = build_model(settings.model, X.shape[1], n_classes, settings.hidden)
        optimizer = (
            torch.optim.Adam(module.parameters(), lr=settings.learning_rate)
            if settings.optimizer == "adam"
            else torch.optim.SGD(module.parameters(), lr=settings.learning_rate, momentum=0.9)
        )
        dataset = torch.utils.data.TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
        batches = torch.Generator().manual_seed(seed_batch)
        loader = torch.utils.data.DataLoader(
            dataset, batch_size=settings.batch_size, shuffle=not private, generator=batches
        )
        sample_rate = 1.0 / len(loader)
        sigma, engine = 0.0, None
        if private:
            sigma = noise_multiplier_for(
                epsilon, delta, sample_rate, settings.epochs, settings.accountant
            )
            engine = lib.opacus.PrivacyEngine(accountant=settings.accountant)
            module, optimizer, loader = engine.make_private(
                module=module,
                optimizer=optimizer,
                data_loader=loader,
                noise_multiplier=sigma,
                max_grad_norm=settings.max_grad_norm,
                poisson_sampling=True,
                noise_generator=torch.Generator().manual_seed(seed_noise),
            )
        criterion = torch.nn.CrossEntropyLoss()
        history = []
        for epoch in range(1, settings.epochs + 1):
            module.train()
            total, count = 0.0, 0
            for xb, yb in loader:
                if len(yb) == 0:  # Poisson sampling can draw an empty batch
                    continue
                optimizer.zero_grad()
                loss = criterion(module(xb), yb)
                loss.backward()
                optimizer.step()
                total += float(loss) * len(yb)
                count += len(yb)
            spent = math.inf
            if engine is not None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    spent = float(engine.get_epsilon(delta))
            history.append(EpochRecord(epoch, total / max(count, 1), spent))
            message = f"epoch {epoch}/{settings.epochs}: loss {total / max(count, 1):.4f}, " + (
                f"ε spent {spent:.4g} of {epsilon:g}" if private else "not private"
            )
            log.info("train %s", message)
            if progress is not None:
                progress(epoch / settings.epochs, message)
        module.eval()
    for w in caught:
        log.debug("torch/opacus: %s", w.message)
    plain = module._module if hasattr(module, "_module") else module
    return TrainedModel(
        module=plain,
        n_classes=int(n_classes),
        private=private,
        target_epsilon=float(epsilon),
        delta=delta if private else 0.0,
        epsilon_spent=history[-1].epsilon_spent,
        noise_multiplier=sigma,
        sample_rate=sample_rate,
        settings=settings,
        history=tuple(history),
        random_state=random_state,
        seconds=time.perf_counter() - t0,
        cpu_seconds=time.process_time() - c0,
    )
