"""The party's stash region of the table page (templates/campaigns/_stash.html): what it draws, read in a fixed
number of queries. Reads only.

What a player's region offers depends on the player (the characters they may move things to and from), so the
push draws it once per viewer (campaigns.push.PER_VIEWER_REGIONS), not once per kind of viewer."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Prefetch
from django.http import HttpRequest

from campaigns.models import Campaign, Membership, Stash, StashEntry
from campaigns.stash import HISTORY_SHOWN
from characters.models import Character, Item
from rules import SYSTEMS

Context = dict[str, Any]


def stash_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> Context:
    """The stash's coins and items, its newest history, and the characters this viewer moves things for (the GM:
    every one at the table; a player: their own there), with their items for the Put form."""
    stash = Stash.objects.filter(campaign=campaign).first()
    items = list(stash.items.all()) if stash is not None else []
    reverted = StashEntry.objects.filter(reverts=OuterRef("pk"))
    entries = list(
        StashEntry.objects.filter(campaign=campaign)
        .select_related("by")
        .annotate(was_reverted=Exists(reverted))[:HISTORY_SHOWN]
    )
    mine = Character.objects.filter(campaign=campaign).order_by("name", "pk")
    if not membership.is_gm:
        mine = mine.filter(owner_id=membership.user_id)
    characters = list(mine.prefetch_related(Prefetch("items", queryset=Item.objects.order_by("position", "pk"))))
    system = SYSTEMS.get(campaign.system)
    coins = stash.coins if stash is not None else 0
    return {
        "campaign": campaign,
        "membership": membership,
        "stash_items": items,
        "stash_coins": system.format_money(coins) if system is not None else str(coins),
        "stash_coin_count": coins,
        "stash_coin_label": system.coin_label if system is not None else "coins",
        "stash_entries": entries,
        "stash_characters": characters,
        "item_kinds": Item.Kind.choices,
    }
