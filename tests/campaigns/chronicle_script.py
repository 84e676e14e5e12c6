"""A scripted evening at a Chaos & Conquest table, played through the services every door calls: the chronicle's
tests read it per viewer (the owner Wren's player, the peer Ash's, the GM) through the page, the API and webhooks.

Every roll is a real roll of the sheet's procedure; ``shape`` (the service's own hook for callers that word a
result) fixes its outcome, so the evening is the same on every run. Each roll only some may see carries a marker in
its summary, so a test can say where it must never appear.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from campaigns import commands, session
from campaigns.models import Campaign, PlaySession
from characters.models import Change, Character, Item
from characters.services import change_revert, character_roll, hireling_hire, item_add, roll_void
from rules import base as rules_base
from tests.conftest import make_character, make_table

GM_ONLY = "GM-ONLY-MARKER"
BLIND = "BLIND-MARKER"
PRIVATE = "PRIVATE-MARKER"
SECRETS = (GM_ONLY, BLIND, PRIVATE)


@dataclass
class Evening:
    campaign: Campaign
    session: PlaySession
    wren: Character
    ash: Character
    rolls: dict[str, int]


def _shaped(outcome: str, summary: str, state: dict[str, Any] | None = None, label: str | None = None):
    def shape(result: rules_base.RollResult) -> rules_base.RollResult:
        changed = {"outcome": outcome, "summary": summary, "state": state}
        if label:
            changed["label"] = label
        return replace(result, **changed)

    return shape


def _roll(
    character: Character, by, outcome: str, summary: str, *, visibility="public", state=None, label=None, asked=False
):
    character.refresh_from_db()
    written = character_roll(
        character_id=character.pk,
        procedure="save",
        params={"attribute": "STR"},
        by=by,
        visibility=visibility,
        rng=random.Random(5),
        shape=_shaped(outcome, summary, state, label),
        requested_blind=asked,
    )
    return written.row


def play(gm, player, other_player, before: Callable[[Campaign], None] | None = None) -> Evening:
    """The evening; ``before(campaign)`` runs once the table is set, before the session starts."""
    campaign = make_table("chaos-conquest", gm, player, other_player, name="Barrowmoor")
    wren = make_character(player, campaign, system="chaos-conquest", name="Wren")
    ash = make_character(other_player, campaign, system="chaos-conquest", name="Ash", seed=11)
    # Before the evening: Wren's torch is lit.
    torch = Item.objects.create(character=wren, name="Torch", kind="light", slots=1, data={"lit": True, "turns": 6})
    rolls: dict[str, int] = {}
    if before is not None:
        before(campaign)

    commands.start_session(gm, campaign.pk)
    # Wren's player rolls a critical in the open.
    rolls["crit"] = _roll(wren, player, "critical", "A perfect swing.", label="Attack").pk
    # The GM rolls for Wren where only the GM sees; Wren's player answers the GM's blind request.
    rolls["gm"] = _roll(wren, gm, "critical", f"The door is trapped ({GM_ONLY}).", visibility="gm").pk
    blind = f"Wren spots the ambush ({BLIND})."
    rolls["blind"] = _roll(wren, player, "critical", blind, visibility="blind", asked=True, label="Notice").pk
    # Wren's player keeps one to themself.
    rolls["private"] = _roll(wren, player, "critical", f"A secret prayer ({PRIVATE}).", visibility="private").pk
    # Ash's critical, voided by the GM.
    rolls["void"] = _roll(ash, other_player, "critical", "Too good to be true.").pk
    roll_void(roll_id=rolls["void"], by=gm, reason="wrong die")
    # Wren finds coin, which the player then puts back (a revert).
    wren.refresh_from_db()
    state = {**wren.state, "coins": wren.state["coins"] + 120}
    rolls["coins"] = _roll(wren, player, "plus_one", "A purse in the mud.", state=state, label="Search").pk
    wren.refresh_from_db()
    change = Change.objects.filter(roll_id=rolls["coins"]).get()
    change_revert(character_id=wren.pk, change_id=change.pk, by=player, reason="It was Ash's purse.")
    # Loot that stays: an idol, and 60 pennies.
    item_add(character_id=wren.pk, item=rules_base.Item(name="Silver idol", kind="treasure", slots=1), by=player)
    wren.refresh_from_db()
    rolls["loot"] = _roll(
        wren, player, "plus_one", "Coins in the altar.", state={**wren.state, "coins": wren.state["coins"] + 60}
    ).pk
    # A porter signs on.
    hireling_hire(character_id=wren.pk, choices={"kind": "porter", "name": "Hob"}, by=player, rng=random.Random(2))
    # A level-up with a scar.
    wren.refresh_from_db()
    state = {
        **wren.state,
        "level": 2,
        "scars": [*wren.state["scars"], {"roll": 3, "name": "Torn ear", "text": "An ear half gone."}],
    }
    rolls["level"] = _roll(wren, player, "plus_two", "Stronger for it.", state=state, label="Level up").pk
    # A fight of three rounds.
    session.encounter_start(campaign_id=campaign.pk, name="Bandits at the ford", by=gm, rng=random.Random(1))
    session.npc_add(campaign_id=campaign.pk, name="Bandit", stats={})
    session.encounter_next_round(campaign_id=campaign.pk, by=gm, rng=random.Random(1))
    session.encounter_next_round(campaign_id=campaign.pk, by=gm, rng=random.Random(1))
    # Ash dies.
    ash.refresh_from_db()
    rolls["death"] = _roll(
        ash, other_player, "dies", "The bandit's blade.", state={**ash.state, "status": "dead"}, label="Take damage"
    ).pk
    session.encounter_end(campaign_id=campaign.pk, by=gm, rng=random.Random(1))
    # An hour passes: the torch burns out.
    session.clock_advance(campaign_id=campaign.pk, unit="turn", count=6, by=gm, rng=random.Random(1))
    commands.end_session(gm, campaign.pk, summary="The ford is ours, at a price.")
    del torch
    wren.refresh_from_db()
    ash.refresh_from_db()
    return Evening(campaign, PlaySession.objects.get(campaign=campaign, number=1), wren, ash, rolls)
