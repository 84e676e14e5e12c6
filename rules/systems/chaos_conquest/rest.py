"""Chaos & Conquest stress and rest (seed 002, Inventory & Stress; Rest & Healing).

Taking strain, and the rests and Supplies that mend it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import RandomSource, die_dist, roll_die
from rules.systems.chaos_conquest.effects import (
    _able,
    _add_stress,
    _drop_param,
    _Effects,
    _settle_crits,
    _stress_fates,
)
from rules.systems.chaos_conquest.inventory import _ration, _supplies, _worn_weapons
from rules.systems.chaos_conquest.settings import setting
from rules.systems.chaos_conquest.state import MAGIC_AV_MAX, _data, _st


@dataclass(frozen=True)
class StressProcedure:
    """Seed 002, Inventory & Stress (and Fatigue): take stress; with no empty slot, drop items or take
    d6 damage per stress that does not fit."""

    key: str = "stress"
    label: str = "Take stress"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        reasons = (
            ("other", "something strains you"),
            ("camp", "skipped camp last night"),
            ("watch", "travelled or explored past three watches"),
        )
        return (
            Param("amount", "Stress", "int", 1, 1, 20),
            Param("reason", "Why", "choice", "other", choices=reasons),
            _drop_param(sheet),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _able(_st(sheet))
        fates = _stress_fates(sheet, p["amount"], p["drop"])
        rows = (
            ("stressed", fates.get("fine", Fraction(0))),
            ("dying", fates.get("dying", Fraction(0))),
            ("dies", fates.get("dead", Fraction(0))),
        )
        return Odds(tuple(r for r in rows if r[1] or r[0] == "stressed"), success_keys=("stressed",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        fx = _Effects(sheet)
        why = {"camp": "No camp", "watch": "A long day on the road"}.get(p["reason"], "Strain")
        _add_stress(fx, p["amount"], p["drop"], rng, why)
        outcome = {"dead": "dies", "dying": "dying"}.get(fx.state["status"], "stressed")
        return fx.result(self, outcome, odds, shown_inputs(p), total=fx.state["stress"])


@dataclass(frozen=True)
class RestProcedure:
    """Seed 002, Rest & Healing: short rest (a Supply mends one thing), night's rest (a ration:
    d8 stamina, -1 stress, Supplies mend), full rest (a safe week restores nearly everything)."""

    key: str = "rest"
    label: str = "Rest"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        worn = tuple((k, it.name) for k, it in _worn_weapons(sheet.items).items())
        return (
            Param(
                "kind",
                "Rest",
                "choice",
                "night",
                choices=(
                    ("short", "short rest (a turn)"),
                    ("night", "night's rest"),
                    ("full", "full rest (a safe week)"),
                ),
            ),
            Param("repair_av", "Supplies to mend armour (1 AV each)", "int", 0, 0, MAGIC_AV_MAX),
            Param("repair_weapons", "Supplies to restore worn weapons", "multichoice", (), choices=worn),
            Param("interrupted", "Sleep interrupted by combat or excitement", "bool", False),
        )

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> dict[str, Any]:
        state = _st(sheet)
        _able(state)
        repairs = p["repair_av"] + len(p["repair_weapons"])
        if p["kind"] == "full":
            return state
        if p["kind"] == "short" and repairs != 1:
            raise RulesError("A short rest spends one Supply to mend one thing: 1 AV or one worn weapon.")
        have = sum(i.quantity for i in _supplies(sheet.items))
        if repairs > have:
            raise RulesError(f"Mending {repairs} thing(s) takes {repairs} Supplies and you have {have}.")
        lost = state["av_lost"] + state["av_crit_pending"]
        if p["repair_av"] > lost:
            raise RulesError(f"Your armour has lost {lost} AV; there is no more to mend.")
        if p["kind"] == "night" and _ration(sheet.items) is None:
            raise RulesError("A night's rest needs a ration to eat, and you have none.")
        return state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds | None:
        p = clean_params(self, sheet, params)
        state = self._check(sheet, p)
        if p["kind"] != "night" or p["interrupted"]:
            return None
        missing = state["stamina_max"] - state["stamina"]
        dist: dict[int, Fraction] = {}
        for face, q in die_dist(8).items():
            gain = min(face, missing)
            dist[gain] = dist.get(gain, Fraction(0)) + q
        return Odds(tuple((f"+{g} stamina", q) for g, q in sorted(dist.items())), success_keys=())

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        fx = _Effects(sheet)
        st = fx.state
        _settle_crits(fx)
        if p["kind"] == "full":
            st["stamina"] = st["stamina_max"]
            for a in st["attributes"].values():
                a["current"] = a["base"]
            st.update({"stress": 0, "av_lost": 0, "aura_lost": False})
            for item in _worn_weapons(fx.items()).values():
                fx.set_data(item, worn_out=False)
            fx.say("A safe week: all stamina back, lowered attributes restored, no stress, armour and weapons mended.")
            if st["scars"]:
                fx.say("Scars stay." if setting(sheet, "scar_losses_permanent") else "Scars stay as marks.")
            return fx.result(self, "rested", odds, shown_inputs(p))
        supplies = _supplies(sheet.items)
        spent = 0

        def spend() -> None:
            nonlocal spent
            while fx.current(supplies[0]) is None:
                supplies.pop(0)
            fx.use_one(supplies[0])
            spent += 1

        if p["repair_av"]:
            for _ in range(p["repair_av"]):
                spend()
            st["av_lost"] -= p["repair_av"]
            fx.say(f"Mended {p['repair_av']} AV.")
        worn = _worn_weapons(sheet.items)
        for key in p["repair_weapons"]:
            spend()
            fx.set_data(worn[key], worn_out=False)
            fx.say(f"Restored {worn[key].name}.")
        if spent:
            fx.say(f"Spent {spent} Supply.")
        outcome = "rested"
        if p["kind"] == "night":
            ration = _ration(sheet.items)
            assert ration is not None
            days = _data(ration).get("days")
            if isinstance(days, int) and days > 1:
                fx.set_data(ration, days=days - 1)
            else:
                fx.use_one(ration)
            fx.say(f"Ate from {ration.name}.")
            if p["interrupted"]:
                fx.say("Sleep was broken: no stamina back and no stress lifted tonight.")
            else:
                die = roll_die(rng, 8, "stamina")
                fx.dice.append(die)
                gain = min(die.face, st["stamina_max"] - st["stamina"])
                st["stamina"] += gain
                st["stress"] = max(0, st["stress"] - 1)
                fx.say(f"Slept two watches: d8 = {die.face}, +{gain} stamina; one stress lifted.")
                outcome = f"+{gain} stamina"  # named as the odds name it, so the roll lands on its odds
        return fx.result(self, outcome, odds, shown_inputs(p))
