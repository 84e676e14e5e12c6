"""Running a session from the GM's table: roll requests, the encounter tracker, the clock and notes.

Every write here is a service: keyword-only, atomic, announced after commit. What a system does (which
rolls a group result, an NPC's stat block, the order of a round, what time burns) comes from the rules
through ``GameSystem`` members that have defaults, so a system that implements none of them still runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.names import clean_name
from campaigns.conditions import refresh_conditions
from campaigns.models import Campaign, Encounter, GmNote, Npc, RollRequest, RollRequestAnswer
from campaigns.services import CLOCK_LIMIT, CampaignError
from characters import locking
from characters.models import Character
from characters.selectors import characters_editable_by
from characters.services import (
    character_pass_time,
    character_roll,
    character_table_effect,
    roll_lock_ids,
    store_free_roll,
)
from live.events import publish
from rules import SYSTEMS, RulesError
from rules import base as rules_base
from rules.dice import RandomSource, system_random

REQUEST_MINUTES = (1, 240)  # how long a request stays open: a minute to a long scene
OPEN_REQUESTS_MAX = 200  # no table needs more waiting at once; it keeps the table page bounded
RECENT = timedelta(hours=1)  # answers a sheet still shows after they were rolled
FIXABLE_KINDS = ("int", "choice", "bool")  # what the GM may fix; characters and lists stay the player's


def _lock_campaign(campaign_id: int, *, roller=None) -> Campaign:
    """The campaign's row, in the app's one order (characters.locking): ``roller``, the user whose rolls this
    write may store, is locked before it (their rolls-per-minute cap)."""
    locking.lock_roller(roller)
    campaign = locking.lock_campaign(campaign_id)
    if campaign is None:
        raise CampaignError("That campaign no longer exists.")
    return campaign


def _system(campaign: Campaign) -> rules_base.GameSystem:
    system = SYSTEMS.get(campaign.system)
    if system is None:
        raise CampaignError(f"{campaign.system_name} cannot be played at a Lantern table yet.")
    return system


def requestable(system: rules_base.GameSystem) -> dict[str, rules_base.Procedure]:
    """The procedures a GM may ask players for: every roll a player makes from their own sheet."""
    return {key: proc for key, proc in system.procedures().items() if not proc.gm_only}


def _shown(params: Sequence[rules_base.Param], fixed: Mapping[str, Any]) -> str:
    words = []
    for param in params:
        if param.name not in fixed:
            continue
        value = fixed[param.name]
        if param.kind == "choice":
            value = dict(param.choices).get(str(value), value)
        elif param.kind == "bool":
            value = "yes" if value else "no"
        words.append(f"{param.label} {value}")
    return ", ".join(words)[:300]


def _fixed_inputs(proc: rules_base.Procedure, sheet: rules_base.Sheet, fixed: Mapping[str, Any]) -> dict[str, Any]:
    """The GM's inputs cleaned by the rules for one character's sheet (RulesError naming what is wrong)."""
    params = {p.name: p for p in proc.params(sheet)}
    unknown = sorted(set(fixed) - set(params))
    if unknown:
        raise RulesError(f"{proc.label} has no option {', '.join(unknown)}.")
    loose = sorted(params[name].label for name in fixed if params[name].kind not in FIXABLE_KINDS)
    if loose:
        raise RulesError(f"{', '.join(loose)}: the player chooses that.")
    clean = rules_base.check_params(proc, sheet, fixed)
    return {name: clean[name] for name in fixed}


@transaction.atomic
def request_create(
    *, campaign_id: int, procedure: str, fixed: Mapping[str, Any], character_ids: Sequence[int], minutes: int, by
) -> RollRequest:
    """The GM asks these characters for a roll; ``fixed``: the inputs the GM sets (the rest stay open)."""
    campaign = _lock_campaign(campaign_id)
    system = _system(campaign)
    proc = requestable(system).get(procedure)
    if proc is None:
        raise CampaignError(f"{system.name} has no roll a player makes called {procedure!r}.")
    if not REQUEST_MINUTES[0] <= minutes <= REQUEST_MINUTES[1]:
        raise CampaignError(f"A request stays open {REQUEST_MINUTES[0]} to {REQUEST_MINUTES[1]} minutes.")
    wanted = set(character_ids)
    if not wanted:
        raise CampaignError("Pick at least one character to ask.")
    characters = list(Character.objects.filter(campaign=campaign, pk__in=wanted).select_related("campaign"))
    if len(characters) != len(wanted):
        raise CampaignError("Only characters at this table can be asked for a roll.")
    now = timezone.now()
    if campaign.roll_requests.filter(status=RollRequest.Status.OPEN, expires_at__gt=now).count() >= OPEN_REQUESTS_MAX:
        raise CampaignError(f"{OPEN_REQUESTS_MAX} requests are waiting already: cancel some first.")
    fixed = {k: v for k, v in fixed.items() if v not in (None, "")}
    clean: dict[str, Any] = {}
    params: Sequence[rules_base.Param] = ()
    for character in characters:
        try:
            sheet = character.checked_sheet()
            clean = _fixed_inputs(proc, sheet, fixed)
        except RulesError as problem:
            raise CampaignError(f"{character.name}: {problem}") from None
        params = proc.params(sheet)
    request = RollRequest.objects.create(
        campaign=campaign,
        procedure=proc.key,
        label=proc.label[:200],
        inputs=clean,
        shown=_shown(params, clean),
        created_by=by,
        expires_at=now + timedelta(minutes=minutes),
    )
    RollRequestAnswer.objects.bulk_create(RollRequestAnswer(request=request, character=c) for c in characters)
    _announce_request(campaign.pk, [c.pk for c in characters])
    return request


def _announce_request(campaign_id: int, character_ids: Sequence[int]) -> None:
    publish(campaign_id, "requests")
    for character_id in character_ids:
        publish(campaign_id, f"character-{character_id}-requests")


@transaction.atomic
def request_answer(*, request_id: int, character_id: int, params: Mapping[str, Any], by, rng=None) -> RollRequestAnswer:
    """A player answers a request for one of their characters: the normal roll, the GM's inputs forced.

    Locked in the app's one order (characters.locking): the roller, the characters the roll locks, then the
    answer (locking the answer first deadlocked with the character's deletion, which deletes its answers)."""
    if not characters_editable_by(by).filter(pk=character_id).exists():
        raise RulesError("That request is for someone else's character: only its player or the GM answers it.")
    locking.lock_roller(by)
    known = RollRequest.objects.filter(answers__character_id=character_id, pk=request_id)
    found = known.values_list("procedure", "inputs").first()
    if found is not None:
        with contextlib.suppress(RulesError):  # a roll the system no longer has: refused below, in its words
            locking.lock_characters(roll_lock_ids(character_id, found[0], {**params, **found[1]}))
    answer = (
        RollRequestAnswer.objects.select_for_update()
        .select_related("request", "request__campaign")
        .filter(request_id=request_id, character_id=character_id)
        .first()
    )
    if answer is None:
        raise RulesError("That request is not for this character.")
    request = answer.request
    if answer.answered_at is not None:
        raise RulesError("This character has answered that request already.")
    if request.status == RollRequest.Status.CANCELLED:
        raise RulesError("The GM cancelled that request.")
    if not request.is_open(timezone.now()):
        raise RulesError("That request has expired: ask the GM for a new one.")
    system = _system(request.campaign)
    proc = system.procedures().get(request.procedure)
    if proc is None:
        raise RulesError(f"{system.name} no longer has that roll.")
    character = locking.lock_character(character_id)  # held already: it waits for nothing
    sheet = character.checked_sheet()
    given = {k: v for k, v in params.items() if k in request.inputs}
    if given:
        clean = rules_base.check_params(proc, sheet, given)
        changed = [p.label for p in proc.params(sheet) if p.name in given and clean[p.name] != request.inputs[p.name]]
        if changed:
            raise RulesError(f"The GM set {', '.join(changed)} for this roll; it cannot be changed.")
    _, roll = character_roll(
        character_id=character_id, procedure=proc.key, params={**params, **request.inputs}, by=by, rng=rng
    )
    answer.roll = roll
    answer.outcome = roll.outcome[:60]
    answer.answered_at = timezone.now()
    answer.save(update_fields=["roll", "outcome", "answered_at"])
    outcomes = list(request.answers.values_list("outcome", "answered_at"))
    if all(at is not None for _, at in outcomes):
        group = system.group_result(request.procedure, [outcome for outcome, _ in outcomes])
        if group is not None:
            request.group_outcome = group.outcome[:60]
            request.group_summary = group.summary[:300]
            request.save(update_fields=["group_outcome", "group_summary"])
    _announce_request(request.campaign_id, [character_id])
    return answer


@transaction.atomic
def request_cancel(*, request_id: int, campaign_id: int) -> RollRequest:
    request = RollRequest.objects.select_for_update().filter(pk=request_id, campaign_id=campaign_id).first()
    if request is None:
        raise CampaignError("That request is not at this table.")
    if request.status == RollRequest.Status.CANCELLED:
        raise CampaignError("That request was cancelled already.")
    if all(a.answered_at is not None for a in request.answers.all()):
        raise CampaignError("Everyone has answered that request: there is nothing left to cancel.")
    request.status = RollRequest.Status.CANCELLED
    request.save(update_fields=["status"])
    _announce_request(campaign_id, list(request.answers.values_list("character_id", flat=True)))
    return request


# --- the encounter tracker -------------------------------------------------------------------------------

NPCS_MAX = 60  # an encounter or a saved list longer than this is not something a table page can run
STATUS_ROUNDS_MAX = 100


@dataclass(frozen=True)
class _TableRoll:
    """A roll the GM makes at the table for no character (an NPC's attack, the round's order), shaped as a
    procedure so it is stored and announced like every other GM roll."""

    key: str
    label: str
    make: Callable[[RandomSource], rules_base.RollResult]
    gm_only: bool = True

    def params(self, sheet: Any) -> tuple[rules_base.Param, ...]:
        return ()

    def odds(self, sheet: Any, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Any, params: Mapping[str, Any], rng: RandomSource) -> rules_base.RollResult:
        return self.make(rng)


def clean_npc(system: rules_base.GameSystem, name: str, stats: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A name and stat block the system accepts, or CampaignError with the sentence to show."""
    cleaned = clean_name(str(name or ""))[:100]
    if not cleaned:
        raise CampaignError("Give the NPC a name.")
    try:
        block = rules_base.check_params(rules_base.ParamSpec("NPC", system.npc_fields(), "npc"), None, stats)
    except RulesError as problem:
        raise CampaignError(f"{cleaned}: {problem}") from None
    return cleaned, block


def _active(campaign: Campaign) -> Encounter:
    encounter = campaign.encounters.filter(active=True).first()
    if encounter is None:
        raise CampaignError("No fight is running: start an encounter first.")
    return encounter


def _log_order(campaign: Campaign, order: rules_base.CombatOrder, round_number: int, by) -> None:
    if order.dice:
        label = f"Combat order, round {round_number}"
        result = replace(rules_base.RollResult("combat_order", label, "order", order.summary), dice=order.dice)
        _store_made(campaign, result, by=by, visibility="public")


def _store_made(campaign: Campaign, result: rules_base.RollResult, *, by, visibility: str) -> None:
    """A roll the rules made already (a check as time passes, the round's order), logged as the GM's."""

    def made(rng: RandomSource) -> rules_base.RollResult:
        return result

    store_free_roll(
        campaign=campaign,
        params={},
        by=by,
        visibility=visibility,
        procedure=_TableRoll(result.procedure, result.label, made),
    )


def _publish_fight(campaign_id: int) -> None:
    publish(campaign_id, "encounter")
    publish(campaign_id, "table")


@transaction.atomic
def encounter_start(*, campaign_id: int, name: str, by, rng: RandomSource | None = None) -> Encounter:
    campaign = _lock_campaign(campaign_id, roller=by)
    system = _system(campaign)
    if campaign.encounters.filter(active=True).exists():
        raise CampaignError("A fight is already running: end it before starting another.")
    title = clean_name(str(name or ""))[:100] or "Encounter"
    order = system.combat_order(1, rng or system_random())
    encounter = Encounter.objects.create(
        campaign=campaign, name=title, order=list(order.steps), order_summary=order.summary[:300]
    )
    campaign.round = 1
    campaign.save(update_fields=["round"])
    refresh_conditions(campaign.pk)  # every sheet knows a fight is running (the tracker starts the rounds)
    _log_order(campaign, order, 1, by)
    _publish_fight(campaign.pk)
    return encounter


@transaction.atomic
def npc_add(
    *, campaign_id: int, name: str, stats: Mapping[str, Any], to_encounter: bool = True, keep: bool = False
) -> Npc:
    """An NPC into the running fight (``to_encounter``) and/or onto the campaign's saved list (``keep``)."""
    campaign = _lock_campaign(campaign_id)
    system = _system(campaign)
    cleaned, block = clean_npc(system, name, stats)
    made = None
    if keep:
        if campaign.npcs.filter(encounter__isnull=True).count() >= NPCS_MAX:
            raise CampaignError(f"The saved list holds {NPCS_MAX} NPCs at most: remove one first.")
        made = Npc.objects.create(campaign=campaign, name=cleaned, stats=block, start=block)
    if to_encounter:
        encounter = _active(campaign)
        if encounter.npcs.count() >= NPCS_MAX:
            raise CampaignError(f"An encounter holds {NPCS_MAX} NPCs at most.")
        made = Npc.objects.create(campaign=campaign, encounter=encounter, name=cleaned, stats=block, start=block)
    if made is None:
        raise CampaignError("Add the NPC to the fight, to the saved list, or both.")
    _publish_fight(campaign.pk)
    return made


@transaction.atomic
def npc_bring(*, campaign_id: int, saved_id: int) -> Npc:
    """A copy of a saved NPC joins the running fight, fresh."""
    campaign = _lock_campaign(campaign_id)
    saved = campaign.npcs.filter(pk=saved_id, encounter__isnull=True).first()
    if saved is None:
        raise CampaignError("That NPC is not on this campaign's saved list.")
    return npc_add(campaign_id=campaign.pk, name=saved.name, stats=saved.stats)


def _npc(campaign: Campaign, npc_id: int) -> Npc:
    npc = Npc.objects.select_for_update().filter(pk=npc_id, campaign=campaign).first()
    if npc is None:
        raise CampaignError("That NPC is not at this table.")
    return npc


@transaction.atomic
def npc_damage(
    *,
    campaign_id: int,
    npc_id: int,
    amount: int,
    ignore_armour: bool = False,
    by=None,
    visibility: str = "public",
    rng: RandomSource | None = None,
) -> rules_base.NpcHarm:
    """Damage typed at the table: the rules' new stats, prompts, and any dice they roll at that moment (Fell's
    critical harm test), logged as the GM's."""
    campaign = _lock_campaign(campaign_id, roller=by)
    system = _system(campaign)
    npc = _npc(campaign, npc_id)
    if not 0 <= amount <= 10_000:
        raise CampaignError("Damage is a whole number from 0 to 10000.")
    harm = system.npc_damage(npc.stats, npc.start, amount, ignore_armour, rng or system_random())
    _, npc.stats = clean_npc(system, npc.name, harm.stats)
    for made in harm.rolls:
        _store_made(campaign, replace(made, label=f"{npc.name}: {made.label}"[:200]), by=by, visibility=visibility)
    prompts = [harm.words]
    if harm.defeated and not npc.defeated:
        prompts.append(f"{npc.name} is defeated.")
    if harm.morale:
        prompts.append("The rules call for a morale check.")
    npc.defeated = npc.defeated or harm.defeated  # more harm never brings one back
    npc.prompt = " ".join(p for p in prompts if p)[:300]
    npc.save(update_fields=["stats", "defeated", "prompt"])
    _publish_fight(campaign.pk)
    return harm


@transaction.atomic
def npc_roll(*, campaign_id: int, npc_id: int, key: str, visibility: str, by):
    """An NPC's roll (attack, morale...): the GM's, in the log, never a character's."""
    campaign = _lock_campaign(campaign_id, roller=by)
    system = _system(campaign)
    npc = _npc(campaign, npc_id)
    label = system.npc_rolls().get(key)
    if label is None:
        raise CampaignError(f"{system.name} has no NPC roll called {key!r}.")
    stats = dict(npc.stats)

    def make(rng: RandomSource) -> rules_base.RollResult:
        result = system.npc_roll(key, stats, rng)
        return replace(result, label=f"{npc.name}: {result.label}"[:200])

    made: list[rules_base.RollResult] = []

    def kept(rng: RandomSource) -> rules_base.RollResult:
        made.append(make(rng))
        return made[0]

    try:
        roll = store_free_roll(
            campaign=campaign, params={}, by=by, visibility=visibility, procedure=_TableRoll(key, label, kept)
        )
    except RulesError as problem:
        raise CampaignError(str(problem)) from None
    result = made[0] if made else None
    changed = ["prompt"] if npc.prompt else []
    npc.prompt = ""
    if result is not None and result.state is not None:  # the roll changed the NPC (a STR die lowered)
        _, npc.stats = clean_npc(system, npc.name, result.state)
        changed.append("stats")
    if result is not None and result.details.get("defeated") and not npc.defeated:
        npc.defeated = True
        npc.prompt = f"{npc.name} is out of the fight."
        changed += ["defeated", "prompt"]
    if changed:
        npc.save(update_fields=list(dict.fromkeys(changed)))
        _publish_fight(campaign.pk)
    return roll


@transaction.atomic
def npc_status(*, campaign_id: int, npc_id: int, name: str, rounds: int) -> Npc:
    campaign = _lock_campaign(campaign_id)
    npc = _npc(campaign, npc_id)
    words = clean_name(str(name or ""))[:40]
    if not words:
        raise CampaignError("Name the status (stunned, on fire...).")
    if not 1 <= rounds <= STATUS_ROUNDS_MAX:
        raise CampaignError(f"A status lasts 1 to {STATUS_ROUNDS_MAX} rounds.")
    if len(npc.statuses) >= 10:
        raise CampaignError(f"{npc.name} has ten statuses already.")
    npc.statuses = [*npc.statuses, {"name": words, "rounds": rounds}]
    npc.save(update_fields=["statuses"])
    _publish_fight(campaign.pk)
    return npc


@transaction.atomic
def npc_remove(*, campaign_id: int, npc_id: int) -> None:
    campaign = _lock_campaign(campaign_id)
    _npc(campaign, npc_id).delete()
    _publish_fight(campaign.pk)


@transaction.atomic
def encounter_next_round(*, campaign_id: int, by, rng: RandomSource | None = None) -> Encounter:
    """The next round: the system's order for it, and statuses one round shorter (gone at 0)."""
    campaign = _lock_campaign(campaign_id, roller=by)
    system = _system(campaign)
    encounter = _active(campaign)
    if encounter.round >= 10_000:
        raise CampaignError("This fight has run 10000 rounds: end it.")
    encounter.round += 1
    order = system.combat_order(encounter.round, rng or system_random())
    encounter.order, encounter.order_summary = list(order.steps), order.summary[:300]
    encounter.save(update_fields=["round", "order", "order_summary"])
    for npc in encounter.npcs.select_for_update().exclude(statuses=[]).order_by("pk"):
        left = [{**s, "rounds": s["rounds"] - 1} for s in npc.statuses if s["rounds"] > 1]
        ended = [s["name"] for s in npc.statuses if s["rounds"] <= 1]
        npc.statuses = left
        if ended:
            npc.prompt = f"No longer {', '.join(ended)}."[:300]
        npc.save(update_fields=["statuses", "prompt"])
    campaign.round = encounter.round
    rng = rng or system_random()
    words = _on_every_sheet(campaign, lambda rules, sheet: rules.round_passes(sheet, rng), by)
    campaign.clock_note = " ".join(words)[:1000]
    campaign.save(update_fields=["round", "clock_note"])
    _log_order(campaign, order, encounter.round, by)
    _publish_fight(campaign.pk)
    return encounter


def _table_in_order(campaign: Campaign) -> list[Character]:
    """Every character at the (locked) table, locked in the app's one order (by id: characters.locking), then
    listed by name for what the table reads. Locking them by name, one by one, deadlocked with a roll naming a
    character whose name sorts otherwise than its id (the roll locks by id)."""
    return sorted(locking.lock_table(campaign), key=lambda c: (c.name, c.pk))


def _on_every_sheet(campaign: Campaign, effect, by) -> list[str]:
    """The table's ``effect(system, sheet)`` applied to every PC's sheet; what it did, a sentence each. A sheet
    the rules cannot read is named and left alone."""
    words = []
    for character in _table_in_order(campaign):
        try:
            result = character_table_effect(character_id=character.pk, effect=effect, by=by)
        except RulesError as problem:
            words.append(f"{character.name}: {problem}")
            continue
        if result.summary:
            words.append(f"{character.name}: {result.summary}")
    return words


@transaction.atomic
def encounter_end(
    *, campaign_id: int, by, rng: RandomSource | None = None
) -> tuple[Encounter, int, RollRequest | None]:
    """End the fight: its rounds become game time, and each PC is asked for the system's end-of-combat roll.

    Returns the encounter, the minutes added and the request made (None: the system has no such roll).
    """
    rng = rng or system_random()
    campaign = _lock_campaign(campaign_id, roller=by)
    system = _system(campaign)
    encounter = _active(campaign)
    encounter.active = False
    encounter.save(update_fields=["active"])
    # The fight's rounds, from the seconds already past the minute, rounded up to the next whole minute.
    minutes = -(-(campaign.game_seconds + encounter.round * system.combat_round_seconds) // 60)
    minutes = min(minutes, CLOCK_LIMIT - campaign.game_minutes)
    # The fight's minutes burn lit light sources as the clock's do; what lasted the fight ends.
    words = _on_every_sheet(campaign, lambda rules, sheet: rules.fight_ends(sheet, minutes, rng), by)
    campaign.round = 0
    campaign.game_minutes += minutes
    campaign.game_seconds = 0
    campaign.clock_note = " ".join(words)[:1000]
    campaign.save(update_fields=["round", "game_minutes", "game_seconds", "clock_note"])
    refresh_conditions(campaign.pk)  # no fight now; the lights may have burnt out
    asked = None
    procedure = system.end_of_combat()
    pcs = list(campaign.characters.values_list("pk", flat=True))
    if procedure is not None and pcs:
        asked = request_create(
            campaign_id=campaign.pk, procedure=procedure, fixed={}, character_ids=pcs, minutes=60, by=by
        )
    _publish_fight(campaign.pk)
    return encounter, minutes, asked


# --- the exploration clock -------------------------------------------------------------------------------

CLOCK_COUNT_MAX = 30  # units at a time: a month of days, or three hours of turns


@transaction.atomic
def clock_advance(*, campaign_id: int, unit: str, count: int, by, rng: RandomSource | None = None) -> list[str]:
    """Move the game clock by ``count`` of the system's ``unit``: every sheet at the table burns its lights and
    eats at the system's rhythm (live on each sheet), and the system's checks are rolled as the GM's."""
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
    rng = rng or system_random()
    words = []
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
    campaign.game_minutes, campaign.game_seconds = start + minutes, seconds
    campaign.clock_note = " ".join(words)[:1000]
    campaign.save(update_fields=["game_minutes", "game_seconds", "clock_note"])
    refresh_conditions(campaign.pk)  # lights burnt out: the party may be in darkness now
    publish(campaign.pk, "table")
    return words


@transaction.atomic
def set_daylight(*, campaign_id: int, daylight: bool) -> Campaign:
    """The GM says whether the party is in daylight (its lights make no difference) or in the dark (its lit
    light sources set the light level, and the rules apply what that level does to every sheet)."""
    campaign = _lock_campaign(campaign_id)
    _system(campaign)
    if campaign.daylight == daylight:
        raise CampaignError("The party is in daylight already." if daylight else "The party is in the dark already.")
    campaign.daylight = daylight
    campaign.save(update_fields=["daylight"])
    campaign.conditions = refresh_conditions(campaign.pk)
    publish(campaign.pk, "table")
    return campaign


# --- notes ---------------------------------------------------------------------------------------------------

NOTE_MAX = 5000


def _note_text(text: str) -> str:
    text = str(text or "").replace("\x00", "").strip()
    if len(text) > NOTE_MAX:
        raise CampaignError(f"A note holds {NOTE_MAX} characters at most; this one has {len(text)}.")
    return text


@transaction.atomic
def note_save(*, campaign_id: int, character_id: int | None, text: str) -> GmNote:
    """The GM's private note on the campaign or one of its characters. Announced to the GM's pages only."""
    campaign = _lock_campaign(campaign_id)
    if character_id is not None and not campaign.characters.filter(pk=character_id).exists():
        raise CampaignError("That character is not at this table.")
    note, _ = GmNote.objects.update_or_create(
        campaign=campaign, character_id=character_id, defaults={"text": _note_text(text)}
    )
    gms = campaign.memberships.filter(role="gm").values_list("user_id", flat=True)
    publish(campaign.pk, "notes", audience=list(gms))
    return note


@transaction.atomic
def summary_save(*, campaign_id: int, text: str) -> Campaign:
    """The session summary every player at the table reads."""
    campaign = _lock_campaign(campaign_id)
    campaign.summary = _note_text(text)
    campaign.save(update_fields=["summary"])
    publish(campaign.pk, "summary")
    return campaign
