"""What the campaign table shows: character cards, the roll log, who is here. Reads only."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch

from campaigns.models import Campaign
from characters.models import Character, Hireling, Item, OfferedChange, Roll
from characters.selectors import rolls_at_table, rolls_visible_to
from characters.system_templates import system_template
from rules import SYSTEMS, RulesError
from rules import base as rules_base

LOG_PAGE = 50


@dataclass(frozen=True)
class Card:
    character: Character
    tracks: tuple
    conditions: tuple
    slots: object | None
    hirelings: tuple
    offers: tuple = ()  # changes other players' rolls would make, waiting for the owner or the GM
    problem: str = ""  # why the rules cannot read this sheet; the card shows it instead of numbers
    sheet: rules_base.Sheet | None = None  # the checked sheet, for the system's GM tools
    template: str = "systems/_default/card.html"  # the system's own lines on the card
    drawn: str = ""  # the card as kept, when it was (campaigns.card_cache): the page shows it as it is


def party_cards(campaign: Campaign, *, only_id: int | None = None) -> list[Card]:
    """One card per character at the table, in a fixed number of queries however big the party."""
    characters = (
        Character.objects.filter(campaign=campaign)
        .select_related("owner")
        .prefetch_related(
            Prefetch("items", queryset=Item.objects.all()),
            Prefetch("hirelings", queryset=Hireling.objects.all()),
            Prefetch("offers", queryset=OfferedChange.objects.filter(status="pending"), to_attr="pending_offers"),
        )
    )
    if only_id is not None:
        characters = characters.filter(pk=only_id)
    cards = []
    # One set of rule settings per system at the table, read once for every card of it.
    settings = {system: campaign.settings_in_force(system) for system in campaign.systems}
    for character in characters:
        rules = SYSTEMS.get(character.system)
        if rules is None:
            cards.append(Card(character, (), (), None, ()))
            continue
        try:
            sheet = _checked_sheet(rules, campaign, character, settings.get(character.system))
        except RulesError as problem:
            notice = f"This sheet holds numbers the rules can't read: {problem} Ask the GM, or re-import it."
            hirelings, offers = tuple(character.hirelings.all()), tuple(character.pending_offers)
            cards.append(Card(character, (), (), None, hirelings, offers=offers, problem=notice))
            continue
        cards.append(
            Card(
                character=character,
                tracks=rules.tracks(sheet),
                conditions=rules.conditions(sheet),
                slots=rules.slots(sheet),
                hirelings=tuple(character.hirelings.all()),
                offers=tuple(character.pending_offers),
                sheet=sheet,
                template=system_template(character.system, "card"),
            )
        )
    return cards


def party_sheets(campaign: Campaign) -> list[rules_base.Sheet]:
    """The checked sheet of every character at the table the rules can read, as its card holds it (``Card.sheet``),
    in three queries and without the rest of a card: what the time region needs for the party's light."""
    characters = Character.objects.filter(campaign=campaign).prefetch_related("items", "hirelings")
    settings = {system: campaign.settings_in_force(system) for system in campaign.systems}
    sheets = []
    for character in characters:
        rules = SYSTEMS.get(character.system)
        if rules is None:
            continue
        try:
            sheets.append(_checked_sheet(rules, campaign, character, settings.get(character.system)))
        except RulesError:
            continue
    return sheets


def _checked_sheet(
    rules: rules_base.GameSystem, campaign: Campaign, character: Character, settings: dict | None
) -> rules_base.Sheet:
    """The character's sheet with its own system's settings and conditions at this table (None: read them)."""
    table = campaign.conditions_for(character.system)
    sheet = character.to_sheet(character.items.all(), character.hirelings.all(), settings=settings, table=table)
    rules_base.check_sheet(rules, sheet)
    return sheet


def roll_log(
    user, campaign: Campaign, *, before: int | None = None, role: str | None = None
) -> tuple[list[Roll], bool]:
    """The newest rolls this user may see, 50 at a time; and whether older ones exist. ``role``: the user's
    seat at this table when the caller has read it already (the same rows, without looking the seat up)."""
    seen = rolls_visible_to(user).filter(campaign=campaign) if role is None else rolls_at_table(user, campaign.pk, role)
    rolls = seen.select_related("character", "roller", "voided_by").order_by("-pk")
    if before is not None:
        rolls = rolls.filter(pk__lt=before)
    page = list(rolls[: LOG_PAGE + 1])
    return page[:LOG_PAGE], len(page) > LOG_PAGE
