"""What the other CLI commands run on a :class:`~anon_core.services.session.Session`: the session
holds the configuration (parsed and validated once, paths resolved once) and the input (read once,
when a run needs it); each function hands them to the service that does the work. The commands
only parse arguments, print and choose the exit code.
"""

from __future__ import annotations

from typing import Any

from anon_core.services.session import Session


def risk(session: Session, **options: Any) -> dict[str, Any]:
    """``anon-core risk``: the risk figures of the configuration's release, its original or a
    released file (:func:`anon_core.services.risk_summary.risk_summary`'s options)."""
    from anon_core.services.risk_summary import risk_summary

    return risk_summary(session.config, **options)


def attack(session: Session, section: Any, **options: Any) -> Any:
    """``anon-core attack``: the battery on the configuration's release, or on given files
    (:func:`anon_core.services.attacks.attack_release`'s options)."""
    from anon_core.services.attacks import attack_release

    return attack_release(session.config, section, **options)


def compare(session: Session, methods: Any = None, **options: Any) -> Any:
    """``anon-core compare``: the methods side by side on the session's input
    (:func:`anon_core.services.compare.compare`'s options)."""
    from anon_core.services.compare import compare as compare_methods

    return compare_methods(session.config, session.frame, methods, **options)


def train(session: Session, section: Any, progress: Any = None) -> Any:
    """``anon-core train``: the ``train`` section's model with DP-SGD and without privacy on the
    session's input, both attacked (:func:`anon_core.training.train_and_attack`)."""
    from anon_core.training import train_and_attack

    return train_and_attack(session.frame, section, progress)


def dp(session: Session) -> Any:
    """``anon-core dp``: the configuration's ``dp`` section run on the session's input."""
    from anon_core.dp import run_dp, validate_dp_section

    frame = session.frame
    section = validate_dp_section(session.config.sections.get("dp"), columns=list(frame.columns))
    return run_dp(section, frame)
