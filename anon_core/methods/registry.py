"""The release-method registry: every way of protecting a table behind one interface.

A release method (generalization, Mondrian, microaggregation, noise, rank swapping, PRAM,
synthetic data...) is a small plug-in class that declares its parameters, the column kinds it
transforms, whether it is randomized and what guarantee it gives, and turns a frame into a
released frame of the same schema. The CLI, the configuration's ``method`` section, the Compare
service and the dashboard list methods from :data:`METHODS` (presidio-analyzer style).

Identifier columns are never released: callers drop them before calling a method
(:func:`drop_identifiers`), so "the input's schema" is the schema without identifiers.
"""

from __future__ import annotations

import importlib.util
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from anon_core.config import ReleaseConfig
from anon_core.data.dataset import DROPPED_ROLES, Role
from anon_core.data.io import infer_kinds
from anon_core.errors import ConfigError
from anon_core.params import Param, values_of
from anon_core.registry import Registry
from anon_core.validation import check_keys, check_mapping

#: Column kinds (as :func:`anon_core.data.io.infer_kind` names them).
COLUMN_KINDS = ("numeric", "categorical", "date", "text")

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class MethodContext:
    """What a method may know besides the rows."""

    roles: Mapping[str, Role]  # anon_core.data.dataset.Role per column
    kinds: Mapping[str, str]  # column kind: "numeric" | "categorical" | "date" | "text"
    config: ReleaseConfig | None = None  # hierarchies, models, suppression, domains
    domains: Mapping[str, Any] = field(default_factory=dict)  # declared categories / bounds (DP)

    def role(self, column: str) -> Role:
        return Role(self.roles.get(column, Role.INSENSITIVE))

    def kind(self, column: str) -> str:
        return str(self.kinds.get(column, "categorical"))


@dataclass(frozen=True)
class MethodOutput:
    """A release: the table (the input's columns, in order), its guarantee and details."""

    table: pd.DataFrame  # released table with the input's schema (same columns, same order)
    guarantee: str  # "none" | "k-anonymity (k=5)" | "(1.0, 1e-05)-DP" ...
    details: Mapping[str, Any] = field(default_factory=dict)  # e.g. {"epsilon_spent": ..}

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": int(len(self.table)),
            "columns": [str(c) for c in self.table.columns],
            "guarantee": self.guarantee,
            "details": dict(self.details),
        }


class ReleaseMethod(ABC):
    """A way of releasing a table. Subclasses declare the class variables and implement release()."""

    name: ClassVar[str]
    label: ClassVar[str]
    params: ClassVar[tuple[Param, ...]]
    accepts: ClassVar[frozenset[str]]  # column kinds it transforms
    randomized: ClassVar[bool]
    guarantee: ClassVar[str]
    protects: ClassVar[str]  # one line, shown on the Compare page
    does_not_protect: ClassVar[str]  # one line, shown on the Compare page
    extra: ClassVar[str | None] = None  # optional-dependency extra it needs ("synthetic")
    reproducible: ClassVar[bool] = True  # False where a library is not bit-reproducible
    #: True for methods whose rows are generated, not the input's records transformed (class-based
    #: risk is then not defined: a class of synthetic rows is not a group of people).
    synthetic: ClassVar[bool] = False
    #: True for methods whose guarantee is the configuration's privacy models (the report then
    #: states the models the released transformation holds, not the method's ``guarantee``).
    guarantee_from_models: ClassVar[bool] = False
    #: Modules the method imports lazily (checked by :func:`method_available`).
    requires: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **params: Any) -> None:
        check_keys(f"method {self.name}", params, [p.name for p in self.params])
        self.parameters: dict[str, Any] = values_of(
            self.params, params, "", f"the method {self.name!r}"
        )

    def spec(self) -> dict[str, Any]:
        """The method as a configuration entry: {"name": ..., parameters...} (JSON-ready)."""
        out: dict[str, Any] = {"name": self.name}
        for key, value in self.parameters.items():
            out[key] = list(value) if isinstance(value, tuple) else value
        return out

    @abstractmethod
    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        """The released table (same columns, same order as ``frame``)."""

    def rehearse(
        self,
        part: pd.DataFrame,
        context: MethodContext,
        details: Mapping[str, Any],
        *,
        random_state: int | None = None,
    ) -> pd.DataFrame:
        """The release of a rehearsal's part, made as the whole release was (``details`` are the
        whole release's): by default the method run again on the part."""
        return self.release(part, context, random_state=random_state).table

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items() if v is not None)
        return f"{type(self).__name__}({args})"


METHODS: Registry[type[ReleaseMethod]] = Registry("release method")


def register_method(cls: type[ReleaseMethod]) -> type[ReleaseMethod]:
    """Class decorator: add a release method to :data:`METHODS` under its ``name``."""
    missing = [
        attr
        for attr in ("name", "label", "params", "accepts", "randomized", "guarantee")
        if not hasattr(cls, attr)
    ]
    if missing:
        raise ConfigError(
            f"Release method {cls.__name__} does not declare {', '.join(missing)}; declare them "
            "as class attributes."
        )
    if not all(isinstance(p, Param) for p in cls.params):
        raise ConfigError(f"Release method {cls.__name__}: declare its params as Param values.")
    return METHODS.add(cls.name, cls)


def _unknown(name: Any) -> ConfigError:
    return ConfigError(
        f"'method.name' must be one of {', '.join(map(repr, sorted(METHODS)))}, got {name!r}."
    )


def make_method(spec: Mapping[str, Any]) -> ReleaseMethod:
    """A method from its configuration entry, e.g. {"name": "microaggregation", "k": 3}."""
    spec = check_mapping("method", spec)
    name = spec.get("name")
    if name not in METHODS:
        raise _unknown(name)
    params = {k: v for k, v in spec.items() if k != "name"}
    return METHODS[name](**params)


def method_available(name: str) -> tuple[bool, str]:
    """Whether a method can run here, and else what to install (never raises for a known name)."""
    if name not in METHODS:
        return False, str(_unknown(name))
    cls = METHODS[name]
    missing = [m for m in cls.requires if importlib.util.find_spec(m.split(".")[0]) is None]
    if missing:
        extra = cls.extra or "synthetic"
        return False, (
            f"install the extra: pip install -e '.[{extra}]' (missing: {', '.join(missing)})"
        )
    return True, ""


# ------------------------------------------------------------------ helpers for methods and callers
def drop_identifiers(frame: pd.DataFrame, roles: Mapping[str, Role | str]) -> pd.DataFrame:
    """The frame without identifier columns: no method ever releases them."""
    keep = [
        c for c in frame.columns if Role(roles.get(str(c), Role.INSENSITIVE)) not in DROPPED_ROLES
    ]
    return frame.loc[:, keep]


def make_context(
    frame: pd.DataFrame,
    config: ReleaseConfig | None = None,
    roles: Mapping[str, Role | str] | None = None,
    domains: Mapping[str, Any] | None = None,
) -> MethodContext:
    """The context of a frame: roles from ``roles`` or the configuration, kinds inferred."""
    given = roles if roles is not None else (config.roles if config is not None else {})
    resolved = {str(c): Role(given.get(str(c), Role.INSENSITIVE)) for c in frame.columns}
    kinds = {c: str(k) for c, k in infer_kinds(frame).items()}
    return MethodContext(resolved, kinds, config, dict(domains or {}))


def select_columns(
    method: ReleaseMethod,
    frame: pd.DataFrame,
    context: MethodContext,
    requested: Iterable[str] | None,
    param: str = "columns",
) -> list[str]:
    """The columns a method transforms: ``requested`` checked, else the quasi-identifiers of kinds
    the method accepts. ConfigError for unknown columns or a column of a kind it cannot handle."""
    columns = [str(c) for c in frame.columns]
    if requested is None:
        chosen = [
            c
            for c in columns
            if context.role(c) == Role.QUASI_IDENTIFIER and context.kind(c) in method.accepts
        ]
        if not chosen:
            raise ConfigError(
                f"Method {method.name!r} found no quasi-identifier of kind "
                f"{' or '.join(sorted(method.accepts))} to transform; name the columns in '{param}' "
                f"(columns: {columns})."
            )
        return chosen
    chosen = list(requested)
    unknown = [c for c in chosen if c not in columns]
    if unknown:
        raise ConfigError(
            f"'{param}' names {unknown}, which are not columns of the table. Columns are: {columns}."
        )
    wrong = [c for c in chosen if context.kind(c) not in method.accepts]
    if wrong:
        kinds = ", ".join(f"{c!r} is {context.kind(c)}" for c in wrong)
        raise ConfigError(
            f"'{param}' names {wrong} for method {method.name!r}, which transforms only "
            f"{' or '.join(sorted(method.accepts))} columns ({kinds}); remove them from '{param}'."
        )
    return chosen


#: A generating method (synthetic data) releases at most this many rows per input row, unless
#: its configuration says ``force_rows: true``; and never more than MAX_ROWS.
MAX_ROWS_FACTOR = 10
MAX_ROWS = 100_000_000


def rows_params(default_help: str) -> tuple[Param, Param]:
    """The ``rows`` and ``force_rows`` parameters every generating method declares."""
    return (
        Param(
            "rows",
            "int",
            None,
            minimum=1,
            maximum=MAX_ROWS,
            help=f"rows to release (default: {default_help}; at most {MAX_ROWS_FACTOR}x the "
            "input unless force_rows)",
        ),
        Param(
            "force_rows",
            "bool",
            False,
            help=f"allow 'rows' beyond {MAX_ROWS_FACTOR}x the input's rows (up to {MAX_ROWS:,})",
        ),
    )


def release_rows(method: ReleaseMethod, n_input: int, model_total: float | None = None) -> int:
    """The number of rows a generating method releases: its ``rows`` parameter, else the model's
    noisy total (``model_total``, DP synthesizers), else as many as the input. ConfigError when
    that is more than MAX_ROWS_FACTOR x ``n_input`` without ``force_rows: true``, or above
    MAX_ROWS (sampling that many rows would not finish)."""
    p = method.parameters
    limit = MAX_ROWS_FACTOR * max(int(n_input), 1)
    if p.get("rows") is not None:
        n = int(p["rows"])
        said = f"'rows' is {n:,}"
    elif model_total is not None:
        total = float(model_total)
        if not math.isfinite(total):
            raise ConfigError(
                f"Method {method.name!r}: the model's noisy total is not a number; give 'rows'."
            )
        n = max(1, int(round(min(total, MAX_ROWS + 1.0))))
        said = f"the model's noisy total is {n:,} rows (a very small epsilon makes it very noisy)"
    else:
        return int(n_input)
    if n > MAX_ROWS:
        raise ConfigError(
            f"Method {method.name!r}: {said}, more than the {MAX_ROWS:,} rows a method may "
            "generate; give a smaller 'rows'."
        )
    if n > limit and not p.get("force_rows", False):
        raise ConfigError(
            f"Method {method.name!r}: {said}, more than {MAX_ROWS_FACTOR}x the input's "
            f"{int(n_input):,} rows; give 'rows' up to {limit:,}, or add 'force_rows: true' to the "
            "method section to generate that many on purpose."
        )
    return n


def report(progress: Progress | None, fraction: float, message: str) -> None:
    """Call a progress callback if one was given."""
    if progress is not None:
        progress(min(max(float(fraction), 0.0), 1.0), message)


__all__ = [
    "COLUMN_KINDS",
    "METHODS",
    "MethodContext",
    "MethodOutput",
    "Progress",
    "ReleaseMethod",
    "drop_identifiers",
    "make_context",
    "make_method",
    "method_available",
    "register_method",
    "release_rows",
    "report",
    "rows_params",
    "select_columns",
]
