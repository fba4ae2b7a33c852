"""Pseudonymization of identifier columns (keyed HMAC or sequential tokens) and the release integration."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from anon_core.errors import ConfigError
from anon_core.pii.engine import (
    BUILTIN_RECOGNIZERS,
)
from anon_core.pii.fake import hmac_token
from anon_core.pii.settings import (
    IDENTIFIER_ENTITIES,
    MIN_HMAC_KEY_BYTES,
    QUASI_IDENTIFIER_ENTITIES,
    PseudonymizeConfig,
    check_columns,
    read_secret,
    validate_pseudonymize_section,
    validate_text_section,
)
from anon_core.pii.text import apply_text_deidentification

if TYPE_CHECKING:
    from anon_core.config import ReleaseConfig

log = logging.getLogger(__name__)


# =============================================================================== pseudonymization
def apply_pseudonymization(
    frame: pd.DataFrame,
    cfg: PseudonymizeConfig,
    secrets: Mapping[str, str] | None = None,
    *,
    return_mapping: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """A copy of ``frame`` with each configured column replaced by consistent pseudonyms.

    ``hmac``: prefix + HMAC-SHA256(key, value) in hex, ``length`` digits (the same
    value gets the same token in every release made with the same key). ``token``:
    prefix + a counter in first-appearance order (``EMAIL_0001``; consistent within
    the release). Missing values stay missing. With ``return_mapping=True`` also
    returns the reversible mapping (``column, original, pseudonym``): keep it apart
    from the release; it is never logged.
    """
    check_columns("pseudonymize.columns", cfg.columns, frame)
    keys = {
        col: read_secret(str(spec.key_env), f"pseudonymize.columns.{col}.key_env", secrets)
        for col, spec in cfg.columns.items()
        if spec.method == "hmac"
    }
    for col, key in keys.items():
        if len(key) < MIN_HMAC_KEY_BYTES:
            raise ConfigError(
                f"'pseudonymize.columns.{col}.key_env': the key in {cfg.columns[col].key_env!r} has {len(key)} "
                f"bytes; use at least {MIN_HMAC_KEY_BYTES} (e.g. 32 random hex characters)."
            )
    out = frame.copy()
    maps = []
    for col, spec in cfg.columns.items():
        series = frame[col]
        present = series.notna()
        values = series[present].astype(str).str.strip()
        if spec.casefold:
            values = values.str.casefold()
        distinct = pd.unique(values)
        if spec.method == "hmac":
            tokens = {v: hmac_token(v, keys[col], spec.length, spec.prefix) for v in distinct}
        else:
            width = max(spec.digits, len(str(len(distinct))))
            tokens = {v: f"{spec.prefix}{i:0{width}d}" for i, v in enumerate(distinct, start=1)}
        column = series.astype(object).copy()
        column[present] = values.map(tokens)
        out[col] = column
        log.info("pseudonymized column %r (%s): %d distinct values", col, spec.method, len(tokens))
        if return_mapping:
            maps.append(
                pd.DataFrame(
                    {"column": col, "original": list(tokens), "pseudonym": list(tokens.values())}
                )
            )
    if return_mapping:
        mapping = (
            pd.concat(maps, ignore_index=True)
            if maps
            else pd.DataFrame(columns=["column", "original", "pseudonym"])
        )
        return out, mapping
    return out


# =============================================================================== release integration
def apply_release_sections(
    frame: pd.DataFrame,
    config: ReleaseConfig,
    secrets: Mapping[str, str] | None = None,
    *,
    return_mapping: bool = False,
) -> tuple[pd.DataFrame, ReleaseConfig] | tuple[pd.DataFrame, ReleaseConfig, pd.DataFrame]:
    """Apply the configuration's ``text`` then ``pseudonymize`` sections to the input table.

    Returns the rewritten table and the configuration to build the ``Problem`` from:
    pseudonymized columns whose role is *identifier* become *insensitive* there, so
    their pseudonyms are released instead of the column being dropped. With
    ``return_mapping=True`` the pseudonym mapping comes third (empty without a
    ``pseudonymize`` section); write it only where the user asked for it.
    """
    from anon_core.data.dataset import Role

    sections = config.sections
    mapping = pd.DataFrame(columns=["column", "original", "pseudonym"])
    if "text" in sections:
        tcfg = validate_text_section(sections["text"])
        frame = apply_text_deidentification(frame, tcfg, secrets)
        # De-identified text is released in its rewritten form: an identifier column is kept.
        roles = dict(config.roles)
        for col in tcfg.columns:
            if roles.get(col) == Role.IDENTIFIER:
                roles[col] = Role.INSENSITIVE
        config = dataclasses.replace(config, roles=roles)
    if "pseudonymize" in sections:
        pcfg = validate_pseudonymize_section(sections["pseudonymize"])
        if return_mapping:
            frame, mapping = apply_pseudonymization(frame, pcfg, secrets, return_mapping=True)
        else:
            frame = apply_pseudonymization(frame, pcfg, secrets)
        roles = dict(config.roles)
        for col in pcfg.columns:
            if roles.get(col) == Role.IDENTIFIER:
                roles[col] = Role.INSENSITIVE
        config = dataclasses.replace(config, roles=roles)
    if return_mapping:
        return frame, config, mapping
    return frame, config


def text_section(
    columns: Sequence[str],
    operators: Mapping[str, Mapping[str, Any]],
    allow_list: Sequence[str] = (),
    deny_list: Mapping[str, Sequence[str]] | None = None,
    recognizers: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """Assemble (and validate) a ``text`` configuration section, e.g. from the dashboard's choices."""
    raw: dict[str, Any] = {
        "columns": list(columns),
        "operators": {k: dict(v) for k, v in operators.items()},
    }
    if allow_list:
        raw["allow_list"] = list(allow_list)
    if deny_list:
        raw["deny_list"] = {k: list(v) for k, v in deny_list.items()}
    if recognizers:
        raw["recognizers"] = [dict(r) for r in recognizers]
    return validate_text_section(raw).to_dict()


BUILTIN_ENTITY_TYPES = tuple(
    sorted(
        IDENTIFIER_ENTITIES | QUASI_IDENTIFIER_ENTITIES | {r.entity for r in BUILTIN_RECOGNIZERS}
    )
)
