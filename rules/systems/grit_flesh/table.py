"""Grit & Flesh at the GM's table: monsters in the encounter tracker, the GM's initiative die each round, and
what time does to a sheet (lights burning, coming round, helpers' weeks, a safe night's sleep).

Seed 004 (Combat Rounds; Free Attacks; Melee Attacks; Grit and Flesh; Rest and Healing; Hiring Helpers;
Corrupted Spells; Getting XP) and rules-spec §004.4, §004.5, §004.8, §004.9, §004.12.

Readings where the seed is silent (house readings, said so where the GM sees them):
- A monster's stat line: the seed gives only HD (for XP); the campaign's house defaults (AV = a base plus the
  HD, Grit per HD, Flesh = HD) are shown on the table and fill the tracker's form (``display.table_facts``).
- Damage to a monster goes through Grit, then Flesh, spilling over as for characters (spec §004.11.1 [REC];
  the tracker has no campaign settings, so it always spills); "ignores armour" at the table means a
  critical hit or an unaware target: straight to Flesh. A monster is defeated at 0 Flesh: the save vs death
  is the characters' rule. The seed has no morale rule, so damage never calls for one.
- The seed gives no length for a round or for a light source. Lantern counts a round as one minute (so the
  minute clock can count it) and, unless the item says otherwise in ``turns``, a torch burns 6 ten-minute
  turns and a lantern 24 on one filling.
- Ten minutes' rest heals Grit only when a player rolls Rest (or the GM asks for it): time passing heals
  nothing by itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rules.base import (
    ENEMIES,
    PARTY,
    AttackHarm,
    CombatOrder,
    Hireling,
    Item,
    NpcHarm,
    NpcHit,
    Odds,
    Param,
    RollResult,
    Sheet,
    TimeUnit,
)
from rules.clock import LightProcedure, Lights, boundaries, burn
from rules.dice import RandomSource, roll_die
from rules.errors import RulesError
from rules.systems.grit_flesh.inventory import armour_class
from rules.systems.grit_flesh.settings import DEFAULTS
from rules.systems.grit_flesh.state import after_damage, st_of

XP_PER_HD = 50  # seed 004, Getting XP
NPC_FREE_ATTACKS = 2  # seed 004, Free Attacks: NPC enemies and monsters make two a round
HD_MAX = 20
BONUS_CHOICES = (("-1", "1d6−1 (small)"), ("0", "1d6 (medium)"), ("1", "1d6+1 (large)"), ("2", "1d6+2"), ("3", "1d6+3"))
_HD1_AV = min(20, int(DEFAULTS["monster_av_base"]) + 1)
NPC_FIELDS: tuple[Param, ...] = (
    Param("grit", "Grit", "int", int(DEFAULTS["monster_grit_per_hd"]), 0, 999, help="Damage comes off Grit first."),
    Param(
        "flesh",
        "Flesh",
        "int",
        1,
        0,
        999,
        help="Then Flesh: at 0 it is defeated. Damage that ignores armour (a critical, an unaware target) "
        "goes straight here.",
    ),
    Param("hd", "HD", "int", 1, 0, HD_MAX, help=f"Worth {XP_PER_HD} XP for each HD, killed or avoided."),
    Param("ac", "AC", "int", 0, 0, 10, help="An attack must roll above it."),
    Param("av", "AV", "int", _HD1_AV, 1, 20, help="Its attacks hit at or under it; exactly it is a critical."),
    Param("damage", "Damage", "choice", "0", choices=BONUS_CHOICES),
)
NPC_ROLLS = MappingProxyType({"attack": "Attack"})


def npc_damage(
    stats: Mapping[str, Any],
    start: Mapping[str, Any],
    amount: int,
    ignore_armour: bool = False,
    rng: RandomSource | None = None,
) -> NpcHarm:
    """Seed 004, Grit and Flesh: damage comes off Grit, then Flesh (what is left of a hit spills, spec
    §004.11.1 [REC]); a critical hit or an unaware target (``ignore_armour``) goes straight to Flesh. A monster
    with no Flesh left is defeated, worth 50 XP for each HD (seed 004, Getting XP)."""
    before = {"grit": int(stats["grit"]), "flesh": int(stats["flesh"])}
    after = after_damage(before, amount, ignore_armour, spills=True)
    dealt = before["grit"] - after["grit"] + before["flesh"] - after["flesh"]
    how = " straight to Flesh (a critical hit or an unaware target)" if ignore_armour else ""
    words = f"{amount} damage{how}: Grit {after['grit']}, Flesh {after['flesh']}."
    defeated = after["flesh"] <= 0
    if defeated:
        hd = int(stats.get("hd", 0))
        words += (
            f" No Flesh left: worth {XP_PER_HD * hd} XP ({XP_PER_HD} × {hd} HD), shared by the party, not the helpers."
        )
    return NpcHarm({**stats, **after}, dealt, defeated=defeated, morale=False, words=words)


def attack_odds(av: int) -> Odds:
    """The GM's d20 for a monster, before the target's AC is known: over the AV misses, exactly the AV is a
    critical, under it lands if it is also above the target's AC."""
    outcomes = (("crit", Fraction(1, 20)), ("hit", Fraction(av - 1, 20)), ("miss", Fraction(20 - av, 20)))
    return Odds(tuple((k, p) for k, p in outcomes if p), success_keys=("crit", "hit"))


def npc_roll(key: str, stats: Mapping[str, Any], rng: RandomSource) -> RollResult:
    """Seed 004, Melee Attacks: a d20 at or under the AV and above the target's AC hits; exactly the AV is a
    critical (straight to Flesh); damage 1d6 plus the weapon's bonus, never below 0 (spec §004.11.11).
    Seed 004, Free Attacks: a monster may make two free attacks a round."""
    if key != "attack":
        raise RulesError(f"Grit & Flesh has no NPC roll called {key!r}.")
    av, bonus = int(stats["av"]), int(stats["damage"])
    die = roll_die(rng, 20, "attack")
    damage = roll_die(rng, 6, "damage")
    amount = max(0, damage.face + bonus)
    if die.face > av:
        outcome, words = "miss", f"d20 = {die.face}, over AV {av}: a miss."
    else:
        outcome = "crit" if die.face == av else "hit"
        crit = " A critical: damage straight to Flesh if it lands." if outcome == "crit" else ""
        words = (
            f"d20 = {die.face} against AV {av}: it lands if the target's AC is under {die.face}.{crit} "
            f"Damage {amount} (1d6{bonus:+d} = {damage.face}{bonus:+d}). The target may instead roll "
            "Take an attack on their sheet."
        ).replace("+0", "")
    words += f" Free attacks: up to {NPC_FREE_ATTACKS} this round."
    details = {"damage": amount}
    return RollResult("attack", "Attack", outcome, words, (die, damage), die.face, attack_odds(av), details=details)


def npc_attack_harm(result: RollResult, sheet: Sheet) -> AttackHarm | None:
    """Seed 004, Melee Attacks: it lands when the d20 is above the target's AC (and at or under the AV); a
    critical goes straight to Flesh."""
    if result.procedure != "attack" or result.total is None:
        return None
    ac = armour_class(sheet)
    if result.outcome == "miss" or result.total <= ac:
        return AttackHarm(False, 0, f"a miss (d20 {result.total} against AC {ac})")
    damage, critical = int(result.details.get("damage", 0)), result.outcome == "crit"
    words = f"{'a critical' if critical else 'hit'}, {damage} damage"
    return AttackHarm(True, damage, words, {"amount": damage, "to_flesh": critical})


# --- a PC's attack on an NPC (seed 004, Melee Attacks: above the AC, at or under the AV) -------------------------

NPC_TARGETS = ("attack",)


def npc_target_params(procedure: str, stats: Mapping[str, Any]) -> Mapping[str, Any]:
    """Seed 004, Melee Attacks: the d20 must roll above the target's AC: the NPC's."""
    return {"target_ac": int(stats["ac"])}


def hits_on_npc(result: RollResult) -> tuple[NpcHit, ...]:
    """Seed 004, Grit and Flesh: each hit's damage (a feint makes two attacks) comes off Grit, then Flesh; a
    critical or an unaware target's goes straight to Flesh."""
    if result.procedure != "attack":
        return ()
    hits = result.details.get("hits") or ()
    return tuple(NpcHit(int(hit["damage"]), ignore_armour=bool(hit["to_flesh"])) for hit in hits)


def combat_order(round_number: int, rng: RandomSource) -> CombatOrder:
    """Seed 004, Combat Rounds: at the start of each round the GM rolls 1d6; even, the players go first;
    odd, the enemies do."""
    die = roll_die(rng, 6, "initiative")
    if die.face % 2 == 0:
        steps, words, sides = ("The players act", "The enemies act"), "even: the players go first", (PARTY, ENEMIES)
    else:
        steps, words, sides = ("The enemies act", "The players act"), "odd: the enemies go first", (ENEMIES, PARTY)
    return CombatOrder(steps, f"Round {round_number}: initiative d6 = {die.face}, {words}.", (die,), sides)


# --- time (seed 004, Rest and Healing; Hiring Helpers; Corrupted Spells) -------------------------------------

ROUND, TURN, HOUR, SLEEP, DAY, WEEK = 1, 10, 60, 8 * 60, 24 * 60, 7 * 24 * 60  # minutes
TIME_UNITS = (
    TimeUnit("round", "Round (counted as a minute)", ROUND),
    TimeUnit("turn", "Turn (10 minutes)", TURN),
    TimeUnit("hour", "Hour", HOUR),
    TimeUnit("sleep", "Night's sleep somewhere safe (8 hours)", SLEEP, plain=False),
    TimeUnit("day", "Day", DAY),
    TimeUnit("week", "Week", WEEK),
)
# Ten-minute turns one burns, by the first word of its name (house readings: the seed gives none).
_LIFE = {"torch": 6, "torches": 6, "lantern": 24, "lanterns": 24, "candle": 12, "candles": 12}


def light_life(item: Item) -> int | None:
    """How many minutes one of this light burns: its own ``turns`` if it has them, else by its name."""
    turns = (item.data or {}).get("turns")
    words = item.name.lower().split()
    if turns is None and words and "oil" not in words:
        turns = _LIFE.get(words[0])
    return int(turns) * TURN if turns else None


LIGHTS = Lights(life=light_life, refills=lambda item: item.name.lower().startswith("lantern"))
"""A torch is used up; a lantern goes dark until refilled."""
LIGHT_PROCEDURE = LightProcedure(LIGHTS)


MINUTES = {u.key: u.minutes for u in TIME_UNITS}


def advance_time(
    sheet: Sheet, unit: str, count: int, start_minutes: int, rng: RandomSource, start_seconds: int = 0
) -> RollResult:
    """What time does to one sheet: lit lights burn down; someone out cold comes round with 1 Flesh once
    their rounds have passed (seed 004, Grit and Flesh); each new week of service puts a week of every
    helper's wage on the bill (seed 004, Hiring Helpers); a night's safe sleep lets a Magic-User purify one
    corrupted spell (seed 004, Corrupted Spells). Nothing heals by itself: ten minutes' rest heals Grit only
    when someone rolls Rest (seed 004, Rest and Healing)."""
    if unit not in MINUTES:
        raise RulesError(f"Grit & Flesh counts time in {', '.join(u.label for u in TIME_UNITS)}, not {unit!r}.")
    minutes = MINUTES[unit] * count
    burnt = burn(sheet.items, minutes, LIGHTS)
    words = list(burnt.words)
    state = st_of(sheet)
    changed_state = False
    if state["out_rounds"] and not state["dead"]:
        rounds = minutes // ROUND
        if rounds >= state["out_rounds"]:
            state["out_rounds"], state["flesh"] = 0, max(1, state["flesh"])
            words.append(f"Comes round with {state['flesh']} Flesh.")
        else:
            state["out_rounds"] -= rounds
            words.append(f"Out cold for {state['out_rounds']} more round{'s' if state['out_rounds'] != 1 else ''}.")
        changed_state = True
    helpers = _helpers_weeks(sheet.hirelings, boundaries(start_minutes, minutes, WEEK), words)
    if unit == "sleep" and not state["dead"]:
        corrupted = [s["name"] for s in state["spellbook"] if s["corrupted"]]
        nights = min(state["safe_nights"] + count, len(corrupted))
        if nights > state["safe_nights"]:
            state["safe_nights"], changed_state = nights, True
            words.append(
                f"A safe night's sleep: purify {nights} corrupted spell{'s' if nights != 1 else ''} "
                f"(one a night) with Purify a spell: {', '.join(corrupted)}."
            )
    return RollResult(
        "time",
        "Time passes",
        "passed",
        " ".join(words),
        state=state if changed_state else None,
        items_changed=burnt.changed,
        items_removed=burnt.removed,
        hirelings_changed=helpers,
    )


def round_passes(sheet: Sheet, rng: RandomSource | None = None) -> RollResult:
    """Seed 004, Grit and Flesh: someone out cold wakes with 1 Flesh after their rounds: the tracker's new round
    counts one down (the clock counts the rest of them in minutes, a round each)."""
    state = st_of(sheet)
    if not state["out_rounds"] or state["dead"]:
        return RollResult("round", "A new round", "nothing", "")
    state["out_rounds"] -= 1
    if state["out_rounds"]:
        words = f"Out cold for {state['out_rounds']} more round{'s' if state['out_rounds'] != 1 else ''}."
    else:
        state["flesh"] = max(1, state["flesh"])
        words = f"Comes round with {state['flesh']} Flesh."
    return RollResult("round", "A new round", "passed", words, state=state)


def _helpers_weeks(hirelings: Sequence[Hireling], weeks: int, words: list[str]) -> tuple[Hireling, ...]:
    """Each living helper serves ``weeks`` more weeks; the wages not yet paid are named."""
    if not weeks:
        return ()
    changed = []
    for helper in hirelings:
        if helper.id is None or helper.state.get("dead"):
            continue
        served = min(1000, int(helper.state.get("weeks", helper.state.get("paid_weeks", 0))) + weeks)
        changed.append(replace(helper, state={**helper.state, "weeks": served}))
        owed = max(0, served - int(helper.state.get("paid_weeks", 0)))
        if owed:
            due = owed * int(helper.state.get("weekly", 0))
            words.append(f"{helper.name}: {owed} week{'s' if owed != 1 else ''} unpaid, {due} gp due.")
    return tuple(changed)


def npc_attack_outside(result: RollResult) -> AttackHarm | None:
    """Seed 004, Melee Attacks: against a target of another system, which has no AC here (``npc_stand_in``: AC
    0), the attack lands unless it rolled over the monster's AV; the target's own rules take its armour off."""
    if result.procedure != "attack" or result.total is None:
        return None
    if result.outcome == "miss":
        return AttackHarm(False, 0, f"a miss (d20 {result.total})")
    damage = int(result.details.get("damage", 0))
    return AttackHarm(True, damage, f"{'a critical' if result.outcome == 'crit' else 'hit'}, {damage} damage")


def harm_from_outside(amount: int) -> dict[str, Any]:
    """Seed 004, Grit and Flesh: another system's blow comes off Grit first, as any hit that is no critical."""
    return {"amount": amount, "to_flesh": False}
