"""Fell (draft): learning. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.base import (
    CatalogueEntry,
    Item,
    Param,
    RollResult,
    RulesError,
    Sheet,
    clean_params,
    shown_inputs,
)
from rules.data import fell_draft as data
from rules.dice import (
    RandomSource,
)
from rules.systems.fell_draft.catalogue import CATALOGUE
from rules.systems.fell_draft.checks import DIE_CHOICES
from rules.systems.fell_draft.inventory import check_can_carry
from rules.systems.fell_draft.state import SPELL_COST, _die_of, _st


@dataclass(frozen=True)
class LearnSpellProcedure:
    """Seed 000 (Spells): a week and 100 coin of components; no more spells than WIL's face."""

    key: str = "learn_spell"
    label: str = "Learn a spell"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("spell", "Spell", "choice", data.SPELLS[0][0], choices=tuple((n, n) for n, _ in data.SPELLS)),
            Param("other", "Or a spell not on the table", "text", ""),
            Param("pay", "Pay 100 coin for components", "bool", True),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        name = p["other"].strip() or p["spell"]
        limit = _die_of(state, "WIL")
        if name in state["spells"]:
            raise RulesError(f"You already know {name}.")
        if len(state["spells"]) >= limit:
            raise RulesError(f"You already know {limit} spells, as many as your WIL allows.")
        if p["pay"]:
            if state["coins"] < SPELL_COST:
                raise RulesError(f"Components cost {SPELL_COST} coin; you have {state['coins']} coin.")
            state["coins"] -= SPELL_COST
        state["spells"].append(name)
        if not state["spell_die"]:
            state["spell_die"] = _die_of(state, "WIL")
        summary = f"After a week of study you know {name}."
        return RollResult(self.key, self.label, "learned", summary, (), None, None, shown_inputs(p), state)


@dataclass(frozen=True)
class LearnSkillProcedure:
    """Seed 000 (Skills): a task your background suits may become a skill, up to INT's face."""

    key: str = "learn_skill"
    label: str = "Add a skill"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("skill", "Skill", "choice", data.SKILLS[0], choices=tuple((s, s) for s in data.SKILLS)),
            Param("other", "Or another skill", "text", ""),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        name = (p["other"].strip() or p["skill"]).lower()
        limit = _die_of(state, "INT")
        if name in state["skills"]:
            raise RulesError(f"You already know {name}.")
        if len(state["skills"]) >= limit:
            raise RulesError(f"You already know {limit} skills, as many as your INT allows.")
        state["skills"].append(name)
        return RollResult(
            self.key, self.label, "learned", f"New skill: {name}.", (), None, None, shown_inputs(p), state
        )


@dataclass(frozen=True)
class BuyProcedure:
    """Seed 000 (Equipment): buy from the price lists; coin is deducted and slots checked."""

    key: str = "buy"
    label: str = "Buy"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        entries = tuple((e.name, f"{e.name} ({e.cost} coin)") for e in CATALOGUE)
        return (
            Param("item", "Item", "choice", entries[0][0], choices=entries),
            Param("quantity", "How many", "int", 1, 1, 100),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        entry = next(e for e in CATALOGUE if e.name == p["item"])
        return buy(sheet, entry, p["quantity"])


def buy(sheet: Sheet, entry: CatalogueEntry, quantity: int = 1) -> RollResult:
    """Pay for ``quantity`` of a catalogue entry: RulesError when short of coin or unable to carry it."""
    if entry.cost is None:
        raise RulesError(f"{entry.name} has no price; the GM sets one.")
    if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= 100:
        raise RulesError("Buy from 1 to 100 at a time.")
    state = _st(sheet)
    cost = entry.cost * quantity
    if cost > state["coins"]:
        raise RulesError(f"{entry.name} costs {cost} coin and you have {state['coins']} coin.")
    state["coins"] -= cost
    added: tuple[Item, ...] = ()
    if entry.kind != "service":
        item = Item(entry.name, entry.kind, entry.slots, quantity, dict(entry.data))
        check_can_carry(sheet.with_state(state), item)
        added = (item,)
    summary = f"Bought {quantity} × {entry.name} for {cost} coin; {state['coins']} coin left."
    return RollResult(
        "buy",
        "Buy",
        "bought",
        summary,
        (),
        cost,
        None,
        {"item": entry.name, "quantity": quantity},
        state,
        items_added=added,
    )


@dataclass(frozen=True)
class SpellDieProcedure:
    """Creation rules: the spell die can be any size, changed as often as you like."""

    key: str = "spell_die"
    label: str = "Change spell die"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        now = _st(sheet)["spell_die"]
        return (Param("die", "Spell die", "choice", str(now) if now else "", choices=((("", "none"),) + DIE_CHOICES)),)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        state["spell_die"] = int(p["die"] or 0)
        words = f"Spell die now d{state['spell_die']}." if state["spell_die"] else "No spell die."
        return RollResult(self.key, self.label, "changed", words, (), None, None, shown_inputs(p), state)
