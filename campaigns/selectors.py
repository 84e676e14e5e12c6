"""Permission-scoped reads: every campaign lookup in a view goes through these."""

from __future__ import annotations

from django.db.models import QuerySet

from campaigns.models import GM_ROLES, Campaign, Membership


def campaigns_of(user) -> QuerySet[Campaign]:
    """Campaigns the user sits at, as GM or player; anything else is a 404 for them."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    return Campaign.objects.filter(memberships__user=user)


def campaigns_run_by(user) -> QuerySet[Campaign]:
    """Campaigns the user runs: as their owner or a co-GM (GM_ROLES)."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    return Campaign.objects.filter(memberships__user=user, memberships__role__in=GM_ROLES)


def campaigns_owned_by(user) -> QuerySet[Campaign]:
    """Campaigns whose owner's seat is the user's: who names co-GMs and hands the table over."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    return Campaign.objects.filter(memberships__user=user, memberships__role=Membership.Role.GM)


def membership_of(user, campaign: Campaign) -> Membership | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(campaign=campaign, user=user).first()


def seats_of(user) -> QuerySet[Membership]:
    """The user's seats with their campaigns: one query gives a table they sit at and their place at it
    (a campaign without their seat is a 404 for them, as with campaigns_of)."""
    if not user.is_authenticated:
        return Membership.objects.none()
    return Membership.objects.filter(user=user).select_related("campaign")


def my_campaigns(user) -> QuerySet[Membership]:
    """The user's seats, with their campaign, for the "My campaigns" list."""
    return Membership.objects.filter(user=user).select_related("campaign").order_by("campaign__name", "campaign__pk")


def sits_at(user, campaign_id: int) -> bool:
    """Whether the user may open this campaign's live stream (settings.LIVE_MEMBERSHIP_CHECK)."""
    return campaigns_of(user).filter(pk=campaign_id).exists()
