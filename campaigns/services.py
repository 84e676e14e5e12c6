"""Every write to a campaign or its membership goes through here."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F

from accounts.names import clean_name
from campaigns.conditions import TABLE_REGIONS, refresh_conditions
from campaigns.models import Campaign, Membership, RuleSettingChange, new_invite_code
from characters import locking
from characters.models import Character
from characters.services import character_set_campaign
from live.events import (
    ClockMoved,
    MembersChanged,
    PartyChanged,
    RolesChanged,
    Seen,
    SettingsChanged,
    SheetsChanged,
    gm_only,
)
from live.journal import record
from rules import SYSTEM_NAMES, SYSTEMS, RulesError
from rules.errors import Refusal


class CampaignError(Refusal):
    """A request that cannot be done; the message is shown to the person."""


@dataclass(frozen=True)
class TableWritten:
    """What one campaign write changed, returned to its caller (the table's twin of characters' ``Written``): the
    view answers from it, reading nothing back. ``campaign``: the row as the write left it; ``regions``: the
    table's live topics the write announced (sent once it commits); ``row``: what else the write made or
    changed, when there is one (the request, the NPC, the roll, the settings logged)."""

    campaign: Campaign
    regions: frozenset[str]
    row: Any = None


def written(campaign: Campaign, regions: Iterable[str], row: Any = None) -> TableWritten:
    return TableWritten(campaign, frozenset(regions), row)


CLOCK_LIMIT = 2**31 - 1  # round and game_minutes are PositiveIntegerFields: a 32-bit integer on PostgreSQL
MAX_CAMPAIGNS_RUN = 50  # campaigns one account runs as GM: its campaign list draws them all


@transaction.atomic
def campaign_create(*, name: str, system: str, gm, also: Iterable[str] = ()) -> Campaign:
    """A new table run by ``gm``, playing ``system`` and, at a mixed table, the systems ``also`` allows."""
    if system not in SYSTEM_NAMES:
        raise CampaignError("Pick one of the game systems Lantern knows.")
    extra = _checked_extra_systems(system, also)
    if Membership.objects.filter(user=gm, role=Membership.Role.GM).count() >= MAX_CAMPAIGNS_RUN:
        raise CampaignError(
            f"You run {MAX_CAMPAIGNS_RUN} campaigns, as many as an account runs: hand one to another GM first."
        )
    campaign = Campaign.objects.create(name=clean_name(name), system=system, extra_systems=extra)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    return campaign


def _checked_extra_systems(home: str, also: Iterable[str]) -> list[str]:
    extra = list(dict.fromkeys(system for system in also if system != home))
    unknown = [system for system in extra if system not in SYSTEM_NAMES]
    if unknown:
        raise CampaignError("Pick the other systems from the game systems Lantern knows.")
    return extra


@transaction.atomic
def campaign_set_systems(*, campaign_id: int, also: Iterable[str], by: User) -> TableWritten:
    """The GM changes which other systems' characters may sit at the table (the home system stays). A system
    with characters at the table stays until they leave it: removing it would strand their sheets."""
    campaign = _lock_campaign(campaign_id)
    extra = _checked_extra_systems(campaign.system, also)
    before = campaign.systems
    seated = set(campaign.characters.values_list("system", flat=True))
    stranded = sorted(SYSTEM_NAMES.get(system, system) for system in seated if system not in (campaign.system, *extra))
    if stranded:
        raise CampaignError(
            f"Characters of {', '.join(stranded)} sit at this table: they leave it before their system can go."
        )
    if tuple(extra) == before[1:]:
        return written(campaign, (), [])
    shown_before = campaign.system_name
    campaign.extra_systems = extra
    # The settings and conditions of a system that left go with it; one that comes back starts from its defaults.
    campaign.other_rule_settings = {k: v for k, v in (campaign.other_rule_settings or {}).items() if k in extra}
    campaign.other_conditions = {k: v for k, v in (campaign.other_conditions or {}).items() if k in extra}
    campaign.save(update_fields=["extra_systems", "other_rule_settings", "other_conditions"])
    logged = RuleSettingChange.objects.create(
        campaign=campaign,
        by=by,
        key="systems",
        label="Systems",
        before=shown_before[:300],
        after=campaign.system_name[:300],
    )
    refresh_conditions(campaign.pk)
    record(campaign.pk, SettingsChanged(), by=by)
    return written(campaign, ("settings",), [logged])


def lock_campaign_row(campaign_id: int | None) -> Campaign | None:
    """Step 2 of the app's one lock order (characters.locking): the campaign's row, or None when it is gone."""
    if campaign_id is None:
        return None
    return Campaign.objects.select_for_update(no_key=True).filter(pk=campaign_id).first()


def _lock_campaign(campaign_id: int) -> Campaign:
    """Every membership change takes the campaign's row first, so they queue one behind another.

    Without it "make X the GM" and "X leaves" can both read X as a player and both commit: the campaign is
    left without a GM for good (seen on PostgreSQL in 29 of 40 such races).
    """
    # In the app's one lock order (characters.locking), FOR NO KEY UPDATE: it excludes every other campaign write,
    # yet lets a character's write insert rows that point at the campaign (a roll).
    campaign = lock_campaign_row(campaign_id)
    if campaign is None:
        raise CampaignError("That campaign no longer exists.")
    return campaign


@transaction.atomic
def campaign_join(*, invite_code: str, user) -> TableWritten:
    """Join by invite code; the row is the user's membership, and "members" is announced if they are new."""
    found = Campaign.objects.filter(invite_code=invite_code.strip()).values_list("pk", flat=True).first()
    campaign = _lock_campaign(found) if found is not None else None
    if campaign is None or campaign.invite_code != invite_code.strip():
        raise CampaignError("That invite code does not open any campaign. Ask your GM for the current link.")
    membership, created = Membership.objects.get_or_create(
        campaign=campaign, user=user, defaults={"role": Membership.Role.PLAYER}
    )
    if created:
        record(campaign.pk, MembersChanged(users=(user.pk,)), by=user.pk)  # the member list shows the newcomer
    return written(campaign, ["members"] if created else [], membership)


@transaction.atomic
def campaign_regenerate_invite(*, campaign: Campaign, by: User | None = None) -> TableWritten:
    campaign = _lock_campaign(campaign.pk)
    campaign.invite_code = new_invite_code()
    campaign.save(update_fields=["invite_code"])
    record(campaign.pk, MembersChanged(users=(), seen=gm_only()), by=by)  # only the GM's member list shows the link
    return written(campaign, ["members"])


@transaction.atomic
def campaign_remove_player(*, campaign: Campaign, user_id: int, by: User | None = None) -> TableWritten:
    """A GM takes a player from the table. A GM's seat is not a player's: the owner makes a co-GM a player first."""
    campaign = _lock_campaign(campaign.pk)
    membership = Membership.objects.filter(campaign=campaign, user_id=user_id).first()
    if membership is None:
        raise CampaignError("That person is not at this table.")
    if membership.is_owner:
        raise CampaignError("The GM cannot be removed; hand the GM role to someone else first.")
    if membership.is_gm:
        raise CampaignError("A co-GM is not removed as a player: the owner makes them a player first.")
    return written(campaign, _leave(membership, by=by))


@transaction.atomic
def campaign_leave(*, campaign: Campaign, user) -> TableWritten:
    campaign = _lock_campaign(campaign.pk)
    membership = Membership.objects.filter(campaign=campaign, user=user).first()
    if membership is None:
        raise CampaignError("You are not at this table.")
    if membership.is_owner:
        raise CampaignError("You run this campaign: hand the GM role to a player before you leave.")
    return written(campaign, _leave(membership, by=user))


def _leave(membership: Membership, *, by: User | None) -> tuple[str, ...]:
    # The player's characters stay theirs but leave the table with them: each through the character
    # service, so it is locked, versioned, logged and announced like any other change.
    leaving = Character.objects.filter(campaign=membership.campaign, owner=membership.user).order_by("pk")
    for character_id in leaving.values_list("pk", flat=True):  # in id order, after the campaign: characters.locking
        with contextlib.suppress(locking.Gone):  # deleted meanwhile: nothing left to take away
            character_set_campaign(character_id=character_id, campaign=None, by=membership.user)
    membership.delete()
    # Their open pages of this table close (the hub reads "left"); everyone else's table loses them and their
    # characters.
    left = MembersChanged(users=(membership.user_id,), left=True)
    record(membership.campaign_id, PartyChanged(), left, by=by or membership.user_id)
    return ("revoke", "party", "members")


def _roles_changed(campaign: Campaign, users: tuple[int, ...], by: User | None) -> None:
    # Those whose role changed see other controls on every page of the table: theirs reload.
    record(campaign.pk, MembersChanged(users=users), RolesChanged(users=users, seen=Seen("private", users)), by=by)


@transaction.atomic
def campaign_transfer_gm(
    *, campaign: Campaign, to_user_id: int, old_owner_stays: str = Membership.Role.PLAYER, by: User | None = None
) -> TableWritten:
    """Hand the owner's seat to another member (a player or a co-GM). The old owner stays at the table as a co-GM
    or a player (``old_owner_stays``); every row the table has (its journal, sessions, rolls) stays as it was."""
    if old_owner_stays not in (Membership.Role.PLAYER, Membership.Role.CO_GM):
        raise CampaignError("Say whether you stay as a co-GM or a player.")
    campaign = _lock_campaign(campaign.pk)
    memberships = {m.user_id: m for m in Membership.objects.filter(campaign=campaign)}
    target = memberships.get(to_user_id)
    if target is None:
        raise CampaignError("Only a player at this table can become its GM.")
    if target.is_owner:
        return written(campaign, ())
    current = next(m for m in memberships.values() if m.is_owner)
    # Step down first: the one-owner-per-campaign constraint (one_gm_per_campaign) holds at every statement.
    current.role = old_owner_stays
    current.save(update_fields=["role"])
    target.role = Membership.Role.GM
    target.save(update_fields=["role"])
    _roles_changed(campaign, (current.user_id, target.user_id), by or current.user)
    return written(campaign, ("members", "roles"), target)


@transaction.atomic
def campaign_set_co_gm(*, campaign: Campaign, user_id: int, co_gm: bool, by: User) -> TableWritten:
    """The owner names a player a co-GM (``co_gm``) or makes a co-GM a player again. A co-GM runs the table as the
    owner does (sees what only GMs see, runs sessions, the clock, fights); only the owner names co-GMs and hands
    the table over. The owner check is the caller's (campaigns.commands.owned_table)."""
    campaign = _lock_campaign(campaign.pk)
    seat = Membership.objects.filter(campaign=campaign, user_id=user_id).first()
    if seat is None:
        raise CampaignError("That person is not at this table.")
    if seat.is_owner:
        raise CampaignError("The owner runs the table already.")
    role = Membership.Role.CO_GM if co_gm else Membership.Role.PLAYER
    if seat.role == role:
        return written(campaign, (), seat)
    seat.role = role
    seat.save(update_fields=["role"])
    _roles_changed(campaign, (seat.user_id,), by)
    return written(campaign, ("members", "roles"), seat)


@transaction.atomic
def campaign_move_clock(*, campaign_id: int, action: str, minutes: int = 0, by: User | None = None) -> TableWritten:
    """Time passes in minutes of game time. Combat rounds are the encounter tracker's alone (campaigns.session:
    starting, running and ending a fight keep ``Campaign.round``), so only one thing runs rounds."""
    campaigns = Campaign.objects.filter(pk=campaign_id)
    if action in ("next_round", "end_combat"):
        raise CampaignError("Combat rounds are run from the encounter tracker: start, advance or end the fight there.")
    if action == "advance":
        if not 1 <= minutes <= 60 * 24 * 30:
            raise CampaignError("Time moves forward by 1 minute to 30 days at a time.")
        if not campaigns.filter(game_minutes__lte=CLOCK_LIMIT - minutes).update(
            game_minutes=F("game_minutes") + minutes
        ):
            raise CampaignError("The game clock cannot count that far: it has reached its limit.")
    else:
        raise CampaignError("The clock cannot do that.")
    record(campaign_id, ClockMoved(), by=by)
    return written(Campaign.objects.get(pk=campaign_id), ("table",))


@transaction.atomic
def campaign_change_settings(
    *, campaign_id: int, values: Mapping[str, Any], by: User, system: str | None = None
) -> TableWritten:
    """The GM sets some of the table's rule settings of ``system`` (the home system by default); every roll and
    odds of that system's sheets from now on follows them, and no other system's.

    The whole set is checked by the system (a readable refusal changes nothing), each setting that really
    moved is logged with its before and after, and open sheets and tables refresh what depends on them. The
    row is the list of changes logged (empty: nothing moved).
    """
    campaign = _lock_campaign(campaign_id)
    system_id = system or campaign.system
    if not campaign.plays(system_id):
        raise CampaignError(f"{campaign.name} does not play that system: choose one of {campaign.system_name}.")
    name = SYSTEM_NAMES.get(system_id, system_id)
    rules = SYSTEMS.get(system_id)
    if rules is None:
        raise CampaignError(f"{name} has no rule settings in Lantern yet.")
    declared = {setting.key: setting for setting in rules.rule_settings()}
    before = campaign.settings_in_force(system_id)
    try:
        changes = rules.validate_settings(values)
        after = rules.validate_settings({**before, **changes})
    except RulesError as problem:
        raise CampaignError(str(problem)) from None
    moved = [key for key in declared if after[key] != before[key]]
    if not moved:
        return written(campaign, (), [])
    defaults = rules.settings_in_force(None)
    # Only what differs from the defaults is stored: a later change of a default reaches this table too.
    changed = {key: value for key, value in after.items() if value != defaults[key]}
    if system_id == campaign.system:
        campaign.rule_settings = changed
    else:
        campaign.other_rule_settings = {**(campaign.other_rule_settings or {}), system_id: changed}
    campaign.save(update_fields=["rule_settings", "other_rule_settings"])
    # At a mixed table each change names its system: "Chaos & Conquest: Light warning".
    prefix = f"{name}: " if campaign.is_mixed else ""
    logged = RuleSettingChange.objects.bulk_create(
        RuleSettingChange(
            campaign=campaign,
            by=by,
            key=key,
            label=f"{prefix}{declared[key].label}"[:100],
            before=declared[key].shown(before[key])[:300],
            after=declared[key].shown(after[key])[:300],
        )
        for key in moved
    )
    # The settings page, and every sheet: slots and hiring limits move too.
    record(campaign.pk, SettingsChanged(), SheetsChanged(regions=(*TABLE_REGIONS, "inventory", "hirelings")), by=by)
    return written(campaign, ("settings", "conditions"), logged)


@transaction.atomic
@transaction.atomic
def campaign_save_settings_page(
    *, campaign_id: int, values: Mapping[str, Any], hand_dice: str | None, by: User, system: str | None = None
) -> tuple[TableWritten, RuleSettingChange | None]:
    """The settings page's one form (issue 36, item 12): the rule settings and, when sent, the dice setting, saved
    together or, when either is refused, neither; so neither Save button drops the other's change unsaid."""
    written = campaign_change_settings(campaign_id=campaign_id, values=values, by=by, system=system)
    dice = None if hand_dice is None else campaign_set_hand_dice(campaign_id=campaign_id, value=hand_dice, by=by)
    return written, dice


def campaign_set_hand_dice(*, campaign_id: int, value: str, by: User) -> RuleSettingChange | None:
    """The GM decides who may type in dice rolled at the table (Campaign.HandDice). Only rolls made from now on
    read it: a roll keeps whether it was rolled by hand (Roll.by_hand), whatever the table says later."""
    campaign = _lock_campaign(campaign_id)
    if value not in Campaign.HandDice.values:
        raise CampaignError("Choose who rolls the dice: the server, players who want to, or everyone by hand.")
    if value == campaign.hand_dice:
        return None
    labels = dict(Campaign.HandDice.choices)
    logged = RuleSettingChange.objects.create(
        campaign=campaign, by=by, key="hand_dice", label="Dice", before=labels[campaign.hand_dice], after=labels[value]
    )
    campaign.hand_dice = value
    campaign.save(update_fields=["hand_dice"])
    record(campaign.pk, SettingsChanged(), by=by)
    return logged
