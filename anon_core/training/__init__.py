"""DP-SGD training with Opacus, membership inference against trained models, and the
accuracy/leakage curve against epsilon.

PyTorch and Opacus are the optional extra ``training`` (``pip install -e ".[training]"``):
nothing here imports them until a model is built, so ``import anon_core.training`` works
without them and :func:`training_available` says whether training can run.

Modules: ``features`` (design matrix), ``models`` (MLP / logistic regression), ``dpsgd``
(DP-SGD and the non-private baseline), ``membership`` (attacks), ``experiment`` (split, train,
attack: what ``anon-core train`` runs), ``curves`` (accuracy and advantage against epsilon),
``config`` (the ``train`` section).
"""

from anon_core.training.config import (
    DEFAULT_CURVE_EPSILONS,
    TRAIN_KEYS,
    TrainConfig,
    parse_train_section,
)
from anon_core.training.curves import (
    TrainingCurve,
    estimate_seconds,
    synthetic_release,
    training_curve,
    training_rows,
)
from anon_core.training.dpsgd import (
    ACCOUNTANTS,
    DEFAULT_ACCOUNTANT,
    EpochRecord,
    TrainedModel,
    TrainSettings,
    default_delta,
    noise_multiplier_for,
    train_model,
)
from anon_core.training.experiment import Split, TrainRunResult, split_table, train_and_attack
from anon_core.training.features import FeatureEncoder, fit_features
from anon_core.training.membership import (
    ATTACKS,
    MODEL_ATTACKS,
    MembershipResult,
    ModelAttack,
    advantage_bound,
    auc_score,
    membership_inference,
)
from anon_core.training.models import (
    INSTALL_HINT,
    MODEL_KINDS,
    build_model,
    require_training,
    training_available,
)

__all__ = [
    "ACCOUNTANTS",
    "ATTACKS",
    "DEFAULT_ACCOUNTANT",
    "DEFAULT_CURVE_EPSILONS",
    "INSTALL_HINT",
    "MODEL_ATTACKS",
    "MODEL_KINDS",
    "TRAIN_KEYS",
    "EpochRecord",
    "FeatureEncoder",
    "MembershipResult",
    "ModelAttack",
    "Split",
    "TrainConfig",
    "TrainRunResult",
    "TrainSettings",
    "TrainedModel",
    "TrainingCurve",
    "advantage_bound",
    "auc_score",
    "build_model",
    "default_delta",
    "estimate_seconds",
    "fit_features",
    "membership_inference",
    "noise_multiplier_for",
    "parse_train_section",
    "require_training",
    "split_table",
    "synthetic_release",
    "train_and_attack",
    "train_model",
    "training_available",
    "training_curve",
    "training_rows",
]
