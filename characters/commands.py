"""What a person can do to a character, once for every door (issue 38): the sheet's pages, the API, the offline
replay and any later one (a chat bot) each read their request into these plain, typed inputs and answer with
what comes back. Each command looks up, checks permission, reads the inputs once and calls the one service.

- **who**: ``editable(user, character_id)`` is the permission check: a ``Seat`` is proof that ``user`` may change
  the character (its owner; the GM of its table). Nobody else learns it exists: ``NotHere``, a 404 by every door.
- **refusals**: every refusal is a ``rules.errors.Refusal`` with the sentence the person reads, the same by every
  door (tests/test_doors.py holds them to it).
- **inputs**: a roll's inputs are a plain mapping, name to value (JSON's: a number, a word, true or false, a list
  of words); a form's fields are one too (``prefixed``: named ``<procedure>-<input>``, as the roll panel sends).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from characters import region_cache, services, table
from characters.forms import FORM_KEYS, ItemUpdateForm, RenameForm, first_error
from characters.models import Roll
from characters.selectors import Seat, character_for, rolls_visible_to
from characters.services.writes import Written
from rules import SYSTEMS, RulesError
from rules import base as rules_base
from rules.errors import Refusal

HAND_MAX = 400  # the faces of a hand roll: a few hundred characters at most
CHOOSE_VISIBILITY = "Pick who may see this roll."
VOID_REASON_MAX = 150
TRACK_DELTA = "Change a track by a whole number between -1000 and 1000."


class NotHere(Refusal):
    """A character this person may not change, or may not even see: answered as one that does not exist."""

    status = 404


def editable(user, character_id: int, *, lock: bool = False) -> Seat:
    """The character, if ``user`` may change it: its owner, or the GM of its table. ``lock``: locked for the write
    the open transaction makes (its one character's lock, read with the seat: ``Seat.locked``)."""
    seat = character_for(user, character_id, edit=True, lock=lock)
    if seat is None:
        raise NotHere("No character here.")
    return seat


def procedure_of(seat: Seat, key: str):
    """The roll ``key`` of the character's rules, if this viewer makes it (the GM's rolls: its GM only)."""
    rules = SYSTEMS.get(seat.character.system)
    if rules is None:  # a system Lantern no longer plays: its sheets are read-only records
        raise NotHere("No character here.")
    proc = rules.procedures().get(key)
    if proc is None:
        raise RulesError(f"{rules.name} has no roll called {key!r}.")
    if proc.gm_only and not seat.viewer.is_gm:
        raise RulesError(f"Only the GM makes the {proc.label} roll.")
    return proc


def read_inputs(
    proc, sheet: rules_base.Sheet | None, given: Mapping[str, Any], *, gm: bool, prefixed: bool = False
) -> dict[str, Any]:
    """A roll's inputs out of a plain mapping, read once: an input it lacks is refused by name, one only the GM
    sets refused from anyone else; true is a ticked box, false or null one left out; the rules check the values
    (``rules.base.check_params``, in the service). ``prefixed``: the roll panel's one shape, "<procedure>-<input>":
    any other name but the form's own fields (``FORM_KEYS``) is refused, never ignored."""
    if prefixed:
        prefix = f"{proc.key}-"
        strays = sorted(name for name in given if not name.startswith(prefix) and name not in FORM_KEYS)
        if strays:
            raise RulesError(f"{proc.label} has no option {', '.join(strays)}.")
        given = {name.removeprefix(prefix): value for name, value in given.items() if name.startswith(prefix)}
    sent = {name: _plain(name, value) for name, value in given.items() if value is not None and value is not False}
    params = proc.params(sheet)
    unknown = sorted(set(sent) - {p.name for p in params} - FORM_KEYS)
    if unknown:
        raise RulesError(f"{proc.label} has no option {', '.join(unknown)}.")
    values: dict[str, Any] = {}
    for param in params:
        if param.gm_only and not gm:
            if param.name in sent:
                raise RulesError(f"Only the GM sets {param.label.lower()}.")
            continue
        raw = sent.get(param.name)
        if param.kind == "multichoice":
            values[param.name] = [] if raw is None else raw if isinstance(raw, list) else [raw]
        elif param.kind == "bool":  # an unticked box sends nothing: no; a ticked one "on" (check_params reads it)
            values[param.name] = False if raw is None else raw[-1] if isinstance(raw, list) else raw
        elif raw is not None:
            values[param.name] = raw[-1] if isinstance(raw, list) else raw
    return values


def _plain(name: str, value: Any) -> str | list[str]:
    """One input as a form sends it: a word, or a list of them."""
    if value is True:
        return rules_base.CHECKBOX_ON
    if isinstance(value, list) and all(isinstance(v, str | int) and not isinstance(v, bool) for v in value):
        return [str(v) for v in value]
    if isinstance(value, str | int | float):
        return str(value)
    raise RulesError(f"{name}: give a number, a word, true or false, or a list of words.")


@dataclass(frozen=True)
class RollAsked:
    """A roll as asked, read and checked against the sheet (``read``: its version and the checked sheet)."""

    procedure: str
    params: dict[str, Any]
    visibility: str
    expected_version: int | None
    hand: str | None
    read: tuple[int, rules_base.Sheet]


def ask_roll(
    seat: Seat,
    *,
    procedure: str,
    inputs: Mapping[str, Any],
    visibility: str = "",
    version: int | str | None = None,
    hand: str = "",
    prefixed: bool = False,
) -> RollAsked:
    """A roll of ``procedure`` read once: the roll this viewer makes, its inputs, who sees it (empty: everyone),
    the sheet's version it was made against (refused later if it moved on), the faces of dice rolled at the
    table. ``roll`` makes it; the offline replay keeps it for its turn (characters.services.offline)."""
    proc = procedure_of(seat, procedure)
    visibility, expected_version, faces = _visibility(visibility), _version(version), _hand(hand)
    sheet = region_cache.checked_sheet(seat.character)
    params = read_inputs(proc, sheet, inputs, gm=seat.viewer.is_gm, prefixed=prefixed)
    return RollAsked(proc.key, params, visibility, expected_version, faces, (seat.character.version, sheet))


def roll(
    seat: Seat,
    *,
    procedure: str,
    inputs: Mapping[str, Any],
    by: User,
    visibility: str = "",
    version: int | str | None = None,
    hand: str = "",
    npc_target: str | int | None = None,
    prefixed: bool = False,
) -> Written:
    """Roll ``procedure`` from the sheet (``ask_roll`` reads the request): the roll, its change to the sheet and
    its ``row`` (the Roll). ``npc_target``: an NPC of the running fight the roll attacks."""
    asked = ask_roll(
        seat, procedure=procedure, inputs=inputs, visibility=visibility, version=version, hand=hand, prefixed=prefixed
    )
    how: dict[str, Any] = {
        "character_id": seat.character.pk,
        "procedure": asked.procedure,
        "params": asked.params,
        "by": by,
        "visibility": asked.visibility,
        "expected_version": asked.expected_version,
        "hand": asked.hand,
    }
    if npc_target not in (None, ""):  # an attack on an NPC of the running fight lands on it
        return table.attack_npc(**how, npc_id=_npc_id(str(npc_target)))
    # The sheet just checked goes along: the service checks it again only if the row moved on meanwhile.
    # What the seat read goes along too: the service doesn't read the row once more to find what to lock, nor
    # ask again whether the roller runs the table.
    character, viewer = seat.character, seat.viewer
    known = services.SeatRead(character.system, character.campaign_id, viewer.role in table.GM_ROLES)
    return services.character_roll(**how, read=asked.read, seat=known if viewer.user_id == by.pk else None)


def _visibility(raw: str) -> str:
    if raw and raw not in Roll.Visibility.values:
        raise RulesError(CHOOSE_VISIBILITY)
    return raw or str(Roll.Visibility.PUBLIC)


def _version(raw: int | str | None) -> int | None:
    """The version a form sent ("" or none: not checked)."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        raw = int(raw) if raw.strip().isdigit() and len(raw) < 19 else 0
    if isinstance(raw, bool) or raw < 1:
        raise RulesError(CHOOSE_VISIBILITY)
    return raw


def _hand(raw: str) -> str | None:
    if len(raw) > HAND_MAX:
        raise RulesError(CHOOSE_VISIBILITY)
    return raw.strip() or None


def _npc_id(raw: str) -> int:
    """The NPC a roll targets, from the form's select: a sentence when it names none."""
    if not raw.isdigit() or int(raw) >= 2**63:
        raise RulesError("Pick an NPC of the running fight as the target.")
    return int(raw)


def adjust(seat: Seat, *, key: str, delta: int, by: User, how: str = "") -> Written:
    """Change a track (HP, stress…) by ``delta``; the rules clamp it. ``how``: "rules", the rules' own procedure
    as the Change box offered it; "ask", asked first across a line the rules act on (``services.HarmOffered``:
    nothing changed); "" or "plain", the plain change."""
    if not isinstance(delta, int) or isinstance(delta, bool) or not -1000 <= delta <= 1000 or not key:
        raise RulesError(TRACK_DELTA)
    change: dict[str, Any] = {"by": by, "character_id": seat.character.pk, "key": key, "delta": delta}
    if how == "rules":  # the rules' own procedure, as the Change box offered it
        return services.character_adjust_by_rules(**change)
    if seat.locked:  # the row read with its seat under the lock: its sheet as kept for that version, if it is
        character = seat.character
        change.update(locked=character, read=(character.version, region_cache.checked_sheet(character)))
    # Across a line the rules act on, asked first: nothing changes until the player picks.
    written = services.character_adjust(**change, ask=how == "ask")
    if written.sheet is not None:  # the next roll or write of this version reads no items or hirelings
        transaction.on_commit(partial(region_cache.keep_checked_sheet, written.character, written.sheet))
    return written


def add_item(seat: Seat, *, by: User, name: str, kind: str, slots: int, quantity: int) -> Written:
    """An item of the person's own making, checked by the rules."""
    item = rules_base.Item(name=name, kind=kind, slots=slots, quantity=quantity)
    return services.item_add(character_id=seat.character.pk, item=item, by=by)


def add_from_catalogue(seat: Seat, *, by: User, entry_id: int, quantity: int = 1, buy: bool = False) -> Written:
    """An item of the system's equipment list, taken or bought."""
    if not 1 <= quantity <= 100:
        raise RulesError("Pick an item and a quantity between 1 and 100.")
    return services.item_add_from_catalogue(
        character_id=seat.character.pk, entry_id=entry_id, by=by, buy=buy, quantity=quantity
    )


def answer_offer(seat: Seat, *, offer_id: int, apply: bool, by: User) -> Written:
    """Apply or decline what another player's roll would do to this character (its owner or the GM)."""
    if not seat.character.offers.filter(pk=offer_id).exists():
        raise NotHere("No such offer here.")
    service = services.offer_apply if apply else services.offer_decline
    return service(offer_id=offer_id, by=by)


def void_roll(by: User, *, roll_id: int, reason: str) -> tuple[Roll, list[str]]:
    """Void a roll at a table with a reason every log shows (its GM; its roller within a minute): what it changed
    put back, and a sentence per NPC of a fight given back what its hits took."""
    if not rolls_visible_to(by).filter(pk=roll_id, campaign__isnull=False).exists():
        raise NotHere("No roll here.")
    if not reason.strip() or len(reason) > VOID_REASON_MAX:
        raise RulesError(f"Say why in a few words (at most {VOID_REASON_MAX} characters).")
    return table.void_roll(roll_id=roll_id, by=by, reason=reason.strip())


def update_item(seat: Seat, *, item_id: int, inputs: Mapping[str, Any], by: User) -> Written:
    """{"quantity": n (optional), "worn": true or "on" (left out: not worn)}: an item of the sheet changed."""
    form = ItemUpdateForm(data=inputs)
    if not form.is_valid():
        raise RulesError(first_error(form))
    changes: dict[str, Any] = {"worn": form.cleaned_data["worn"]}
    if form.cleaned_data["quantity"] is not None:
        changes["quantity"] = form.cleaned_data["quantity"]
    return services.item_update(character_id=seat.character.pk, item_id=item_id, by=by, **changes)


def remove_item(seat: Seat, *, item_id: int, by: User) -> Written:
    return services.item_remove(character_id=seat.character.pk, item_id=item_id, by=by)


def hire(seat: Seat, *, inputs: Mapping[str, Any], by: User) -> Written:
    """A hireling of the rules' offer (``GameSystem.hire_params``), its choices read once against the sheet."""
    rules = SYSTEMS.get(seat.character.system)
    if rules is None:
        raise NotHere("No character here.")
    sheet = seat.character.checked_sheet()
    form = rules_base.ParamSpec("Hire", rules.hire_params(sheet))
    choices = rules_base.check_params(form, sheet, read_inputs(form, sheet, inputs, gm=True))
    choices = {key: value for key, value in choices.items() if value not in (None, "")}
    return services.hireling_hire(character_id=seat.character.pk, choices=choices, by=by)


def dismiss(seat: Seat, *, hireling_id: int, by: User) -> Written:
    return services.hireling_dismiss(character_id=seat.character.pk, hireling_id=hireling_id, by=by)


def rename(seat: Seat, *, inputs: Mapping[str, Any], by: User) -> Written:
    """{"name": the new name, "version": the sheet's version it was asked against}."""
    form = RenameForm(data=inputs)
    if not form.is_valid():
        raise RulesError(first_error(form))
    data = form.cleaned_data
    return services.character_rename(
        character_id=seat.character.pk, name=data["name"], by=by, expected_version=data["version"]
    )
