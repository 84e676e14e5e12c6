"""The endpoint a device sends the changes it kept offline to, one at a time and in order (issue 29).

HTTP only: the change is read and checked here, applied by ``characters.services.offline``. The answer is JSON
for the page's script: ``outcome`` (applied, conflict, refused), the ``message`` the player reads, the sheet's
``version`` now and whether this answer was kept from an earlier sending (``replayed``). Statuses: 200 applied,
409 conflict, 422 refused by the rules, 400 a change the app could not have made, 404 a sheet this person may not
edit (as for every write). A change may carry the journal ``cursor`` its page had seen: a conflict then says what
happened at the table meanwhile (issue 37)."""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpResponse, JsonResponse
from django.views.decorators.http import require_POST

from characters import commands
from characters.models import NOTES_MAX, OfflineChange
from characters.services import offline
from core.htmx import HtmxHttpRequest
from core.json_body import MalformedJson, json_object
from rules.errors import Refusal

MAX_CURSOR = 2**63 - 1  # a journal cursor is a bigint
MAX_BODY = 20_000  # notes are at most 2,000 characters; a hand roll's inputs a few hundred
KEY = re.compile(r"[A-Za-z0-9-]{8,64}")
STATUS: dict[str, int] = {
    OfflineChange.Outcome.APPLIED: 200,
    OfflineChange.Outcome.CONFLICT: 409,
    OfflineChange.Outcome.REFUSED: 422,
}


class BadChange(ValueError):
    """A change no page of the app makes: answered 400 with the reason, never kept."""


@require_POST
def sync(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    try:
        seat = commands.editable(request.user, pk)
        key, version, kind, payload, cursor = _read(request, seat)
    except BadChange as problem:
        return JsonResponse({"outcome": "refused", "message": str(problem)}, status=400)
    except Refusal as refusal:  # a roll's inputs the rules refuse: nothing to keep, the same each time
        return JsonResponse({"outcome": "refused", "message": str(refusal)}, status=refusal.status)
    synced = offline.sync_change(
        character_id=pk, by=request.user, key=key, base_version=version, kind=kind, payload=payload, cursor=cursor
    )
    answer = {"outcome": synced.outcome, "message": synced.message, "version": synced.version}
    return JsonResponse({**answer, "replayed": synced.replayed}, status=STATUS[synced.outcome])


def _read(request, seat) -> tuple[str, int, str, dict[str, Any], int | None]:
    if len(request.body) > MAX_BODY:
        raise BadChange("That change is too long to be one the sheet made.")
    try:
        data = json_object(request.body)
    except MalformedJson as problem:
        raise BadChange(str(problem)) from None
    key, version, kind = data.get("key"), data.get("version"), data.get("kind")
    if not isinstance(key, str) or not KEY.fullmatch(key):
        raise BadChange("A kept change needs its key: 8 to 64 letters, digits or dashes.")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise BadChange("A kept change needs the version of the sheet it was made against.")
    if kind not in offline.KINDS:
        raise BadChange(f"A kept change is one of: {', '.join(offline.KINDS)}.")
    cursor = _cursor(data)
    if kind == "track":
        track, delta = data.get("track"), data.get("delta")
        if not isinstance(track, str) or not track or len(track) > 40:
            raise BadChange("Name the track to change.")
        if not isinstance(delta, int) or isinstance(delta, bool) or not -1000 <= delta <= 1000:
            raise BadChange("Change a track by a whole number between -1000 and 1000.")
        return key, version, kind, {"key": track, "delta": delta}, cursor
    if kind in offline.STASH_KINDS:  # the stash's item to take, or the sheet's item to put in; how many (none: all)
        item, quantity = data.get("item"), data.get("quantity")
        if not isinstance(item, int) or isinstance(item, bool) or not 1 <= item <= MAX_CURSOR:
            raise BadChange("A kept stash move names its item by id.")
        if quantity is not None and (not isinstance(quantity, int) or isinstance(quantity, bool) or quantity < 1):
            raise BadChange("A kept stash move takes a whole number of the item, at least 1 (none: all of it).")
        return key, version, kind, {"item": item, "quantity": quantity}, cursor
    if kind == "notes":
        notes = data.get("notes")
        if not isinstance(notes, str) or len(notes) > NOTES_MAX:
            raise BadChange(f"Notes are text of at most {NOTES_MAX} characters.")
        return key, version, kind, {"notes": notes}, cursor
    return key, version, kind, _roll(data, seat), cursor


def _cursor(data: dict) -> int | None:
    """The journal cursor the page had seen when the change was made, if the device sent it (older pages don't)."""
    cursor = data.get("cursor")
    if cursor is None:
        return None
    if not isinstance(cursor, int) or isinstance(cursor, bool) or not 0 <= cursor <= MAX_CURSOR:
        raise BadChange("A kept change's cursor is the journal cursor its page had seen: a whole number.")
    return cursor


def _roll(data: dict, seat) -> dict[str, Any]:
    """A hand roll: the roll control's fields as the form posted them, and the faces of the dice rolled at the
    table. Server dice are never kept offline: the page says they need a connection."""
    procedure, fields, hand = data.get("procedure"), data.get("fields"), data.get("hand")
    try:  # a roll the sheet has no page could send: a 400, in the command's words
        commands.procedure_of(seat, procedure if isinstance(procedure, str) else "")
    except Refusal as refusal:
        raise BadChange(str(refusal)) from None
    if not isinstance(hand, str) or not hand.strip() or len(hand) > 400:
        raise BadChange(
            "Only a roll with dice rolled at the table is kept offline: the server's dice need a connection."
        )
    pairs = fields if isinstance(fields, list) else None
    if pairs is None or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(v, str) for v in p) for p in pairs
    ):
        raise BadChange("Send the roll's fields as [name, value] pairs.")
    sent: dict[str, list[str]] = {}
    for name, value in pairs:
        sent.setdefault(name, []).append(value)
    inputs = {name: values[-1] if len(values) == 1 else values for name, values in sent.items()}
    visibility = str(inputs.get("visibility") or "")
    asked = commands.ask_roll(
        seat, procedure=str(procedure), inputs=inputs, visibility=visibility, hand=hand, prefixed=True
    )
    return {"procedure": asked.procedure, "params": asked.params, "hand": asked.hand, "visibility": asked.visibility}
