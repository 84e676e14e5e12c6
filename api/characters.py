"""Characters through the API: the list a token reaches, a sheet, the rolls it offers, its waiting requests, and
a change to a track (through characters.commands, as the sheet's +/-)."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from django.utils import timezone
from ninja import Field, Router, Schema
from ninja.responses import codes_4xx

from api import serialize
from api.access import character_seat, token_of
from api.common import Detail, RequestOut, TrackOut
from campaigns.models import RollRequest, RollRequestAnswer
from characters import commands
from characters.models import Character
from rules import SYSTEMS

router = Router()


class Viewer(Schema):
    kind: Literal["gm", "owner", "peer"]
    can_edit: bool


class SheetOut(Schema):
    id: int
    name: str
    system: str
    campaign_id: int | None
    owner: str
    version: int
    updated_at: str
    viewer: Viewer
    notes: str
    state: dict[str, Any]
    problem: str = Field(
        description="Why the rules can't read the sheet, when they can't (the numbers are then empty)."
    )
    tracks: list[TrackOut]
    conditions: list[str]
    banners: list[dict[str, Any]]
    facts: dict[str, Any]
    slots: dict[str, Any] | None
    coins: str | None
    items: list[dict[str, Any]]
    hirelings: list[dict[str, Any]]
    offers: list[dict[str, Any]]


class CharacterRow(Schema):
    id: int
    name: str
    system: str
    campaign_id: int | None
    version: int


class ParamOut(Schema):
    name: str
    label: str
    kind: Literal["int", "bool", "choice", "multichoice", "text", "character"]
    default: Any = None
    minimum: int | None = None
    maximum: int | None = None
    choices: list[list[str]] = Field(description="[value, words] pairs; for a character, the others at the table.")
    help: str


class ProcedureOut(Schema):
    key: str
    label: str
    gm_only: bool
    params: list[ParamOut]


class TrackIn(Schema):
    key: str = Field(max_length=40)
    delta: int = Field(ge=-1000, le=1000)


@router.get("/characters", response={200: list[CharacterRow], codes_4xx: Detail}, url_name="characters")
def characters(request: HttpRequest):
    """The characters this token reaches: your own (read, play), or those at its table (table)."""
    token = token_of(request)
    rows = Character.objects.filter(campaign_id=token.campaign_id) if token.campaign_id else token.user.characters
    return list(rows.order_by("pk").values("id", "name", "system", "campaign_id", "version")[:500])


@router.get("/characters/{id:character_id}", response={200: SheetOut, codes_4xx: Detail}, url_name="character")
def character(request: HttpRequest, character_id: int):
    """The sheet with exactly what its page shows you: private fields only to its owner and the GM."""
    seat = character_seat(request, character_id)
    return serialize.sheet_answer(token_of(request).user, seat, SheetOut)


@router.get(
    "/characters/{id:character_id}/procedures",
    response={200: list[ProcedureOut], codes_4xx: Detail},
    url_name="character_procedures",
)
def character_procedures(request: HttpRequest, character_id: int):
    """The rolls this sheet offers you, with their inputs as its roll panel shows them: the GM's rolls and inputs
    only to the GM."""
    seat = character_seat(request, character_id)
    character, gm = seat.character, seat.viewer.is_gm
    rules = SYSTEMS.get(character.system)
    if rules is None or not seat.viewer.can_edit:
        return []
    sheet = character.checked_sheet()
    table = [[str(pk), name] for pk, name in _others_at_table(character)]
    return [
        {
            "key": proc.key,
            "label": proc.label,
            "gm_only": proc.gm_only,
            "params": [
                {
                    **serialize.jsonable(param),
                    "choices": table if param.kind == "character" else [[str(v), str(w)] for v, w in param.choices],
                }
                for param in proc.params(sheet)
                if gm or not param.gm_only
            ],
        }
        for proc in rules.procedures().values()
        if gm or not proc.gm_only
    ]


def _others_at_table(character: Character) -> list[tuple[int, str]]:
    if character.campaign_id is None:
        return []
    others = Character.objects.filter(campaign_id=character.campaign_id).exclude(pk=character.pk)
    return list(others.order_by("pk").values_list("pk", "name"))


@router.get(
    "/characters/{id:character_id}/requests",
    response={200: list[RequestOut], codes_4xx: Detail},
    url_name="character_requests",
)
def character_requests(request: HttpRequest, character_id: int):
    """The GM's roll requests waiting for this character (answer them below)."""
    seat = character_seat(request, character_id)
    now = timezone.now()
    waiting = (
        RollRequestAnswer.objects.filter(
            character=seat.character,
            answered_at__isnull=True,
            request__status=RollRequest.Status.OPEN,
            request__expires_at__gt=now,
        )
        .select_related("request")
        .order_by("request__created_at", "pk")
    )
    gm = seat.viewer.is_gm
    return [serialize.request_json(a.request, now, answers=[a], gm=gm) for a in waiting]


@router.post(
    "/characters/{id:character_id}/tracks", response={200: SheetOut, codes_4xx: Detail}, url_name="character_track"
)
def character_track(request: HttpRequest, character_id: int, payload: TrackIn):
    """Change a track (HP, stress…) by a whole number, as the sheet's +/- does; the rules clamp it."""
    seat = character_seat(request, character_id, write=True)
    user = token_of(request).user
    written = commands.adjust(seat, key=payload.key, delta=payload.delta, by=user)
    return serialize.sheet_json(user, character_seat(request, character_id), checked=written.sheet)
