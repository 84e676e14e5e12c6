"""The exploration clock: game time passing at the table, and daylight."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from campaigns.models import Campaign, Countdown
from campaigns.services import CLOCK_LIMIT, CampaignError, TableWritten, written
from campaigns.session.common import lock_campaign, refresh_table_conditions, table_in_order, table_system
from campaigns.session.encounters import store_made
from characters.models import Character
from characters.services import character_pass_time
from live.events import PUBLIC, ClockMoved, CountdownTicked, Event, LightLow, Seen, gm_only
from live.journal import record
from rules import RulesError, dice, system_for
from rules.base import GameSystem, Item, TimeUnit
from rules.clock import countdown_ticks, low_fuel
from rules.dice import RandomSource

CLOCK_COUNT_MAX = 30  # units at a time: a month of days, or three hours of turns


@transaction.atomic
def clock_advance(
    *, campaign_id: int, unit: str, count: int, by: User, rng: RandomSource | None = None
) -> TableWritten:
    """Move the game clock by ``count`` of the home system's ``unit``: every sheet at the table burns its lights
    and eats by its own system's rules, the same span of game time counted in its own units (issue 42; live on
    each sheet), each warned of low light by its own system's setting; the home system's checks are rolled as the
    GM's. The row is what happened, a sentence each."""
    campaign = lock_campaign(campaign_id, roller=by)
    system = table_system(campaign)
    units = {u.key: u for u in system.time_units()}
    if unit not in units:
        raise CampaignError(f"{system.name} counts time in {', '.join(u.label for u in units.values())}.")
    if count < 1:
        raise CampaignError("Time only moves forward: advance by one or more.")
    if count > CLOCK_COUNT_MAX:
        raise CampaignError(f"Advance at most {CLOCK_COUNT_MAX} at a time.")
    # Whole minutes and the seconds past the last one: a unit may be shorter than a minute (a 30-second round).
    minutes, seconds = divmod(campaign.game_seconds + units[unit].length * count, 60)
    start = campaign.game_minutes
    if start + minutes > CLOCK_LIMIT:
        raise CampaignError("The game clock cannot count that far: it has reached its limit.")
    rng = rng or dice.system_random()
    words = []
    regions = ["table"]
    warnings: list[Event] = []
    span = (campaign.game_minutes * 60 + campaign.game_seconds, units[unit].length * count)
    for character in table_in_order(campaign):
        try:
            own = system_for(character.system)
            steps = (
                [(unit, count)]
                if character.system == campaign.system
                else [(u.key, n) for u, n in own.time_steps(*span)]
            )
            lights = own.light_sources()
            warn_at = int(campaign.settings_in_force(character.system).get("light_warning", 0) or 0) if lights else 0
            before = character.checked_sheet().items if warn_at else ()
            said, changed = _pass_time(character, steps, span[0], by=by, rng=rng)
        except RulesError as problem:
            words.append(f"{character.name}: {problem}")
            continue
        if said:
            words.append(f"{character.name}: {said}")
        if lights is not None and warn_at:
            for low in low_fuel(before, changed, lights, warn_at):
                words.append(f"{character.name}: {low.name} is running low ({low.minutes} min left).")
                item = LightLow(character=character.pk, item=low.item_id, minutes=low.minutes)
                warnings.append(_to_holder(item, character.owner_id))
    for check in system.time_checks(unit, count, start, rng):
        try:
            store_made(campaign, check, by=by, visibility="gm")
        except RulesError as problem:
            raise CampaignError(str(problem)) from None
        words.append(check.summary)
        regions.append("rolls")
    campaign.game_minutes, campaign.game_seconds = start + minutes, seconds
    campaign.clock_note = " ".join(words)[:1000]
    campaign.save(update_fields=["game_minutes", "game_seconds", "clock_note"])
    regions += refresh_table_conditions(campaign)  # lights burnt out: the party may be in darkness now
    record(campaign.pk, ClockMoved(), *warnings, *_countdowns_by_time(campaign, start, minutes), by=by)
    return written(campaign, regions, words)


def _pass_time(
    character: Character, steps: list[tuple[str, int]], start: int, *, by: User, rng: RandomSource
) -> tuple[str, tuple[Item, ...]]:
    """The table's span of time passed on one sheet, in its own system's ``steps`` (unit key, count) from the
    table's game second ``start``: what it said, and its items as the last step left them (for the low-fuel
    warning). A character of the table's home system takes the GM's unit as it was pressed."""
    said: list[str] = []
    changed: dict[int | None, Item] = {}
    for key, count in steps:
        result = character_pass_time(
            character_id=character.pk,
            unit=key,
            count=count,
            start_minutes=start // 60,
            start_seconds=start % 60,
            by=by,
            rng=rng,
        )
        start += next(u.length for u in system_for(character.system).time_units() if u.key == key) * count
        said += [result.summary] if result.summary else []
        changed.update({item.id: item for item in result.items_changed})
    return " ".join(said), tuple(changed.values())


def _to_holder(event: LightLow, owner_id: int | None) -> LightLow:
    """A low-fuel warning goes to the light's holder and the GMs only."""
    return LightLow(character=event.character, item=event.item, minutes=event.minutes, seen=gm_only(owner_id))


def _countdowns_by_time(campaign: Campaign, start: int, minutes: int) -> list[Event]:
    """The countdowns that fill with game time, moved by the clock's ``minutes`` from ``start``: each that
    filled a segment is a journal event seen by whoever may see its progress."""
    events: list[Event] = []
    timed = campaign.countdowns.select_for_update().filter(every_minutes__isnull=False)
    for countdown in timed.order_by("pk"):
        ticks = countdown_ticks(countdown.anchor_minutes, start, minutes, countdown.every_minutes)
        filled = min(countdown.segments, countdown.filled + ticks)
        if filled != countdown.filled:
            countdown.filled = filled
            countdown.save(update_fields=["filled"])
            events.append(CountdownTicked(countdown=countdown.pk, by_time=True, seen=progress_seen(countdown)))
    return events


def progress_seen(countdown: Countdown) -> Seen:
    """Who may see a countdown's progress move: everyone at the table, or only the GMs."""
    return PUBLIC if countdown.players_see_progress() else gm_only()


def step_unit(system: GameSystem) -> TimeUnit:
    """The unit real-time play advances by: the system's shortest of a minute or more (a turn, a round of
    exploration), so each step burns lights and rolls checks as the GM's button would."""
    units = [unit for unit in system.time_units() if unit.length >= 60]
    if not units:
        raise CampaignError(f"{system.name} has no unit of time a minute or longer to run in real time.")
    return min(units, key=lambda unit: unit.length)


@transaction.atomic
def set_daylight(*, campaign_id: int, daylight: bool, by: User | None = None) -> TableWritten:
    """The GM says whether the party is in daylight (its lights make no difference) or in the dark (its lit
    light sources set the light level, and the rules apply what that level does to every sheet)."""
    campaign = lock_campaign(campaign_id)
    table_system(campaign)
    if campaign.daylight == daylight:
        raise CampaignError("The party is in daylight already." if daylight else "The party is in the dark already.")
    campaign.daylight = daylight
    campaign.save(update_fields=["daylight"])
    regions = refresh_table_conditions(campaign)
    record(campaign.pk, ClockMoved(), by=by)
    return written(campaign, ("table", *regions))
