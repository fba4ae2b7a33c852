"""The configuration's ``attack`` section and the seeded split into released and control parts.

Attacks need records that were never released (the control set, anonymeter's
"control" records): the input is split once, the released part is anonymized as
configured, and the control part never leaves. Alternatively the section names
the ``released`` and ``control`` files explicitly. In anonymeter's terms the configuration's
input is then ``ori`` (the original records that were released, before protection), the
``released`` file is ``syn`` (the protected release, what is attacked) and ``control`` holds
records of the same population that were never released.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError, DataError
from anon_core.validation import check_float, check_int, check_keys, check_mapping

#: Fields of the ``attack`` configuration section.
ATTACK_KEYS = {
    "control_fraction",
    "control",
    "released",
    "n_attacks",
    "secret",
    "aux_columns",
    "external",
    "id_column",
    "random_state",
    "linkage_mode",
}
#: How the linkage attack matches external records: exactly, or Fellegi-Sunter probabilistically.
LINKAGE_MODES = ("exact", "probabilistic")
DEFAULT_CONTROL_FRACTION = 1.0 / 3.0
DEFAULT_N_ATTACKS = 2000


@dataclass(frozen=True)
class AttackSection:
    """The validated ``attack`` section (paths resolved against the configuration's folder).

    ``secret`` and ``aux_columns`` are None when the configuration leaves them to their
    defaults (the sensitive attributes; the quasi-identifiers split in two halves).
    """

    control_fraction: float = DEFAULT_CONTROL_FRACTION
    control: Path | None = None
    released: Path | None = None
    n_attacks: int = DEFAULT_N_ATTACKS
    secret: tuple[str, ...] | None = None
    aux_columns: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    external: Path | None = None
    id_column: str | None = None
    random_state: int = 0
    linkage_mode: str = "exact"

    def to_dict(self) -> dict[str, Any]:
        return {
            "control_fraction": self.control_fraction,
            "control": None if self.control is None else str(self.control),
            "released": None if self.released is None else str(self.released),
            "n_attacks": self.n_attacks,
            "secret": None if self.secret is None else list(self.secret),
            "aux_columns": None
            if self.aux_columns is None
            else [list(self.aux_columns[0]), list(self.aux_columns[1])],
            "external": None if self.external is None else str(self.external),
            "id_column": self.id_column,
            "random_state": self.random_state,
            **({} if self.linkage_mode == "exact" else {"linkage_mode": self.linkage_mode}),
        }

    def with_options(
        self,
        *,
        n_attacks: int | None = None,
        random_state: int | None = None,
        external: str | Path | None = None,
        linkage_mode: str | None = None,
    ) -> AttackSection:
        """The section with command-line overrides applied (validated as the file's fields)."""
        values = self.to_dict()
        if self.released is not None or self.control is not None:
            # named files replace the split: the default fraction is not a choice to re-validate
            values.pop("control_fraction")
        if n_attacks is not None:
            values["n_attacks"] = n_attacks
        if random_state is not None:
            values["random_state"] = random_state
        if external is not None:
            values["external"] = str(external)
        if linkage_mode is not None:
            values["linkage_mode"] = linkage_mode
        return parse_attack_section({k: v for k, v in values.items() if v is not None})


def _resolve(base: Path, value: Any, name: str) -> Path:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"'attack.{name}' must be a file path, got {value!r}.")
    path = Path(value)
    return path if path.is_absolute() else base / path


def _columns(name: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if (
        not isinstance(value, Sequence)
        or not value
        or not all(isinstance(c, str) and c for c in value)
    ):
        raise ConfigError(
            f"'{name}' must be a non-empty list of column names, got {value!r}. "
            'Write e.g. ["age", "sex"].'
        )
    return tuple(value)


def parse_attack_section(
    section: Mapping[str, Any] | None, base_dir: str | Path = "."
) -> AttackSection:
    """Validate the ``attack`` section; every error names the field, the value and the fix."""
    if section is None:
        return AttackSection()
    check_mapping("attack", section)
    check_keys("attack", section, ATTACK_KEYS)
    base = Path(base_dir)
    explicit = [k for k in ("control", "released") if k in section]
    if len(explicit) == 1:
        raise ConfigError(
            f"'attack.{explicit[0]}' is given without 'attack.{({'control', 'released'} - set(explicit)).pop()}': "
            "name both files (the protected release, whose originals are the configuration's input, and "
            "the never-released control records), or neither and let 'control_fraction' split the input."
        )
    if explicit and "control_fraction" in section:
        raise ConfigError(
            "'attack.control_fraction' cannot be combined with explicit 'attack.control' and "
            "'attack.released' files: remove one of them."
        )
    fraction = check_float(
        "attack.control_fraction",
        section.get("control_fraction", DEFAULT_CONTROL_FRACTION),
        0.0,
        0.9,
        min_inclusive=False,
    )
    aux = None
    if "aux_columns" in section:
        value = section["aux_columns"]
        if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
            raise ConfigError(
                f"'attack.aux_columns' must be two lists of columns (what the attacker holds on each "
                f'side), got {value!r}. Write e.g. [["age", "sex"], ["zip", "education"]].'
            )
        left = _columns("attack.aux_columns[0]", value[0])
        right = _columns("attack.aux_columns[1]", value[1])
        if set(left) & set(right):
            raise ConfigError(
                f"'attack.aux_columns' lists {sorted(set(left) & set(right))} on both sides; the two "
                "groups must be disjoint."
            )
        aux = (left, right)
    if "id_column" in section and "external" not in section:
        raise ConfigError(
            "'attack.id_column' is given without 'attack.external': name the external table too."
        )
    id_column = section.get("id_column")
    if id_column is not None and (not isinstance(id_column, str) or not id_column):
        raise ConfigError(f"'attack.id_column' must be a column name, got {id_column!r}.")
    return AttackSection(
        control_fraction=fraction,
        control=_resolve(base, section["control"], "control") if explicit else None,
        released=_resolve(base, section["released"], "released") if explicit else None,
        n_attacks=check_int(
            "attack.n_attacks", section.get("n_attacks", DEFAULT_N_ATTACKS), minimum=1
        ),
        secret=_columns("attack.secret", section["secret"]) if "secret" in section else None,
        aux_columns=aux,
        external=_resolve(base, section["external"], "external") if "external" in section else None,
        id_column=id_column,
        random_state=check_int("attack.random_state", section.get("random_state", 0), minimum=0),
        linkage_mode=_linkage_mode(section.get("linkage_mode", "exact")),
    )


def _linkage_mode(value: Any) -> str:
    if value not in LINKAGE_MODES:
        raise ConfigError(
            f"'attack.linkage_mode' must be one of {', '.join(LINKAGE_MODES)}, got {value!r}. "
            "'exact' links a record only when its generalized values equal a released label; "
            "'probabilistic' also links noisy records (Fellegi-Sunter)."
        )
    return str(value)


def split_frame(
    frame: pd.DataFrame, control_fraction: float = DEFAULT_CONTROL_FRACTION, random_state: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A seeded split of the input into (released part, control part), each in input order.

    The control part has ``round(control_fraction * n)`` records (at least one); both parts
    keep their rows' original order and get a fresh 0..n-1 index.
    """
    fraction = check_float("control_fraction", control_fraction, 0.0, 0.9, min_inclusive=False)
    n = len(frame)
    n_control = max(1, int(round(fraction * n)))
    if n - n_control < 1:
        raise DataError(
            f"The input has {n} record(s): too few to keep a control set of records that are never "
            "released. Use a larger table or name 'attack.control' explicitly."
        )
    rng = np.random.default_rng(check_int("random_state", random_state, minimum=0))
    control_rows = np.zeros(n, dtype=bool)
    control_rows[rng.choice(n, size=n_control, replace=False)] = True
    released = frame.loc[~control_rows].reset_index(drop=True)
    control = frame.loc[control_rows].reset_index(drop=True)
    return released, control


def default_aux_columns(qis: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The linkability default: the quasi-identifiers split in two halves (first half larger)."""
    qis = list(qis)
    if len(qis) < 2:
        raise ConfigError(
            f"Linkability needs two groups of columns but there is {len(qis)} quasi-identifier; "
            "give 'attack.aux_columns' explicitly or mark more quasi-identifiers."
        )
    half = (len(qis) + 1) // 2
    return tuple(qis[:half]), tuple(qis[half:])
