"""Every write to a campaign or its membership goes through here."""

from __future__ import annotations

from django.db import transaction

from accounts.names import clean_name
from campaigns.models import Campaign, Membership, new_invite_code
from rules import SYSTEM_NAMES


class CampaignError(Exception):
    """A request that cannot be done; the message is shown to the person."""


@transaction.atomic
def campaign_create(*, name: str, system: str, gm) -> Campaign:
    if system not in SYSTEM_NAMES:
        raise CampaignError("Pick one of the game systems Lantern knows.")
    campaign = Campaign.objects.create(name=clean_name(name), system=system)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    return campaign


@transaction.atomic
def campaign_join(*, invite_code: str, user) -> tuple[Campaign, bool]:
    """Join by invite code; returns the campaign and whether the user is new at its table."""
    campaign = Campaign.objects.select_for_update().filter(invite_code=invite_code.strip()).first()
    if campaign is None:
        raise CampaignError("That invite code does not open any campaign. Ask your GM for the current link.")
    _, created = Membership.objects.get_or_create(
        campaign=campaign, user=user, defaults={"role": Membership.Role.PLAYER}
    )
    return campaign, created


@transaction.atomic
def campaign_regenerate_invite(*, campaign: Campaign) -> Campaign:
    campaign.invite_code = new_invite_code()
    campaign.save(update_fields=["invite_code"])
    return campaign


@transaction.atomic
def campaign_remove_player(*, campaign: Campaign, user_id: int) -> None:
    membership = Membership.objects.filter(campaign=campaign, user_id=user_id).first()
    if membership is None:
        raise CampaignError("That person is not at this table.")
    if membership.is_gm:
        raise CampaignError("The GM cannot be removed; hand the GM role to someone else first.")
    _leave(membership)


@transaction.atomic
def campaign_leave(*, campaign: Campaign, user) -> None:
    membership = Membership.objects.filter(campaign=campaign, user=user).first()
    if membership is None:
        raise CampaignError("You are not at this table.")
    if membership.is_gm:
        raise CampaignError("You run this campaign: hand the GM role to a player before you leave.")
    _leave(membership)


def _leave(membership: Membership) -> None:
    # The player's characters stay theirs but leave the table with them.
    from characters.models import Character

    Character.objects.filter(campaign=membership.campaign, owner=membership.user).update(campaign=None)
    membership.delete()


@transaction.atomic
def campaign_transfer_gm(*, campaign: Campaign, to_user_id: int) -> None:
    memberships = {m.user_id: m for m in Membership.objects.select_for_update().filter(campaign=campaign)}
    target = memberships.get(to_user_id)
    if target is None:
        raise CampaignError("Only a player at this table can become its GM.")
    if target.is_gm:
        return
    current = next(m for m in memberships.values() if m.is_gm)
    # Demote first: the one-GM-per-campaign constraint holds at every statement.
    current.role = Membership.Role.PLAYER
    current.save(update_fields=["role"])
    target.role = Membership.Role.GM
    target.save(update_fields=["role"])


@transaction.atomic
def campaign_move_clock(*, campaign_id: int, action: str, minutes: int = 0) -> Campaign:
    """Rounds count up in combat; ending combat resets them; time passes in minutes of game time."""
    from django.db.models import F

    from campaigns.events import publish

    campaigns = Campaign.objects.filter(pk=campaign_id)
    if action == "next_round":
        campaigns.update(round=F("round") + 1)
    elif action == "end_combat":
        campaigns.update(round=0)
    elif action == "advance":
        if not 1 <= minutes <= 60 * 24 * 30:
            raise CampaignError("Time moves forward by 1 minute to 30 days at a time.")
        campaigns.update(game_minutes=F("game_minutes") + minutes)
    else:
        raise CampaignError("The clock cannot do that.")
    publish(campaign_id, "table")
    return Campaign.objects.get(pk=campaign_id)
