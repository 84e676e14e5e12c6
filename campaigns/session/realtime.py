"""Time the server keeps (issue 41): game time running with the wall clock, named countdowns, and the GM's
correction of a light's time left.

Real time keeps nothing in a process. The campaign row says since when game time runs (``realtime_since``: the
wall time at which the stored game time was the time of play) and how fast; the time of play is worked out on
every read (``realtime_game_seconds``), and ``realtime_catch_up`` applies the whole steps that fell due (the
system's shortest unit of a minute or more, through ``clock_advance``: lights burn and go out, rations are due,
checks are rolled, all journalled) whenever anyone writes to the clock and whenever the ticker runs
(``manage.py clock_ticker``). A server that stops and starts again reads the same row and carries on.

Session code pauses it at a session's end with ``realtime_pause(campaign_id=…, quiet=True)``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from campaigns.models import Campaign, Countdown, Membership
from campaigns.services import CampaignError, TableWritten, written
from campaigns.session.clock import CLOCK_COUNT_MAX, clock_advance, progress_seen, step_unit
from campaigns.session.common import lock_campaign, table_system
from characters.models import Character
from characters.services import character_table_effect
from live.events import (
    PUBLIC,
    ClockMoved,
    CountdownChanged,
    CountdownTicked,
    LightTimeSet,
    RealtimeChanged,
    Seen,
    gm_only,
)
from live.journal import record
from rules import SYSTEMS, RulesError
from rules import base as rules_base
from rules.clock import COUNTDOWN_SEGMENTS_MAX, realtime_due, remaining, set_remaining
from rules.dice import RandomSource

Now = Callable[[], datetime]
RATE_MAX = 60  # game seconds per real second: an hour of play a minute at most
# Steps one catch-up applies (five hours of ten-minute turns): a server away for longer
# drops the rest, and says so (each step may roll the system's checks, which count against the roll cap).
CATCH_UP_MAX = CLOCK_COUNT_MAX
COUNTDOWNS_MAX = 20  # per campaign: the table lists them all
COUNTDOWN_EVERY_MAX = 7 * 24 * 60  # a segment at most every week of game time


def realtime_game_seconds(campaign: Campaign, now: datetime | None = None) -> int:
    """The time of play now, in game seconds: the stored game time plus what ran since (a read, writes nothing)."""
    stored = campaign.game_minutes * 60 + campaign.game_seconds
    if campaign.realtime_since is None:
        return stored
    elapsed = int(((now or timezone.now()) - campaign.realtime_since).total_seconds())
    return stored + max(0, elapsed) * campaign.realtime_rate


@transaction.atomic
def realtime_start(*, campaign_id: int, by: User, rate: int = 1, now: datetime | None = None) -> TableWritten:
    """The GM starts game time running with the wall clock (``rate`` game seconds a real second)."""
    campaign = lock_campaign(campaign_id)
    step_unit(table_system(campaign))  # refused now if the system cannot run in real time
    if campaign.realtime_since is not None:
        raise CampaignError("Game time is running already.")
    if isinstance(rate, bool) or not isinstance(rate, int) or not 1 <= rate <= RATE_MAX:
        raise CampaignError(f"Game time runs 1 to {RATE_MAX} times as fast as real time.")
    now = now or timezone.now()
    # What had run towards the next step before the pause counts: the next step comes that much sooner.
    campaign.realtime_since = now - timedelta(seconds=campaign.realtime_carry / rate)
    campaign.realtime_rate, campaign.realtime_carry, campaign.realtime_by = rate, 0, by
    campaign.save(update_fields=["realtime_since", "realtime_rate", "realtime_carry", "realtime_by"])
    record(campaign.pk, RealtimeChanged(running=True), ClockMoved(), by=by)
    return written(campaign, ["table"])


@transaction.atomic
def realtime_pause(
    *, campaign_id: int, by: User | None = None, now: datetime | None = None, quiet: bool = False
) -> TableWritten:
    """Game time stops running: the steps due are applied first, what ran towards the next one is kept for the
    restart. ``quiet``: not running is no error (a session ending calls this whether or not it runs)."""
    now = now or timezone.now()
    realtime_catch_up(campaign_id=campaign_id, now=now)
    campaign = lock_campaign(campaign_id)
    if campaign.realtime_since is None:
        if quiet:
            return written(campaign, [])
        raise CampaignError("Game time is not running.")
    step = step_unit(table_system(campaign))
    elapsed = int((now - campaign.realtime_since).total_seconds())
    campaign.realtime_carry = realtime_due(elapsed, campaign.realtime_rate, step.length)[1]
    campaign.realtime_since = None
    campaign.save(update_fields=["realtime_since", "realtime_carry"])
    record(campaign.pk, RealtimeChanged(running=False), ClockMoved(), by=by)
    return written(campaign, ["table"])


@transaction.atomic
def realtime_catch_up(*, campaign_id: int, now: datetime | None = None, rng: RandomSource | None = None) -> int:
    """Apply the steps of game time that fell due on a running clock; how many (0: nothing due, or not running).
    Each step is the GM's clock button pressed once: lights, food, checks, countdowns, the journal."""
    campaign = lock_campaign(campaign_id)
    since = campaign.realtime_since
    if since is None:
        return 0
    system = table_system(campaign)
    step = step_unit(system)
    now = now or timezone.now()
    elapsed = int((now - since).total_seconds())
    due = realtime_due(elapsed, campaign.realtime_rate, step.length)[0]
    if not due:
        return 0
    by = campaign.realtime_by or _a_gm(campaign)
    applied, note = min(due, CATCH_UP_MAX), ""
    done = 0
    try:
        while done < applied:  # step by step, as they would have come: a warning before the light goes out
            clock_advance(campaign_id=campaign.pk, unit=step.key, count=1, by=by, rng=rng)
            done += 1
    except CampaignError as problem:  # the clock reached its limit: real time stops there
        note = str(problem)
    campaign = lock_campaign(campaign_id)  # as clock_advance left it
    if note:
        campaign.realtime_since, campaign.realtime_carry = None, 0
        campaign.clock_note = f"Real time paused: {note}"[:1000]
        campaign.save(update_fields=["realtime_since", "realtime_carry", "clock_note"])
        record(campaign.pk, RealtimeChanged(running=False), ClockMoved())
        return done
    campaign.realtime_since = since + timedelta(seconds=due * step.length / campaign.realtime_rate)
    fields = ["realtime_since"]
    if due > applied:
        campaign.clock_note = f"{campaign.clock_note} The server was away: {due - applied} steps of time skipped."[
            :1000
        ]
        fields.append("clock_note")
    campaign.save(update_fields=fields)
    return done


def realtime_tick_all(*, now: Now = timezone.now, rng: RandomSource | None = None) -> dict[int, int]:
    """The ticker's round: every running table's due steps applied, each in its own transaction (one table's
    problem never stops another's). {campaign id: steps applied} for those that moved."""
    moved = {}
    running = Campaign.objects.filter(realtime_since__isnull=False).order_by("pk").values_list("pk", flat=True)
    for campaign_id in list(running):
        try:
            steps = realtime_catch_up(campaign_id=campaign_id, now=now(), rng=rng)
        except CampaignError:
            continue  # the system went away meanwhile: the table shows why when next opened
        if steps:
            moved[campaign_id] = steps
    return moved


def _a_gm(campaign: Campaign) -> User:
    membership = campaign.memberships.filter(role=Membership.Role.GM).select_related("user").order_by("pk").first()
    if membership is None:
        raise CampaignError("The table has no GM to keep its time.")
    return membership.user


# --- countdowns ---------------------------------------------------------------------------------------------------


def countdown_seen(countdown: Countdown) -> Seen:
    """Who may know a countdown exists."""
    return PUBLIC if countdown.players_see() else gm_only()


def clean_countdown(
    name: str, segments: int, shown: str, every_minutes: int | None
) -> tuple[str, int, str, int | None]:
    """A countdown's fields as stored, or a sentence saying what is wrong."""
    name = " ".join(str(name).split())[:80]
    if not name:
        raise CampaignError("Give the countdown a name.")
    if isinstance(segments, bool) or not isinstance(segments, int) or not 1 <= segments <= COUNTDOWN_SEGMENTS_MAX:
        raise CampaignError(f"A countdown has 1 to {COUNTDOWN_SEGMENTS_MAX} segments.")
    if shown not in Countdown.Shown.values:
        raise CampaignError("Say what players see of the countdown.")
    if every_minutes is not None and not 1 <= every_minutes <= COUNTDOWN_EVERY_MAX:
        raise CampaignError(f"A countdown fills a segment every 1 to {COUNTDOWN_EVERY_MAX} minutes of game time.")
    return name, segments, shown, every_minutes


@transaction.atomic
def countdown_create(
    *, campaign_id: int, name: str, segments: int, shown: str, every_minutes: int | None, by: User
) -> TableWritten:
    """A new countdown, empty; one that fills with game time counts from the time of play now."""
    campaign = lock_campaign(campaign_id)
    name, segments, shown, every_minutes = clean_countdown(name, segments, shown, every_minutes)
    if campaign.countdowns.count() >= COUNTDOWNS_MAX:
        raise CampaignError(f"A table keeps at most {COUNTDOWNS_MAX} countdowns: remove one first.")
    countdown = Countdown.objects.create(
        campaign=campaign,
        name=name,
        segments=segments,
        shown=shown,
        every_minutes=every_minutes,
        anchor_minutes=campaign.game_minutes,
    )
    record(campaign.pk, CountdownChanged(countdown=countdown.pk, seen=countdown_seen(countdown)), by=by)
    return written(campaign, ["countdowns"], countdown)


def _locked_countdown(campaign: Campaign, countdown_id: int) -> Countdown:
    countdown = campaign.countdowns.select_for_update().filter(pk=countdown_id).first()
    if countdown is None:
        raise CampaignError("That countdown is gone.")
    return countdown


@transaction.atomic
def countdown_tick(*, campaign_id: int, countdown_id: int, by: User, step: int = 1) -> TableWritten:
    """The GM fills a segment (``step`` 1) or empties one (-1) by hand."""
    campaign = lock_campaign(campaign_id)
    countdown = _locked_countdown(campaign, countdown_id)
    if step not in (1, -1):
        raise CampaignError("A countdown moves one segment at a time.")
    filled = countdown.filled + step
    if not 0 <= filled <= countdown.segments:
        raise CampaignError(f"{countdown.name} is full." if step > 0 else f"{countdown.name} is empty.")
    countdown.filled = filled
    countdown.save(update_fields=["filled"])
    record(campaign.pk, CountdownTicked(countdown=countdown.pk, seen=progress_seen(countdown)), by=by)
    return written(campaign, ["countdowns"], countdown)


@transaction.atomic
def countdown_show(*, campaign_id: int, countdown_id: int, shown: str, by: User) -> TableWritten:
    """The GM changes what players see of a countdown."""
    campaign = lock_campaign(campaign_id)
    countdown = _locked_countdown(campaign, countdown_id)
    if shown not in Countdown.Shown.values:
        raise CampaignError("Say what players see of the countdown.")
    was_seen = countdown.players_see()
    countdown.shown = shown
    countdown.save(update_fields=["shown"])
    # Players' pages redraw when it appears or leaves them; one never shown to them is never announced to them.
    seen = PUBLIC if was_seen or countdown.players_see() else gm_only()
    record(campaign.pk, CountdownChanged(countdown=countdown.pk, seen=seen), by=by)
    return written(campaign, ["countdowns"], countdown)


@transaction.atomic
def countdown_remove(*, campaign_id: int, countdown_id: int, by: User) -> TableWritten:
    campaign = lock_campaign(campaign_id)
    countdown = _locked_countdown(campaign, countdown_id)
    seen, pk = countdown_seen(countdown), countdown.pk
    countdown.delete()
    record(campaign.pk, CountdownChanged(countdown=pk, seen=seen), by=by)
    return written(campaign, ["countdowns"])


# --- a light's time left ------------------------------------------------------------------------------------------


@transaction.atomic
def light_set_time(*, campaign_id: int, character_id: int, item_id: int, minutes: int, by: User) -> TableWritten:
    """The GM sets or corrects how long one of a character's lights has left: written to the sheet like any of
    the table's changes (its history keeps before and after, its player sees it live) and journalled."""
    campaign = lock_campaign(campaign_id)
    table_system(campaign)
    character = Character.objects.filter(pk=character_id, campaign=campaign).only("pk", "owner_id", "system").first()
    if character is None:
        raise CampaignError("That character is not at this table.")
    system = SYSTEMS.get(character.system)  # the light burns by its holder's own system (issue 42)
    lights = system.light_sources() if system is not None else None
    if system is None or lights is None:
        raise CampaignError(f"{system.name if system else character.system} burns no lights.")

    def effect(rules: rules_base.GameSystem, sheet: rules_base.Sheet) -> rules_base.RollResult:
        item = next((i for i in sheet.items if i.id == item_id), None)
        if item is None:
            raise RulesError("That light is no longer on the sheet.")
        before = remaining(item, lights)
        after = set_remaining(item, minutes, lights)
        words = f"{item.name}: {before} → {minutes} min of light left (set by the GM)."
        return rules_base.RollResult("light_time", "Light's time set", "done", words, items_changed=(after,))

    try:
        result = character_table_effect(character_id=character.pk, effect=effect, by=by)
    except RulesError as problem:
        raise CampaignError(str(problem)) from None
    record(campaign.pk, LightTimeSet(character=character.pk, item=item_id, seen=gm_only(character.owner_id)), by=by)
    return written(campaign, [], result.summary)
