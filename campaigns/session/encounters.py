"""The encounter tracker: a fight's NPCs, their damage, status and rolls, its rounds and its end."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from accounts.names import clean_name
from campaigns.announce import SHEET_FIGHT
from campaigns.models import Campaign, Encounter, FightHit, Npc, RollRequest
from campaigns.services import CLOCK_LIMIT, CampaignError, TableWritten, written
from campaigns.session.common import (
    chosen_npc_system,
    lock_campaign,
    npc_rules,
    on_every_sheet,
    refresh_table_conditions,
    table_system,
)
from campaigns.session.requests import request_create
from characters import locking
from characters.models import Character, Roll
from characters.services import character_roll, store_free_roll
from live.events import ClockMoved, FightChanged, HitLanded
from live.journal import record
from rules import SYSTEMS, RulesError, dice, system_for
from rules import base as rules_base
from rules.dice import RandomSource

NPCS_MAX = 60  # an encounter or a saved list longer than this is not something a table page can run
STATUS_ROUNDS_MAX = 100
# What every fight write announces (publish_fight): the table page's tracker and round, every PC sheet's fight.
FIGHT = ("encounter", "table", SHEET_FIGHT)


@dataclass(frozen=True)
class FightEnded:
    """The row ``encounter_end`` returns: the fight, the minutes its rounds added, the request it made (None:
    the system has no end-of-combat roll, or nobody sits at the table)."""

    encounter: Encounter
    minutes: int
    asked: RollRequest | None


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


def _log_order(campaign: Campaign, order: rules_base.CombatOrder, round_number: int, by: User) -> tuple[str, ...]:
    """The round's order in the log when dice made it; the regions that announced."""
    if not order.dice:
        return ()
    label = f"Combat order, round {round_number}"
    result = replace(rules_base.RollResult("combat_order", label, "order", order.summary), dice=order.dice)
    store_made(campaign, result, by=by, visibility="public")
    return ("rolls",)


def store_made(campaign: Campaign, result: rules_base.RollResult, *, by: User, visibility: str) -> None:
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


def publish_fight(campaign_id: int, by: User | None = None) -> tuple[str, ...]:
    record(campaign_id, FightChanged(), ClockMoved(), by=by)
    return FIGHT


@transaction.atomic
def encounter_start(*, campaign_id: int, name: str, by: User, rng: RandomSource | None = None) -> TableWritten:
    campaign = lock_campaign(campaign_id, roller=by)
    system = table_system(campaign)
    if campaign.encounters.filter(active=True).exists():
        raise CampaignError("A fight is already running: end it before starting another.")
    title = clean_name(str(name or ""))[:100] or "Encounter"
    order = system.combat_order(1, rng or dice.system_random())
    encounter = Encounter(campaign=campaign, name=title)
    _set_order(encounter, order)
    encounter.save()
    campaign.round = 1
    campaign.save(update_fields=["round"])
    regions = refresh_table_conditions(campaign)  # every sheet knows a fight is running (the tracker starts the rounds)
    regions += _log_order(campaign, order, 1, by)
    return written(campaign, regions + publish_fight(campaign.pk, by), encounter)


@transaction.atomic
def npc_add(
    *,
    campaign_id: int,
    name: str,
    stats: Mapping[str, Any],
    to_encounter: bool = True,
    keep: bool = False,
    system: str = "",
    by: User | None = None,
) -> TableWritten:
    """An NPC into the running fight (``to_encounter``) and/or onto the campaign's saved list (``keep``); the row
    is the NPC made (the fight's when both). ``system``: whose stat block it carries at a mixed table (blank: the
    table's home system); a system the table does not play is refused and nothing is made."""
    campaign = lock_campaign(campaign_id)
    table_system(campaign)
    own, rules = chosen_npc_system(campaign, system)
    cleaned, block = clean_npc(rules, name, stats)
    made = None
    if keep:
        if campaign.npcs.filter(encounter__isnull=True).count() >= NPCS_MAX:
            raise CampaignError(f"The saved list holds {NPCS_MAX} NPCs at most: remove one first.")
        made = Npc.objects.create(campaign=campaign, name=cleaned, system=own, stats=block, start=block)
    if to_encounter:
        encounter = _active(campaign)
        if encounter.npcs.count() >= NPCS_MAX:
            raise CampaignError(f"An encounter holds {NPCS_MAX} NPCs at most.")
        name = _numbered(encounter, cleaned)
        made = Npc.objects.create(
            campaign=campaign, encounter=encounter, name=name, system=own, stats=block, start=block
        )
    if made is None:
        raise CampaignError("Add the NPC to the fight, to the saved list, or both.")
    return written(campaign, publish_fight(campaign.pk, by), made)


def _numbered(encounter: Encounter, name: str) -> str:
    """The name a new NPC takes in the fight: a second "Goblin" makes the first "Goblin 1" and itself "Goblin 2",
    so the GM and the log can tell them apart. Numbers only grow (one removed is not reused: the log still
    names it), and names stay unique in the encounter."""
    taken = set(encounter.npcs.values_list("name", flat=True))
    numbers = [int(other[len(name) + 1 :]) for other in taken if _kind(other, name)]
    if name not in taken and not numbers:
        return name
    if name in taken:  # the first of its kind gets its number when the second arrives
        numbers.append(max(numbers, default=0) + 1)
        encounter.npcs.filter(name=name).update(name=f"{name} {numbers[-1]}"[:100])
    return f"{name} {max(numbers) + 1}"[:100]


def _kind(other: str, name: str) -> bool:
    """``other`` is a numbered one of ``name``'s kind ("Goblin 2" of "Goblin")."""
    number = other.removeprefix(f"{name} ")
    return other != number and number.isdigit()


@transaction.atomic
def npc_bring(*, campaign_id: int, saved_id: int, by: User | None = None) -> TableWritten:
    """A copy of a saved NPC joins the running fight, fresh."""
    campaign = lock_campaign(campaign_id)
    saved = campaign.npcs.filter(pk=saved_id, encounter__isnull=True).first()
    if saved is None:
        raise CampaignError("That NPC is not on this campaign's saved list.")
    return npc_add(campaign_id=campaign.pk, name=saved.name, stats=saved.stats, system=saved.system)


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
    by: User,
    visibility: str = "public",
    rng: RandomSource | None = None,
) -> TableWritten:
    """Damage typed at the table: the rules' new stats, prompts, and any dice they roll at that moment (Fell's
    critical harm test), logged as the GM's. The row is the rules' ``NpcHarm``."""
    campaign = lock_campaign(campaign_id, roller=by)
    npc = _npc(campaign, npc_id)
    system = npc_rules(campaign, npc)
    if not 0 <= amount <= 10_000:
        raise CampaignError("Damage is a whole number from 0 to 10000.")
    harm = system.npc_damage(npc.stats, npc.start, amount, ignore_armour, rng or dice.system_random())
    harm_npc(campaign, system, npc, harm, by=by, visibility=visibility)
    npc.save(update_fields=["stats", "defeated", "prompt"])
    rolled = ("rolls",) if harm.rolls else ()
    return written(campaign, rolled + publish_fight(campaign.pk, by), harm)


def harm_npc(campaign: Campaign, system, npc: Npc, harm: rules_base.NpcHarm, *, by: User, visibility: str) -> None:
    """What ``harm`` (the rules' ``npc_damage``) does to the NPC row (saved by the caller): its stats, its
    prompts, its defeat; the dice the rules rolled at the moment of harm, logged as the GM's."""
    _, npc.stats = clean_npc(system, npc.name, harm.stats)
    for made in harm.rolls:
        store_made(campaign, replace(made, label=f"{npc.name}: {made.label}"[:200]), by=by, visibility=visibility)
    prompts = [harm.words]
    if harm.defeated and not npc.defeated:
        prompts.append(f"{npc.name} is defeated.")
    if harm.morale:
        prompts.append("The rules call for a morale check.")
    npc.defeated = npc.defeated or harm.defeated  # more harm never brings one back
    npc.prompt = " ".join(p for p in prompts if p)[:300]


@dataclass(frozen=True)
class NpcRolled:
    """The row ``npc_roll`` returns: the roll, and for an attack on a PC what it did (``harm``: None when the roll
    is no attack; ``harm_roll``: the target's own harm roll, when damage landed on a sheet that takes it)."""

    roll: Roll
    target: Character | None = None
    harm: rules_base.AttackHarm | None = None
    harm_roll: Roll | None = None


@transaction.atomic
def npc_roll(
    *, campaign_id: int, npc_id: int, key: str, visibility: str, by: User, target_id: int | None = None
) -> TableWritten:
    """An NPC's roll (attack, morale...): the GM's, in the log, never a character's. An attack with a target
    (a PC at the table) names it, and what lands goes to that PC's sheet through the sheet's own harm procedure
    (rules.base.HARM_PROCEDURES), rolled by the GM (who may edit every sheet) and named as the NPC's: the
    sheet's history undoes it like any change. The row is an ``NpcRolled``."""
    campaign = lock_campaign(campaign_id, roller=by)
    table_system(campaign)
    target = _target(campaign, target_id)  # characters before NPCs: the app's lock order
    npc = _npc(campaign, npc_id)
    system = npc_rules(campaign, npc)
    label = system.npc_rolls().get(key)
    if label is None:
        raise CampaignError(f"{system.name} has no NPC roll called {key!r}.")
    stats = dict(npc.stats)
    sheet = target.checked_sheet() if target is not None else None
    # A target of another system (a mixed table): the NPC's rules cannot read its sheet, so they roll against
    # their stand-in (GameSystem.npc_attack_outside) and the damage lands by the target's own rules (``_land``).
    stranger = target is not None and target.system != npc.system_of(campaign)
    harms: list[rules_base.AttackHarm | None] = []

    def make(rng: RandomSource) -> rules_base.RollResult:
        result = system.npc_roll_at(key, stats, None if stranger else sheet, rng)
        if stranger:
            harm = system.npc_attack_outside(result)
        else:
            harm = system.npc_attack_harm(result, sheet) if target is not None and sheet is not None else None
        if target is None or harm is None:  # no target, or a roll that is no attack (morale): nobody is named
            return replace(result, label=f"{npc.name}: {result.label}"[:200])
        harms.append(harm)
        return replace(result, label=f"{npc.name} attacks {target.name}: {harm.words}"[:200])

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
    harm = harms[0] if harms else None
    harm_roll = (
        _land(target, harm, npc, visibility, by, outside=stranger) if target is not None and harm is not None else None
    )
    if target is not None and harm is not None and harm.lands and npc.encounter_id is not None:
        _remember_hit(npc.encounter_id, target.pk, f"{npc.name} hit you for {harm.amount}")
        change = harm_roll.changes.filter(character=target).order_by("pk").first() if harm_roll else None
        if change is not None:  # the GM's Undo at the table (campaigns.session.hits): a hit that changed the sheet
            FightHit.objects.create(
                campaign=campaign,
                encounter_id=npc.encounter_id,
                roll=harm_roll,
                words=f"{npc.name} hit {target.name} for {harm.amount}"[:200],
                character=target,
                change=change,
            )
        changed.append("hit")  # the target's sheet shows it (publish_fight)
        record(campaign.pk, HitLanded(character=target.pk, roll=harm_roll.pk if harm_roll else None), by=by)
    if npc.prompt:  # what the GM applies by hand: the sheet could not take it
        changed.append("prompt")
    regions: tuple[str, ...] = ("rolls",)
    if changed:
        npc.save(update_fields=[f for f in dict.fromkeys(changed) if f != "hit"])
        regions += publish_fight(campaign.pk, by)
    return written(campaign, regions, NpcRolled(roll, target, harm, harm_roll))


@dataclass(frozen=True)
class NpcsAttacked:
    """The row ``pc_attack_npcs`` returns: the character's roll and what each NPC took, in the order asked."""

    roll: Roll
    dealt: tuple[tuple[str, int], ...]


NPC_TARGETS_MAX = 12


@transaction.atomic
def pc_attack_npcs(
    *,
    campaign_id: int,
    character_id: int,
    npc_ids: list[int],
    choices: Mapping[str, Any],
    by: User,
    visibility: str = "public",
    rng: RandomSource | None = None,
) -> TableWritten:
    """A PC's attack on NPCs of the running fight (several at once: an area attack), rolled on the character's
    sheet through the sheet's own procedure (its costs and history, rules.base ``pc_attack_on_npcs``) against the
    NPCs' Armor and statuses; what each NPC takes comes off its stat block as typed damage would. The row is a
    ``NpcsAttacked``.

    At a mixed table the attack is the character's own system's, and an NPC of another system stands in its rules
    as their ``npc_stand_in`` (no armour); what lands comes off the NPC by its own rules, its armour with it."""
    campaign = lock_campaign(campaign_id, roller=by)
    table_system(campaign)
    if visibility == Roll.Visibility.BLIND:
        raise CampaignError("An attack on the fight's NPCs is seen by the table: choose Everyone or the GM.")
    character = _target(campaign, character_id)  # characters before NPCs: the app's lock order
    assert character is not None
    encounter = _active(campaign)
    wanted = list(dict.fromkeys(npc_ids))
    if not wanted or len(wanted) > NPC_TARGETS_MAX:
        raise CampaignError(f"Pick 1 to {NPC_TARGETS_MAX} NPCs in this fight to attack.")
    found = {n.pk: n for n in encounter.npcs.select_for_update().filter(pk__in=wanted, defeated=False).order_by("pk")}
    if len(found) != len(wanted):
        raise CampaignError("Pick NPCs that are still in this fight.")
    npcs = [found[i] for i in wanted]
    system = system_for(character.system)
    stand_in = system.npc_stand_in()
    seen = [(n.stats if _kin(campaign, n, character) else stand_in, [s["name"] for s in n.statuses]) for n in npcs]
    asked = system.pc_attack_on_npcs(seen, choices)
    if asked is None:
        raise CampaignError(f"{system.name}'s sheets have no attack on the tracker's NPCs: type the damage.")
    procedure, params = asked
    results: list[rules_base.RollResult] = []
    try:
        done = character_roll(
            character_id=character.pk,
            procedure=procedure,
            params=params,
            by=by,
            visibility=visibility,
            rng=rng,
            cause=f"{character.name} attacks {', '.join(n.name for n in npcs)}"[:150],
            on_result=results.append,
        )
    except RulesError as problem:
        raise CampaignError(str(problem)) from None
    amounts = system.pc_attack_damage(results[0], len(npcs))
    dealt = []
    for npc, amount in zip(npcs, amounts, strict=False):
        dealt.append((npc.name, amount))
        if amount <= 0:
            continue
        before, defeated_before = dict(npc.stats), npc.defeated
        own = npc_rules(campaign, npc)
        harm = own.npc_damage(npc.stats, npc.start, amount, False, rng or dice.system_random())
        _, npc.stats = clean_npc(own, npc.name, harm.stats)
        words = [f"{character.name}: {harm.words}"]
        if harm.defeated and not npc.defeated:
            words.append(f"{npc.name} is defeated.")
        npc.defeated = npc.defeated or harm.defeated
        npc.prompt = " ".join(words)[:300]
        npc.save(update_fields=["stats", "defeated", "prompt"])
        if npc.stats != before or npc.defeated != defeated_before:  # the GM's Undo at the table gives it back
            FightHit.objects.create(
                campaign=campaign,
                encounter=encounter,
                roll=done.row,
                words=f"{character.name} hit {npc.name} for {amount}"[:200],
                npc=npc,
                npc_before=before,
                npc_after=npc.stats,
                defeated_before=defeated_before,
            )
    return written(campaign, ("rolls",) + publish_fight(campaign.pk, by), NpcsAttacked(done.row, tuple(dealt)))


def _kin(campaign: Campaign, npc: Npc, character: Character) -> bool:
    """The NPC's stat block is of the character's own system (its rules read it as it is)."""
    return npc.system_of(campaign) == character.system


def _remember_hit(encounter_id: int, character_id: int, words: str) -> None:
    encounter = Encounter.objects.select_for_update().get(pk=encounter_id)
    encounter.hits = {**encounter.hits, str(character_id): words[:200]}
    encounter.save(update_fields=["hits"])


def _target(campaign: Campaign, target_id: int | None) -> Character | None:
    if target_id is None:
        return None
    target = locking.lock_characters([target_id]).get(target_id)
    if target is None or target.campaign_id != campaign.pk:
        raise CampaignError("Pick a character at this table as the target.")
    return target


def _land(
    target: Character, harm: rules_base.AttackHarm, npc: Npc, visibility: str, by: User, *, outside: bool = False
) -> Roll | None:
    """What landed goes to the target's sheet through its own harm procedure, named as the NPC's hit. A system
    with no such procedure leaves the number to the GM (the NPC's prompt says so). ``outside``: the NPC is of
    another system, so the target's rules say what the damage comes in as (GameSystem.harm_from_outside)."""
    if not harm.lands:
        return None
    rules = system_for(target.system)
    procedures = rules.procedures()
    key = next((k for k in rules_base.HARM_PROCEDURES if k in procedures), None)
    params = rules.harm_from_outside(harm.amount) if outside else dict(harm.params)
    if key is None or params is None:
        npc.prompt = f"{target.name}'s rules take no damage from here: take {harm.amount} off their sheet by hand."
        return None
    try:
        done = character_roll(
            character_id=target.pk,
            procedure=key,
            params=params,
            by=by,
            visibility=visibility,
            cause=f"{npc.name} hits {target.name}",
        )
    except RulesError as problem:  # the dead take no more harm: the attack stands in the log, the sheet says why
        npc.prompt = f"{target.name}: {problem}"[:300]
        return None
    return done.row


@transaction.atomic
def npc_status(*, campaign_id: int, npc_id: int, name: str, rounds: int, by: User | None = None) -> TableWritten:
    campaign = lock_campaign(campaign_id)
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
    return written(campaign, publish_fight(campaign.pk, by), npc)


@transaction.atomic
def npc_remove(*, campaign_id: int, npc_id: int, by: User | None = None) -> TableWritten:
    campaign = lock_campaign(campaign_id)
    _npc(campaign, npc_id).delete()
    return written(campaign, publish_fight(campaign.pk, by))


@transaction.atomic
def encounter_next_round(*, campaign_id: int, by: User, rng: RandomSource | None = None) -> TableWritten:
    """The next round: the system's order for it, and statuses one round shorter (gone at 0)."""
    campaign = lock_campaign(campaign_id, roller=by)
    system = table_system(campaign)
    encounter = _active(campaign)
    if encounter.round >= 10_000:
        raise CampaignError("This fight has run 10000 rounds: end it.")
    encounter.round += 1
    order = system.combat_order(encounter.round, rng or dice.system_random())
    _set_order(encounter, order)
    encounter.save(update_fields=["round", "order", "order_summary", "sides", "turn"])
    for npc in encounter.npcs.select_for_update().exclude(statuses=[]).order_by("pk"):
        left = [{**s, "rounds": s["rounds"] - 1} for s in npc.statuses if s["rounds"] > 1]
        ended = [s["name"] for s in npc.statuses if s["rounds"] <= 1]
        npc.statuses = left
        if ended:
            npc.prompt = f"No longer {', '.join(ended)}."[:300]
        npc.save(update_fields=["statuses", "prompt"])
    campaign.round = encounter.round
    rng = rng or dice.system_random()
    words = on_every_sheet(campaign, lambda rules, sheet: rules.round_passes(sheet, rng), by)
    campaign.clock_note = " ".join(words)[:1000]
    campaign.save(update_fields=["round", "clock_note"])
    regions = _log_order(campaign, order, encounter.round, by)
    return written(campaign, regions + publish_fight(campaign.pk, by), encounter)


def _set_order(encounter: Encounter, order: rules_base.CombatOrder) -> None:
    """A round's order on the fight (saved by the caller): its steps, who acts at each, the first step's turn."""
    encounter.order, encounter.order_summary = list(order.steps), order.summary[:300]
    encounter.sides, encounter.turn = list(order.sides), 0


@transaction.atomic
def encounter_next_turn(*, campaign_id: int, by: User, rng: RandomSource | None = None) -> TableWritten:
    """The GM moves the turn to the next step of the round's order (rules.base ``combat_order``: who acts at each);
    after its last step comes the next round (``encounter_next_round``), whose first step is the turn. Every open
    page shows whose turn it is (the clock on the table page, the fight on each sheet). The row is the encounter."""
    campaign = lock_campaign(campaign_id, roller=by)
    encounter = Encounter.objects.select_for_update().filter(pk=_active(campaign).pk).get()
    if encounter.turn + 1 >= len(encounter.order):
        return encounter_next_round(campaign_id=campaign.pk, by=by, rng=rng)
    encounter.turn += 1
    encounter.save(update_fields=["turn"])
    return written(campaign, publish_fight(campaign.pk, by), encounter)


@transaction.atomic
def encounter_end(*, campaign_id: int, by: User, rng: RandomSource | None = None) -> TableWritten:
    """End the fight: its rounds become game time, and each PC is asked for the system's end-of-combat roll.

    The row is a ``FightEnded``: the encounter, the minutes added and the request made.
    """
    rng = rng or dice.system_random()
    campaign = lock_campaign(campaign_id, roller=by)
    system = table_system(campaign)
    encounter = _active(campaign)
    encounter.active = False
    encounter.save(update_fields=["active"])
    # The fight's rounds, from the seconds already past the minute, rounded up to the next whole minute.
    minutes = -(-(campaign.game_seconds + encounter.round * system.combat_round_seconds) // 60)
    minutes = min(minutes, CLOCK_LIMIT - campaign.game_minutes)
    # The fight's minutes burn lit light sources as the clock's do; what lasted the fight ends.
    words = on_every_sheet(campaign, lambda rules, sheet: rules.fight_ends(sheet, minutes, rng), by)
    campaign.round = 0
    campaign.game_minutes += minutes
    campaign.game_seconds = 0
    campaign.clock_note = " ".join(words)[:1000]
    campaign.save(update_fields=["round", "game_minutes", "game_seconds", "clock_note"])
    regions = refresh_table_conditions(campaign)  # no fight now; the lights may have burnt out
    asked = None
    procedure = system.end_of_combat()
    # The home system's end-of-combat roll, asked of the PCs whose own rules roll it (at a mixed table, a PC of
    # another system is not asked for a roll its sheet does not have).
    pcs = [pk for pk, key in campaign.characters.values_list("pk", "system") if _ends_with(key, procedure)]
    if procedure is not None and pcs:
        made = request_create(
            campaign_id=campaign.pk, procedure=procedure, fixed={}, character_ids=pcs, minutes=60, by=by
        )
        asked, regions = made.row, regions + tuple(made.regions)
    return written(campaign, regions + publish_fight(campaign.pk, by), FightEnded(encounter, minutes, asked))


def _ends_with(system_key: str, procedure: str | None) -> bool:
    rules = SYSTEMS.get(system_key)
    return procedure is not None and rules is not None and rules.end_of_combat() == procedure
