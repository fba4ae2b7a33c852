"""The attack lab: empirical privacy attacks on any release (issue #13).

Singling out, linkability and inference follow anonymeter (Giomi et al., PETS 2023): each runs
a main attack on the released records, the same attack on control records that were never
released, and a random-guess baseline, and reports the residual risk
``(main - control) / (1 - control)`` with its interval. :data:`ATTACKS` declares every attack.
"""

from __future__ import annotations

from functools import partial

from anon_core.attacks.battery_steps import (
    inference_steps,
    linkability_steps,
    linkage_steps,
    membership_steps,
    singling_out_steps,
)
from anon_core.attacks.inference import inference
from anon_core.attacks.linkability import linkability
from anon_core.attacks.registry import ATTACKS, AttackSpec, get_attack, register_attack
from anon_core.attacks.results import AttackResult, SuccessRate
from anon_core.attacks.singling_out import singling_out
from anon_core.attacks.stats import residual_risk, success_rate, wilson_interval
from anon_core.params import Param

_N_ATTACKS = Param(
    "n_attacks", "int", 2000, help="number of guesses (targets or predicates)", minimum=1
)
_REFERENCE = "anonymeter (Giomi et al., PETS 2023)"

for _mode, _what in (
    ("univariate", "a single rare value"),
    ("multivariate", "a combination of values of n_cols columns"),
):
    register_attack(
        AttackSpec(
            name=f"singling-out-{_mode}",
            label=f"Singling out ({_mode})",
            measures=(
                f"share of predicates on {_what}, built from the release, that match exactly one "
                "original record (beyond the control records)"
            ),
            run=partial(singling_out, mode=_mode),
            battery=singling_out_steps(_mode),
            params=(
                _N_ATTACKS,
                *(
                    (
                        Param("n_cols", "int", 3, help="columns per predicate", minimum=1),
                        Param(
                            "max_attempts",
                            "int",
                            None,
                            help="bound on predicate tries (default: 1000 x n_attacks or three saturation windows); the search stops earlier when no new predicate comes up",
                            minimum=1,
                        ),
                    )
                    if _mode == "multivariate"
                    else ()
                ),
            ),
            reference=_REFERENCE,
        )
    )

register_attack(
    AttackSpec(
        name="linkability",
        label="Linkability",
        measures=(
            "share of original records whose two column groups the release links to the same "
            "released record (beyond the control records)"
        ),
        run=linkability,
        battery=linkability_steps,
        params=(
            Param(
                "aux_columns",
                "column-groups",
                None,
                help="the attacker's two disjoint column groups",
                required=True,
            ),
            _N_ATTACKS,
            Param(
                "n_neighbors",
                "int",
                1,
                help="a link counts among this many nearest records",
                minimum=1,
            ),
        ),
        reference=_REFERENCE,
    )
)

register_attack(
    AttackSpec(
        name="inference",
        label="Inference",
        measures=(
            "share of original records whose secret the nearest released record on the other "
            "columns gives away (beyond the control records)"
        ),
        run=inference,
        battery=inference_steps,
        params=(
            Param("secret", "column", None, help="the column the attacker guesses", required=True),
            Param(
                "aux_columns",
                "columns",
                None,
                help="the columns the attacker knows (default: all others)",
            ),
            _N_ATTACKS,
            Param(
                "regression",
                "bool",
                None,
                help="guess within 5% (default: when the secret is numeric)",
            ),
        ),
        reference=_REFERENCE,
    )
)

# The battery's own attacks (attacks-battery): linkage with an external table, DCR membership.
from anon_core.attacks.linkage import linkage_attack  # noqa: E402
from anon_core.attacks.membership import dcr_membership  # noqa: E402

register_attack(
    AttackSpec(
        name="linkage",
        label="Linkage with an external table",
        measures=(
            "expected share of an external table's records (an identifier plus raw quasi-identifiers) "
            "re-identified in the release: the sum of 1 / matching released group size"
        ),
        run=linkage_attack,
        battery=linkage_steps,
        params=(
            Param(
                "external",
                "table",
                None,
                help="the attacker's table: identifier + raw QIs",
                required=True,
            ),
            Param("qis", "columns", None, help="the release's quasi-identifiers", required=True),
            Param(
                "id_column", "column", None, help="identifier shared with the input (truth known)"
            ),
        ),
        reference="prosecutor re-identification model (Sweeney 2002; El Emam 2011)",
        randomized=False,
        result="LinkageResult",
    )
)
register_attack(
    AttackSpec(
        name="membership",
        label="Membership inference (DCR)",
        measures=(
            "advantage TPR - FPR of guessing 'released' when a record's closest released record is near "
            "(threshold chosen on one half of the targets, measured on the other)"
        ),
        run=dcr_membership,
        battery=membership_steps,
        params=(
            _N_ATTACKS,
            Param("confidence", "float", 0.95, help="confidence of the interval", minimum=0.5),
        ),
        reference="distance to closest record; advantage as Yeom et al., CSF 2018",
        result="MembershipResult",
    )
)

__all__ = [
    "ATTACKS",
    "AttackResult",
    "AttackSpec",
    "SuccessRate",
    "get_attack",
    "inference",
    "linkability",
    "register_attack",
    "residual_risk",
    "singling_out",
    "success_rate",
    "wilson_interval",
]
