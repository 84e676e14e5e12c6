"""The exploration clock: game time passing at the table, and daylight."""

from __future__ import annotations

from django.db import transaction

from campaigns.services import CLOCK_LIMIT, CampaignError, TableWritten, written
from campaigns.session.common import _lock_campaign, _refresh_conditions, _system, _table_in_order
from campaigns.session.encounters import _store_made
from characters.services import character_pass_time
from live.events import ClockMoved
from live.journal import record
from rules import RulesError, dice
from rules.dice import RandomSource

CLOCK_COUNT_MAX = 30  # units at a time: a month of days, or three hours of turns


@transaction.atomic
def clock_advance(*, campaign_id: int, unit: str, count: int, by, rng: RandomSource | None = None) -> TableWritten:
    """Move the game clock by ``count`` of the system's ``unit``: every sheet at the table burns its lights and
    eats at the system's rhythm (live on each sheet), and the system's checks are rolled as the GM's. The row
    is what happened, a sentence each."""
    campaign = _lock_campaign(campaign_id, roller=by)
    system = _system(campaign)
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
    for character in _table_in_order(campaign):
        try:
            result = character_pass_time(
                character_id=character.pk,
                unit=unit,
                count=count,
                start_minutes=start,
                start_seconds=campaign.game_seconds,
                by=by,
                rng=rng,
            )
        except RulesError as problem:
            words.append(f"{character.name}: {problem}")
            continue
        if result.summary:
            words.append(f"{character.name}: {result.summary}")
    for check in system.time_checks(unit, count, start, rng):
        try:
            _store_made(campaign, check, by=by, visibility="gm")
        except RulesError as problem:
            raise CampaignError(str(problem)) from None
        words.append(check.summary)
        regions.append("rolls")
    campaign.game_minutes, campaign.game_seconds = start + minutes, seconds
    campaign.clock_note = " ".join(words)[:1000]
    campaign.save(update_fields=["game_minutes", "game_seconds", "clock_note"])
    regions += _refresh_conditions(campaign)  # lights burnt out: the party may be in darkness now
    record(campaign.pk, ClockMoved())
    return written(campaign, regions, words)


@transaction.atomic
def set_daylight(*, campaign_id: int, daylight: bool) -> TableWritten:
    """The GM says whether the party is in daylight (its lights make no difference) or in the dark (its lit
    light sources set the light level, and the rules apply what that level does to every sheet)."""
    campaign = _lock_campaign(campaign_id)
    _system(campaign)
    if campaign.daylight == daylight:
        raise CampaignError("The party is in daylight already." if daylight else "The party is in the dark already.")
    campaign.daylight = daylight
    campaign.save(update_fields=["daylight"])
    regions = _refresh_conditions(campaign)
    record(campaign.pk, ClockMoved())
    return written(campaign, ("table", *regions))
