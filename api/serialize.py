"""What the API answers, built from the pages' own read models: a sheet from ``sheet_view`` (the fields its viewer's
kind sees, private ones dropped as the page drops them), a roll as the log shows it (``roll_as_json``), the party
from the table's cards."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from django.core.cache import cache
from django.http import HttpResponse
from ninja import Schema
from ninja.responses import NinjaJSONEncoder

from campaigns.models import RollRequest, RollRequestAnswer
from campaigns.table import Card
from characters.models import OFFERS_PENDING_MAX, OfferedChange, Roll
from characters.region_cache import TIMEOUT, region_key, viewer_kind
from characters.selectors import Seat
from characters.sheet_view import sheet_view
from characters.transfer import roll_as_json
from core.prepared import Prepared
from rules import base as rules_base

JSON_TYPE = "application/json; charset=utf-8"  # as django-ninja's renderer sends it
SHEET_REGIONS = ("vitals", "details", "inventory", "hirelings")  # the offers are read afresh (sheet_json)

# A sheet's pending offers, read on every API read of it: compiled once per process (core.prepared; issue 39).
_PENDING_OFFERS = Prepared(
    lambda pk: OfferedChange.objects.filter(character_id=pk, status=OfferedChange.Status.PENDING),
    1,
    limit=OFFERS_PENDING_MAX,
)


def jsonable(value: Any) -> Any:
    """The rules' values (dataclasses, tuples, mappings) as plain JSON."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def track_json(track: rules_base.Track) -> dict[str, Any]:
    return {**jsonable(track), "shown": track.shown}


def sheet_json(user, seat: Seat, *, checked: rules_base.Sheet | None = None) -> dict[str, Any]:
    """The sheet as its page shows it to this viewer: the same read (``sheet_view``), as data. ``checked``: the
    whole sheet as a write just checked it (``Written.sheet``).

    Kept in Django's cache under the key the sheet's drawn regions use (``region_key``: the character's version
    and saved time, the viewer's kind, the table's settings and conditions, the build), so a call on an unchanged
    sheet reads no rules and no rows but its pending offers, which move no version and are read afresh."""
    kind = viewer_kind(seat.viewer)
    return {**_kept_body(user, seat, kind, checked), **_per_call(seat, kind)}


def _kept_body(user, seat: Seat, kind: str, checked: rules_base.Sheet | None = None) -> dict[str, Any]:
    key = region_key(seat.character, kind, "api-sheet")
    body = cache.get(key)
    if body is None:
        body = _sheet_body(user, seat, checked)
        cache.set(key, body, TIMEOUT)
    return body


def _per_call(seat: Seat, kind: str) -> dict[str, Any]:
    """What a sheet's JSON holds that no version of it keeps: the owner's name, the viewer's seat, the offers."""
    character = seat.character
    return {
        "owner": character.owner.username,
        "viewer": {"kind": kind, "can_edit": seat.viewer.can_edit},
        "offers": [
            {"id": o.pk, "label": o.label, "summary": o.summary, "before": o.before, "after": o.after}
            for o in _PENDING_OFFERS.rows(character.pk)
        ],
    }


def sheet_answer(user, seat: Seat, schema: type[Schema]) -> HttpResponse:
    """The API read of a sheet: its answer checked against ``schema`` and rendered as django-ninja renders it, kept
    by the sheet's region key and what no version keeps (the owner's name, the seat, the offers, read on every
    call): a kept answer is neither rebuilt nor checked again (issue 39)."""
    character = seat.character
    kind = viewer_kind(seat.viewer)
    per_call = _per_call(seat, kind)
    digest = hashlib.blake2b(json.dumps(per_call, sort_keys=True, default=str).encode(), digest_size=12).hexdigest()
    key = f"{region_key(character, kind, 'api-sheet-json')}:{digest}"
    rendered = cache.get(key)
    if rendered is None:
        checked = schema.model_validate({**_kept_body(user, seat, kind), **per_call}).model_dump()
        rendered = json.dumps(checked, cls=NinjaJSONEncoder).encode()
        cache.set(key, rendered, TIMEOUT)
    return HttpResponse(rendered, content_type=JSON_TYPE)


def _sheet_body(user, seat: Seat, checked: rules_base.Sheet | None = None) -> dict[str, Any]:
    """What a sheet's JSON holds that only a write moves (all but the offers, the owner's name and the seat)."""
    view = sheet_view(user, seat, regions=SHEET_REGIONS, controls=False, personal=False, checked=checked)
    character = seat.character
    return {
        "id": character.pk,
        "name": character.name,
        "system": character.system,
        "campaign_id": character.campaign_id,
        "version": character.version,
        "updated_at": character.updated_at.isoformat(),
        "notes": character.notes,
        "state": jsonable(view.state or {}),
        "problem": view.sheet_problem or "",
        "tracks": [track_json(t) for t in view.tracks],
        "conditions": list(view.conditions),
        "banners": jsonable(view.banners),
        "facts": jsonable(view.facts or {}),
        "slots": jsonable(view.slots),
        "coins": view.coins,
        "items": [
            {
                "id": row.item.pk,
                "name": row.item.name,
                "kind": row.item.kind,
                "slots": row.slots,
                "quantity": row.item.quantity,
                "worn": row.item.worn,
                "data": jsonable(row.item.data),
            }
            for row in view.items
        ],
        "hirelings": [
            {
                "id": row.hireling.pk,
                "name": row.hireling.name,
                "kind": row.hireling.kind,
                "state": jsonable(row.hireling.state),
                "wage": row.wage,
            }
            for row in view.hirelings
        ],
    }


def roll_json(roll: Roll, *, gm: bool) -> dict[str, Any]:
    """A roll as the viewer's log shows it, with its ids and the exact odds it was rolled at."""
    return {
        "id": roll.pk,
        "campaign_id": roll.campaign_id,
        "character_id": roll.character_id,
        "character": roll.character.name if roll.character is not None else "",
        "roller": roll.roller.username if roll.roller is not None else "",
        "procedure": roll.procedure,
        **roll_as_json(roll, gm=gm, with_odds=True),
    }


def card_json(card: Card) -> dict[str, Any]:
    character = card.character
    return {
        "id": character.pk,
        "name": character.name,
        "owner": character.owner.username,
        "version": character.version,
        "problem": card.problem,
        "tracks": [track_json(t) for t in card.tracks],
        "conditions": list(card.conditions),
        "slots": jsonable(card.slots),
        "offers_waiting": len(card.offers),
    }


def answer_json(answer: RollRequestAnswer, *, gm: bool) -> dict[str, Any]:
    blind_hidden = answer.request.blind and not gm
    return {
        "character_id": answer.character_id,
        "answered_at": answer.answered_at.isoformat() if answer.answered_at else None,
        "outcome": "" if blind_hidden else answer.outcome,
        "roll_id": answer.roll_id,
        "skipped": answer.skipped,
        "for_player": answer.for_player,
    }


def request_json(request: RollRequest, now, *, answers: list[RollRequestAnswer], gm: bool) -> dict[str, Any]:
    return {
        "id": request.pk,
        "campaign_id": request.campaign_id,
        "procedure": request.procedure,
        "label": request.label,
        "fixed": jsonable(request.inputs),
        "shown": request.shown,
        "blind": request.blind,
        "status": request.status,
        "open": request.is_open(now),
        "expires_at": request.expires_at.isoformat(),
        "group_outcome": "" if request.group_hidden(gm=gm) else request.group_outcome,
        "group_summary": "" if request.group_hidden(gm=gm) else request.group_summary,
        "rule": request.rule,
        "group_seen": request.group_seen,
        "group_odds": {} if request.group_hidden(gm=gm) else dict(request.group_odds or []),
        "shared_check": request.shared_check,
        "per_system": {
            system_id: {"procedure": a.procedure, "label": a.label, "fixed": jsonable(a.inputs), "shown": a.shown}
            for system_id in request.per_system or {}
            for a in [request.asked_of(system_id)]
        },
        "answers": [answer_json(a, gm=gm) for a in answers],
    }
