"""The table's conditions (GameSystem.table_conditions): the party's situation, kept on the campaign row.

Every sheet at a table reads them as ``Sheet.table`` (C&C darkness puts its saves at disadvantage), from the
campaign row it loads anyway, so no sheet, odds or roll view looks at the other sheets. They are worked out
again whenever what they come from changes: a light source lit, put out, burnt, taken or dropped; time
passing; a character joining or leaving the table; the GM saying the party is in daylight or in the dark
(in daylight the party's lights make no difference, and there are no light conditions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import connection, transaction
from django.db.models import Subquery

from campaigns.models import GM_ROLES, Campaign, Membership, Npc
from campaigns.selectors import campaigns_of
from characters.models import Character
from live.events import ConditionsChanged, LightChanged, PartyChanged, SheetsChanged
from live.journal import record
from live.once import first_in_transaction
from rules import SYSTEMS, RulesError
from rules import base as rules_base

LIGHT_KIND = "light"  # items of this kind decide the light (rules/clock.py)
# What the table's settings and conditions show in, on every sheet at the table (and its card): tracks and
# conditions, banners and facts (and, with them, the roll forms' odds and their condition chips), and the GM's
# requests waiting on the sheet (their odds and chips).
TABLE_REGIONS = ("vitals", "details", "requests")


def _party(campaign: Campaign) -> list[rules_base.Sheet]:
    """Every sheet at the table with its items (two queries), each item read by its own character's system; a row
    the rules cannot read is left out."""
    sheets = []
    for character in Character.objects.filter(campaign_id=campaign.pk).prefetch_related("items"):
        system = SYSTEMS.get(character.system)
        if system is None:
            continue
        items = []
        for row in character.items.all():
            try:
                items.append(system.validate_item(row.to_rules()))
            except RulesError:
                continue
        sheets.append(rules_base.Sheet(state=character.state, items=tuple(items), name=character.name))
    return sheets


def refresh_conditions(campaign_id: int | None, *, lock: bool = False, unless_locked: bool = False) -> dict[str, Any]:
    """Work the table's conditions out again from the party's sheets and store them if they changed.

    Each system the table plays judges the same party by its own rules (a mixed table keeps one set per system:
    Campaign.conditions_for). Announces "light" (the table's light banner) every time and, when they changed,
    pushes every sheet's vitals and details and card (the "conditions" a TableWritten names: odds, banners).
    ``lock``: take the campaign's row lock first, waiting for it; ``unless_locked``: take it only if nobody holds
    it, else do nothing (see ``conditions_changed``). Returns the home system's."""
    if campaign_id is None:
        return {}
    rows = Campaign.objects.all()
    if lock or unless_locked:
        rows = rows.select_for_update(skip_locked=unless_locked, no_key=True)
    campaign = rows.filter(pk=campaign_id).first()
    if campaign is None or campaign.system not in SYSTEMS:
        return {}
    party = None if campaign.daylight else _party(campaign)
    fight = campaign.encounters.filter(active=True).exists()
    by_system: dict[str, dict[str, Any]] = {}
    for system_id in campaign.systems:
        system = SYSTEMS.get(system_id)
        now = {} if system is None or party is None else system.table_conditions(party)
        if fight:
            now["fight"] = True  # the encounter tracker runs the rounds (GameSystem.round_passes for every PC)
        by_system[system_id] = now
    home = by_system.pop(campaign.system)
    record(campaign.pk, LightChanged())
    if home != (campaign.conditions or {}) or by_system != (campaign.other_conditions or {}):
        Campaign.objects.filter(pk=campaign.pk).update(conditions=home, other_conditions=by_system)
        # every sheet's odds and banners, every card
        record(campaign.pk, ConditionsChanged(), SheetsChanged(regions=tuple(TABLE_REGIONS)))
    return home


def conditions_changed(campaign_id: int | None) -> None:
    """What the conditions come from changed in this transaction (a character write: its row is locked).

    They are worked out now if the campaign's row is free (so the write's own answer reads them), and once more
    after the commit under the campaign's lock, since two players lighting torches at once each saw only their
    own torch. Inside the character's transaction the campaign is never waited for: the clock locks the campaign,
    then the characters, and waiting here (holding a character) would deadlock with it."""
    if campaign_id is None:
        return
    refresh_conditions(campaign_id, unless_locked=True)
    if connection.in_atomic_block:
        first_in_transaction(("campaigns.conditions", campaign_id), then=partial(_refresh_after_commit, campaign_id))


def _refresh_after_commit(campaign_id: int) -> None:
    with transaction.atomic():
        refresh_conditions(campaign_id, lock=True)


def touches_light(*records: Mapping[str, Any] | None, kinds: Iterable[str] = ()) -> bool:
    """Whether a history record's item rows (``{"items": [snapshot, ...]}``) or the kinds given include a
    light source."""
    if LIGHT_KIND in kinds:
        return True
    return any((row or {}).get("kind") == LIGHT_KIND for record in records for row in (record or {}).get("items", ()))


class SheetsAtTheTable:
    """What a character write tells its table (characters.table.Table, registered in campaigns.signals)."""

    def sheet_written(
        self, campaign_id: int | None, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
    ) -> None:
        if touches_light(before, after):
            conditions_changed(campaign_id)

    def party_changed(self, campaign_id: int | None) -> None:
        record(campaign_id, PartyChanged())
        conditions_changed(campaign_id)

    def is_gm(self, user: User | AnonymousUser, campaign_id: int | None) -> bool:
        if campaign_id is None or not user.is_authenticated:
            return False
        return Membership.objects.filter(campaign_id=campaign_id, user=user, role__in=GM_ROLES).exists()

    def gm_ids(self, campaign_id: int) -> Any:
        gms = Membership.objects.filter(campaign_id=campaign_id, role__in=GM_ROLES)
        return gms.values("user_id")

    def fight_npcs(self, campaign_id: int) -> Any:
        found = Npc.objects.filter(campaign_id=campaign_id, encounter__active=True, defeated=False)
        return found.order_by("pk").values_list("pk", "name")

    def campaigns_of(self, user: User) -> Any:
        return campaigns_of(user)

    def tables_of(self, user: User, *, run: bool = False) -> Any:
        seats = Membership.objects.filter(user=user)
        return (seats.filter(role__in=GM_ROLES) if run else seats).values("campaign_id")

    def seat_of(self, user: User, campaign_id: Any) -> Any:
        return Subquery(Membership.objects.filter(campaign_id=campaign_id, user=user).values("role")[:1])
