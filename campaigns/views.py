"""Campaign pages: HTTP only. Authorise through selectors, change through services."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaigns import services
from campaigns.forms import CampaignForm, JoinForm, MemberForm
from campaigns.models import Campaign
from campaigns.selectors import campaigns_of, campaigns_run_by, membership_of, my_campaigns
from config.htmx import HtmxHttpRequest


def campaign_list(request: HtmxHttpRequest) -> HttpResponse:
    return _render_list(request, CampaignForm(), JoinForm())


def _render_list(request, form: CampaignForm, join_form: JoinForm, status: int = 200) -> HttpResponse:
    context = {"seats": my_campaigns(request.user), "form": form, "join_form": join_form}
    return render(request, "campaigns/list.html", context, status=status)


@require_POST
def campaign_create(request: HtmxHttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST)
    if not form.is_valid():
        return _render_list(request, form, JoinForm(), status=400)
    campaign = services.campaign_create(
        name=form.cleaned_data["name"], system=form.cleaned_data["system"], gm=request.user
    )
    messages.success(request, f"{campaign.name} is ready. Share the invite link with your players.")
    return redirect(campaign)


def campaign_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    membership = membership_of(request.user, campaign)
    return render(request, "campaigns/detail.html", _table_context(request, campaign, membership))


def _table_context(request, campaign: Campaign, membership) -> dict:
    memberships = campaign.memberships.select_related("user")
    context = {"campaign": campaign, "membership": membership, "memberships": memberships}
    if membership.is_gm:
        context["invite_url"] = request.build_absolute_uri(reverse("campaigns:join", args=[campaign.invite_code]))
    return context


def join_by_form(request: HtmxHttpRequest) -> HttpResponse:
    form = JoinForm(request.POST or request.GET or None)
    if form.is_valid():
        return redirect("campaigns:join", code=form.cleaned_data["code"])
    return _render_list(request, CampaignForm(), form, status=400)


def campaign_join(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """GET shows what you are joining; POST joins. A bad or old code says so, politely."""
    campaign = Campaign.objects.filter(invite_code=code).first()
    if campaign is None:
        return render(request, "campaigns/join_invalid.html", status=404)
    if request.method == "POST":
        campaign, created = services.campaign_join(invite_code=code, user=request.user)
        if created:
            messages.success(request, f"You joined {campaign.name}.")
        return redirect(campaign)
    if membership_of(request.user, campaign):
        return redirect(campaign)
    return render(request, "campaigns/join.html", {"campaign": campaign, "code": code})


@require_POST
def regenerate_invite(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    services.campaign_regenerate_invite(campaign=campaign)
    messages.success(request, "New invite link made: the old one no longer works.")
    return redirect(campaign)


@require_POST
def remove_player(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    return _member_action(request, campaign, services.campaign_remove_player, "{name} has left the table.")


@require_POST
def transfer_gm(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    return _member_action(request, campaign, _transfer, "{name} is now the GM.")


def _transfer(*, campaign: Campaign, user_id: int) -> None:
    services.campaign_transfer_gm(campaign=campaign, to_user_id=user_id)


def _member_action(request, campaign: Campaign, action, success: str) -> HttpResponse:
    form = MemberForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Pick a person at this table.")
        return redirect(campaign)
    membership = campaign.memberships.select_related("user").filter(user_id=form.cleaned_data["user_id"]).first()
    try:
        if membership is None:
            raise services.CampaignError("That person is not at this table.")
        action(campaign=campaign, user_id=membership.user_id)
    except services.CampaignError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, success.format(name=membership.user.username))
    return redirect(campaign)


@require_POST
def leave(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    try:
        services.campaign_leave(campaign=campaign, user=request.user)
    except services.CampaignError as error:
        messages.error(request, str(error))
        return redirect(campaign)
    messages.success(request, f"You left {campaign.name}.")
    return redirect("campaigns:list")
