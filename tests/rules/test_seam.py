"""Issue 24: the seam between the app and the game systems is capabilities with defaults, bound module functions
and parameter specs, not one bag of members, re-typed forwarders and fake procedures."""

from __future__ import annotations

import pytest

from bench.seam import protocol_members, system_counts
from rules import SYSTEMS, base
from rules.base import GameSystem, Param, ParamSpec, RulesError, check_params

CAPABILITIES = (
    base.TableRules,
    base.FightRules,
    base.HiredHelp,
    base.Economy,
    base.Presentation,
    base.RuleSettings,
    base.StoredState,
)


def test_the_protocol_is_a_core_and_capabilities_each_small():
    members = {m.name: m for m in protocol_members()}
    assert set(members) == {"SheetRules", "GameSystem", *(c.__name__ for c in CAPABILITIES)}
    assert not members["GameSystem"].required and not members["GameSystem"].defaulted  # it only composes
    for name, m in members.items():
        assert len(m.required) + len(m.defaulted) <= 20, name
    # The GM's table, settings and presentation are wholly optional: a system writes none of them to play.
    for name in ("TableRules", "FightRules", "Presentation", "RuleSettings", "StoredState"):
        assert not members[name].required, name


@pytest.mark.parametrize("system", SYSTEMS.values(), ids=SYSTEMS.keys())
def test_every_system_is_every_capability(system):
    # The app asks nothing: a capability a system leaves out answers with its defaults.
    assert isinstance(system, GameSystem)
    assert all(isinstance(system, capability) for capability in CAPABILITIES)


def test_systems_bind_module_functions_rather_than_forwarding():
    counts = system_counts()
    # Every registered system's package is counted (its class in system.py, as the guide says), a new one too.
    assert {c.name for c in counts} == {type(s).__module__.split(".")[2] for s in SYSTEMS.values()}
    assert sum(c.strict + c.loose for c in counts) < 15, [(c.name, c.forwarders) for c in counts]


def test_a_param_spec_is_checked_like_a_procedures_inputs():
    spec = ParamSpec("Hire", (Param("name", "Name", "text", ""), Param("hp", "HP", "int", 3, 1, 6)))
    assert check_params(spec, None, {"name": "Bo"}) == {"name": "Bo", "hp": 3}
    with pytest.raises(RulesError, match="Hire has no option colour"):
        check_params(spec, None, {"colour": "red"})
    with pytest.raises(RulesError, match="HP must be at most 6"):
        check_params(spec, None, {"hp": "7"})
    assert not hasattr(spec, "roll") and not hasattr(spec, "odds")  # not a roll in disguise


def test_the_guide_names_every_member_and_capability():
    # docs/adding-a-system.md is how a new system is written: a member it does not name is one nobody finds.
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs" / "adding-a-system.md").read_text()
    for members in protocol_members():
        assert f"`{members.name}`" in guide
        for name in (*members.required, *members.defaulted):
            assert f"`{name}" in guide, f"{members.name}.{name}"
