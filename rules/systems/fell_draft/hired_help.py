"""Fell (draft): hired help. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import (
    Hireling,
    Odds,
    Param,
    RollResult,
    RulesError,
    Sheet,
    clean_params,
    shown_inputs,
)
from rules.data import fell_draft as data
from rules.dice import (
    LADDER,
    RandomSource,
    ladder_index,
    roll_die,
    roll_pool,
)
from rules.systems.fell_draft.catalogue import _source_item
from rules.systems.fell_draft.checks import _build_pool, _hirelings, _roll_contest, _shift_params
from rules.systems.fell_draft.inventory import _hireling_state, _steel
from rules.systems.fell_draft.pools import Pool, PoolDie, contest_chances, shift_dice
from rules.systems.fell_draft.settings import setting
from rules.systems.fell_draft.state import (
    ABILITIES,
    HIRELING_HP,
    WAGE,
    WAGE_PER_STEP,
    _default_state,
    _die_of,
    _st,
    validate_state,
)
from rules.validation import bounded_int


def hireling_wage(state: Mapping[str, Any]) -> int:
    """Seed 000 (Hirelings): 5 coin a day, +5 per one-step raise of an ability die (spec §000.9 [REC])."""
    steps = sum(ladder_index(state["abilities"][ab]["full_die"]) for ab in ABILITIES)
    return WAGE + WAGE_PER_STEP * steps


@dataclass(frozen=True)
class PayHirelingsProcedure:
    """Seed 000 (Hirelings): pay wages up front, so dangerous orders need no WIL contest."""

    key: str = "pay_hirelings"
    label: str = "Pay hirelings"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        hired = tuple((k, f"{h.name} ({h.wage} coin a day)") for k, h in _hirelings(sheet).items())
        return (
            Param("hirelings", "Hirelings", "multichoice", tuple(k for k, _ in hired), choices=hired),
            Param("days", "Days paid up front", "int", 1, 1, 365),
            Param("unpaid", "Their paid time is over (mark unpaid)", "bool", False),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        hired = _hirelings(sheet)
        chosen = [hired[k] for k in p["hirelings"]]
        if not chosen:
            raise RulesError("Pick at least one hireling.")
        if any(h.id is None for h in chosen):
            raise RulesError("Save the hireling before paying them.")
        changed = []
        if p["unpaid"]:
            for h in chosen:
                changed.append(Hireling(h.name, h.kind, {**_hireling_state(h), "paid_up": False}, h.wage, h.id))
            names = ", ".join(h.name for h in chosen)
            return RollResult(
                self.key,
                self.label,
                "unpaid",
                f"{names}: no longer paid up.",
                (),
                None,
                None,
                shown_inputs(p),
                None,
                hirelings_changed=tuple(changed),
            )
        cost = sum(h.wage for h in chosen) * p["days"]
        if cost > state["coins"]:
            raise RulesError(f"That costs {cost} coin and you have {state['coins']} coin.")
        state["coins"] -= cost
        for h in chosen:
            changed.append(Hireling(h.name, h.kind, {**_hireling_state(h), "paid_up": True}, h.wage, h.id))
        summary = f"Paid {cost} coin for {p['days']} day(s); {state['coins']} coin left."
        return RollResult(
            self.key,
            self.label,
            "paid",
            summary,
            (),
            cost,
            None,
            shown_inputs(p),
            state,
            hirelings_changed=tuple(changed),
        )


@dataclass(frozen=True)
class OrderHirelingProcedure:
    """Seed 000 (Hirelings): an unpaid hireling asked to do something dangerous needs a WIL contest."""

    key: str = "order_hireling"
    label: str = "Give a hireling a dangerous order"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        hired = tuple((k, h.name) for k, h in _hirelings(sheet).items()) or (("", "No hirelings"),)
        return (Param("hireling", "Hireling", "choice", hired[0][0], choices=hired), *_shift_params())

    def _pools(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Hireling, Pool, Pool]:
        h = _hirelings(sheet).get(p["hireling"])
        if h is None:
            raise RulesError("You have no hireling to order.")
        hs = _hireling_state(h)
        mine = _build_pool(sheet, {**p, "steel": "", "skills": ()}, ability="WIL")
        theirs = shift_dice((PoolDie(_die_of(hs, "WIL"), f"{h.name}: WIL", "ability"),), 0)
        return h, mine, theirs

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        h, mine, theirs = self._pools(sheet, p)
        if _hireling_state(h)["paid_up"]:
            return Odds((("obeys", Fraction(1)),), success_keys=("obeys",))
        win, lose, tie = contest_chances(mine.sides, theirs.sides, setting(sheet, "contest_tiebreak"))
        return Odds((("obeys", win), ("refuses", lose + tie)), success_keys=("obeys",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        h, mine, theirs = self._pools(sheet, p)
        odds = self.odds(sheet, p)
        if _hireling_state(h)["paid_up"]:
            summary = f"{h.name} is paid up front and does as asked."
            return RollResult(self.key, self.label, "obeys", summary, (), None, odds, shown_inputs(p))
        base = _roll_contest(self, sheet, p, mine, theirs, rng)
        outcome = "obeys" if base.outcome == "win" else "refuses"
        summary = f"{base.summary} {h.name} {'does it' if outcome == 'obeys' else 'refuses'}."
        return RollResult(self.key, self.label, outcome, summary, base.dice, base.total, odds, base.inputs)


def _pick(name: str, value: Any, options: Sequence[str]) -> str:
    lookup = {o.lower(): o for o in options}
    if not isinstance(value, str) or value.lower() not in lookup:
        raise RulesError(f"{value!r} is not a {name} in the Fell tables.")
    return lookup[value.lower()]


def _chosen(name: str, value: Any, options: Sequence[str]) -> str:
    """A table row picked on a form; empty or "roll" leaves it to the dice."""
    if value in (None, "", "roll"):
        return ""
    return _pick(name, value, options)


_BACKGROUND_CHOICES = tuple((b[0], f"{b[0]} ({b[1]})") for b in data.BACKGROUNDS)


_RAISE_STEPS = len(LADDER) - 1


def hireling_limit(sheet: Sheet) -> int:
    """Seed 000 (Hirelings): as many as WIL, the WIL die's highest face (spec §000.12.2)."""
    return _die_of(_st(sheet), "WIL")


def hire_params(sheet: Sheet) -> tuple[Param, ...]:
    """The hire form (seed 000, Hirelings): what ``hire`` takes, with the wage each raise adds."""
    raises = tuple(
        Param(
            f"raise_{ab}",
            f"Raise {ab} from d4 by",
            "int",
            0,
            0,
            _RAISE_STEPS,
            help=f"Steps up the ladder; each adds {WAGE_PER_STEP} coin a day.",
        )
        for ab in ABILITIES
    )
    return (
        Param("name", "Name", "text", "", help="Leave empty to roll one."),
        Param(
            "background",
            "Background",
            "choice",
            "roll",
            choices=(("roll", "Roll a d20"), *_BACKGROUND_CHOICES),
        ),
        Param(
            "hp",
            "Hit points",
            "choice",
            "three",
            choices=(("three", f"Start with {HIRELING_HP}"), ("roll", "Roll every ability die, keep the highest")),
        ),
        *raises,
    )


def hire(sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
    """Seed 000 (Hirelings): made like a character but d4 in every ability, HP rolled or 3.

    Choices: name, background, hp ("three" | "roll"), raise ({"BOD": 1, ...} one-step raises at +5
    coin a day each). Rolls, when not chosen: name (2 d20), background (d20), HP (all dice, highest).
    Refused past WIL's face in hirelings, or without a day's wage in hand.
    """
    state = _st(sheet)
    limit = _die_of(state, "WIL")
    if len(sheet.hirelings) >= limit:
        raise RulesError(f"Your WIL lets you keep {limit} hirelings, and you have them all.")
    raises = choices.get("raise") or {}
    if not isinstance(raises, Mapping) or set(raises) - set(ABILITIES):
        raise RulesError("Raise abilities as BOD, INT or WIL with a number of steps.")
    flat = {ab: choices[f"raise_{ab}"] for ab in ABILITIES if choices.get(f"raise_{ab}") not in (None, "")}
    raises = {**raises, **flat}  # the hire form sends one number per ability
    dice = {}
    for ab in ABILITIES:
        steps = bounded_int(raises.get(ab, 0), f"Steps for {ab}", 0, len(LADDER) - 1)
        dice[ab] = LADDER[steps]
    name = str(choices.get("name") or "").strip()[:100]
    if not name:
        given, family = roll_die(rng, 20, "given name"), roll_die(rng, 20, "family name")
        name = f"{data.GIVEN_NAMES[given.face - 1]} {data.FAMILY_NAMES[family.face - 1]}"
    backgrounds = [b[0] for b in data.BACKGROUNDS]
    chosen_bg = _chosen("background", choices.get("background"), backgrounds)
    if chosen_bg:
        bg = data.BACKGROUNDS[backgrounds.index(chosen_bg)]
    else:
        bg = data.BACKGROUNDS[roll_die(rng, 20, "background").face - 1]
    hp_method = choices.get("hp") or "three"
    if hp_method == "roll":
        _, hp = roll_pool(rng, [dice[ab] for ab in ABILITIES], "highest")
    elif hp_method == "three":
        hp = HIRELING_HP
    else:
        raise RulesError("A hireling's HP is rolled or 3.")
    items = [_source_item(t) for t in bg[2]]
    hstate = validate_state(
        {
            **_default_state(),
            "abilities": {ab: {"die": d, "full_die": d, "points": d} for ab, d in dice.items()},
            "hp": hp,
            "hp_max": hp,
            "skills": [bg[1]],
            "background": bg[0],
            "hireling": True,
            "steel_die": max((_steel(i) for i in items), default=0),
            "equipment": [i.name for i in items],
        }
    )
    wage = hireling_wage(hstate)
    if state["coins"] < wage:
        raise RulesError(f"{name} wants {wage} coin a day and you have {state['coins']} coin.")
    return Hireling(name, "hireling", hstate, wage)
