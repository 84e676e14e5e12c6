"""Issue 37: one schema test per kind of event (live.events.KINDS), as Zulip's event_schema holds its events.

Each kind has a sample below; every sample round-trips through JSON exactly, and ``from_json`` refuses each field
of the wrong type, a field missing, a field unknown, a kind unknown and anything past the bounds. A kind added
without a sample fails ``test_every_kind_has_a_schema_test``.
"""

from __future__ import annotations

import dataclasses
import json
import typing

import pytest

from live import events as ev
from live.events import KINDS, MAX_IDS, MAX_NAMES, Event, MalformedEvent, Seen

SAMPLES: dict[str, Event] = {
    "sheet.changed": ev.SheetChanged(character=12, regions=("vitals", "details")),
    "sheets.changed": ev.SheetsChanged(regions=("details",)),
    "hit.landed": ev.HitLanded(character=12, roll=40),
    "roll.made": ev.RollMade(roll=40, character=12, seen=Seen("gm", (3,))),
    "roll.voided": ev.RollVoided(roll=40, character=None),
    "roll.restored": ev.RollRestored(roll=40, character=12),
    "roll.undone": ev.RollUndone(roll=40, character=12, seen=Seen("blind", (3,))),
    "roll.amended": ev.RollAmended(roll=40, character=12, seen=Seen("private", (3,))),
    "request.asked": ev.RequestAsked(request=5, characters=(12, 13)),
    "request.answered": ev.RequestAnswered(request=5, characters=(12,)),
    "request.ended": ev.RequestEnded(request=5, characters=()),
    "clock.moved": ev.ClockMoved(),
    "light.changed": ev.LightChanged(),
    "conditions.changed": ev.ConditionsChanged(),
    "party.changed": ev.PartyChanged(),
    "fight.changed": ev.FightChanged(sheets=False),
    "members.changed": ev.MembersChanged(users=(3, 4), left=True),
    "roles.changed": ev.RolesChanged(users=(3,), seen=Seen("private", (3, 4))),
    "settings.changed": ev.SettingsChanged(),
    "notes.changed": ev.NotesChanged(seen=ev.gm_only()),
    "summary.changed": ev.SummaryChanged(),
    "session.started": ev.SessionStarted(session=3),
    "session.ended": ev.SessionEnded(session=3),
    "session.changed": ev.SessionChanged(session=3),
    "request.grouped": ev.GroupChecked(request=5, roll=40, characters=(12, 13), seen=Seen("gm", (3,))),
    "light.low": ev.LightLow(character=12, item=7, minutes=10, seen=ev.gm_only(3)),
    "light.time_set": ev.LightTimeSet(character=12, item=7, seen=ev.gm_only(3)),
    "realtime.changed": ev.RealtimeChanged(running=True),
    "countdown.changed": ev.CountdownChanged(countdown=2, seen=ev.gm_only()),
    "countdown.ticked": ev.CountdownTicked(countdown=2, by_time=True),
    "stash.changed": ev.StashChanged(character=12),
}

# A value of the wrong type for each type a field may declare (and, for ids, the wrong sign).
WRONG: dict[object, list[object]] = {
    int: ["12", 1.5, True, None, -1, [12]],
    bool: [1, "true", None],
    str: [3, None, "x" * 201],
    int | None: ["12", True, -1, 1.5],
    tuple[int, ...]: ["12", [12, "13"], [True], [-1], {"a": 1}, None, list(range(MAX_IDS + 1))],
    tuple[str, ...]: ["vitals", [1], [None], ["x" * 201], ["r"] * (MAX_NAMES + 1)],
}


def _fields(kind: type[Event]) -> list[tuple[str, object]]:
    hints = typing.get_type_hints(kind)
    return [(each.name, hints[each.name]) for each in dataclasses.fields(kind) if each.name != "seen"]


def test_every_kind_has_a_schema_test():
    assert set(SAMPLES) == set(KINDS)
    assert all(type(sample) is KINDS[kind] for kind, sample in SAMPLES.items())
    assert all(each in WRONG for kind in KINDS.values() for _, each in _fields(kind)), "a field type without a check"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kinds_schema(kind):
    sample = SAMPLES[kind]
    data = sample.to_json()
    assert data["kind"] == kind
    assert json.loads(json.dumps(data)) == data  # plain JSON: ids, names, true/false
    assert Event.from_json(json.loads(json.dumps(data))) == sample
    if sample.seen == ev.PUBLIC:
        assert "seen" not in data  # the common case costs no bytes
    # every field of the wrong type is refused; so is a required one missing
    for name, hint in _fields(type(sample)):
        for wrong in WRONG[hint]:
            with pytest.raises(MalformedEvent):
                Event.from_json({**data, name: wrong})
        default = next(each for each in dataclasses.fields(type(sample)) if each.name == name).default
        if default is dataclasses.MISSING:
            with pytest.raises(MalformedEvent):
                Event.from_json({key: value for key, value in data.items() if key != name})
    with pytest.raises(MalformedEvent):
        Event.from_json({**data, "html": "<p>drawn</p>"})  # names and ids only: no field it does not declare
    with pytest.raises(MalformedEvent):
        Event.from_json({**data, "kind": kind + "x"})
    for seen in ({"who": "everyone"}, {"who": "gm", "to": ["3"]}, {"who": "gm", "to": 3}, "gm", None):
        with pytest.raises(MalformedEvent):
            Event.from_json({**data, "seen": seen})


def test_events_are_values_a_write_cannot_change_after_recording():
    sample = SAMPLES["sheet.changed"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        sample.character = 13  # type: ignore[misc]
    assert hash(sample) == hash(ev.SheetChanged(character=12, regions=("vitals", "details")))


def test_a_kind_and_anything_not_an_object_are_required():
    for data in ({}, {"kind": None}, {"kind": 3}, [], "clock.moved", None, 3):
        with pytest.raises(MalformedEvent):
            Event.from_json(data)
    assert Event.from_json({"kind": "clock.moved"}) == ev.ClockMoved()


def test_two_kinds_cannot_share_a_name():
    with pytest.raises(AssertionError, match="two event kinds"):

        @dataclasses.dataclass(frozen=True, kw_only=True)
        class Again(Event):
            kind: typing.ClassVar[str] = "clock.moved"

    assert KINDS["clock.moved"] is ev.ClockMoved
