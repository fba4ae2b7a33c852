"""One registry contract: every plug-in family refuses a duplicate name with one ConfigError,
looks names up the same way, and declares its capabilities instead of being probed."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from anon_core.attacks.battery import run_battery
from anon_core.attacks.battery_steps import BatteryStep
from anon_core.attacks.registry import ATTACKS, AttackSpec, get_attack, register_attack
from anon_core.attacks.split import parse_attack_section
from anon_core.config import SECTIONS, SectionSpec, parse_config, register_section
from anon_core.errors import ConfigError
from anon_core.methods.registry import METHODS, ReleaseMethod, register_method
from anon_core.params import Param
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
        (SECTIONS, register_section, lambda name: SectionSpec(name, "a second section")),
    ],
    ids=["privacy models", "quality metrics", "release methods", "attacks", "sections"],
)
def test_every_family_refuses_a_duplicate_name_with_one_config_error(registry, register, make):
    for taken in sorted(registry):  # every registered name, not only the first
        before = registry[taken]
        with pytest.raises(ConfigError, match=f"named {taken!r} is already registered"):
            register(make(taken))
        assert registry[taken] is before  # the first registration stands
    assert isinstance(registry, Registry)


def test_every_registry_is_one_of_the_families_tested_above():
    """A new registry must join the duplicate test: find every Registry(...) in the package."""
    found = set()
    for path in (ROOT / "anon_core").rglob("*.py"):
        found |= set(re.findall(r'= Registry\("([^"]+)"\)', path.read_text(encoding="utf-8")))
    assert found == {
        "privacy model",
        "quality metric",
        "release method",
        "attack",
        "configuration section",
    }


def test_configuration_sections_are_the_registry():
    """The parser accepts exactly the registered sections and carries the module sections."""
    cfg = {
        "attributes": {"age": {"role": "quasi-identifier"}},
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "method": {"name": "noise"},
        "dp": {"queries": []},
    }
    parsed = parse_config(cfg)
    assert parsed.sections == {"method": {"name": "noise"}, "dp": {"queries": []}}
    with pytest.raises(ConfigError, match="unknown field\\(s\\) 'shadow'"):
        parse_config({**cfg, "shadow": {}})
    assert "input" in SECTIONS and SECTIONS["input"].parse is not None
    assert SECTIONS["method"].carried and SECTIONS["method"].parse is None


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            {"model": "k-anonymity"},
            "'k-anonymity.k' is required for k-anonymity: give it \\(e.g. 5\\)",
        ),
        ({"model": "k-anonymity", "k": 0}, "'k-anonymity.k' must be"),
    ],
)
def test_one_param_message_style_for_models_and_methods(spec, message):
    from anon_core.methods import make_method
    from anon_core.privacy.models import make_model

    with pytest.raises(ConfigError, match=message):
        make_model(spec)
    with pytest.raises(ConfigError, match="'k' must be"):
        make_method({"name": "microaggregation", "k": 0})


def test_a_param_of_an_unknown_kind_is_refused_when_declared():
    with pytest.raises(ConfigError, match="declares the kind 'colour'"):
        Param("shade", "colour")
    with pytest.raises(ConfigError, match="declare its 'choices'"):
        Param("shade", "choice")


def test_the_battery_runs_what_the_attack_registry_holds(monkeypatch):
    """Removing an attack from ATTACKS removes it from the battery; a registered attack's steps
    run and land in the report."""
    original = pd.DataFrame(
        {"age": [20, 30, 40, 50] * 10, "zip": list("abcd") * 10, "job": list("xyzw") * 10}
    )
    roles = {"age": "quasi-identifier", "zip": "quasi-identifier", "job": "sensitive"}
    section = parse_attack_section({"n_attacks": 20})
    kwargs = dict(
        released=original.iloc[:30],
        original=original.iloc[:30],
        control=original.iloc[30:],
        config_section=section,
        roles=roles,
    )
    full = run_battery(**kwargs)
    assert full.linkability is not None and set(full.inference) == {"job"}
    monkeypatch.delitem(ATTACKS, "linkability")
    monkeypatch.delitem(ATTACKS, "inference")
    calls = []
    monkeypatch.setitem(
        ATTACKS,
        "membership",
        AttackSpec(
            "membership",
            "stand-in",
            "nothing",
            run=lambda *a: None,
            battery=lambda plan: [
                BatteryStep("stand-in", "membership", None, lambda p: calls.append(plan) or "ran")
            ],
        ),
    )
    fewer = run_battery(**kwargs)
    assert fewer.linkability is None and fewer.inference == {}
    assert fewer.membership == "ran" and len(calls) == 1
    assert set(fewer.singling_out) == {"univariate", "multivariate"}
    assert fewer.singling_out["univariate"].to_dict() == full.singling_out["univariate"].to_dict()


def test_unknown_attack_is_one_config_error():
    with pytest.raises(ConfigError, match="Unknown attack"):
        get_attack("no-such-attack")


def test_capabilities_are_declared_never_probed():
    probes = []
    for path in (ROOT / "anon_core").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(
            r"getattr\([^)]*\"(needs_records|monotonic\w*|key|params|set_\w+|synthetic|"
            r"reproducible|releases_subset|sample_based)\"",
            text,
        ):
            probes.append(f"{path.relative_to(ROOT)}: {m.group(0)}")
    assert probes == []
    assert PrivacyModel.needs_records is False and PrivacyModel.releases_subset is False
    assert MODELS["delta-presence"].releases_subset is True
    assert MODELS["attack-risk"].needs_records is True


def test_plug_ins_are_never_recognised_by_name():
    """Capabilities are declared: no test of a model's or method's name picks a code path."""
    tests = []
    pattern = re.compile(
        r"(get\(\"model\"\)|\.key|\.method|method\.name|release\.method)\s*==\s*\"[a-z-]+\""
    )
    for path in (ROOT / "anon_core" / "services").rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if pattern.search(line):
                tests.append(f"{path.relative_to(ROOT)}: {line.strip()}")
    assert tests == []
