"""Grit & Flesh: combat (seed 004, Combat Rounds, Free Attacks, Melee Attacks, Ranged Attacks, Armor
Degradation, Special Attacks).

An attack hits when the target's AC < d20 ≤ the attacker's AV; a roll of exactly the AV is a critical hit
that goes straight to Flesh, and a critical hit must be a hit (spec §004.11.4 [REC]).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal

from rules.base import Item, Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import DieRoll, RandomSource, roll_die
from rules.errors import Settled
from rules.systems.grit_flesh.inventory import armour_class, weapons, worn_armour
from rules.systems.grit_flesh.settings import AMMO_TWENTY, value
from rules.systems.grit_flesh.state import (
    apply_damage,
    free_attack_limit,
    refuse_if_down,
    st_of,
)

ADVANTAGE = 2  # seed 004, Special Attacks: +2 AV and +2 damage
DUAL_WIELD = 1  # seed 004, Melee Weapons: +1 AV
# Worst first. A blocked attack misses too but wears the armour down a point (seed 004, Armor Degradation), so
# for the attacker it beats a plain miss: "take the worse" of a block and a miss keeps the miss.
RANK = {"miss": 0, "blocked": 1, "hit": 2, "crit": 3}
ORDER = ("crit", "hit", "blocked", "miss")
Keep = Literal["one", "worse", "better"]


def attack_outcome(face: int, av: int, ac: int) -> str:
    """Seed 004 (Melee Attacks): over the AV misses; at or under the AC the armour turns it; the AV
    exactly is a critical hit; between the two, a hit."""
    if face > av:
        return "miss"
    if face <= ac:
        return "blocked"
    return "crit" if face == av else "hit"


def kept(faces: Sequence[int], av: int, ac: int, keep: Keep) -> int:
    """The face that stands: with two rolls, the worse (beyond range) or the better result, ranked
    miss < blocked < hit < critical (spec §004.11.3 [REC], blocked placed by seed 004, Armor Degradation);
    between two of the same result the lower die stands."""
    if keep == "one" or len(faces) == 1:
        return faces[0]
    ranked = sorted(faces, key=lambda f: (RANK[attack_outcome(f, av, ac)], f))
    return ranked[0] if keep == "worse" else ranked[-1]


def _face_counts(av: int, ac: int, keep: Keep) -> dict[int, int]:
    """How many ways each d20 face is the one that stands for one attack: out of 20 rolls, or 400 pairs."""
    counts = dict.fromkeys(range(1, 21), 0)
    if keep == "one":
        for face in counts:
            counts[face] = 1
    else:
        for a in range(1, 21):
            for b in range(1, 21):
                counts[kept((a, b), av, ac, keep)] += 1
    return counts


@lru_cache(maxsize=512)
def attack_odds(av: int, ac: int, keep: Keep = "one", attacks: int = 1) -> Odds:
    """Exact odds of each result of one attack (or the kept one of two rolls). With ``attacks=2`` (a
    feint's two attacks) each attack rolls as ``keep`` says, and the better of the two results stands."""
    counts = dict.fromkeys(ORDER, 0)
    faces = _face_counts(av, ac, keep)
    if attacks == 1:
        for face, n in faces.items():
            counts[attack_outcome(face, av, ac)] += n
    else:
        for a, n in faces.items():
            for b, m in faces.items():
                counts[attack_outcome(kept((a, b), av, ac, "better"), av, ac)] += n * m
    total = sum(counts.values())
    outcomes = tuple((k, Fraction(counts[k], total)) for k in ORDER if counts[k])
    return Odds(outcomes, success_keys=("crit", "hit"))


def damage_roll(rng: RandomSource, bonus: int, label: str = "damage") -> tuple[DieRoll, int]:
    """1d6 plus the weapon's bonus; spec §004.11.11 [REC]: never below 0."""
    die = roll_die(rng, 6, label)
    return die, max(0, die.face + bonus)


def degrade(sheet: Sheet, first: str) -> tuple[Item | None, str]:
    """Seed 004 (Armor Degradation): armour that turned an attack loses 1 AC, ``first`` ("shield" or
    "armour", spec §004.4 [REC]) before the other; at 0 it is broken for good."""
    armour, shield = worn_armour(sheet)
    order = (shield, armour) if first == "shield" else (armour, shield)
    for piece in order:
        if piece is None:
            continue
        now = int(piece.data.get("current_AC", piece.data.get("AC", 1)))
        if now <= 0:
            continue
        changed = replace(piece, data={**piece.data, "current_AC": now - 1})
        words = f"{piece.name} loses a point of AC ({now} → {now - 1})"
        if now - 1 == 0:
            words += ": broken for good"
        return changed, words + "."
    return None, ""


TRICKS = (
    ("damage", "Deal damage"),
    ("push", "Push instead of damage"),
    ("trip", "Trip instead of damage"),
    ("grapple", "Grapple instead of damage"),
    ("disarm", "Disarm instead of damage"),
    ("feint", "Feint: two attacks with advantage next round"),
)


@dataclass(frozen=True)
class AttackProcedure:
    """Seed 004 (Melee Attacks, Ranged Attacks, Special Attacks, Free Attacks)."""

    key: str = "attack"
    label: str = "Attack"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        held = weapons(sheet) if sheet is not None else []
        choices = tuple((k, item.name) for k, item in held) or (("", "No weapon"),)
        return (
            Param("weapon", "Weapon", "choice", choices[0][0], choices=choices),
            Param("target_ac", "Target's AC", "int", 0, 0, 20),
            Param("advantage", "With an advantage (flanking, high ground): +2 AV, +2 damage", "bool", False),
            Param("unaware", "The target is unaware: damage straight to Flesh", "bool", False),
            Param("dual", "Dual-wielding one-handed melee weapons: +1 AV", "bool", False),
            Param(
                "range",
                "Range",
                "choice",
                "near",
                choices=(
                    ("near", "Within the weapon's range"),
                    ("far", "Beyond it, up to twice: roll twice, keep the worse"),
                ),
            ),
            Param("melee_count", "Firing into a melee: how many fight there (0: not)", "int", 0, 0, 12),
            Param("trick", "On a hit", "choice", "damage", choices=TRICKS),
            Param("free", "A free attack", "bool", False, help="An enemy in melee did something other than attack."),
            Param("free_used", "Free attacks already made this round", "int", 0, 0, 20),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Item, int, int, Keep, int, int]:
        state = st_of(sheet)
        item = dict(weapons(sheet)).get(p["weapon"])
        if item is None:
            raise RulesError("You carry no weapon to attack with.")
        ranged = int(item.data.get("range", 0)) > 0
        if p["free"] and p["free_used"] >= free_attack_limit(state):
            limit = free_attack_limit(state)
            raise RulesError(
                f"A {state['cls']} of level {state['level']} makes {limit} free "
                f"attack{'s' if limit != 1 else ''} a round."
            )
        if p["dual"] and (ranged or item.data.get("hands") == 2):
            raise RulesError("Dual-wielding is for two one-handed melee weapons.")
        if p["range"] == "far" and not ranged:
            raise RulesError("A melee weapon strikes only what it reaches.")
        if p["melee_count"] and not ranged:
            raise RulesError("Firing into a melee is for ranged weapons.")
        if ranged and item.data.get("out_of_ammunition"):
            raise RulesError(f"{item.name} is out of ammunition: fill a gear bubble or restock in a settlement.")
        feint = bool(state["feint"])
        av = state["av"] + (ADVANTAGE if p["advantage"] or feint else 0) + (DUAL_WIELD if p["dual"] else 0)
        # Seed 004, Melee Weapons: a small melee weapon treats the enemy's AC as 1 lower.
        ac = max(0, p["target_ac"] - 1) if item.data.get("size") == "small" and not ranged else p["target_ac"]
        # Beyond range every attack rolls twice and keeps the worse, each of a feint's two attacks included.
        keep: Keep = "worse" if p["range"] == "far" else "one"
        attacks = 2 if feint else 1
        bonus = int(item.data.get("damage_bonus", 0)) + (ADVANTAGE if p["advantage"] or feint else 0)
        return item, av, ac, keep, bonus, attacks

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        refuse_if_down(st_of(sheet), "attack")  # as the roll refuses (issue 35 item 7): no odds for a roll refused
        _, av, ac, keep, _, attacks = self._setup(sheet, p)
        return attack_odds(av, ac, keep, attacks)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        refuse_if_down(state, "attack")
        item, av, ac, keep, bonus, attacks = self._setup(sheet, p)
        odds = attack_odds(av, ac, keep, attacks)
        dice: list[DieRoll] = []
        words: list[str] = []
        if p["melee_count"] > 1:
            pick = roll_die(rng, p["melee_count"], "target")
            dice.append(pick)
            who = "your intended target" if pick.face == 1 else f"combatant {pick.face} of {p['melee_count']}"
            words.append(f"Into the melee: the shot goes at {who}.")
        feint = attacks == 2
        results: list[str] = []
        faces: list[int] = []
        ranged = int(item.data.get("range", 0)) > 0
        empty = False
        trick_done = ""
        landed: list[dict[str, Any]] = []  # each hit's damage, for an NPC target (table.hits_on_npc)
        for n in range(attacks):
            label = f"attack {n + 1}" if feint else "attack"
            if keep == "worse":
                pair = (roll_die(rng, 20, label), roll_die(rng, 20, label))
                face = kept((pair[0].face, pair[1].face), av, ac, "worse")
                stand = next(d for d in pair if d.face == face)
                dice += [replace(d, kept=d is stand) for d in pair]
                # Seed 004, Ranged Attacks: "if you roll a 20 to hit", both dice were rolled to hit.
                if value(sheet.settings, AMMO_TWENTY) == "any_die":
                    empty = empty or (ranged and 20 in (pair[0].face, pair[1].face))
            else:
                stand = roll_die(rng, 20, label)
                dice.append(stand)
                face = stand.face
            result = attack_outcome(face, av, ac)
            results.append(result)
            faces.append(face)
            empty = empty or (ranged and face == 20)
            if result in ("hit", "crit"):
                if p["trick"] != "damage" and not feint and n == 0:
                    trick_done = p["trick"]
                    words.append(f"{face}: a hit against AC {ac} with AV {av}; instead of damage, you {p['trick']}.")
                    continue
                die, amount = damage_roll(rng, bonus)
                dice.append(die)
                landed.append({"damage": amount, "to_flesh": result == "crit" or bool(p["unaware"])})
                where = "to Flesh" if result == "crit" or p["unaware"] else "to Grit first"
                kind = "a critical hit" if result == "crit" else "a hit"
                words.append(f"{face}: {kind} against AC {ac} with AV {av}, {amount} damage {where}.")
            elif result == "blocked":
                words.append(f"{face}: at or under AC {ac}, the armour turns it (a character's armour loses a point).")
            else:
                words.append(f"{face}: over AV {av}, a miss.")
        outcome = attack_outcome(kept(faces, av, ac, "better"), av, ac) if feint else results[0]
        new_state = dict(state)
        new_state["feint"] = trick_done == "feint"
        if feint:
            words.insert(0, "The feint pays off: two attacks, each with an advantage.")
        changed: tuple[Item, ...] = ()
        if empty:
            words.append(f"A 20 with {item.name}: out of ammunition.")
            changed = (replace(item, data={**item.data, "out_of_ammunition": True}),) if item.id is not None else ()
        return RollResult(
            self.key,
            self.label,
            outcome,
            " ".join(words),
            tuple(dice),
            None,
            odds,
            shown_inputs(p),
            new_state if new_state != state else None,
            details={"av": av, "ac": ac, "results": results, "hits": landed},
            items_changed=changed,
        )


DAMAGE_DICE = (("small", "1d6−1 (small weapon)"), ("medium", "1d6 (medium weapon)"), ("large", "1d6+1 (large weapon)"))
_BONUS = {"small": -1, "medium": 0, "large": 1}


@dataclass(frozen=True)
class IncomingProcedure:
    """Seed 004 (Melee Attacks, Armor Degradation, Grit and Flesh): an enemy attacks this character."""

    key: str = "incoming"
    label: str = "Take an attack"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("attacker_av", "Attacker's AV", "int", 12, 1, 30),
            Param("weapon", "Attacker's weapon", "choice", "medium", choices=DAMAGE_DICE),
            Param("melee_small", "A small melee weapon: your AC counts 1 lower", "bool", False),
            Param("advantage", "The attacker has an advantage: +2 AV, +2 damage", "bool", False),
            Param("unaware", "You were caught unaware: damage straight to Flesh", "bool", False),
            Param("far", "Shot from beyond the weapon's range: two rolls, the worse stands", "bool", False),
            Param(
                "piece",
                "If armour turns it, the piece that loses a point",
                "choice",
                "table",
                choices=(("table", "The table's rule"), ("shield", "The shield first"), ("armour", "The armour first")),
            ),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[int, int, Keep]:
        av = p["attacker_av"] + (ADVANTAGE if p["advantage"] else 0)
        ac = armour_class(sheet)
        if p["melee_small"]:
            ac = max(0, ac - 1)
        return av, ac, "worse" if p["far"] else "one"

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return attack_odds(*self._setup(sheet, p))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        if state["dead"]:
            raise Settled("Nothing more can hurt the dead.")
        av, ac, keep = self._setup(sheet, p)
        odds = attack_odds(av, ac, keep)
        if keep == "worse":
            pair = (roll_die(rng, 20, "attack"), roll_die(rng, 20, "attack"))
            face = kept((pair[0].face, pair[1].face), av, ac, "worse")
            stand = next(d for d in pair if d.face == face)
            dice = [replace(d, kept=d is stand) for d in pair]
        else:
            dice = [roll_die(rng, 20, "attack")]
            face = dice[0].face
        outcome = attack_outcome(face, av, ac)
        changed: tuple[Item, ...] = ()
        new_state = None
        if outcome == "miss":
            summary = f"{face}: over AV {av}, the attack misses."
        elif outcome == "blocked":
            summary = f"{face}: at or under your AC {ac}, your armour turns it."
            first = value(sheet.settings, "degrade_first") if p["piece"] == "table" else p["piece"]
            piece, words = degrade(sheet, first)
            if piece is not None:
                summary += " " + words
                changed = (piece,) if piece.id is not None else ()
        else:
            die, amount = damage_roll(rng, _BONUS[p["weapon"]] + (ADVANTAGE if p["advantage"] else 0))
            dice.append(die)
            to_flesh = outcome == "crit" or p["unaware"]
            new_state, words, more, _ = apply_damage(state, amount, to_flesh, sheet.settings, rng)
            dice += more
            kind = "a critical hit, straight to Flesh" if outcome == "crit" else "a hit"
            if p["unaware"] and outcome == "hit":
                kind += ", straight to Flesh while you were unaware"
            summary = f"{face}: {kind}. {words}"
        return RollResult(
            self.key,
            self.label,
            outcome,
            summary,
            tuple(dice),
            None,
            odds,
            shown_inputs(p),
            new_state,
            details={"av": av, "ac": ac},
            items_changed=changed,
        )


@dataclass(frozen=True)
class InitiativeProcedure:
    """Seed 004 (Combat Rounds): at the start of each round the GM rolls 1d6; even, the players go first."""

    key: str = "initiative"
    label: str = "Initiative for the round"
    gm_only: bool = True

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds:
        half = Fraction(1, 2)
        return Odds((("players_first", half), ("enemies_first", half)), success_keys=("players_first",))

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        die = roll_die(rng, 6, "initiative")
        first = "players_first" if die.face % 2 == 0 else "enemies_first"
        who = "the players go first" if first == "players_first" else "the enemies go first"
        return RollResult(
            self.key, self.label, first, f"{die.face}: {who} this round.", (die,), die.face, self.odds(sheet, params)
        )
