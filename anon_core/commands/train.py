"""``anon-core train CONFIG [--epsilon E] [--delta D] [--epochs N] [--seed S]``.

Trains the configuration's ``train`` section on its input with DP-SGD (Opacus) and without
privacy (same model and seed), scores both on held-out records and attacks both with a
membership-inference attack. Prints one JSON object::

    {"target", "model", "epsilon_spent", "delta", "noise_multiplier", "epochs", "accuracy",
     "baseline_accuracy", "majority_rate",
     "membership": {"advantage", "auc", "ci": [lo, hi]}, "baseline_membership": {...},
     "rmia": {"advantage", "auc", "ci": [lo, hi]} or null, "baseline_rmia": {...} or null,
     "dp_audit": {"epsilon", "delta", "bound", "attack", "advantage", "advantage_ci",
                  "violation", "upper_end_above_bound", "attacks": {...}, "meaning"}}

``rmia`` is the robust membership inference attack (Zarifzadeh, Liu and Shokri, ICML 2024)
with reference models trained on held-out records (:mod:`anon_core.training.rmia`); null when
too few records are held out to train them.

``dp_audit`` checks the DP model's attacks against the bound its (epsilon spent, delta) allows,
(e^epsilon - 1 + 2 delta) / (e^epsilon + 1): ``violation`` is true when an attack's advantage
interval lies wholly above it, an implementation fault of the training, not a risk figure
(:mod:`anon_core.training.dp_check`).

Per-epoch progress (epsilon spent so far) is logged to stderr with ``--verbose``. Bad input
(epsilon <= 0, delta >= 1/n, an unknown target, a target with one class, a batch size above the
number of training records, or PyTorch/Opacus not installed) exits 2 with one line.
"""

from __future__ import annotations

import argparse
import json
import sys

from anon_core.commands import EXIT_OK
from anon_core.errors import ConfigError
from anon_core.services import runs
from anon_core.services.session import Session


def _run(args: argparse.Namespace) -> int:
    from anon_core.training import parse_train_section, require_training

    session = Session.open(args.config)
    config = session.config
    if args.epsilon is not None and not args.epsilon > 0:
        raise ConfigError(
            f"'--epsilon' must be greater than 0, got {args.epsilon:g}: smaller is more private, "
            "e.g. 1."
        )
    raw = config.sections.get("train")
    if args.epsilon is not None and isinstance(raw, dict):
        raw = {**raw, "epsilon": args.epsilon}  # the flag stands in for a missing section field
    section = parse_train_section(raw)
    if args.delta is not None and not 0 < args.delta < 1:
        raise ConfigError(f"'--delta' must be in (0, 1/n), got {args.delta:g}.")
    if args.epochs is not None and args.epochs < 1:
        raise ConfigError(f"'--epochs' must be at least 1, got {args.epochs}.")
    if args.seed is not None and args.seed < 0:
        raise ConfigError(f"'--seed' must be a non-negative whole number, got {args.seed}.")
    section = section.with_overrides(
        epsilon=args.epsilon, delta=args.delta, epochs=args.epochs, random_state=args.seed
    )
    require_training()  # the install line before the table is read
    result = runs.train(session, section)
    sys.stdout.write(json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n")
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "train",
        help="train the 'train' section's model with DP-SGD and without privacy, and attack both "
        "with membership inference",
    )
    parser.add_argument(
        "config", help="release configuration (JSON or YAML) with a 'train' section"
    )
    parser.add_argument("--epsilon", type=float, default=None, help="target epsilon of DP-SGD")
    parser.add_argument(
        "--delta", type=float, default=None, help="delta (default 1/(10 n), n training records)"
    )
    parser.add_argument("--epochs", type=int, default=None, help="training epochs")
    parser.add_argument("--seed", type=int, default=None, help="random_state of the whole run")
    parser.set_defaults(func=_run)
