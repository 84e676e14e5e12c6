"""Grit & Flesh: gear bubbles, ammunition and armour repair (seed 004, Gear Bubbles, Ranged Attacks,
Armor Degradation)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from rules.base import Item, Odds, Param, RollResult, RulesError, Sheet, clean_params, entry_key, shown_inputs
from rules.dice import RandomSource
from rules.systems.grit_flesh.inventory import weapons
from rules.systems.grit_flesh.state import BUBBLES, st_of
from rules.systems.grit_flesh.table import light_life

EMPTY_BUBBLES_GP = 25  # seed 004, Gear Bubbles
REPAIR_GP = 5  # seed 004, Armor Degradation: per point, and a day's work


def fill_bubble(state: dict[str, Any]) -> None:
    if state["bubbles"] >= BUBBLES:
        raise RulesError(
            f"All {BUBBLES} gear bubbles are filled: empty them in a settlement for {EMPTY_BUBBLES_GP} gp."
        )
    state["bubbles"] += 1


@dataclass(frozen=True)
class FillBubbleProcedure:
    """Seed 004 (Gear Bubbles): fill one to bring out any piece of mundane gear, as if packed all along."""

    key: str = "fill_bubble"
    label: str = "Fill a gear bubble"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (Param("item", "The mundane item you had all along", "text", "", help="Rope, a crowbar, chalk..."),)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        name = p["item"].strip()[:100]
        if not name:
            raise RulesError("Name the mundane item the bubble brings out.")
        fill_bubble(state)
        item = Item(name, "gear", 0, 1, {"bubble": True})
        if light_life(replace(item, kind="light")):  # a torch, lantern or candle: one the clock burns
            item = replace(item, kind="light")
        summary = f"{name}, out of the pack: {state['bubbles']} of {BUBBLES} gear bubbles filled."
        return RollResult(
            self.key, self.label, "filled", summary, (), None, None, shown_inputs(p), state, items_added=(item,)
        )


@dataclass(frozen=True)
class EmptyBubblesProcedure:
    """Seed 004 (Gear Bubbles): in a settlement, 25 gp empties every bubble."""

    key: str = "empty_bubbles"
    label: str = "Empty the gear bubbles (in a settlement)"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        if not state["bubbles"]:
            raise RulesError("No gear bubble is filled.")
        if state["coins"] < EMPTY_BUBBLES_GP:
            raise RulesError(f"Restocking costs {EMPTY_BUBBLES_GP} gp; you have {state['coins']} gp.")
        state["coins"] -= EMPTY_BUBBLES_GP
        state["bubbles"] = 0
        summary = f"Restocked for {EMPTY_BUBBLES_GP} gp: all {BUBBLES} gear bubbles empty again."
        return RollResult(self.key, self.label, "emptied", summary, (), EMPTY_BUBBLES_GP, None, shown_inputs(p), state)


@dataclass(frozen=True)
class RestockProcedure:
    """Seed 004 (Ranged Attacks): out of ammunition, fill a gear bubble, or pay half the weapon's cost in a
    settlement."""

    key: str = "restock"
    label: str = "Restock ammunition"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        empty = (
            tuple((k, i.name) for k, i in weapons(sheet) if i.data.get("out_of_ammunition"))
            if sheet is not None
            else ()
        )
        return (
            Param(
                "weapon",
                "Weapon",
                "choice",
                (empty or (("", "None is out"),))[0][0],
                choices=empty or (("", "None is out"),),
            ),
            Param(
                "how",
                "How",
                "choice",
                "bubble",
                choices=(("bubble", "Fill a gear bubble"), ("buy", "Buy it in a settlement: half the weapon's cost")),
            ),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        item = dict(weapons(sheet)).get(p["weapon"])
        if item is None or not item.data.get("out_of_ammunition"):
            raise RulesError("No weapon of yours is out of ammunition.")
        if p["how"] == "bubble":
            fill_bubble(state)
            summary = f"{item.name} restocked from a gear bubble: {state['bubbles']} of {BUBBLES} filled."
        else:
            cost = -(-int(item.data.get("cost", 0)) // 2)
            if cost > state["coins"]:
                raise RulesError(f"Ammunition for {item.name} costs {cost} gp; you have {state['coins']} gp.")
            state["coins"] -= cost
            summary = f"{item.name} restocked for {cost} gp."
        changed = replace(item, data={**item.data, "out_of_ammunition": False})
        return RollResult(
            self.key, self.label, "restocked", summary, (), None, None, shown_inputs(p), state, items_changed=(changed,)
        )


def _armour(sheet: Sheet | None) -> list[tuple[str, Item]]:
    if sheet is None:
        return []
    return [
        (entry_key(i, n), i) for n, i in enumerate(sheet.items) if i.kind in ("armour", "shield") and "AC" in i.data
    ]


@dataclass(frozen=True)
class RepairProcedure:
    """Seed 004 (Armor Degradation): a blacksmith mends 1 AC for 5 gp and a day, up to the starting AC;
    armour that reached 0 is broken for good."""

    key: str = "repair"
    label: str = "Repair armour (in a settlement)"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        pieces = tuple(
            (k, f"{i.name} (AC {i.data.get('current_AC', i.data['AC'])} of {i.data['AC']})") for k, i in _armour(sheet)
        )
        pieces = pieces or (("", "No armour"),)
        return (
            Param("piece", "Piece", "choice", pieces[0][0], choices=pieces),
            Param("points", "Points of AC", "int", 1, 1, 10),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        item = dict(_armour(sheet)).get(p["piece"])
        if item is None:
            raise RulesError("You have no armour to repair.")
        now, top = int(item.data.get("current_AC", item.data["AC"])), int(item.data["AC"])
        if now == 0:
            raise RulesError(f"{item.name} reached AC 0 and is broken for good: no smith can mend it.")
        points = min(p["points"], top - now)
        if points == 0:
            raise RulesError(f"{item.name} is as good as new.")
        cost = REPAIR_GP * points
        if cost > state["coins"]:
            raise RulesError(
                f"{points} point{'s' if points != 1 else ''} of repair cost {cost} gp; you have {state['coins']} gp."
            )
        state["coins"] -= cost
        changed = replace(item, data={**item.data, "current_AC": now + points})
        days = f"{points} day{'s' if points != 1 else ''}"
        summary = f"{item.name} mended to AC {now + points} for {cost} gp and {days} of work."
        return RollResult(
            self.key, self.label, "repaired", summary, (), cost, None, shown_inputs(p), state, items_changed=(changed,)
        )


@dataclass(frozen=True)
class AfterFightProcedure:
    """What a fight leaves to see to, asked of every character when the GM ends it (GameSystem.end_of_combat):
    weapons out of ammunition (seed 004, Ranged Attacks: a gear bubble, or half the weapon's cost in a
    settlement), armour worn down (seed 004, Armor Degradation: 5 gp and a day a point at a blacksmith; at 0
    it is broken for good), and a feint's two attacks, which only the next round of the fight could use
    (seed 004, Special Attacks). No dice."""

    key: str = "after_fight"
    label: str = "After the fight"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        clean_params(self, sheet, params)
        return Odds((("noted", Fraction(1)),), success_keys=("noted",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        words = [
            f"{item.name} is out of ammunition: restock it with a gear bubble ({BUBBLES - state['bubbles']} left) "
            f"or for {-(-int(item.data.get('cost', 0)) // 2)} gp in a settlement."
            for _, item in weapons(sheet)
            if item.data.get("out_of_ammunition")
        ]
        for item in sheet.items:
            start, now = int(item.data.get("AC", 0)), int(item.data.get("current_AC", item.data.get("AC", 0)))
            if item.kind not in ("armour", "shield") or now >= start:
                continue
            if now == 0:
                words.append(f"{item.name} is broken for good.")
            else:
                lost = start - now
                words.append(
                    f"{item.name} is down to AC {now} of {start}: a blacksmith mends it for {REPAIR_GP * lost} gp "
                    f"and {lost} day{'s' if lost != 1 else ''}."
                )
        new = None
        if state["feint"]:
            state["feint"] = False
            new = state
            words.append("The feint's two attacks went unused.")
        summary = " ".join(words) or "Nothing to restock or mend."
        return RollResult(
            self.key, self.label, "noted", summary, odds=self.odds(sheet, p), inputs=shown_inputs(p), state=new
        )
