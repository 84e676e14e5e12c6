"""Each light's own time, the table's light settings, low-fuel warnings, real-time steps and countdowns
(rules/clock.py, issue 41). The lives come from the seeds' price lists: seed 000 (torch 1 hour, lantern 3 hours),
seed 001 via spec §001.2 (torch 1 hour, lantern 4 hours), seed 002 equipment.md (torch 6 turns, lantern 24); none
of the seeds says what a second light does beside a burning one, so that is the table's setting."""

from __future__ import annotations

from random import Random

import pytest

from rules import SYSTEMS, RulesError
from rules.base import Item, Sheet
from rules.clock import (
    LIGHT_SETTINGS,
    burn,
    countdown_ticks,
    light_up,
    low_fuel,
    realtime_due,
    remaining,
    set_remaining,
)
from rules.settings import in_force

FELL = SYSTEMS["fell-draft"]  # seed 000
LIGHTS = FELL.light_sources()
assert LIGHTS is not None
TORCH = Item("torch (1 hour)", "light", 1, 1, {"lit": True, "burned": 20}, id=1)
LANTERN = Item("lantern (3 hours)", "light", 1, 1, {}, id=2)
RIDE = {"light_new": "ride", "light_one_at_a_time": False}
ONE = {"light_new": "own", "light_one_at_a_time": True}


@pytest.mark.parametrize(
    ("system", "item", "minutes"),
    [
        ("fell-draft", Item("torch (1 hour)", "light"), 60),  # seed 000 price list
        ("fell-draft", Item("lantern (3 hours)", "light"), 180),
        ("fell-late", Item("lantern", "light"), 240),  # seed 001, spec §001.2
        ("chaos-conquest", Item("Torch", "light", data={"turns": 6}), 60),  # seed 002, equipment.md
        ("chaos-conquest", Item("Lantern", "light", data={"turns": 24, "needs_oil": True}), 240),
    ],
)
def test_each_light_has_its_own_time_left_from_its_system_seed_000_001_002(system, item, minutes):
    lights = SYSTEMS[system].light_sources()
    assert remaining(item, lights) == minutes
    burnt = burn((item.__class__(**{**item.__dict__, "data": {**item.data, "lit": True}, "id": 5}),), 25, lights)
    assert remaining(burnt.changed[0], lights) == minutes - 25


def test_a_system_without_lights_has_no_light_sources_seed_003():
    assert SYSTEMS["fortunes-favor"].light_sources() is None


def test_the_light_settings_are_offered_by_every_system_that_burns_lights_seed_000_002_004():
    for key, system in SYSTEMS.items():
        keys = {s.key for s in system.rule_settings()}
        assert ({"light_new", "light_one_at_a_time", "light_warning"} <= keys) == (
            system.light_sources() is not None
        ), key
    assert in_force(LIGHT_SETTINGS, {}) == {"light_new": "own", "light_one_at_a_time": False, "light_warning": 10}


def test_a_new_light_burns_its_own_time_by_default_seed_000():
    (lantern,) = light_up((TORCH, LANTERN), LANTERN, True, LIGHTS, {"light_new": "own"})
    assert lantern.data["lit"] and remaining(lantern, LIGHTS) == 180


def test_a_new_light_rides_along_with_the_one_already_lit_seed_000_table_setting():
    (lantern,) = light_up((TORCH, LANTERN), LANTERN, True, LIGHTS, RIDE)
    assert remaining(lantern, LIGHTS) == 40  # the torch's 40 minutes left, not the lantern's 3 hours
    after = burn((TORCH, lantern), 40, LIGHTS)
    assert "The last torch (1 hour) burned out." in after.words and "lantern (3 hours) has gone dark" in after.words[1]


def test_riding_along_never_gives_a_light_more_than_it_holds_seed_000():
    short = Item("torch (1 hour)", "light", data={"burned": 50}, id=3)
    (torch,) = light_up(
        (Item("lantern (3 hours)", "light", data={"lit": True}, id=2), short), short, True, LIGHTS, RIDE
    )
    assert remaining(torch, LIGHTS) == 10


def test_lighting_one_puts_the_others_out_keeping_their_time_seed_000_table_setting():
    lantern, torch = light_up((TORCH, LANTERN), LANTERN, True, LIGHTS, ONE)
    assert lantern.data["lit"] and not torch.data["lit"] and remaining(torch, LIGHTS) == 40


def test_the_light_procedure_applies_the_tables_settings_seed_000():
    proc = FELL.procedures()["light"]
    sheet = Sheet(state=FELL.new_state() if hasattr(FELL, "new_state") else {}, items=(TORCH, LANTERN), settings=ONE)
    result = proc.roll(sheet, {"source": proc.params(sheet)[0].choices[1][0], "lit": True}, Random(1))
    assert [(i.id, i.data["lit"]) for i in result.items_changed] == [(2, True), (1, False)]
    assert "put out" in result.summary


def test_the_gm_sets_a_lights_time_left_within_its_life_seed_000():
    assert remaining(set_remaining(TORCH, 5, LIGHTS), LIGHTS) == 5
    assert set_remaining(TORCH, 60, LIGHTS).data["burned"] == 0
    for bad in (0, 61, -1, True, "5"):
        with pytest.raises(RulesError, match="1 to 60 minutes"):
            set_remaining(TORCH, bad, LIGHTS)
    with pytest.raises(RulesError, match="not a light"):
        set_remaining(Item("rope", "gear", id=9), 5, LIGHTS)


def test_low_fuel_warns_once_when_a_lit_light_crosses_the_line_seed_000():
    before = (Item("torch (1 hour)", "light", data={"lit": True, "burned": 30}, id=1),)
    after = burn(before, 10, LIGHTS).changed
    assert low_fuel(before, after, LIGHTS, 10) == ()  # 20 left
    later = burn(after, 10, LIGHTS).changed
    (warning,) = low_fuel(after, later, LIGHTS, 10)
    assert (warning.item_id, warning.minutes) == (1, 10)
    again = burn(later, 5, LIGHTS).changed
    assert low_fuel(later, again, LIGHTS, 10) == ()  # warned already
    assert low_fuel(after, later, LIGHTS, 0) == ()  # the table switched warnings off
    gone = burn(later, 10, LIGHTS)
    assert low_fuel(later, gone.changed, LIGHTS, 10) == () and gone.removed == (1,)


def test_a_light_lit_with_little_left_is_warned_at_once_seed_000():
    unlit = Item("torch (1 hour)", "light", data={"burned": 55}, id=1)
    lit_now = Item("torch (1 hour)", "light", data={"lit": True, "burned": 55}, id=1)
    assert [w.minutes for w in low_fuel((unlit,), (lit_now,), LIGHTS, 10)] == [5]


def test_real_time_steps_due_at_the_rate_seed_002_turns():
    assert realtime_due(599, 1, 600) == (0, 599)
    assert realtime_due(600, 1, 600) == (1, 0)
    assert realtime_due(3600 + 30, 1, 600) == (6, 30)
    assert realtime_due(300, 2, 600) == (1, 0)
    assert realtime_due(-5, 1, 600) == (0, 0)  # a wall clock stepped back
    with pytest.raises(RulesError):
        realtime_due(5, 0, 600)


def test_a_countdown_fills_a_segment_every_n_game_minutes_from_its_start():
    assert countdown_ticks(anchor=0, start=0, minutes=60, every=20) == 3
    assert countdown_ticks(anchor=5, start=10, minutes=10, every=20) == 0  # 5..15 since the start
    assert countdown_ticks(anchor=5, start=20, minutes=10, every=20) == 1  # 15..25
    assert countdown_ticks(anchor=0, start=0, minutes=60, every=None) == 0  # by hand only
