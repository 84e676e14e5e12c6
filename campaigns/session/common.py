"""What every session write shares: the campaign locked in the app's one order, its system, the table's sheets."""

from __future__ import annotations

from django.contrib.auth.models import User

from campaigns.conditions import refresh_conditions
from campaigns.models import Campaign, Npc
from campaigns.services import CampaignError, lock_campaign_row
from characters import locking
from characters.models import Character
from characters.services import character_table_effect
from rules import SYSTEMS, RulesError
from rules import base as rules_base


def lock_campaign(campaign_id: int, *, roller=None) -> Campaign:
    """The campaign's row, in the app's one order (characters.locking): ``roller``, the user whose rolls this
    write may store, is locked before it (their rolls-per-minute cap)."""
    locking.lock_roller(roller)
    campaign = lock_campaign_row(campaign_id)
    if campaign is None:
        raise CampaignError("That campaign no longer exists.")
    return campaign


def table_system(campaign: Campaign) -> rules_base.GameSystem:
    system = SYSTEMS.get(campaign.system)
    if system is None:
        raise CampaignError(f"{campaign.system_name} cannot be played at a Lantern table yet.")
    return system


class NotPlayedHere(CampaignError):
    """A system the table does not play, named in a request (an NPC's stat block): bad input, a 400."""

    status = 400


def npc_rules(campaign: Campaign, npc: Npc) -> rules_base.GameSystem:
    """The rules an NPC's stat block, damage and rolls follow: its own system at a mixed table (``Npc.system``),
    else the table's."""
    system = SYSTEMS.get(npc.system_of(campaign))
    if system is None:
        raise CampaignError(f"{npc.name}'s rules cannot be played at a Lantern table.")
    return system


def chosen_npc_system(campaign: Campaign, key: str) -> tuple[str, rules_base.GameSystem]:
    """The system the GM picked for a new NPC (blank: the table's home system), as ``Npc.system`` stores it (blank
    for the home system) and its rules; a system the table does not play is refused with a sentence."""
    key = key or campaign.system
    system = SYSTEMS.get(key)
    if system is None or not campaign.plays(key):
        named = system.name if system is not None else repr(key[:40])
        raise NotPlayedHere(f"This table does not play {named}: pick a system it plays for the NPC.")
    return ("" if key == campaign.system else key), system


def table_in_order(campaign: Campaign) -> list[Character]:
    """Every character at the (locked) table, locked in the app's one order (by id: characters.locking), then
    listed by name for what the table reads. Locking them by name, one by one, deadlocked with a roll naming a
    character whose name sorts otherwise than its id (the roll locks by id)."""
    return sorted(locking.lock_table(campaign.pk), key=lambda c: (c.name, c.pk))


def on_every_sheet(campaign: Campaign, effect, by: User) -> list[str]:
    """The table's ``effect(system, sheet)`` applied to every PC's sheet; what it did, a sentence each. A sheet
    the rules cannot read is named and left alone."""
    words = []
    for character in table_in_order(campaign):
        try:
            result = character_table_effect(character_id=character.pk, effect=effect, by=by)
        except RulesError as problem:
            words.append(f"{character.name}: {problem}")
            continue
        if result.summary:
            words.append(f"{character.name}: {result.summary}")
    return words


def refresh_table_conditions(campaign: Campaign) -> tuple[str, ...]:
    """The table's conditions worked out again after a session write (campaigns.conditions), kept on ``campaign``;
    the regions that announced: the light banner always, every sheet's odds when they changed."""
    before = (campaign.conditions or {}, campaign.other_conditions or {})
    campaign.conditions = refresh_conditions(campaign.pk)
    if campaign.is_mixed:  # the other systems' too (a table of one system keeps none: no read)
        rows = type(campaign).objects.filter(pk=campaign.pk)
        campaign.other_conditions = rows.values_list("other_conditions", flat=True).first() or {}
    changed = (campaign.conditions, campaign.other_conditions) != before
    return ("light", "conditions") if changed else ("light",)
