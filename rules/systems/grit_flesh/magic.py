"""Grit & Flesh: spells (seed 004, Magic in Combat, Casting Spells, Miscast Table, Corrupted Spells,
Acquiring Spells)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Hireling, Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import grit_flesh as data
from rules.dice import DieRoll, RandomSource, roll_die
from rules.systems.grit_flesh.inventory import armour_class
from rules.systems.grit_flesh.settings import spell_list, value
from rules.systems.grit_flesh.state import after_damage, apply_damage, refuse_if_down, st_of

MISCAST_WORDS = dict(data.MISCAST)


def spell_choices(sheet: Sheet | None) -> tuple[tuple[str, str], ...]:
    """Every spell this character can cast: "book:<n>" from the spellbook, "scroll:<n>" from a scroll."""
    if sheet is None:
        return ()
    state = st_of(sheet)
    out = []
    for n, s in enumerate(state["spellbook"]):
        mark = ", Corrupted" if s["corrupted"] else ""
        out.append((f"book:{n}", f"{s['name']} (level {s['level']}, spellbook{mark})"))
    for n, s in enumerate(state["scrolls"]):
        out.append((f"scroll:{n}", f"{s['name']} (level {s['level']}, scroll)"))
    return tuple(out)


def _chosen(state: Mapping[str, Any], key: str) -> tuple[str, int, dict[str, Any]]:
    source, _, index = key.partition(":")
    entries = state["spellbook"] if source == "book" else state["scrolls"] if source == "scroll" else []
    if not index.isdigit() or int(index) >= len(entries):
        raise RulesError("You have no spell to cast: learn one or find a scroll.")
    return source, int(index), entries[int(index)]


def control_chance(st: int, ac: int) -> Fraction:
    """Seed 004 (Casting Spells): a quick cast is controlled when own AC < d20 ≤ ST."""
    return Fraction(max(0, min(20, st) - max(0, ac)), 20)


@dataclass(frozen=True)
class CastProcedure:
    """Seed 004 (Casting Spells): a ritual (an hour a level) is always controlled; a quick cast in a combat
    round needs own AC < d20 ≤ ST. A Corrupted spell hurts as a ritual and always fails quickly cast."""

    key: str = "cast"
    label: str = "Cast a spell"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        spells = spell_choices(sheet) or (("", "No spells"),)
        return (
            Param("spell", "Spell", "choice", spells[0][0], choices=spells),
            Param(
                "how",
                "How",
                "choice",
                "quick",
                choices=(
                    ("quick", "Quickly, in a combat round: roll to control it"),
                    ("ritual", "As a ritual: an hour a spell level"),
                ),
            ),
            Param("moved_or_hurt", "You moved this round, or took damage before your go", "bool", False, resets=True),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], str, int, dict[str, Any]]:
        state = st_of(sheet)
        source, index, spell = _chosen(state, p["spell"])
        if p["how"] == "quick" and p["moved_or_hurt"]:
            raise RulesError(
                "Having moved, or been hurt before your go, you cannot cast this round; you may still act otherwise."
            )
        return state, source, index, spell

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        state, _, _, spell = self._setup(sheet, p)
        if p["how"] == "ritual":
            return Odds((("controlled", Fraction(1)),), success_keys=("controlled",))
        chance = Fraction(0) if spell.get("corrupted") else control_chance(state["st"], armour_class(sheet))
        outcomes = tuple((k, v) for k, v in (("controlled", chance), ("miscast", 1 - chance)) if v)
        return Odds(outcomes, success_keys=("controlled",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, source, index, spell = self._setup(sheet, p)
        refuse_if_down(state, "cast spells")
        odds = self.odds(sheet, p)
        name, level = spell["name"], spell["level"]
        dice: list[DieRoll] = []
        if p["how"] == "ritual":
            summary = f"{name} cast as a ritual over {level} hour{'s' if level != 1 else ''}: under control."
            if spell.get("corrupted"):
                state, words, more, _ = apply_damage(state, level, False, sheet.settings, rng)
                dice += more
                summary += f" Corrupted, it costs you: {words}"
            return RollResult(
                self.key, self.label, "controlled", summary, tuple(dice), None, odds, shown_inputs(p), state
            )
        ac = armour_class(sheet)
        if spell.get("corrupted"):
            summary = f"{name} is Corrupted: quickly cast, it slips out of control."
        else:
            die = roll_die(rng, 20, "control")
            dice.append(die)
            if ac < die.face <= state["st"]:
                summary = f"{die.face}, over your AC {ac} and within ST {state['st']}: {name} is under control."
                return RollResult(
                    self.key, self.label, "controlled", summary, tuple(dice), die.face, odds, shown_inputs(p)
                )
            why = f"at or under your AC {ac}" if die.face <= ac else f"over ST {state['st']}"
            summary = f"{die.face}, {why}: {name} slips out of control."
        if source == "scroll":
            state["scrolls"].pop(index)
            summary += " The scroll crumbles."
        else:
            state["spellbook"][index]["corrupted"] = True
            state, words, more, _ = apply_damage(state, level, False, sheet.settings, rng)
            dice += more
            summary += f" It is marked Corrupted in your book. {words}"
        miscast = roll_die(rng, 8, "miscast")
        dice.append(miscast)
        key, effect = data.MISCAST[miscast.face - 1]
        summary += f" Miscast {miscast.face}: {effect}"
        if key == "backlash" and not state["dead"]:
            hurt = roll_die(rng, 6, "backlash")
            dice.append(hurt)
            flesh_before = state["flesh"]
            spills = bool(value(sheet.settings, "grit_spills"))
            reaches = after_damage(state, hurt.face, False, spills)["flesh"] < flesh_before or flesh_before == 0
            state, words, more, _ = apply_damage(state, hurt.face, False, sheet.settings, rng)
            dice += more
            summary += f" {words} {'The spell fizzles.' if reaches else 'The spell works as normal.'}"
        return RollResult(
            self.key,
            self.label,
            "miscast",
            summary,
            tuple(dice),
            None,
            odds,
            shown_inputs(p),
            state,
            details={"miscast": key},
        )


@dataclass(frozen=True)
class PurifyProcedure:
    """Seed 004 (Corrupted Spells): after 8 hours' sleep somewhere fairly safe, purify one Corrupted spell."""

    key: str = "purify"
    label: str = "Purify a spell (after 8 hours' safe sleep)"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        state = st_of(sheet) if sheet is not None else {"spellbook": []}
        bad = tuple((str(n), s["name"]) for n, s in enumerate(state["spellbook"]) if s["corrupted"]) or (
            ("", "None is Corrupted"),
        )
        return (Param("spell", "Corrupted spell", "choice", bad[0][0], choices=bad),)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        index = int(p["spell"]) if p["spell"].isdigit() else -1
        if not 0 <= index < len(state["spellbook"]) or not state["spellbook"][index]["corrupted"]:
            raise RulesError("No spell in your book is Corrupted.")
        state["spellbook"][index]["corrupted"] = False
        state["safe_nights"] = max(0, state["safe_nights"] - 1)  # the clock's count of safe nights, if any
        summary = f"A night's safe sleep: {state['spellbook'][index]['name']} is pure again."
        return RollResult(self.key, self.label, "purified", summary, (), None, None, shown_inputs(p), state)


def _list_choices(sheet: Sheet | None) -> tuple[tuple[str, str], ...]:
    spells = spell_list(sheet.settings if sheet is not None else None)
    return tuple((name, f"{name} (level {level})") for name, level in spells)


@dataclass(frozen=True)
class FindScrollProcedure:
    """Seed 004 (Casting Spells): a scroll found or bought holds one spell of the table's list."""

    key: str = "find_scroll"
    label: str = "Add a scroll"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        spells = _list_choices(sheet) or (("", "The spell list is empty"),)
        return (Param("spell", "Spell on it", "choice", spells[0][0], choices=spells),)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        level = dict(spell_list(sheet.settings)).get(p["spell"])
        if level is None:
            raise RulesError("That spell is not on the table's list.")
        state["scrolls"].append({"name": p["spell"], "level": level})
        st_of(sheet.with_state(state))  # within the sheet's bounds
        return RollResult(
            self.key,
            self.label,
            "found",
            f"A scroll of {p['spell']} (level {level}).",
            (),
            None,
            None,
            shown_inputs(p),
            state,
        )


def _mentors(sheet: Sheet) -> list[Hireling]:
    return [h for h in sheet.hirelings if h.state.get("role") == "Specialist" and not h.state.get("dead")]


@dataclass(frozen=True)
class StudyScrollProcedure:
    """Seed 004 (Acquiring Spells): a Magic-User who studies a scroll with a mentor (a Specialist) for as
    many weeks as its level copies the spell into the spellbook."""

    key: str = "study_scroll"
    label: str = "Study a scroll with a mentor"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        state = st_of(sheet) if sheet is not None else {"scrolls": []}
        scrolls = tuple((str(n), f"{s['name']} (level {s['level']})") for n, s in enumerate(state["scrolls"])) or (
            ("", "No scrolls"),
        )
        return (
            Param("scroll", "Scroll", "choice", scrolls[0][0], choices=scrolls),
            Param("weeks", "Weeks of study", "int", 1, 1, 52),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        index = int(p["scroll"]) if p["scroll"].isdigit() else -1
        if not 0 <= index < len(state["scrolls"]):
            raise RulesError("You have no scroll to study.")
        if state["cls"] != "Magic-User":
            raise RulesError("Only a Magic-User copies spells into a spellbook.")
        if not _mentors(sheet):
            raise RulesError("Studying a scroll needs a mentor: hire a Specialist.")
        scroll = state["scrolls"][index]
        if p["weeks"] < scroll["level"]:
            raise RulesError(f"A level {scroll['level']} spell takes {scroll['level']} weeks of study.")
        if any(s["name"].lower() == scroll["name"].lower() for s in state["spellbook"]):
            raise RulesError(f"{scroll['name']} is in your spellbook already.")
        state["spellbook"].append({"name": scroll["name"], "level": scroll["level"], "corrupted": False})
        summary = f"{p['weeks']} weeks with your mentor: {scroll['name']} is in your spellbook."
        return RollResult(self.key, self.label, "learned", summary, (), None, None, shown_inputs(p), state)
