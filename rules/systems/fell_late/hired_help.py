"""Fell (late): hirelings (seed 001, Hirelings): made like PCs, at most WIL of them, a daily fee by rank paid
up front, an equal share of plunder minus fees paid, and a WIL contest for a dangerous order when unpaid."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from rules.base import Hireling, Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import fell_late as data
from rules.dice import RandomSource
from rules.systems.fell_late.checks import (
    character_roll,
    contest_chances,
    hirelings,
    roll_contest,
    roll_from_params,
    shift_params,
)
from rules.systems.fell_late.creation import create
from rules.systems.fell_late.inventory import hireling_state
from rules.systems.fell_late.settings import CONTEST_TIE, setting
from rules.systems.fell_late.state import COINS_MAX, face, st
from rules.validation import boolean

RANK_CHOICES = tuple((rank, f"{rank} ({fee} C a day)") for rank, fee in data.HIRELING_FEES.items())


def hireling_limit(sheet: Sheet) -> int:
    """Seed 001 (Hirelings): as many as WIL, the WIL die's highest face (spec §001.11.4 [REC])."""
    return face(st(sheet), "WIL")


def hire_params(sheet: Sheet) -> tuple[Param, ...]:
    return (
        Param("name", "Name", "text", "", help="Leave blank to roll one."),
        Param("rank", "Rank", "choice", "untrained", choices=RANK_CHOICES),
        Param("pay", "Pay the first day up front", "bool", True, help="Unpaid, a dangerous order needs a WIL contest."),
    )


def hire(sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
    """A hireling made like a PC (attributes, HP, background, spell...), with its rank's fee."""
    if not isinstance(choices, Mapping):
        raise RulesError("Hiring choices must be named.")
    limit = hireling_limit(sheet)
    if len(sheet.hirelings) >= limit:
        raise RulesError(f"You already employ {len(sheet.hirelings)} hirelings, as many as your WIL (d{limit}) allows.")
    rank = choices.get("rank") or "untrained"
    if rank not in data.HIRELING_FEES:
        raise RulesError(f"Rank: choose one of {', '.join(data.HIRELING_FEES)}.")
    pay = boolean(choices.get("pay", True), "Pay the first day up front")  # the form's yes/no, already checked
    fee = data.HIRELING_FEES[rank]
    held = st(sheet)["coins"]
    if pay and fee > held:
        raise RulesError(f"A {rank} hireling's day costs {fee} C up front; you have {held} C.")
    made = create({"name": str(choices.get("name") or "").strip()[:100], "traits": "none"}, rng)
    state = {**made.state, "hireling": True, "hire_rank": rank, "paid_up": pay, "fees_paid": fee if pay else 0}
    return Hireling(made.name, "hireling", state, wage=fee, upfront=fee if pay else 0)


@dataclass(frozen=True)
class PayHirelingsProcedure:
    """Seed 001 (Hirelings): pay the daily fee up front for some days; paid hirelings need no WIL contest."""

    key: str = "pay_hirelings"
    label: str = "Pay hirelings"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        hired = tuple((k, f"{h.name} ({h.wage} C a day)") for k, h in hirelings(sheet).items())
        return (
            Param("hirelings", "Hirelings", "multichoice", tuple(k for k, _ in hired), choices=hired),
            Param("days", "Days paid up front", "int", 1, 1, 365),
            Param("unpaid", "Their paid days are over (mark unpaid)", "bool", False),
        )

    def _apply(
        self, sheet: Sheet, p: Mapping[str, Any]
    ) -> tuple[str, str, dict[str, Any] | None, tuple[Hireling, ...]]:
        state = st(sheet)
        hired = hirelings(sheet)
        chosen = [hired[k] for k in p["hirelings"]]
        if not chosen:
            raise RulesError("Pick at least one hireling.")
        if p["unpaid"]:
            changed = tuple(replace(h, state={**hireling_state(h), "paid_up": False}) for h in chosen)
            return "unpaid", f"{', '.join(h.name for h in chosen)}: no longer paid up.", None, changed
        cost = sum(h.wage for h in chosen) * p["days"]
        if cost > state["coins"]:
            raise RulesError(f"That costs {cost} C and you have {state['coins']} C.")
        state["coins"] -= cost
        changed = tuple(
            replace(
                h,
                state={
                    **(s := hireling_state(h)),
                    "paid_up": True,
                    "fees_paid": min(COINS_MAX, s["fees_paid"] + h.wage * p["days"]),
                },
            )
            for h in chosen
        )
        return "paid", f"Paid {cost} C for {p['days']} day(s); {state['coins']} C left.", state, changed

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        outcome = self._apply(sheet, clean_params(self, sheet, params))[0]
        return Odds(((outcome, Fraction(1)),), success_keys=(outcome,))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        if any(h.id is None for h in (hirelings(sheet)[k] for k in p["hirelings"] if k in hirelings(sheet))):
            raise RulesError("Save the hireling before paying them.")
        outcome, summary, state, changed = self._apply(sheet, p)
        odds = Odds(((outcome, Fraction(1)),), success_keys=(outcome,))
        return RollResult(
            self.key, self.label, outcome, summary, (), None, odds, shown_inputs(p), state, hirelings_changed=changed
        )


@dataclass(frozen=True)
class ShareProcedure:
    """Seed 001 (Hirelings): each hireling takes an equal share of the plunder, minus the fees already paid
    (spec §001.8 [REC]: plunder / (PCs + hirelings) - fees paid, never below 0). Shown, not paid out."""

    key: str = "shares"
    label: str = "Hirelings' shares"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("plunder", "Plunder to divide (C)", "int", 0, 0, 10_000_000),
            Param("pcs", "Player characters sharing", "int", 1, 1, 20),
        )

    def _shares(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[int, list[tuple[str, int]]]:
        hired = list(hirelings(sheet).values())
        if not hired:
            raise RulesError("No hirelings to share with.")
        each = p["plunder"] // (p["pcs"] + len(hired))
        return each, [(h.name, max(0, each - hireling_state(h)["fees_paid"])) for h in hired]

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        self._shares(sheet, clean_params(self, sheet, params))
        return Odds((("shared", Fraction(1)),), success_keys=("shared",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        each, shares = self._shares(sheet, p)
        summary = f"An equal share is {each} C; less fees paid: " + ", ".join(f"{n} {s} C" for n, s in shares) + "."
        return RollResult(
            self.key,
            self.label,
            "shared",
            summary,
            (),
            each,
            self.odds(sheet, p),
            shown_inputs(p),
            None,
            {"shares": dict(shares)},
        )


@dataclass(frozen=True)
class OrderHirelingProcedure:
    """Seed 001 (Hirelings): asking an unpaid hireling to do something dangerous takes a WIL contest."""

    key: str = "order_hireling"
    label: str = "Order into danger"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        hired = tuple((k, h.name) for k, h in hirelings(sheet).items()) or (("", "No hireling"),)
        return (Param("hireling", "Hireling", "choice", hired[0][0], choices=hired), *shift_params())

    def _rolls(self, sheet: Sheet, p: Mapping[str, Any]):
        h = hirelings(sheet).get(p["hireling"])
        if h is None:
            raise RulesError("That hireling is not on this sheet.")
        hstate = hireling_state(h)
        mine, _ = roll_from_params(sheet, p, "WIL")
        theirs = character_roll(Sheet(state=hstate, name=h.name), hstate, "WIL")
        return h, hstate, mine, theirs

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, hstate, mine, theirs = self._rolls(sheet, p)
        if hstate["paid_up"]:
            return Odds((("obeys", Fraction(1)),), success_keys=("obeys",))
        win, lose, tie = contest_chances(mine, theirs, setting(sheet, CONTEST_TIE))
        return Odds((("obeys", win), ("refuses", lose + tie)), success_keys=("obeys",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        h, hstate, mine, theirs = self._rolls(sheet, p)
        odds = self.odds(sheet, p)
        if hstate["paid_up"]:
            return RollResult(
                self.key,
                self.label,
                "obeys",
                f"{h.name} is paid up and goes, no roll needed.",
                (),
                None,
                odds,
                shown_inputs(p),
            )
        dice, outcome, x, y = roll_contest(sheet, rng, mine, theirs, ("you", h.name))
        result = "obeys" if outcome == "win" else "refuses"
        summary = (
            f"{h.name} is unpaid: WIL contest {x} against {y}; {h.name} {'goes' if result == 'obeys' else 'refuses'}."
        )
        return RollResult(self.key, self.label, result, summary, dice, x, odds, shown_inputs(p))
