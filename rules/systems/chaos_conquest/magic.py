"""Chaos & Conquest magic (magic-spellcasting.md).

Power and its cost, the WIL save, the Power dice, mishaps and what they leave on a sheet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import replace as _replace
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

from rules.base import Item, Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import chaos_conquest as data
from rules.dice import RandomSource, roll_dice
from rules.systems.chaos_conquest.effects import (
    DEATH,
    _able,
    _add_stress,
    _at_least,
    _drop_param,
    _Effects,
    _stress_death,
    _Tally,
)
from rules.systems.chaos_conquest.inventory import _item_keys
from rules.systems.chaos_conquest.saves import _push_kills, _roll_save, _Save, _save_params, _save_setup, save_chance
from rules.systems.chaos_conquest.state import (
    POWER_MAX,
    STAMINA_FLOOR,
    _data,
    _lower,
    _raise_base,
    _st,
    shown_stamina,
)


def power_cost(power: int) -> int:
    """magic-spellcasting.md, Casting Spells: 1, 2, 4, 8 or 16 stamina for Power 1-5."""
    if isinstance(power, bool) or not isinstance(power, int) or not 1 <= power <= POWER_MAX:
        raise RulesError(f"Power runs from 1 to {POWER_MAX}; nobody can channel Power {power}.")
    return data.POWER_COST[power - 1]


def mishap_chances(power: int) -> tuple[Fraction, Fraction]:
    """(P(two or more dice match), P(they match and the sum is 21+, death)) for Power x d6, exactly."""
    power_cost(power)
    match = explode = 0
    for faces in product(range(1, 7), repeat=power):
        if len(set(faces)) < power:
            match += 1
            explode += sum(faces) >= 21
    return Fraction(match, 6**power), Fraction(explode, 6**power)


def _spell_sources(sheet: Sheet) -> dict[str, tuple[Item, str]]:
    """Every castable spell on the sheet: "<item key>|<spell>" -> (book or scroll, spell)."""
    out: dict[str, tuple[Item, str]] = {}
    for key, item in _item_keys(sheet).items():
        d = _data(item)
        if item.kind != "spellbook" or d.get("ruined"):
            continue
        names = [d.get("spell")] if d.get("scroll") else list(d.get("spells") or [])
        for name in names:
            if isinstance(name, str) and name:
                out[f"{key}|{name}"] = (item, name)
    return out


def _spell_text(name: str, dice: int, total: int) -> str:
    row = next((text for n, text in data.SPELLS.values() if n.lower() == name.lower()), "")
    return row.replace("[DICE]", str(dice)).replace("[SUM]", str(total))


def _mishap(fx: _Effects, total: int, count: int, source: Item, drop: Sequence[str], rng: RandomSource) -> str:
    """magic-spellcasting.md, Mishaps Table: look up [SUM]; the effects a sheet can hold are applied."""
    row = min(total, 21)
    text = data.MISHAPS[row].replace("[DICE]", str(count)).replace("[SUM]", str(total))
    st = fx.state
    book = bool(_data(source).get("grimoire"))
    fx.say(f"Mishap ({total}): {text}")
    if row in (4, 5):
        _add_stress(fx, 1, drop, rng, "Mishap")
    elif row == 11:
        _lower(st, "WIL", count, permanent=False)
    elif row == 12:
        st["aura"], st["aura_lost"] = True, False
    elif row == 13 and book:
        fx.set_data(source, ruined=True)
    elif row == 14:
        st["tumours"] = min(30, st["tumours"] + count)
    elif row == 15:
        _lower(st, "WIL", st["attributes"]["WIL"]["base"] // 2, permanent=True)
        if book:
            now = fx.current(source)
            if now is not None:
                fx.replace(source, _replace(now, slots=0, data={**dict(now.data or {}), "soul_bound": True}))
    elif row == 16:
        _lower(st, "STR", count, permanent=True)
        st["bark"] = True
    elif row == 17:
        _raise_base(st, "STR", count)
        st["wings"] = True
    elif row == 18 and book:
        now = fx.current(source)
        if now is not None:
            fx.replace(source, _replace(now, slots=1, data={**dict(now.data or {}), "fused": True}))
    elif row == 21:
        st["status"] = "dead"
    st["mishaps"] = [*st["mishaps"], f"{total}: {text}"[:100]][-50:]
    _stress_death(fx)
    return text


@dataclass(frozen=True)
class _Cast:
    item: Item
    spell: str
    scroll: bool
    power: int
    cost: int
    save: _Save | None


@dataclass(frozen=True)
class CastProcedure:
    """magic-spellcasting.md, Casting Spells: pay 1/2/4/8/16 stamina for Power 1-5, save on WIL
    (failure still casts, with a stress; scrolls need no save), roll Power x d6; matching dice mishap."""

    key: str = "cast"
    label: str = "Cast a spell"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        spells = tuple((k, f"{name} ({item.name})") for k, (item, name) in _spell_sources(sheet).items())
        save = tuple(p for p in _save_params(sheet, "WIL", auto=False) if p.name not in ("attribute", "equipment"))
        return (
            Param("spell", "Spell", "choice", spells[0][0] if spells else "", choices=spells or (("", "none"),)),
            Param("power", "Power", "int", 1, 1, POWER_MAX, help="Costs 1, 2, 4, 8 or 16 stamina."),
            *save,
            _drop_param(sheet),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> _Cast:
        state = _st(sheet)
        _able(state)
        found = _spell_sources(sheet).get(p["spell"])
        if found is None:
            raise RulesError("Pick a spell from a grimoire, holy book or scroll you carry.")
        item, spell = found
        d = _data(item)
        if d.get("holy_book") and d.get("faction") and d.get("faction") != state["faction"]:
            raise RulesError("Only the faithful of its faction and order can cast from this holy book.")
        cost = power_cost(p["power"])
        scroll = bool(d.get("scroll"))
        save = None if scroll else _save_setup(sheet, state, {**p, "attribute": "WIL", "equipment": False})
        return _Cast(item, spell, scroll, p["power"], cost, save)

    def _odds(self, sheet: Sheet, c: _Cast, drop: Sequence[str] = ()) -> Odds:
        """Every outcome, exactly: the save, the stress a failure adds, the Power dice and their mishap.

        Stress can kill (seed 002, Inventory & Stress): filling the last slot, or with no slot left as
        d6 damage that takes the caster to 0 (and casting to 0 is death). Each branch is run with
        ``_Tally`` dice; those d6s then kill when their sum reaches the stamina left.
        """
        state = _st(sheet)
        if state["stamina"] - c.cost <= 0 or _push_kills(c.save, state):
            return DEATH
        ok = Fraction(1) if c.save is None else save_chance(c.save.target, c.save.mode)
        out = dict.fromkeys(("cast", "cast_stress", "mishap", "mishap_stress", "explodes", "dies"), Fraction(0))
        for strained, q in ((False, ok), (True, 1 - ok)):
            if not q:
                continue
            for (mishap, total), pm in _power_classes(c.power):
                fx, tally = _Effects(sheet), _Tally()
                fx.state["stamina"] -= c.cost
                if c.save is not None and c.save.push:
                    fx.state["stress"] += 1  # it fits: pushing needs an empty slot, and it did not kill
                if strained:
                    _add_stress(fx, 1, drop, tally, "")
                if fx.state["status"] == "dead":
                    key = "dies"  # as in the roll: the strain killed before the spell resolved
                else:
                    if mishap:
                        _mishap(fx, total, c.power, c.item, drop, tally)
                    key = _cast_outcome(fx.state, mishap, total, strained)
                hit = Fraction(0)
                if tally.calls and fx.state["stamina"] > 0:
                    hit = _at_least(tally.calls, 6, fx.state["stamina"] + tally.calls)
                out["dies"] += q * pm * hit
                out[key] += q * pm * (1 - hit)
        rows = tuple((k, v) for k, v in out.items() if v or k == "cast")
        return Odds(rows, success_keys=("cast", "cast_stress"))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return self._odds(sheet, self._setup(sheet, p), p["drop"])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        c = self._setup(sheet, p)
        odds = self._odds(sheet, c, p["drop"])
        fx = _Effects(sheet)
        st = fx.state
        st["stamina"] = max(STAMINA_FLOOR, st["stamina"] - c.cost)
        fx.say(f"{c.spell} at Power {c.power}: {c.cost} stamina (now {shown_stamina(st)}).")
        strained = False
        if c.scroll:
            fx.use_one(c.item)
            fx.say("The scroll needs no save and crumbles to dust.")
        else:
            assert c.save is not None
            ok, _ = _roll_save(fx, c.save, rng)
            if st["status"] == "dead":  # the push filled the last slot with stress
                return fx.result(self, "dies", odds, shown_inputs(p))
            if not ok:
                strained = True
                _add_stress(fx, 1, p["drop"], rng, "The magic strains you")
                if st["status"] == "dead":  # that stress filled the last slot, or its damage killed
                    return fx.result(self, "dies", odds, shown_inputs(p))
        dice = roll_dice(rng, c.power, 6, "power")
        fx.dice += dice
        total = sum(d.face for d in dice)
        effect = _spell_text(c.spell, c.power, total)
        fx.say(f"[DICE] {c.power}, [SUM] {total}." + (f" {effect}" if effect else ""))
        mishap = len({d.face for d in dice}) < c.power
        if mishap:
            _mishap(fx, total, c.power, c.item, p["drop"], rng)
        if st["stamina"] <= 0 and st["status"] != "dead":
            st["status"] = "dead"
            fx.say("Casting burned the last of your essence: dead once the spell resolves, beyond any resurrection.")
        fx.details.update({"dice": c.power, "sum": total, "mishap": mishap, "cost": c.cost, "effect": effect})
        if st["status"] == "dead" and (total >= 21 and mishap or st["stamina"] <= 0):
            fx.details["no_resurrection"] = True
        return fx.result(self, _cast_outcome(st, mishap, total, strained), odds, shown_inputs(p), total=total)


@lru_cache(maxsize=8)
def _power_classes(power: int) -> tuple[tuple[tuple[bool, int], Fraction], ...]:
    """Power x d6 by what the rest of a cast depends on: no mishap (any sum), or a mishap and its sum."""
    counts: dict[tuple[bool, int], int] = {}
    for faces in product(range(1, 7), repeat=power):
        mishap = len(set(faces)) < power
        key = (mishap, sum(faces) if mishap else 0)
        counts[key] = counts.get(key, 0) + 1
    return tuple((k, Fraction(n, 6**power)) for k, n in sorted(counts.items()))


def _cast_outcome(st: Mapping[str, Any], mishap: bool, total: int, strained: bool) -> str:
    if st["stamina"] <= 0:
        return "dies"
    if mishap and total >= 21:
        return "explodes"
    if st["status"] == "dead":  # the strain's or a mishap's stress filled the last slot (or shrank the slots)
        return "dies"
    return ("mishap" if mishap else "cast") + ("_stress" if strained else "")
