"""Attacks on the dashboard's workspace, before anything is released: the battery on a rehearsal
of the current transformation (the input split into a released part and never-released control
records, the part released with the transformation and attacked), and one attack's risk on each
of several candidate transformations (the Explore page's colours).

The functions take the workspace (its table, roles, hierarchies, models, suppression limit and
metric); the workspace ranks above this layer and is never imported here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from anon_core.attacks.battery import AttackReport, attack_split
from anon_core.attacks.linkage import LinkageResult
from anon_core.attacks.split import AttackSection, parse_attack_section
from anon_core.privacy.models import make_model
from anon_core.quality.metrics import make_metric

if TYPE_CHECKING:
    from anon_core.transform.attack_bounded import AttackCheck

__all__ = [
    "CANDIDATE_ATTACKS",
    "AttackReport",
    "AttackSection",
    "LinkageResult",
    "attack_rehearsal",
    "candidate_attack_risks",
    "parse_attack_section",
]

#: The attacks the Explore page can colour candidates by.
CANDIDATE_ATTACKS = ("singling-out-multivariate", "linkability", "inference")

Progress = Callable[[float, str], None]


def attack_rehearsal(
    ws: Any,
    levels: Mapping[str, int],
    section: AttackSection,
    external: pd.DataFrame | None = None,
    progress: Progress | None = None,
) -> tuple[AttackReport, bool]:
    """The battery on the workspace's rehearsal release with ``levels``, and whether that
    transformation satisfies the models on the released part (else every class was released)."""
    report, result = attack_split(
        ws.frame,
        ws.roles,
        ws.hierarchies(),
        dict(levels),
        section,
        models=[make_model(m) for m in ws.models],
        suppression_limit=ws.suppression_limit,
        metric=make_metric(ws.metric),
        external=external,
        progress=progress,
    )
    return report, bool(result.satisfied)


def candidate_attack_risks(
    ws: Any,
    transformations: Sequence[Mapping[str, int]],
    attack: str,
    n_attacks: int,
    seed: int,
    progress: Progress | None = None,
) -> list[AttackCheck]:
    """``attack``'s risk on each candidate transformation of the workspace: the input split once
    (seeded), each candidate's release attacked with the same seed, so the risks compare."""
    from anon_core.transform.attack_bounded import candidate_risks

    section = parse_attack_section({"n_attacks": int(n_attacks), "random_state": int(seed)})
    return candidate_risks(
        ws.frame,
        ws.roles,
        ws.hierarchies(),
        [dict(t) for t in transformations],
        attack,
        section,
        models=[make_model(m) for m in ws.models],
        suppression_limit=ws.suppression_limit,
        metric=make_metric(ws.metric),
        progress=progress,
    )
