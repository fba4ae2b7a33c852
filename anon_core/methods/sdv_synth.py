"""Synthetic data with SDV (the Synthetic Data Vault, ``sdv`` 2.x): Gaussian copula and CTGAN.

* ``synthetic-gaussian-copula`` - SDV's ``GaussianCopulaSynthesizer``: each column's marginal
  is fitted (SDV's default distribution choice) and the dependence is a Gaussian copula
  (Patki, Wedge and Veeramachaneni, "The Synthetic Data Vault", IEEE DSAA 2016).
* ``synthetic-ctgan`` - SDV's ``CTGANSynthesizer``, a conditional GAN with mode-specific
  normalization (Xu et al., "Modeling tabular data using conditional GAN", NeurIPS 2019),
  trained on the CPU for ``epochs`` epochs (default 3: about a minute of CPU on the 5,000-row
  census sample; SDV's own default is 300) with a progress report per epoch.

Neither gives a formal guarantee: the model can memorize rare records (check the release with
:mod:`anon_core.utility.synthetic_checks`). Column types come from the release context (numeric
-> SDV "numerical", date -> "datetime", anything else -> "categorical"); SDV's own detection is not
used, so no column is taken for an identifier or a personal-data type that SDV would fake.

**Reproducibility.** The fit runs with NumPy's and PyTorch's global generators seeded from
``random_state`` (and restored after), and sampling uses the synthesizer's own random state set
to the same seed. The Gaussian copula is then bit-for-bit reproducible. CTGAN is reproducible on
one machine with the same thread count, but PyTorch does not promise identical floating-point
results across versions, platforms or thread counts, so it is declared ``reproducible = False``
(``verify`` compares figures, not bytes).

**No network, no usage log.** SDV's code paths used here make no network call (only
``sdv.datasets.demo`` downloads, and it is never imported); SDV's usage logger writes only when
its configuration says ``log_registry: local`` - its handlers are detached while we fit and
sample, so nothing is written whatever that configuration says.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any, ClassVar

import pandas as pd

from anon_core.errors import ConfigError
from anon_core.methods.mst import numpy_seed
from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    ReleaseMethod,
    register_method,
    release_rows,
    report,
    rows_params,
)
from anon_core.params import Param

__all__ = ["CtganSynthesizer", "GaussianCopulaSynthesizer", "quiet_sdv", "sdv_metadata"]

log = logging.getLogger(__name__)

#: SDV's usage loggers (sdv/logging/sdv_logger_config.yml).
_SDV_LOGGERS = (
    "SingleTableSynthesizer",
    "MultiTableSynthesizer",
    "Metadata",
    "SingleTableMetadata",
)
_TABLE = "release"


@contextlib.contextmanager
def quiet_sdv() -> Iterator[None]:
    """Detach SDV's usage-log handlers for a block (restored after)."""
    saved = {}
    for name in _SDV_LOGGERS:
        logger = logging.getLogger(name)
        saved[name] = (logger.handlers, logger.propagate)
        logger.handlers, logger.propagate = [], False
    try:
        yield
    finally:
        for name, (handlers, propagate) in saved.items():
            logger = logging.getLogger(name)
            logger.handlers, logger.propagate = handlers, propagate


@contextlib.contextmanager
def seeded(seed: int | None) -> Iterator[None]:
    """NumPy's and PyTorch's global generators seeded for a block, and restored after."""
    if seed is None:
        yield
        return
    import torch

    with numpy_seed(seed), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def sdv_metadata(frame: pd.DataFrame, context: MethodContext) -> Any:
    """SDV metadata of ``frame`` from the context's column kinds (no detection from the data)."""
    from sdv.metadata import Metadata

    sdtypes = {"numeric": "numerical", "date": "datetime"}
    columns = {
        str(c): {"sdtype": sdtypes.get(context.kind(str(c)), "categorical")} for c in frame.columns
    }
    return Metadata.load_from_dict({"tables": {_TABLE: {"columns": columns}}})


def _prepare(frame: pd.DataFrame, context: MethodContext) -> pd.DataFrame:
    """Numeric columns as numbers, dates as datetimes, the rest as strings (SDV's sdtypes)."""
    out = {}
    for col in frame.columns:
        kind = context.kind(str(col))
        if kind == "numeric":
            out[col] = pd.to_numeric(frame[col], errors="coerce")
        elif kind == "date":
            out[col] = pd.to_datetime(frame[col], errors="coerce")
        else:
            out[col] = frame[col].astype(object).where(frame[col].notna(), None)
    return pd.DataFrame(out, columns=frame.columns)


class _SdvMethod(ReleaseMethod):
    """Fit an SDV single-table synthesizer and sample a table of the input's schema."""

    accepts = frozenset({"numeric", "categorical", "date", "text"})
    synthetic = True
    randomized = True
    guarantee = "none"
    extra = "synthetic"
    requires: ClassVar[tuple[str, ...]] = ("sdv", "torch")
    does_not_protect = (
        "No formal bound: rare records can be memorized (run the synthetic-data checks)."
    )

    def _synthesizer(self, metadata: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _epochs(self) -> int | None:
        return None

    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        if len(frame) < 2:
            raise ConfigError(
                f"Method {self.name!r} needs at least 2 rows to fit, got {len(frame)}."
            )
        rows = release_rows(self, len(frame))  # bounded before the (long) fit
        data = _prepare(frame, context)
        report(progress, 0.0, f"{self.label}: fitting")
        with quiet_sdv():
            synth = self._synthesizer(sdv_metadata(frame, context))
            epochs = self._epochs()
            with seeded(random_state):
                if epochs and progress is not None:
                    from anon_core.release.engines.base import run_polling

                    def poll() -> float | None:
                        model = getattr(synth, "_model", None)  # SDV's fitted CTGAN, once created
                        losses = getattr(model, "loss_values", None)
                        return None if losses is None else 0.9 * len(losses) / epochs

                    run_polling(
                        lambda: synth.fit({_TABLE: data}), poll, progress, f"{self.label}: training"
                    )
                else:
                    synth.fit({_TABLE: data})
            if random_state is not None:
                synth._set_random_state(int(random_state))  # SDV's sampling seed (no public setter)
            report(progress, 0.92, f"{self.label}: sampling")
            sampled = synth.sample(num_rows=rows)
        if isinstance(sampled, dict):  # SDV 2 may return {table name: frame}
            sampled = next(iter(sampled.values()))
        table = sampled.loc[:, list(data.columns)].reset_index(drop=True)
        report(progress, 1.0, f"{self.label}: {len(table)} synthetic rows")
        details: dict[str, Any] = {"rows": len(table), "synthesizer": type(synth).__name__}
        if epochs:
            details["epochs"] = epochs
        return MethodOutput(table, self.guarantee, details)


_ROWS = rows_params("as many as the input")


@register_method
class GaussianCopulaSynthesizer(_SdvMethod):
    name = "synthetic-gaussian-copula"
    label = "Synthetic data (SDV Gaussian copula)"
    params = (
        Param(
            "default_distribution",
            "choice",
            "beta",
            help="marginal distribution of numeric columns",
            choices=("norm", "beta", "truncnorm", "uniform", "gamma", "gaussian_kde"),
        ),
        *_ROWS,
    )
    protects = (
        "The link between released rows and real people: no row is a real record by construction."
    )

    def _synthesizer(self, metadata: Any) -> Any:
        from sdv.single_table import GaussianCopulaSynthesizer as Gc

        return Gc(metadata, default_distribution=self.parameters["default_distribution"])


@register_method
class CtganSynthesizer(_SdvMethod):
    name = "synthetic-ctgan"
    label = "Synthetic data (SDV CTGAN)"
    params = (
        Param(
            "epochs",
            "int",
            3,
            help="training epochs (more: better fit, longer)",
            minimum=1,
            maximum=10000,
        ),
        Param(
            "batch_size",
            "int",
            500,
            help="training batch size (a multiple of 10)",
            minimum=10,
            maximum=100000,
        ),
        *_ROWS,
    )
    protects = (
        "The link between released rows and real people: rows are sampled from a trained GAN."
    )
    reproducible = False  # PyTorch's floating point differs across platforms and thread counts

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.parameters["batch_size"] % 10:
            raise ConfigError(
                f"'batch_size' must be a multiple of 10 (CTGAN's pac size), got "
                f"{self.parameters['batch_size']}; e.g. 500."
            )

    def _epochs(self) -> int | None:
        return int(self.parameters["epochs"])

    def _synthesizer(self, metadata: Any) -> Any:
        from sdv.single_table import CTGANSynthesizer as Ct

        return Ct(
            metadata,
            epochs=int(self.parameters["epochs"]),
            batch_size=int(self.parameters["batch_size"]),
            enable_gpu=False,
            verbose=False,
        )
