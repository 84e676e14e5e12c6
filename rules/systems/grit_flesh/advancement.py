"""Grit & Flesh: XP and levels (seed 004, Getting XP, Acquiring Spells; the XP table and the growth per level
are house defaults, rules-spec §004.12)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import DieRoll, RandomSource, roll_die
from rules.errors import Settled
from rules.systems.grit_flesh.settings import spell_list, value
from rules.systems.grit_flesh.state import FIGHTER, LEVEL_MAX, MAGIC_USER, STAT_MAX, st_of

XP_PER_HD = 50  # seed 004, Getting XP


def xp_share(gold: int, monster_hd: int, party: int) -> int:
    """Seed 004 (Getting XP): 1 XP a gp brought back, 50 × HD a monster overcome, split evenly among the
    party (helpers take none); a remainder that does not split is lost."""
    return (gold + XP_PER_HD * monster_hd) // max(1, party)


def next_level_xp(state: Mapping[str, Any], settings: Mapping[str, Any] | None) -> int | None:
    """The XP the next level needs by the table's XP table, or None past its end."""
    table = value(settings, "xp_table")
    level = int(state["level"])
    return int(table[level]) if level < len(table) and level < LEVEL_MAX else None


def level_ready(state: Mapping[str, Any], settings: Mapping[str, Any] | None) -> bool:
    need = next_level_xp(state, settings)
    return need is not None and state["xp"] >= need and not state["dead"]


def av_growth(cls: str, settings: Mapping[str, Any] | None) -> int:
    return int(value(settings, "fighter_av_per_level" if cls == FIGHTER else "av_per_level"))


@dataclass(frozen=True)
class GainXpProcedure:
    """Seed 004 (Getting XP)."""

    key: str = "gain_xp"
    label: str = "Gain XP"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("gold", "Gold brought back to civilisation (the party's)", "int", 0, 0, 10_000_000),
            Param("monster_hd", "HD of monsters overcome, killed or avoided", "int", 0, 0, 10_000),
            Param("party", "Characters in the party (helpers don't count)", "int", 1, 1, 20),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        share = xp_share(p["gold"], p["monster_hd"], p["party"])
        if share == 0:
            raise RulesError("That brings no XP: bring back gold or overcome monsters.")
        state["xp"] = min(100_000_000, state["xp"] + share)
        summary = (
            f"{p['gold']} gp and {p['monster_hd']} HD of monsters, split {p['party']} ways: "
            f"{share} XP each (now {state['xp']})."
        )
        if level_ready(state, sheet.settings):
            summary += " Enough for the next level."
        return RollResult(self.key, self.label, "gained", summary, (), share, None, shown_inputs(p), state)


def _learns(name: str) -> str:
    return f"learns_{name}"[:60]  # an outcome key, kept within what the roll log stores


@dataclass(frozen=True)
class LevelUpProcedure:
    """A new level (house defaults for the growth); a Magic-User adds a spell (seed 004, Acquiring Spells):
    a random one from the list, or one from a scroll they own."""

    key: str = "level_up"
    label: str = "Go up a level"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        state = st_of(sheet) if sheet is not None else {"scrolls": []}
        scrolls = tuple((str(n), f"Copy {s['name']} from your scroll") for n, s in enumerate(state["scrolls"]))
        return (
            Param(
                "spell",
                "A Magic-User's new spell",
                "choice",
                "random",
                choices=(("random", "Roll a random spell"), *scrolls),
            ),
        )

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> dict[str, Any]:
        state = st_of(sheet)
        if state["dead"]:
            raise Settled("The dead gain no levels.")
        need = next_level_xp(state, sheet.settings)
        if need is None:
            raise RulesError(f"Level {state['level']} is the top of the table's XP table.")
        if state["xp"] < need:
            raise RulesError(f"Level {state['level'] + 1} needs {need} XP; you have {state['xp']}.")
        if state["cls"] == MAGIC_USER and p["spell"] != "random":
            scroll = state["scrolls"][int(p["spell"])]
            if scroll["name"].lower() in {s["name"].lower() for s in state["spellbook"]}:
                raise RulesError(f"{scroll['name']} is in your spellbook already.")
        return state

    def _random_spells(self, state: Mapping[str, Any], p: Mapping[str, Any], settings: Any) -> list[tuple[str, int]]:
        """The spells a Magic-User's random pick is drawn from, one die face each (none for a scroll copy)."""
        if state["cls"] != MAGIC_USER or p["spell"] != "random":
            return []
        known = {s["name"].lower() for s in state["spellbook"]}
        return [s for s in spell_list(settings) if s[0].lower() not in known]

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        """The Grit die's roll when the table rolls it at each level, each face alike; without it, a
        Magic-User's random spell, each open one alike; with neither, nothing is left to chance."""
        p = clean_params(self, sheet, params)
        state = self._check(sheet, p)
        if value(sheet.settings, "grit_each_level"):
            sides = int(value(sheet.settings, "grit_die"))
            return Odds(tuple((f"{n}_more_grit", Fraction(1, sides)) for n in range(1, sides + 1)), ())
        spells = self._random_spells(state, p, sheet.settings)
        if spells:
            return Odds(tuple((_learns(name), Fraction(1, len(spells))) for name, _ in spells), ())
        return Odds((("levelled", Fraction(1)),), ("levelled",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        state = self._check(sheet, p)
        settings = sheet.settings
        outcome = "levelled"
        dice: list[DieRoll] = []
        state["level"] += 1
        state["st"] = min(STAT_MAX, state["st"] + int(value(settings, "st_per_level")))
        state["av"] = min(STAT_MAX, state["av"] + av_growth(state["cls"], settings))
        words = [f"Level {state['level']}: ST {state['st']}, AV {state['av']}"]
        if value(settings, "grit_each_level"):
            die = roll_die(rng, int(value(settings, "grit_die")), "Grit")
            dice.append(die)
            outcome = f"{die.face}_more_grit"
            state["grit_max"] = min(999, state["grit_max"] + die.face)
            state["grit"] = min(state["grit_max"], state["grit"] + die.face)
        flesh = int(value(settings, "flesh_per_level"))
        state["flesh_max"] = min(999, state["flesh_max"] + flesh)
        state["flesh"] = min(state["flesh_max"], state["flesh"] + flesh)
        words.append(f"Grit {state['grit_max']}, Flesh {state['flesh_max']}")
        if state["cls"] == MAGIC_USER:
            if p["spell"] != "random":
                scroll = state["scrolls"][int(p["spell"])]
                picked: tuple[str, int] | None = (scroll["name"], scroll["level"])
            else:
                open_ = self._random_spells(state, p, settings)
                picked = None
                if open_:
                    die = roll_die(rng, len(open_), "spell")
                    dice.append(die)
                    picked = open_[die.face - 1]
                    if outcome == "levelled":
                        outcome = _learns(picked[0])
            if picked is not None:
                state["spellbook"].append({"name": picked[0], "level": picked[1], "corrupted": False})
                words.append(f"new spell: {picked[0]} (level {picked[1]})")
            else:
                words.append("every spell on the list is in your book already")
        return RollResult(
            self.key,
            self.label,
            outcome,
            "; ".join(words) + ".",
            tuple(dice),
            state["level"],
            odds,
            shown_inputs(p),
            state,
        )
