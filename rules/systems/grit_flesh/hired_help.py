"""Grit & Flesh: helpers (seed 004, Hiring Helpers); their numbers are house defaults (rules-spec §004.12)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules.base import Hireling, Param, RollResult, RulesError, Sheet, clean_params, entry_key, shown_inputs
from rules.data import grit_flesh as data
from rules.dice import RandomSource
from rules.systems.grit_flesh.inventory import BY_NAME
from rules.systems.grit_flesh.settings import value
from rules.systems.grit_flesh.state import st_of

HELPER_LIMIT = 4  # seed 004: up to 4 helpers at once
WEEKLY = {kind: cost for kind, cost, _ in data.HELPERS}
ROLE_WORDS = {kind: words for kind, _, words in data.HELPERS}


def hire_params(sheet: Sheet) -> tuple[Param, ...]:
    return (
        Param(
            "role",
            "Helper",
            "choice",
            "Torchbearer",
            choices=tuple((k, f"{k}: {c} gp a week, {w}") for k, c, w in data.HELPERS),
        ),
        Param("name", "Name", "text", "", help="Leave empty to call them by their trade."),
    )


def hire(sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
    """A helper, the first week paid up front; refused past 4 helpers or without the week's pay."""
    state = st_of(sheet)
    if len(sheet.hirelings) >= HELPER_LIMIT:
        raise RulesError(f"You can keep {HELPER_LIMIT} helpers at once, and you have {len(sheet.hirelings)}.")
    role = choices.get("role") or "Torchbearer"
    if role not in WEEKLY:
        raise RulesError(f"A helper is one of {', '.join(WEEKLY)}.")
    name = str(choices.get("name") or "").strip()[:100] or role
    weekly = WEEKLY[role]
    if weekly > state["coins"]:
        raise RulesError(f"A {role} wants {weekly} gp a week, paid up front; you have {state['coins']} gp.")
    settings = sheet.settings
    grit, flesh = int(value(settings, "helper_grit")), int(value(settings, "helper_flesh"))
    kit = list(data.MAN_AT_ARMS_KIT) if role == "Man-at-Arms" else []
    armour = sum(int(BY_NAME[k].data.get("AC", 0)) for k in kit if BY_NAME[k].kind in ("armour", "shield"))
    helper_state = {
        "role": role,
        "weekly": weekly,
        "grit": grit,
        "grit_max": grit,
        "flesh": flesh,
        "flesh_max": flesh,
        "av": int(value(settings, "helper_av")),
        "st": int(value(settings, "helper_st")),
        "ac": armour,
        "kit": kit,
        "paid_weeks": 1,
        "dead": False,
    }
    return Hireling(name, "helper", helper_state, 0, upfront=weekly)


def _helpers(sheet: Sheet | None) -> dict[str, Hireling]:
    return {entry_key(h, n, "h"): h for n, h in enumerate(sheet.hirelings)} if sheet is not None else {}


@dataclass(frozen=True)
class PayHelpersProcedure:
    """Seed 004 (Hiring Helpers): helpers are paid by the week."""

    key: str = "pay_helpers"
    label: str = "Pay helpers"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        helpers = tuple((k, f"{h.name} ({h.state.get('weekly', 0)} gp a week)") for k, h in _helpers(sheet).items())
        return (
            Param("helpers", "Helpers", "multichoice", tuple(k for k, _ in helpers), choices=helpers),
            Param("weeks", "Weeks", "int", 1, 1, 52),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        helpers = _helpers(sheet)
        chosen = [helpers[k] for k in p["helpers"]]
        if not chosen:
            raise RulesError("Pick at least one helper to pay.")
        if any(h.id is None for h in chosen):
            raise RulesError("Save the helper before paying them.")
        cost = sum(int(h.state.get("weekly", 0)) for h in chosen) * p["weeks"]
        if cost > state["coins"]:
            raise RulesError(f"That is {cost} gp; you have {state['coins']} gp.")
        state["coins"] -= cost
        changed = tuple(
            replace(h, state={**h.state, "paid_weeks": min(1000, int(h.state.get("paid_weeks", 0)) + p["weeks"])})
            for h in chosen
        )
        summary = f"Paid {cost} gp for {p['weeks']} week{'s' if p['weeks'] != 1 else ''}; {state['coins']} gp left."
        return RollResult(
            self.key, self.label, "paid", summary, (), cost, None, shown_inputs(p), state, hirelings_changed=changed
        )
