"""What happens at a table, as typed values: the journal's vocabulary (live.journal writes them, everything reads them).

Each kind is a small frozen dataclass naming what changed by ids and names, never by rendered content or a roll's
result, so an entry can be read by any consumer (the pages' push, the webhooks, the API's feed, the chronicle) and
filtered for each reader by its ``seen``. Only services make them (``live.journal.record``); ``to_json`` and
``from_json`` are exact inverses, and ``from_json`` refuses anything that is not a well-formed event of a known kind
(tests/live/test_event_kinds.py: one schema test per kind).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Union

MAX_IDS = 500  # ids one event may name (a party's sheets, a request's characters): a bound on any payload's work
MAX_NAMES = 40  # regions or topics one event may name

Who = Literal["public", "gm", "private", "blind"]
WHO: tuple[str, ...] = typing.get_args(Who)


class MalformedEvent(ValueError):
    """A journal payload that is not an event of a known kind (an old or forged row): skipped by its readers."""


@dataclass(frozen=True)
class Seen:
    """Who may know an event happened.

    ``public``: every member of the table. ``gm``: the table's GMs, and the users in ``to`` (a GM-only roll: its
    roller). ``private``: only the users in ``to`` (a roll its roller keeps to themself). ``blind``: the GMs, and the
    users in ``to`` learn that it happened (the event never carries a result; each page draws what its viewer may
    see of the roll)."""

    who: Who = "public"
    to: tuple[int, ...] = ()

    def lets(self, user_id: int | None, *, is_gm: bool) -> bool:
        if self.who == "public":
            return True
        if user_id is not None and user_id in self.to:
            return True
        return is_gm and self.who != "private"

    def to_json(self) -> dict[str, Any]:
        return {"who": self.who, "to": list(self.to)} if self.who != "public" else {"who": "public"}

    @classmethod
    def from_json(cls, data: Any) -> Seen:
        if not isinstance(data, dict) or data.get("who") not in WHO:
            raise MalformedEvent(f"not a visibility: {data!r}")
        return cls(data["who"], _ids(data.get("to", []), "to"))


PUBLIC = Seen()


def gm_only(*users: int | None) -> Seen:
    """Seen by the table's GMs (and these users: the roller of a GM-only roll)."""
    return Seen("gm", tuple(sorted({u for u in users if u is not None})))


KINDS: dict[str, type[Event]] = {}


@dataclass(frozen=True, kw_only=True)
class Event:
    """One thing that happened at a table. Subclasses set ``kind`` and their own id fields."""

    kind: ClassVar[str] = ""
    seen: Seen = field(default=PUBLIC)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.kind:
            assert cls.kind not in KINDS, f"two event kinds named {cls.kind}"
            KINDS[cls.kind] = cls

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for each in dataclasses.fields(self):
            value = getattr(self, each.name)
            if each.name == "seen":
                if value != PUBLIC:
                    data["seen"] = value.to_json()
            else:
                data[each.name] = list(value) if isinstance(value, tuple) else value
        return data

    @staticmethod
    def from_json(data: Any) -> Event:
        if not isinstance(data, dict):
            raise MalformedEvent(f"not an event: {data!r}")
        kind = KINDS.get(data.get("kind"))  # type: ignore[arg-type]
        if kind is None:
            raise MalformedEvent(f"no such kind of event: {data.get('kind')!r}")
        hints = _hints(kind.kind)
        values: dict[str, Any] = {}
        for each in dataclasses.fields(kind):
            if each.name == "seen":
                values["seen"] = Seen.from_json(data["seen"]) if "seen" in data else PUBLIC
            elif each.name in data:
                values[each.name] = _typed(data[each.name], hints[each.name], each.name)
            elif each.default is dataclasses.MISSING and each.default_factory is dataclasses.MISSING:
                raise MalformedEvent(f"{kind.kind} without its {each.name}")
        unknown = set(data) - {"kind"} - {each.name for each in dataclasses.fields(kind)}
        if unknown:
            raise MalformedEvent(f"{kind.kind} with unknown fields {sorted(unknown)}")
        return kind(**values)


@functools.cache
def _hints(kind: str) -> dict[str, Any]:
    """A kind's field types, worked out once: get_type_hints evaluates each annotation's string every call (with
    ``from __future__ import annotations``), three quarters of the time a reader spent reading an entry."""
    return typing.get_type_hints(KINDS[kind])


def _typed(value: Any, hint: Any, name: str) -> Any:
    """``value`` as the field's declared type (int, bool, str, int | None, tuple[int, ...], tuple[str, ...])."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in typing.get_args(hint):
            return None
        (inner,) = (arg for arg in typing.get_args(hint) if arg is not type(None))
        return _typed(value, inner, name)
    if origin is tuple:
        item = typing.get_args(hint)[0]
        return _ids(value, name) if item is int else _names(value, name)
    if hint is bool:
        if not isinstance(value, bool):
            raise MalformedEvent(f"{name} is not true or false: {value!r}")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise MalformedEvent(f"{name} is not an id: {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str) or len(value) > 200:
            raise MalformedEvent(f"{name} is not a short text: {value!r}")
        return value
    raise MalformedEvent(f"{name}: no reading for {hint!r}")  # pragma: no cover - a kind declared a new type


def _ids(value: Any, name: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > MAX_IDS:
        raise MalformedEvent(f"{name} is not a list of ids: {value!r}")
    return tuple(_typed(each, int, name) for each in value)


def _names(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > MAX_NAMES:
        raise MalformedEvent(f"{name} is not a list of names: {value!r}")
    return tuple(_typed(each, str, name) for each in value)


# --- a character's sheet ------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SheetChanged(Event):
    """Regions of one character's sheet changed (its numbers, its gear, its hirelings…), and so its card."""

    kind: ClassVar[str] = "sheet.changed"
    character: int
    regions: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class SheetsChanged(Event):
    """Regions of every sheet at the table changed (a rule setting, the conditions, the catalogue)."""

    kind: ClassVar[str] = "sheets.changed"
    regions: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class HitLanded(Event):
    """Harm the table dealt landed on a character (an NPC's attack, a trap): its sheet took it."""

    kind: ClassVar[str] = "hit.landed"
    character: int
    roll: int | None = None


# --- the roll log ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RollMade(Event):
    kind: ClassVar[str] = "roll.made"
    roll: int
    character: int | None = None


@dataclass(frozen=True, kw_only=True)
class RollVoided(Event):
    kind: ClassVar[str] = "roll.voided"
    roll: int
    character: int | None = None


@dataclass(frozen=True, kw_only=True)
class RollRestored(Event):
    """A voided roll counts again."""

    kind: ClassVar[str] = "roll.restored"
    roll: int
    character: int | None = None


@dataclass(frozen=True, kw_only=True)
class RollUndone(Event):
    """What the roll changed was reverted from the history."""

    kind: ClassVar[str] = "roll.undone"
    roll: int
    character: int | None = None


@dataclass(frozen=True, kw_only=True)
class RollAmended(Event):
    """The roll's line changed otherwise (an offer it made was applied or declined)."""

    kind: ClassVar[str] = "roll.amended"
    roll: int
    character: int | None = None


ROLL_KINDS = (RollMade, RollVoided, RollRestored, RollUndone, RollAmended)
RollEvent = RollMade | RollVoided | RollRestored | RollUndone | RollAmended


# --- the GM's requests ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RequestAsked(Event):
    kind: ClassVar[str] = "request.asked"
    request: int
    characters: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class RequestAnswered(Event):
    kind: ClassVar[str] = "request.answered"
    request: int
    characters: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class RequestEnded(Event):
    """Cancelled by the GM, or expired."""

    kind: ClassVar[str] = "request.ended"
    request: int
    characters: tuple[int, ...]


REQUEST_KINDS = (RequestAsked, RequestAnswered, RequestEnded)


# --- the table ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ClockMoved(Event):
    """The round or the game time moved."""

    kind: ClassVar[str] = "clock.moved"


@dataclass(frozen=True, kw_only=True)
class LightChanged(Event):
    """The party's light changed (lit, burnt down, put out)."""

    kind: ClassVar[str] = "light.changed"


@dataclass(frozen=True, kw_only=True)
class ConditionsChanged(Event):
    """The table's conditions changed: every sheet's odds and banners."""

    kind: ClassVar[str] = "conditions.changed"


@dataclass(frozen=True, kw_only=True)
class PartyChanged(Event):
    """A character came to the table, left it or changed hands."""

    kind: ClassVar[str] = "party.changed"


@dataclass(frozen=True, kw_only=True)
class FightChanged(Event):
    """The fight moved (begun, ended, a turn passed, an NPC came or went). ``sheets``: each PC's sheet shows it too."""

    kind: ClassVar[str] = "fight.changed"
    sheets: bool = True


@dataclass(frozen=True, kw_only=True)
class MembersChanged(Event):
    """Members joined (``left`` False) or left or were removed (``left`` True): their open pages close."""

    kind: ClassVar[str] = "members.changed"
    users: tuple[int, ...]
    left: bool = False


@dataclass(frozen=True, kw_only=True)
class RolesChanged(Event):
    """A member became the GM, or stopped being it."""

    kind: ClassVar[str] = "roles.changed"
    users: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class SettingsChanged(Event):
    """The table's rule settings or dice setting changed."""

    kind: ClassVar[str] = "settings.changed"


@dataclass(frozen=True, kw_only=True)
class NotesChanged(Event):
    """The GM's notes (GM-only)."""

    kind: ClassVar[str] = "notes.changed"


@dataclass(frozen=True, kw_only=True)
class SummaryChanged(Event):
    """The session summary players read."""

    kind: ClassVar[str] = "summary.changed"


def from_json_list(data: Any) -> list[Event]:
    """An entry's events, each read by its kind; a malformed one is left out (an old or damaged row)."""
    if not isinstance(data, list):
        return []
    out = []
    for each in data[:MAX_IDS]:
        try:
            out.append(Event.from_json(each))
        except MalformedEvent:
            continue
    return out


def characters_named(events: Iterable[Event]) -> set[int]:
    """The characters these events name (their sheets, cards and rolls)."""
    named: set[int] = set()
    for event in events:
        for attribute in ("character",):
            value = getattr(event, attribute, None)
            if isinstance(value, int):
                named.add(value)
        named.update(getattr(event, "characters", ()))
    return named


# --- the session chronicle (issue 40) ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SessionStarted(Event):
    """The GM started a play session (campaigns.PlaySession): what follows in the journal belongs to it."""

    kind: ClassVar[str] = "session.started"
    session: int  # the session's number at its campaign


@dataclass(frozen=True, kw_only=True)
class SessionEnded(Event):
    """The GM ended a play session: its chronicle can be read (each reader's own, built from the journal)."""

    kind: ClassVar[str] = "session.ended"
    session: int


@dataclass(frozen=True, kw_only=True)
class SessionChanged(Event):
    """A session's summary or a player's line on its chronicle changed (never their words: readers re-read)."""

    kind: ClassVar[str] = "session.changed"
    session: int


SESSION_KINDS = (SessionStarted, SessionEnded, SessionChanged)
# --- group checks (issue 40) ---------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class GroupChecked(Event):
    """A group check was decided: its one line in the roll log (``roll``), for the characters it asked; ``seen`` as
    the GM chose (a GM-only or blind check's outcome is the GM's)."""

    kind: ClassVar[str] = "request.grouped"
    request: int
    roll: int
    characters: tuple[int, ...]


# Every event about the GM's requests, a group check's outcome included: each asked character's sheet shows it.
ASKED_KINDS = (*REQUEST_KINDS, GroupChecked)
# --- lights, real time and countdowns (issue 41) ------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class LightLow(Event):
    """A lit light is running low (``minutes`` left): its holder is warned (seen by them and the GMs)."""

    kind: ClassVar[str] = "light.low"
    character: int
    item: int
    minutes: int


@dataclass(frozen=True, kw_only=True)
class LightTimeSet(Event):
    """The GM set or corrected a light's time left (the sheet's history keeps the numbers)."""

    kind: ClassVar[str] = "light.time_set"
    character: int
    item: int


@dataclass(frozen=True, kw_only=True)
class RealtimeChanged(Event):
    """The GM started game time running with the wall clock (``running``), or paused it (or the session ended)."""

    kind: ClassVar[str] = "realtime.changed"
    running: bool


@dataclass(frozen=True, kw_only=True)
class CountdownChanged(Event):
    """A countdown was made, changed, shown or hidden, or removed. ``seen``: who may know it exists."""

    kind: ClassVar[str] = "countdown.changed"
    countdown: int


@dataclass(frozen=True, kw_only=True)
class CountdownTicked(Event):
    """A countdown filled a segment or more (by the GM's hand, or ``by_time``: game time passing). ``seen``: who
    may see its progress move (never the players of one whose progress or existence is hidden from them)."""

    kind: ClassVar[str] = "countdown.ticked"
    countdown: int
    by_time: bool = False


# --- the party's stash (issue 41) ---------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class StashChanged(Event):
    """The party's stash changed: loot put in or removed, an item or coins moved between it and a sheet (``character``:
    whose; its sheet's own regions come as ``SheetChanged``), coins split, an entry reverted."""

    kind: ClassVar[str] = "stash.changed"
    character: int | None = None
