"""The API: one NinjaAPI, its routers one per area (api.account, api.characters, api.rolls, api.campaigns, each
with its schemas beside it), and the one place a refusal becomes an answer: ``{"detail": "<the page's
sentence>"}`` with a 4xx.

django-ninja: typed inputs checked by pydantic, the OpenAPI schema and its docs page built from the same
declarations, and plain Django views underneath (our middleware, settings and test client as they are)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI, Swagger
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.operation import Operation
from ninja.parser import Parser

from api import account, campaigns, characters, journal, rolls
from api.access import TokenAuth
from characters.commands import CHOOSE_VISIBILITY, TRACK_DELTA
from core.busy import busy_answer, is_busy
from core.json_body import NOT_AN_OBJECT, MalformedJson, json_object
from rules.errors import Refusal


class ObjectParser(Parser):
    """A body is one JSON object: a list or a bare number is refused like text that is not JSON (a 400)."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        return json_object(request.body)  # MalformedJson: ninja's 400, answered with its sentence (http_error)


class LanternApi(NinjaAPI):
    def get_openapi_operation_id(self, operation: Operation) -> str:
        """The ids programs generated their clients from, as they were when every endpoint lived in one module."""
        return f"api_endpoints_{operation.view_func.__name__}"


api = LanternApi(
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
# In the order the schema listed them when they were one module.
for router in (campaigns.router, characters.router, rolls.router, account.router, journal.router):
    api.add_router("", router)


# --- errors: the page's sentence, a 4xx ------------------------------------------------------

# A field the pages check with a form of their own: its sentence, whatever pydantic found wrong.
FIELD_SENTENCES = {
    ("character_roll", "visibility"): CHOOSE_VISIBILITY,
    ("character_roll", "version"): CHOOSE_VISIBILITY,
    ("character_roll", "hand"): CHOOSE_VISIBILITY,
    ("character_track", "key"): TRACK_DELTA,
    ("character_track", "delta"): TRACK_DELTA,
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
