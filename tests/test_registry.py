"""One registry contract: every plug-in family refuses a duplicate name with one ConfigError,
looks names up the same way, and declares its capabilities instead of being probed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from anon_core.attacks.registry import ATTACKS, AttackSpec, get_attack, register_attack
from anon_core.errors import ConfigError
from anon_core.methods.registry import METHODS, ReleaseMethod, register_method
from anon_core.privacy.models import MODELS, PrivacyModel
from anon_core.privacy.models import register as register_model
from anon_core.quality.metrics import METRICS, QualityMetric
from anon_core.quality.metrics import register as register_metric
from anon_core.registry import Registry

ROOT = Path(__file__).resolve().parents[1]


def test_a_registry_refuses_a_second_plug_in_under_a_taken_name():
    reg: Registry[int] = Registry("widget")
    one, other = object(), object()
    assert reg.add("a", one) is one
    assert reg.add("a", one) is one  # the same plug-in again (a module imported twice)
    with pytest.raises(ConfigError, match="widget named 'a' is already registered"):
        reg.add("a", other)
    with pytest.raises(ConfigError, match="Unknown widget 'b'; the known ones are 'a'"):
        reg.lookup("b")
    with pytest.raises(ConfigError):
        reg.add("", one)


@pytest.mark.parametrize(
    "registry, register, make",
    [
        (MODELS, register_model, lambda name: type("M", (PrivacyModel,), {"key": name})),
        (METRICS, register_metric, lambda name: type("Q", (QualityMetric,), {"key": name})),
        (
            METHODS,
            register_method,
            lambda name: type(
                "R",
                (ReleaseMethod,),
                {
                    "name": name,
                    "label": name,
                    "params": (),
                    "accepts": frozenset(),
                    "randomized": False,
                    "guarantee": "none",
                    "release": lambda self, *a, **k: None,
                },
            ),
        ),
        (
            ATTACKS,
            register_attack,
            lambda name: AttackSpec(name, name, "nothing", run=lambda *a: None),
        ),
    ],
    ids=["privacy models", "quality metrics", "release methods", "attacks"],
)
def test_every_family_refuses_a_duplicate_name_with_one_config_error(registry, register, make):
    taken = sorted(registry)[0]
    with pytest.raises(ConfigError, match="already registered"):
        register(make(taken))
    assert isinstance(registry, Registry)


def test_unknown_attack_is_one_config_error():
    with pytest.raises(ConfigError, match="Unknown attack"):
        get_attack("no-such-attack")


def test_capabilities_are_declared_never_probed():
    probes = []
    for path in (ROOT / "anon_core").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"getattr\([^)]*\"(needs_records|monotonic\w*|key)\"", text):
            probes.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    assert probes == []
    assert PrivacyModel.needs_records is False and PrivacyModel.releases_subset is False
    assert MODELS["delta-presence"].releases_subset is True
