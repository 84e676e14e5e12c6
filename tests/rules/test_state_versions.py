"""Stored states follow the rules (issue 38): every system's state has a schema version and the steps that bring an
older state to today's shape; states that earlier commits' rules really wrote (tests/data/states, captured with
tools/capture_states.py, each naming its commit) load and validate. No database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rules
from rules.base import plain_copy
from rules.errors import RulesError
from rules.upgrades import dropping, upgrade
from tests.contract.coin_flip import SYSTEM as COIN_FLIP

STATES = Path(__file__).resolve().parent.parent / "data" / "states"
EVERY_SYSTEM = [*rules.SYSTEMS.values(), COIN_FLIP]


def captured(system_id: str) -> list[dict]:
    path = STATES / f"{system_id}.json"
    return json.loads(path.read_text())["states"] if path.exists() else []


CAPTURED = [
    pytest.param(system_id, row, id=f"{system_id}-{row['commit'][:7]}-{n}")
    for system_id in rules.SYSTEMS
    for n, row in enumerate(captured(system_id))
]


@pytest.mark.parametrize("system", EVERY_SYSTEM, ids=lambda s: s.id)
def test_a_systems_version_counts_its_upgrade_steps(system):
    assert isinstance(system.state_version, int) and system.state_version >= 1
    assert len(system.state_upgrades) == system.state_version - 1


@pytest.mark.parametrize("system", list(rules.SYSTEMS.values()), ids=lambda s: s.id)
def test_every_earlier_version_of_every_system_has_a_state_written_by_a_real_commit(system):
    rows = captured(system.id)
    assert {row["version"] for row in rows} >= set(range(1, system.state_version)), (
        f"add a state of each earlier version to tests/data/states/{system.id}.json (tools/capture_states.py)"
    )
    assert all(len(row["commit"]) == 40 and row["how"] for row in rows)
    # Version 1 is every row saved before versions existed, so it holds the last unversioned commit's shape too.
    assert any(row["commit"].startswith("c041e89") for row in rows)


@pytest.mark.parametrize(("system_id", "row"), CAPTURED)
def test_a_state_written_by_an_earlier_commit_loads_in_todays_shape(system_id, row):
    system = rules.SYSTEMS[system_id]
    before = plain_copy(row["state"])
    upgraded = system.upgrade_state(row["state"], row["version"])
    state = system.validate_state(upgraded)
    assert set(state) == set(system.validate_state(system.default_state()))
    assert system.upgrade_state(state, system.state_version) == state  # idempotent: today's state goes through
    assert system.validate_state(state) == state
    assert row["state"] == before  # the steps copy; the stored row is not changed under the reader


@pytest.mark.parametrize("system", EVERY_SYSTEM, ids=lambda s: s.id)
def test_a_state_saved_before_versions_existed_in_todays_shape_is_left_as_it_is(system):
    """Every row stored before this change is version 1 whatever its day's shape: the steps must not harm the
    shape they lead to."""
    state = system.validate_state(system.default_state())
    assert system.validate_state(system.upgrade_state(state, None)) == state


@pytest.mark.parametrize("system", EVERY_SYSTEM, ids=lambda s: s.id)
@pytest.mark.parametrize(("version", "words"), [(0, "from 1"), ("2", "from 1"), (True, "from 1"), (1.0, "from 1")])
def test_a_version_that_is_no_version_is_refused_with_a_sentence(system, version, words):
    with pytest.raises(RulesError, match=words):
        system.upgrade_state(system.default_state(), version)


@pytest.mark.parametrize("system", EVERY_SYSTEM, ids=lambda s: s.id)
def test_a_state_from_a_newer_lantern_is_refused_with_a_sentence(system):
    with pytest.raises(RulesError, match=f"saved by a newer Lantern.*reads up to {system.state_version}"):
        system.upgrade_state(system.default_state(), system.state_version + 1)


def test_fortunes_favor_sheets_saved_with_the_reserved_last_target_load_again():
    """Fortune's Favor 1 -> 2: feats.last_target (from 6d85edb, dropped in 52adb3c) was refused by today's rules."""
    ff = rules.SYSTEMS["fortunes-favor"]
    old = next(row for row in captured("fortunes-favor") if row["commit"].startswith("6d85edb"))
    assert old["state"]["feats"]["last_target"] == ""
    with pytest.raises(RulesError, match="no field last_target"):
        ff.validate_state(old["state"])
    state = ff.validate_state(ff.upgrade_state(old["state"], 1))
    assert "last_target" not in state["feats"]
    assert state["class"] == old["state"]["class"] and state["health"] == old["state"]["health"]


def test_steps_run_from_the_stored_version_once_each_in_order():
    seen: list[str] = []

    def step(name: str):
        def run(state):
            seen.append(name)
            return {**state, "path": [*state["path"], name]}

        return run

    steps = (step("1->2"), step("2->3"), step("3->4"))
    assert upgrade({"path": []}, 2, current=4, steps=steps, name="Test")["path"] == ["2->3", "3->4"]
    assert upgrade({"path": []}, 4, current=4, steps=steps, name="Test")["path"] == []
    assert seen == ["2->3", "3->4"]


def test_dropping_a_nested_field_leaves_a_state_without_it_or_its_parent_alone():
    drop = dropping("feats", "old")
    assert drop({"feats": {"old": 1, "kept": 2}, "hp": 3}) == {"feats": {"kept": 2}, "hp": 3}
    assert drop({"feats": {"kept": 2}}) == {"feats": {"kept": 2}}
    assert drop({"feats": "damaged"}) == {"feats": "damaged"}  # validation, not the step, refuses this
    assert drop({}) == {}
