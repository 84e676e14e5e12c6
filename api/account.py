"""Who a token is: ``/me``."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Schema
from ninja.responses import codes_4xx

from api.access import token_of
from api.common import Detail

router = Router()


class Me(Schema):
    username: str
    token: str
    scope: str
    campaign_id: int | None


@router.get("/me", response={200: Me, codes_4xx: Detail}, url_name="me", summary="Whose token this is")
def me(request: HttpRequest):
    token = token_of(request)
    return {
        "username": token.user.username,
        "token": token.name,
        "scope": token.scope,
        "campaign_id": token.campaign_id,
    }
