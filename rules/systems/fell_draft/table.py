"""Fell (draft) at the GM's table: NPCs in the encounter tracker, the order of a round, and what time does
to a sheet (light, food) and to the table (the luck die). Seed 000 (Combat; Morale; Time) and spec §000.6, §000.10.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rules.base import CombatOrder, NpcHarm, Odds, Param, RollResult
from rules.dice import LADDER, RandomSource, roll_die
from rules.errors import RulesError
from rules.systems.fell_draft.state import MAX_PROTECTION

DIE_CHOICES = tuple((str(s), f"d{s}") for s in LADDER)
NPC_FIELDS: tuple[Param, ...] = (
    Param("hp", "HP", "int", 4, 0, 200),
    Param("protection", "Protection", "int", 0, 0, MAX_PROTECTION, help="Taken off each hit's harm."),
    Param("steel_die", "Steel die", "choice", "6", choices=DIE_CHOICES),
    Param("wil_die", "WIL or hit die", "choice", "6", choices=DIE_CHOICES, help="Its side of a morale contest."),
)
NPC_ROLLS = MappingProxyType({"attack": "Attack"})
ORDER = CombatOrder(("The party acts, as a group", "The enemies act"), "The party acts first, as a group.")


def npc_damage(stats: Mapping[str, Any], start: Mapping[str, Any], amount: int, ignore_armour: bool) -> NpcHarm:
    """Seed 000, Combat: harm = the steel die's roll − protection (at least 0). Seed 000, Morale: bringing a
    lone enemy to half its HP (or defeating one) calls for a morale check: the character who did it rolls a
    WIL contest against the enemy's die (spec §000.12.10 [REC]), then the morale table."""
    protection = 0 if ignore_armour else int(stats["protection"])
    dealt = max(0, amount - protection)
    before, full = int(stats["hp"]), int(start.get("hp", stats["hp"]))
    left = max(0, before - dealt)
    halved = left * 2 <= full < before * 2
    words = f"{dealt} harm" + (f" after protection {protection}" if protection else "") + "."
    if left <= 0 or halved:
        words += " Ask the character who did it for a Morale roll (a WIL contest against its die)."
    return NpcHarm({**stats, "hp": left}, dealt, defeated=left <= 0, morale=left <= 0 or halved, words=words)


def npc_roll(key: str, stats: Mapping[str, Any], rng: RandomSource) -> RollResult:
    """Seed 000, Combat: an attack is a task with no test; roll the steel die (the target's protection comes
    off on their sheet)."""
    if key != "attack":
        raise RulesError(f"Fell has no NPC roll called {key!r}.")
    sides = int(stats["steel_die"])
    die = roll_die(rng, sides, "steel")
    odds = Odds(tuple((str(face), Fraction(1, sides)) for face in range(1, sides + 1)), success_keys=())
    return RollResult("attack", "Attack", str(die.face), f"Steel die d{sides} = {die.face}.", (die,), die.face, odds)
