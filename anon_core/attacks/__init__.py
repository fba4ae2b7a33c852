"""The attack lab: empirical privacy attacks on any release (issue #13).

Singling out, linkability and inference follow anonymeter (Giomi et al., PETS 2023): each runs
a main attack on the released records, the same attack on control records that were never
released, and a random-guess baseline, and reports the residual risk
``(main - control) / (1 - control)`` with its interval. :data:`ATTACKS` declares every attack.
"""

from __future__ import annotations

from functools import partial

from anon_core.attacks.inference import inference
from anon_core.attacks.linkability import linkability
from anon_core.attacks.registry import ATTACKS, AttackParam, AttackSpec, get_attack, register_attack
from anon_core.attacks.results import AttackResult, SuccessRate
from anon_core.attacks.singling_out import singling_out
from anon_core.attacks.stats import residual_risk, success_rate, wilson_interval

_N_ATTACKS = AttackParam("n_attacks", "int", 2000, "number of guesses (targets or predicates)", 1)
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
            params=(
                _N_ATTACKS,
                *(
                    (
                        AttackParam("n_cols", "int", 3, "columns per predicate", 1),
                        AttackParam(
                            "max_attempts",
                            "int",
                            None,
                            "bound on predicate tries (default: 1000 x n_attacks or three saturation windows); the search stops earlier when no new predicate comes up",
                            1,
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
        params=(
            AttackParam(
                "aux_columns",
                "column-groups",
                None,
                "the attacker's two disjoint column groups",
                required=True,
            ),
            _N_ATTACKS,
            AttackParam(
                "n_neighbors", "int", 1, "a link counts among this many nearest records", 1
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
        params=(
            AttackParam("secret", "column", None, "the column the attacker guesses", required=True),
            AttackParam(
                "aux_columns",
                "columns",
                None,
                "the columns the attacker knows (default: all others)",
            ),
            _N_ATTACKS,
            AttackParam(
                "regression", "bool", None, "guess within 5% (default: when the secret is numeric)"
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
        params=(
            AttackParam(
                "external",
                "table",
                None,
                "the attacker's table: identifier + raw QIs",
                required=True,
            ),
            AttackParam("qis", "columns", None, "the release's quasi-identifiers", required=True),
            AttackParam(
                "id_column", "column", None, "identifier shared with the input (truth known)"
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
        params=(
            _N_ATTACKS,
            AttackParam("confidence", "float", 0.95, "confidence of the interval", 0.5),
        ),
        reference="distance to closest record; advantage as Yeom et al., CSF 2018",
        result="MembershipResult",
    )
)

__all__ = [
    "ATTACKS",
    "AttackParam",
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
