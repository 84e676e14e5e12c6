"""The API's endpoints: thin, like the pages' views. Authorise (api.access), call the pages' service or read model,
answer JSON; a refusal answers ``{"detail": "<the page's sentence>"}`` with a 4xx.

django-ninja: typed inputs checked by pydantic, the OpenAPI schema and its docs page built from the same
declarations, and plain Django views underneath (our middleware, settings and test client as they are)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import OperationalError
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse, QueryDict
from django.utils import timezone
from ninja import Field, NinjaAPI, Query, Schema, Swagger
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser
from ninja.responses import codes_4xx

from api import serialize
from api.access import TokenAuth, character_seat, table_seat, token_of
from campaigns import session
from campaigns.models import RollRequest, RollRequestAnswer
from campaigns.session_view import REQUESTS_SHOWN
from campaigns.table import party_cards, roll_log
from characters import services
from characters.forms import raw_params
from characters.models import Character, Roll
from core.busy import busy_answer, is_busy
from core.converters import MAX_ID
from core.json_body import NOT_AN_OBJECT, MalformedJson, json_object
from rules import SYSTEMS, RulesError
from rules.base import CHECKBOX_ON
from rules.errors import Refusal, Settled


class ObjectParser(Parser):
    """A body is one JSON object: a list or a bare number is refused like text that is not JSON (a 400)."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        return json_object(request.body)  # MalformedJson: ninja's 400, answered with its sentence (http_error)


api = NinjaAPI(
    title="Lantern API",
    version="1",
    description=(
        "Read sheets, the roll log and the party; roll, change a track and answer the GM's roll requests, with an "
        "API token made on your account page (Authorization: Bearer lt_…). See docs/api.md."
    ),
    urls_namespace="api",
    auth=TokenAuth(),
    docs=Swagger(),
    parser=ObjectParser(),
)

Id = Annotated[int, Field(ge=1, le=MAX_ID)]


# --- what goes in and out ---------------------------------------------------------------------


class Detail(Schema):
    detail: str = Field(description="What was refused, in the sentence the page shows.")


class TrackOut(Schema):
    key: str
    label: str
    current: int
    shown: int
    maximum: int | None
    minimum: int
    adjustable: bool


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


class RollOut(Schema):
    id: int
    campaign_id: int | None
    character_id: int | None
    character: str
    roller: str
    procedure: str
    label: str
    at: str
    visibility: Literal["public", "gm", "private", "blind"]
    rolled_by_hand: bool
    undone: bool
    outcome: str | None = None
    dice: list[dict[str, Any]] | None = None
    total: int | None = None
    summary: str | None = None
    odds: dict[str, str] | None = Field(None, description='Exact odds it was rolled at: {"outcome": "3/4"}.')
    result: str | None = Field(None, description="Instead of the result, for a blind roll seen by its roller.")
    voided: dict[str, Any] | None = None


class RollIn(Schema):
    params: dict[str, Any] = Field(default_factory=dict, description="The roll's inputs by name, as the sheet's form.")
    visibility: Literal["public", "gm", "private", "blind"] = "public"
    hand: str = Field("", max_length=400, description="Faces of dice rolled at the table, where it allows them.")
    version: Id | None = Field(None, description="The sheet's version you rolled against: refused if it moved on.")


class Rolled(Schema):
    roll: RollOut
    odds: dict[str, str] = Field(description="The exact odds of each outcome, as fractions.")
    sheet_version: int


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


class OddsIn(Schema):
    params: dict[str, Any] = Field(default_factory=dict, description="The roll's inputs by name, as for a roll.")


class OddsOut(Schema):
    odds: dict[str, str] | None = Field(description="Exact odds of each outcome; null when no dice decide it.")
    settled: str = Field("", description="What the sheet already answers, when it does (“The dead take no more…”).")


class TrackIn(Schema):
    key: str = Field(max_length=40)
    delta: int = Field(ge=-1000, le=1000)


class CardOut(Schema):
    id: int
    name: str
    owner: str
    version: int
    problem: str
    tracks: list[TrackOut]
    conditions: list[str]
    slots: dict[str, Any] | None
    offers_waiting: int


class AnswerOut(Schema):
    character_id: int
    answered_at: str | None
    outcome: str
    roll_id: int | None


class RequestOut(Schema):
    id: int
    campaign_id: int
    procedure: str
    label: str
    fixed: dict[str, Any]
    shown: str
    blind: bool
    status: str
    open: bool
    expires_at: str
    group_outcome: str
    group_summary: str
    answers: list[AnswerOut]


class AnswerIn(Schema):
    params: dict[str, Any] = Field(default_factory=dict, description="The inputs the GM left to the player.")
    hand: str = Field("", max_length=400)


class Answered(Schema):
    request_id: int
    character_id: int
    roll: RollOut


class LogOut(Schema):
    rolls: list[RollOut]
    older: bool = Field(description="Whether older rolls exist: ask again with before=<the last id>.")


class Me(Schema):
    username: str
    token: str
    scope: str
    campaign_id: int | None


class LogQuery(Schema):
    before: Id | None = None


# --- errors: the page's sentence, a 4xx ------------------------------------------------------

# A field the pages check with a form of their own: its sentence, whatever pydantic found wrong.
FIELD_SENTENCES = {
    ("character_roll", "visibility"): "Pick who may see this roll.",
    ("character_roll", "version"): "Pick who may see this roll.",
    ("character_roll", "hand"): "Pick who may see this roll.",
    ("character_track", "key"): "Change a track by a whole number between -1000 and 1000.",
    ("character_track", "delta"): "Change a track by a whole number between -1000 and 1000.",
}


def _error(request: HttpRequest, detail: str, status: int) -> HttpResponse:
    return api.create_response(request, {"detail": detail}, status=status)


@api.exception_handler(ValidationError)
def invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    name = (request.resolver_match.url_name if request.resolver_match else "") or ""
    for error in exc.errors:
        loc = [str(part) for part in error.get("loc", ())]
        field = next((part for part in loc if part not in ("body", "payload", "query", "path", "filters")), "")
        if (name, field) in FIELD_SENTENCES:
            return _error(request, FIELD_SENTENCES[(name, field)], 422)
        if not field:
            return _error(request, "Send the body as a JSON object.", 400 if loc[:1] == ["body"] else 422)
        if field == "params":
            return _error(request, 'Send the roll\'s inputs as an object: {"name": value}.', 422)
        said = str(error.get("msg") or "not understood").rstrip(".")
        return _error(request, f"{field}: {said}.", 422)
    return _error(request, "The request could not be read.", 422)


@api.exception_handler(Refusal)
def refused(request: HttpRequest, exc: Refusal) -> HttpResponse:
    response = _error(request, str(exc), exc.status if 400 <= exc.status < 500 else 422)
    if response.status_code == 401:  # an expired token (accounts.tokens.TokenExpired)
        response["WWW-Authenticate"] = "Bearer"
    return response


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    if exc.status_code == 400 and isinstance(exc.__cause__, MalformedJson):  # ninja's, for a body json_object refused
        return _error(request, str(exc.__cause__), 400)
    if exc.status_code == 400 and exc.message.startswith("Cannot parse request body"):
        return _error(request, NOT_AN_OBJECT, 400)
    return _error(request, exc.message, exc.status_code)


@api.exception_handler(RequestDataTooBig)
def too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    """A body over Django's limit (DATA_UPLOAD_MAX_MEMORY_SIZE): a JSON 413 saying the limit, never Django's
    HTML 400 (nor, with DEBUG on, a 500 from the parser that read it)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    said = f" of {limit:,} bytes" if limit else ""
    return _error(request, f"The body is over the limit{said}: send less.", 413)


@api.exception_handler(OperationalError)
def busy(request: HttpRequest, exc: OperationalError) -> HttpResponse:
    """ninja hands an error it has no handler for to Django (a 500 page); busy is the API's 503 with its sentence."""
    if not is_busy(exc):
        raise exc
    return busy_answer(request)


@api.exception_handler(AuthenticationError)
def unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    response = _error(request, "Send a live API token: Authorization: Bearer lt_… (made on your account page).", 401)
    response["WWW-Authenticate"] = "Bearer"
    return response


# --- reading ---------------------------------------------------------------------------------


@api.get("/me", response={200: Me, codes_4xx: Detail}, url_name="me", summary="Whose token this is")
def me(request: HttpRequest):
    token = token_of(request)
    return {
        "username": token.user.username,
        "token": token.name,
        "scope": token.scope,
        "campaign_id": token.campaign_id,
    }


@api.get("/characters", response={200: list[CharacterRow], codes_4xx: Detail}, url_name="characters")
def characters(request: HttpRequest):
    """The characters this token reaches: your own (read, play), or those at its table (table)."""
    token = token_of(request)
    rows = Character.objects.filter(campaign_id=token.campaign_id) if token.campaign_id else token.user.characters
    return list(rows.order_by("pk").values("id", "name", "system", "campaign_id", "version")[:500])


@api.get("/characters/{id:character_id}", response={200: SheetOut, codes_4xx: Detail}, url_name="character")
def character(request: HttpRequest, character_id: int):
    """The sheet with exactly what its page shows you: private fields only to its owner and the GM."""
    seat = character_seat(request, character_id)
    return serialize.sheet_json(token_of(request).user, seat)


@api.get(
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


@api.get(
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


@api.get("/campaigns/{id:campaign_id}/log", response={200: LogOut, codes_4xx: Detail}, url_name="log")
def log(request: HttpRequest, campaign_id: int, filters: Query[LogQuery]):
    """The table's rolls you may see, newest first, 50 at a time: GM-only and blind results to the GM alone,
    private rolls to their roller alone, as the table page shows them."""
    seat = table_seat(request, campaign_id)
    rolls, older = roll_log(token_of(request).user, seat.campaign, before=filters.before, role=seat.role)
    return {"rolls": [serialize.roll_json(r, gm=seat.is_gm) for r in rolls], "older": older}


@api.get("/campaigns/{id:campaign_id}/party", response={200: list[CardOut], codes_4xx: Detail}, url_name="party")
def party(request: HttpRequest, campaign_id: int):
    """Every character's tracks, conditions and load at the table, as the GM's cards show them (table token)."""
    seat = table_seat(request, campaign_id, gm=True)
    return [serialize.card_json(card) for card in party_cards(seat.campaign)]


@api.get(
    "/campaigns/{id:campaign_id}/requests", response={200: list[RequestOut], codes_4xx: Detail}, url_name="requests"
)
def requests(request: HttpRequest, campaign_id: int):
    """The table's newest roll requests with their answers (table token)."""
    seat = table_seat(request, campaign_id, gm=True)
    now = timezone.now()
    rows = seat.campaign.roll_requests.prefetch_related(
        Prefetch("answers", queryset=RollRequestAnswer.objects.order_by("pk"), to_attr="answer_rows")
    )[:REQUESTS_SHOWN]
    return [serialize.request_json(r, now, answers=r.answer_rows, gm=True) for r in rows]


# --- writing: the pages' services ------------------------------------------------------------


def _form_inputs(procedure_key: str, params: dict[str, Any], *, prefixed: bool) -> QueryDict:
    """JSON inputs as the sheet's form sends them, so the page's own checks (raw_params) read them: true is a
    ticked box, false or null one left out, a list a multi-choice."""
    query = QueryDict(mutable=True)
    for name, value in params.items():
        key = f"{procedure_key}-{name}" if prefixed else name
        if value is None or value is False:
            continue
        if value is True:
            query[key] = CHECKBOX_ON
        elif isinstance(value, list) and all(isinstance(v, str | int) and not isinstance(v, bool) for v in value):
            query.setlist(key, [str(v) for v in value])
        elif isinstance(value, str | int | float):
            query[key] = str(value)
        else:
            raise RulesError(f"{name}: give a number, a word, true or false, or a list of words.")
    return query


@api.post(
    "/characters/{id:character_id}/rolls/{procedure}",
    response={200: Rolled, codes_4xx: Detail},
    url_name="character_roll",
)
def character_roll(request: HttpRequest, character_id: int, procedure: str, payload: RollIn):
    """Roll a procedure from the sheet, as its roll panel does: the same checks, the roll cap, the dice on the
    server (or typed in, where the table allows it); the result comes with its exact odds."""
    seat = character_seat(request, character_id, write=True)
    character, user = seat.character, token_of(request).user
    rules = SYSTEMS.get(character.system)
    if rules is None:
        raise HttpError(404, "No character here.")
    proc = rules.procedures().get(procedure)
    gm = seat.viewer.is_gm
    if proc is None:
        raise RulesError(f"{rules.name} has no roll called {procedure!r}.")
    if proc.gm_only and not gm:
        raise RulesError(f"Only the GM makes the {proc.label} roll.")
    inputs = _form_inputs(proc.key, payload.params, prefixed=True)
    written = services.character_roll(
        character_id=character.pk,
        procedure=procedure,
        params=raw_params(proc, character.checked_sheet(), inputs, gm=gm, prefixed=True, refuse_others=True),
        by=user,
        visibility=payload.visibility,
        expected_version=payload.version,
        hand=payload.hand.strip() or None,
    )
    roll = Roll.objects.select_related("character", "roller", "voided_by").get(pk=written.row.pk)
    shown = serialize.roll_json(roll, gm=gm)
    return {"roll": shown, "odds": shown.get("odds") or {}, "sheet_version": written.character.version}


@api.post(
    "/characters/{id:character_id}/odds/{procedure}",
    response={200: OddsOut, codes_4xx: Detail},
    url_name="character_odds",
)
def character_odds(request: HttpRequest, character_id: int, procedure: str, payload: OddsIn):
    """The exact odds of a roll with these inputs, without rolling it (the roll panel's odds box)."""
    seat = character_seat(request, character_id)
    character, gm = seat.character, seat.viewer.is_gm
    rules = SYSTEMS.get(character.system)
    proc = rules.procedures().get(procedure) if rules is not None else None
    if rules is None or not seat.viewer.can_edit or proc is None or (proc.gm_only and not gm):
        raise HttpError(404, f"No roll called {procedure!r} here.")
    sheet = character.checked_sheet()
    inputs = _form_inputs(proc.key, payload.params, prefixed=True)
    params = raw_params(proc, sheet, inputs, gm=gm, prefixed=True, refuse_others=True)
    try:
        odds = services.character_odds(character, procedure, params, sheet=sheet)
    except Settled as settled:
        return {"odds": None, "settled": str(settled)}
    return {"odds": services.odds_as_json(odds) if odds is not None else None}


@api.post(
    "/characters/{id:character_id}/tracks", response={200: SheetOut, codes_4xx: Detail}, url_name="character_track"
)
def character_track(request: HttpRequest, character_id: int, payload: TrackIn):
    """Change a track (HP, stress…) by a whole number, as the sheet's +/- does; the rules clamp it."""
    seat = character_seat(request, character_id, write=True)
    user = token_of(request).user
    services.character_adjust(character_id=seat.character.pk, key=payload.key, delta=payload.delta, by=user)
    fresh = character_seat(request, character_id)
    return serialize.sheet_json(user, fresh)


@api.post(
    "/characters/{id:character_id}/requests/{id:request_id}/answer",
    response={200: Answered, codes_4xx: Detail},
    url_name="character_answer",
)
def character_answer(request: HttpRequest, character_id: int, request_id: int, payload: AnswerIn):
    """Answer the GM's roll request for this character: one roll, the GM's inputs as set."""
    seat = character_seat(request, character_id, write=True)
    character, user = seat.character, token_of(request).user
    found = RollRequestAnswer.objects.filter(request_id=request_id, character=character).select_related("request")
    answer = found.first()
    if answer is None:  # docs/api.md: nothing there the token's owner may see is a 404
        raise HttpError(404, "That request is not for this character.")
    rules = SYSTEMS.get(character.system)
    proc = rules.procedures().get(answer.request.procedure) if rules is not None else None
    if proc is None:
        raise RulesError("That roll no longer exists.")
    gm = seat.viewer.is_gm  # a request is always at a table: its GM
    given = raw_params(proc, character.checked_sheet(), _form_inputs(proc.key, payload.params, prefixed=False), gm=gm)
    # As on the sheet: only inputs really sent can disagree with the GM's.
    given = {k: v for k, v in given.items() if k not in answer.request.inputs or k in payload.params}
    done = session.request_answer(
        request_id=request_id, character_id=character.pk, params=given, by=user, hand=payload.hand.strip() or None
    )
    roll = Roll.objects.select_related("character", "roller", "voided_by").get(pk=done.row.roll_id)
    return {"request_id": request_id, "character_id": character.pk, "roll": serialize.roll_json(roll, gm=gm)}
