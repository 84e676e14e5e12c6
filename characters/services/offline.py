"""Changes a device kept while it had no connection, sent in order when it returns (issue 29).

Each is applied through the very service an online change goes through (rules, validation, history, locks,
announce), or refused with the sentence the player reads. Two rules make a late change safe:

- **once**: every change carries a key the device made for it; the outcome is kept under that key and its
  character (``OfflineChange``), so a change sent again (its answer lost on a flaky line) is answered, not
  applied twice;
- **no blind writes**: every change carries the version of the sheet it was made against; if someone else
  changed the same field since (the GM's damage while the player's phone was in a tunnel), it is a conflict the
  player redoes or discards. Changes by the same person since (their own earlier queued changes) are no
  conflict: three -1s made offline apply as three -1s.

The version decides. The device may also send the journal cursor its page last saw (the sheet page's stream
``after=``, then each pushed change's id): a conflict then says what else happened at the table meanwhile (a hit
on the character, a roll for it, the conditions or settings changed), read from the journal as that person may
see it, so they know what to look at before they redo their change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from characters import history, locking, table
from characters.models import Change, Character, OfflineChange
from characters.services.rolls import character_roll, roll_lock_ids
from characters.services.sheet import character_adjust, character_edit_details
from characters.services.writes import Written
from live import journal
from live.events import (
    ROLL_KINDS,
    ConditionsChanged,
    Event,
    FightChanged,
    HitLanded,
    SettingsChanged,
    SheetChanged,
    StashChanged,
    characters_named,
)
from rules import RulesError, system_for

KINDS = ("track", "notes", "roll", "stash-take", "stash-put")
STASH_KINDS = ("stash-take", "stash-put")  # a move between the sheet and its table's stash (issue 41)
MESSAGE_MAX = 300  # what OfflineChange keeps of a sentence (an answer sent again is the kept one)
MEANWHILE_READ = 500  # journal entries read to say what happened meanwhile: a bound on a refusal's work


class Conflict(RulesError):
    """Someone else changed what this change touches since the version it was made against."""


@dataclass(frozen=True)
class Synced:
    """What became of one kept change: its outcome, the sentence to show, the sheet's version now, whether this
    was the answer kept from an earlier sending (``replayed``) and, when applied now, what the write changed."""

    outcome: str
    message: str
    version: int
    replayed: bool = False
    written: Written | None = None


def sync_change(
    *,
    character_id: int,
    by: User,
    key: str,
    base_version: int,
    kind: str,
    payload: Mapping[str, Any],
    cursor: int | None = None,
) -> Synced:
    """Apply one kept change, once. ``payload``: a track's ``key`` and ``delta``; the ``notes``; a hand roll's
    ``procedure``, ``params``, ``hand`` (the faces) and ``visibility``. ``cursor``: the journal cursor the page
    had seen when the change was made (a conflict then says what happened meanwhile). Raises ``locking.Gone``
    for a character deleted meanwhile; every other refusal is kept and answered as an outcome."""
    try:
        with transaction.atomic():
            if kind == "roll":
                locking.lock_roller(by)  # the app's lock order: the roller before any character
            else:
                locking.lock_character(character_id)
            seen = OfflineChange.objects.filter(user=by, character_id=character_id, key=key).first()
            if seen is not None:
                version = Character.objects.filter(pk=character_id).values_list("version", flat=True).first()
                return Synced(seen.outcome, seen.message, version or 0, replayed=True)
            outcome, message, written = _apply(character_id, by, base_version, kind, payload, cursor)
            message = message[:MESSAGE_MAX]  # answered as it is kept, now and when sent again
            OfflineChange.objects.create(user=by, key=key, character_id=character_id, outcome=outcome, message=message)
            version = written.character.version if written is not None else _version(character_id)
            return Synced(outcome, message, version, written=written)
    except IntegrityError:  # the same change sent twice at once: the first one's answer stands
        seen = OfflineChange.objects.filter(user=by, character_id=character_id, key=key).first()
        if seen is None:
            raise
        return Synced(seen.outcome, seen.message, _version(character_id), replayed=True)


def _version(character_id: int) -> int:
    return Character.objects.filter(pk=character_id).values_list("version", flat=True).first() or 0


def _apply(character_id: int, by: User, base_version: int, kind: str, payload: Mapping[str, Any], cursor: int | None):
    """(outcome, message, written): the change applied in a savepoint, so a refusal leaves nothing half-done."""
    if kind == "roll":  # the characters the roll names too, in the app's one order (characters.locking)
        locking.lock_characters(roll_lock_ids(character_id, str(payload["procedure"]), payload["params"]))
    character = locking.lock_character(character_id, with_rows=True)
    if base_version > character.version:
        return OfflineChange.Outcome.REFUSED, "This change names a version of the sheet that never existed.", None
    try:
        with transaction.atomic():
            written = _write(character, by, base_version, kind, payload)
    except locking.Gone:
        raise
    except Conflict as conflict:
        said = meanwhile(character, by, cursor) if cursor is not None else []
        return OfflineChange.Outcome.CONFLICT, _told(str(conflict), said), None
    except RulesError as refusal:
        if refusal.status == 409:  # what it was for moved meanwhile (the stash's item taken first)
            said = meanwhile(character, by, cursor) if cursor is not None else []
            return OfflineChange.Outcome.CONFLICT, _told(str(refusal), said), None
        return OfflineChange.Outcome.REFUSED, str(refusal), None
    return OfflineChange.Outcome.APPLIED, written.change.what if written.change else "Applied.", written


def _write(character: Character, by: User, base_version: int, kind: str, payload: Mapping[str, Any]) -> Written:
    if kind in STASH_KINDS:  # checked against the stash and the sheet as they are now: the stash's lock decides
        return table.stash_move(kind=kind, character_id=character.pk, by=by, payload=payload)
    if kind == "track":
        key, delta = str(payload["key"]), int(payload["delta"])
        rules = system_for(character.system)
        sheet = character.checked_sheet()
        track = next((t for t in rules.tracks(sheet) if t.key == key), None)
        if track is None or not track.adjustable:
            raise RulesError(f"{character.system_name} sheets have no {key} to change.")
        if not -1000 <= delta <= 1000:
            raise RulesError("Change a track by at most 1000 at a time.")
        old, new = history.state_diff(character.state, rules.adjust(sheet, key, delta))
        paths = set(old) | set(new) or {key}
        _refuse_if_changed(character, base_version, by, what=track.label, paths=paths)
        return character_adjust(character_id=character.pk, key=key, delta=delta, by=by, read=(character.version, sheet))
    if kind == "notes":
        _refuse_if_changed(character, base_version, by, what="Notes", columns=("notes",))
        return character_edit_details(
            character_id=character.pk, by=by, name=character.name, notes=str(payload["notes"])
        )
    # A hand roll: the dice were rolled at the table; the sheet it was rolled from must be the sheet as it is.
    _refuse_if_changed(character, base_version, by, what="the sheet", everything=True)
    return character_roll(
        character_id=character.pk,
        procedure=str(payload["procedure"]),
        params=payload["params"],
        by=by,
        visibility=str(payload["visibility"]),
        hand=str(payload["hand"]),
    )


def _refuse_if_changed(
    character: Character,
    since: int,
    by: User,
    *,
    what: str,
    paths: Iterable[str] = (),
    columns: Iterable[str] = (),
    everything: bool = False,
) -> None:
    """Conflict if a change by anyone but ``by`` after version ``since`` touched these state paths or columns."""
    paths, columns = set(paths), tuple(columns)
    later = Change.objects.filter(character=character, version__gt=since).exclude(by=by).select_related("by")
    for change in later.order_by("version"):
        touched = set(change.before.get("state", {})) | set(change.after.get("state", {}))
        if everything or touched & paths or any(c in change.before or c in change.after for c in columns):
            who = change.by.username if change.by else "Someone"
            raise Conflict(
                f"{who} changed {what} since you made this change "
                f"({change.what}): look at the sheet as it is now, then redo your change or discard it."
            )


def meanwhile(character: Character, by: User, after: int) -> list[str]:
    """What happened to the character or its whole table after journal cursor ``after``, that ``by`` may know of
    and did not do themself: a few words each, oldest first, each said once."""
    if character.campaign_id is None:
        return []
    is_gm = table.is_gm(by, character.campaign_id)
    said: list[str] = []
    for entry in journal.entries_after(character.campaign_id, after, limit=MEANWHILE_READ):
        if entry.by_id == by.pk:
            continue  # their own changes (another tab) are no news to them
        for event in entry.events:
            words = _words(event, character) if event.seen.lets(by.pk, is_gm=is_gm) else ""
            if words and words not in said:
                said.append(words)
    return said


_ROLLED = {"roll.made": "made", "roll.voided": "voided", "roll.restored": "counted again", "roll.undone": "undone"}
_ABOUT_ONE = (HitLanded, SheetChanged, *ROLL_KINDS)
_TABLE = {
    ConditionsChanged.kind: "the table's conditions changed",
    SettingsChanged.kind: "the table's settings changed",
    FightChanged.kind: "the fight moved",
    StashChanged.kind: "the party's stash changed",
}


def _words(event: Event, character: Character) -> str:
    """The event in a few words, when it bears on this character's sheet (the light and the clock don't)."""
    if isinstance(event, _ABOUT_ONE) and character.pk not in characters_named((event,)):
        return ""  # another character's
    if isinstance(event, HitLanded):
        return f"a hit landed on {character.name}"
    if isinstance(event, SheetChanged):
        return f"{character.name}'s sheet changed"
    if isinstance(event, ROLL_KINDS) and event.kind in _ROLLED:
        return f"a roll for {character.name} was {_ROLLED[event.kind]}"
    return _TABLE.get(event.kind, "")


def _told(sentence: str, said: list[str]) -> str:
    """The conflict's sentence and what happened meanwhile, as much of it as the kept sentence holds."""
    for shown in range(len(said), 0, -1):
        more = ", and more" if shown < len(said) else ""
        told = f"{sentence} Meanwhile at the table: {', '.join(said[:shown])}{more}."
        if len(told) <= MESSAGE_MAX:
            return told
    return sentence
