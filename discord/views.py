"""Discord's door: the interactions endpoint Discord posts to, and the two Lantern pages that link to it (an
account's Discord page, a campaign's Discord page for its GM)."""

from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from campaigns.selectors import campaigns_run_by
from core.htmx import HtmxHttpRequest
from discord import interactions, linking, signature
from discord.models import ChannelLink, LinkCode, UserLink
from rules.errors import Refusal

NOT_SET_UP = (
    "Discord is not set up on this Lantern: set DISCORD_PUBLIC_KEY and DISCORD_APPLICATION_ID (docs/discord.md)."
)


def _refused(sentence: str, status: int) -> JsonResponse:
    return JsonResponse({"detail": sentence}, status=status)


@csrf_exempt  # Discord signs its posts with Ed25519 instead (checked first thing): no cookie, no CSRF token
@login_not_required
@require_POST
def endpoint(request: HttpRequest) -> HttpResponse:
    """Discord's HTTP interactions endpoint: the signature checked over the raw body, a replay refused, then the
    interaction answered (discord.interactions)."""
    key = settings.DISCORD_PUBLIC_KEY
    if not key:
        return _refused(NOT_SET_UP, 404)
    body = request.body
    try:
        signature.verify(
            key_hex=key,
            signature=request.headers.get("X-Signature-Ed25519", ""),
            timestamp=request.headers.get("X-Signature-Timestamp", ""),
            body=body,
        )
    except signature.NotDiscord as refusal:
        return _refused(str(refusal), 401)
    try:
        interaction = json.loads(body)
    except ValueError:
        return _refused("Send the interaction as JSON.", 400)
    if not isinstance(interaction, dict):
        return _refused("Send the interaction as a JSON object.", 400)
    application = settings.DISCORD_APPLICATION_ID
    if application and str(interaction.get("application_id")) != application:
        return _refused("That interaction is for another application.", 400)
    try:
        signature.first_time(str(interaction.get("id") or ""))
        return JsonResponse(interactions.answer(interaction))
    except Refusal as refusal:
        return _refused(str(refusal), refusal.status if 400 <= refusal.status < 500 else 400)


def account(request: HtmxHttpRequest) -> HttpResponse:
    """The account's Discord page: its link, a one-time code to make one (shown on this answer only), unlink."""
    link = UserLink.objects.filter(user=request.user).first()
    code = ""
    if request.method == "POST":
        if request.POST.get("action") == "unlink":
            linking.unlink_user(user=request.user)
            messages.success(request, "Unlinked: your Discord user no longer plays as you.")
            return redirect("discord:account")
        code = linking.code_make(user=request.user, kind=LinkCode.Kind.USER)
    configured = bool(settings.DISCORD_PUBLIC_KEY)
    context = {"link": link, "code": code, "minutes": linking.CODE_MINUTES, "configured": configured}
    response = render(request, "discord/account.html", context)
    if code:
        response["Cache-Control"] = "no-store"  # the code is on this page: never kept by a browser or a proxy
    return response


def campaign(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A campaign's Discord page, its GM's: the channels that play it (each unlinked here) and a channel code."""
    table = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    code = ""
    if request.method == "POST":
        code = linking.code_make(user=request.user, kind=LinkCode.Kind.CHANNEL, campaign_id=table.pk)
    channels = ChannelLink.objects.filter(campaign=table)
    context = {"campaign": table, "channels": channels, "code": code, "minutes": linking.CODE_MINUTES}
    response = render(request, "discord/campaign.html", context)
    if code:
        response["Cache-Control"] = "no-store"
    return response


@require_POST
def channel_unlink(request: HtmxHttpRequest, pk: int, link_id: int) -> HttpResponse:
    table = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    link = ChannelLink.objects.filter(campaign=table, pk=link_id).first()
    if link is None:
        messages.error(request, "That channel is unlinked already.")
    else:
        linking.unlink_channel(user=request.user, channel_id=link.channel_id)
        messages.success(request, "Unlinked: that channel no longer plays this campaign.")
    return redirect("discord:campaign", table.pk)
