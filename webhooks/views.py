"""The webhook pages: a campaign's (its GM's) and a character's (its owner's), where they are added and removed
and their latest deliveries read."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaigns.models import Campaign
from campaigns.selectors import campaigns_run_by
from characters.models import Character
from webhooks.forms import WebhookForm
from webhooks.models import Delivery, Webhook

# Webhooks one owner may keep on one campaign or character.
PER_PLACE_MAX = 5
DELIVERIES_SHOWN = 10
SECRET_KEY = "webhook-secret"  # the session key that holds a new webhook's secret until its page shows it once


def campaign_hooks(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    # Its own: after the table changes hands, the old GM's webhooks send nothing (webhooks.payloads.Audience).
    hooks = Webhook.objects.filter(campaign=campaign, character=None, owner_id=request.user.pk)
    here = reverse("webhooks:campaign", args=[campaign.pk])
    return _page(request, hooks, campaign=campaign, character=None, here=here)


def character_hooks(request: HttpRequest, pk: int) -> HttpResponse:
    character = get_object_or_404(Character.objects.select_related("campaign"), pk=pk, owner_id=request.user.pk)
    hooks = Webhook.objects.filter(character=character, owner_id=request.user.pk)
    here = reverse("webhooks:character", args=[character.pk])
    return _page(request, hooks, campaign=character.campaign, character=character, here=here)


def _page(
    request: HttpRequest,
    hooks: QuerySet[Webhook],
    *,
    campaign: Campaign | None,
    character: Character | None,
    here: str,
) -> HttpResponse:
    form = WebhookForm(request.POST or None)
    if character is not None:  # a session's chronicle goes to the table's webhooks only
        del form.fields["sessions"]
    status = 200
    if request.method == "POST":
        if campaign is None:
            form.add_error(None, "This character sits at no table: webhooks carry a table's events. Join one first.")
        elif hooks.count() >= PER_PLACE_MAX:
            form.add_error(None, f"You have {PER_PLACE_MAX} webhooks here already: remove one first.")
        if form.is_valid() and campaign is not None:
            hook = form.save(commit=False)
            hook.campaign, hook.character, hook.owner_id = campaign, character, request.user.pk
            hook.save()
            request.session[SECRET_KEY] = [hook.pk, hook.secret]
            messages.success(request, f"Webhook {hook.name} added.")
            return redirect(here)
        status = 400
    elif request.method != "GET":
        return HttpResponse("Use GET or POST.", status=405)
    rows = list(hooks.select_related("campaign"))
    for hook in rows:
        hook.latest = list(Delivery.objects.filter(webhook=hook).only(*_SHOWN)[:DELIVERIES_SHOWN])  # type: ignore[attr-defined]
    new_secret = request.session.pop(SECRET_KEY, None)
    context = {
        "campaign": campaign,
        "character": character,
        "hooks": rows,
        "form": form,
        "here": here,
        "new_secret": new_secret,
    }
    return render(request, "webhooks/hooks.html", context, status=status)


_SHOWN = ("id", "webhook_id", "kinds", "status", "attempts", "created_at", "delivered_at", "response_status", "reason")


def _own_hook(request: HttpRequest, pk: int) -> tuple[Webhook, str]:
    """The user's own webhook and the page it is listed on; 404 for anyone else's."""
    hook = Webhook.objects.filter(pk=pk, owner_id=request.user.pk).first()
    if hook is None:
        raise Http404("No webhook here.")
    back = (
        reverse("webhooks:character", args=[hook.character_id])
        if hook.character_id
        else reverse("webhooks:campaign", args=[hook.campaign_id])
    )
    return hook, back


@require_POST
def delete(request: HttpRequest, pk: int) -> HttpResponse:
    hook, back = _own_hook(request, pk)
    hook.delete()
    messages.success(request, f"Webhook {hook.name} removed.")
    return redirect(back)


@require_POST
def resume(request: HttpRequest, pk: int) -> HttpResponse:
    hook, back = _own_hook(request, pk)
    if hook.active:
        messages.info(request, f"Webhook {hook.name} is not paused.")
    else:
        hook.resume()
        messages.success(request, f"Webhook {hook.name} resumed: the next event is sent to it.")
    return redirect(back)
