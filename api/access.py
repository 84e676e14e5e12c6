"""Who a call is, and whether its token and its owner may do what it asks: asked on every call.

The token says the most a call may do (its scope); the owner's rights right now say whether they still may (the
pages' own selectors): a player who leaves a table, or a GM who hands it over, loses it through every token at
once. What the owner can't see is a 404, as on the pages; what they could do but the token may not, a 403."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from ninja.errors import HttpError
from ninja.security import HttpBearer

from accounts.models import ApiToken
from accounts.tokens import count_call, runs, token_for
from campaigns.models import Membership
from campaigns.selectors import seats_of
from characters.selectors import Seat, character_for

Scope = ApiToken.Scope


class TokenAuth(HttpBearer):
    """``Authorization: Bearer lt_…``: the token's owner becomes ``request.user`` for this call only (a session
    cookie sent along counts for nothing here, and the token for nothing on the pages)."""

    def authenticate(self, request: HttpRequest, token: str) -> ApiToken | None:
        found = token_for(token)
        if found is None:
            return None
        if found.scope == Scope.TABLE and (found.campaign_id is None or not runs(found.user, found.campaign_id)):
            raise HttpError(403, "This token's owner no longer runs its campaign: it opens nothing.")
        counted = count_call(found)
        if counted is None:  # revoked a moment ago
            return None
        if not counted:
            limit = settings.API_CALLS_PER_MINUTE
            raise HttpError(429, f"That is {limit} calls in a minute with this token: wait a moment.")
        request.user = found.user
        return found


def token_of(request: HttpRequest) -> ApiToken:
    token = request.auth  # type: ignore[attr-defined]  # set by ninja from TokenAuth
    assert isinstance(token, ApiToken)
    return token


def character_seat(request: HttpRequest, character_id: int, *, write: bool = False) -> Seat:
    """The character, read for the token's owner, if the token reaches it: a read or play token the owner's own
    characters, a table token the characters at its table (as their GM). ``write``: to roll or change it."""
    token = token_of(request)
    seat = character_for(token.user, character_id, edit=write)
    if seat is None:
        raise HttpError(404, "No character here.")
    if token.scope == Scope.TABLE:
        if seat.character.campaign_id != token.campaign_id or not seat.viewer.is_gm:
            raise HttpError(403, f"This token is for the table of campaign {token.campaign_id} only.")
        return seat
    if not seat.viewer.is_owner:
        raise HttpError(403, "This token reaches only your own characters: a GM uses a table token.")
    if write and token.scope != Scope.PLAY:
        raise HttpError(403, "This token may only read: make a play token to roll or change a track.")
    return seat


def table_seat(request: HttpRequest, campaign_id: int, *, gm: bool = False) -> Membership:
    """The owner's seat at this table, if the token reaches it: any table they sit at for reading its log, the
    token's own table for a table token. ``gm``: what only the GM sees, through a table token."""
    token = token_of(request)
    seat = seats_of(token.user).filter(campaign_id=campaign_id).first()
    if seat is None:
        raise HttpError(404, "No campaign here.")
    if token.scope == Scope.TABLE and token.campaign_id != campaign_id:
        raise HttpError(403, f"This token is for the table of campaign {token.campaign_id} only.")
    if gm and token.scope != Scope.TABLE:
        raise HttpError(403, "Only the GM sees that, through a table token.")
    return seat
