"""The GM's "what if" on a group check (issue 40): every asked character's exact chance and the group's, before and
after a table condition (the dark, a difficulty step, the system's advantage or disadvantage for all), each in the
system's own sense (``GameSystem.what_if``): at a mixed table, each character's own system's. Reads only: nothing is
written, nothing announced."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from campaigns.services import CampaignError
from campaigns.session.requests import Plan, fixed_inputs, one_system_plan, plan_system
from characters import services
from characters.models import Character
from rules import RulesError
from rules import base as rules_base
from rules.group import check_odds


@dataclass(frozen=True)
class WhatIfRow:
    """One character's chance before and after (``error``: why there is none; ``moved`` False: the condition means
    nothing to this roll of theirs; ``unknown``: their system has no such condition, so their odds stay)."""

    character: Character
    before: rules_base.Odds | None = None
    after: rules_base.Odds | None = None
    error: str = ""
    moved: bool = False
    unknown: bool = False


@dataclass(frozen=True)
class WhatIf:
    condition: str
    label: str
    rows: tuple[WhatIfRow, ...]
    group_before: rules_base.Odds | None = None
    group_after: rules_base.Odds | None = None


def what_if_odds(
    system: rules_base.GameSystem,
    procedure: str,
    fixed: Mapping[str, Any],
    asked: Sequence[tuple[Character, rules_base.Sheet | None]],
    condition: str,
    rule: str,
) -> WhatIf:
    """Each asked character's odds at the roll (the GM's inputs fixed, the rest at their sheet's defaults) and with
    ``condition`` true for the whole table; the group's both ways under ``rule`` (none without one)."""
    return plan_what_if(one_system_plan(system, procedure, fixed), asked, condition, rule)


def conditions_of(plan: Plan) -> dict[str, str]:
    """The conditions the GM may try on this request: every asked system's, in the first one's words."""
    offered: dict[str, str] = {}
    for ask in plan.values():
        for key, label in ask.system.what_ifs().items():
            offered.setdefault(key, label)
    return offered


def plan_what_if(
    plan: Plan, asked: Sequence[tuple[Character, rules_base.Sheet | None]], condition: str, rule: str
) -> WhatIf:
    """``what_if_odds`` at a mixed table (issue 42): each character's own system reads the condition in its own
    sense; one whose system knows no such condition keeps its odds (the row says so)."""
    offered = conditions_of(plan)
    label = offered.get(condition)
    if label is None:
        raise CampaignError(f"Try one of: {', '.join(offered.values())}.")
    rows = []
    for character, sheet in asked:
        ask = plan.get(character.system)
        if ask is None:
            rows.append(WhatIfRow(character, error=f"{character.name}: nothing is asked of their system."))
            continue
        if sheet is None:
            rows.append(WhatIfRow(character, error=f"{character.name}'s sheet holds numbers the rules can't read."))
            continue
        try:
            params = services.odds_params(character, ask.proc, sheet, fixed_inputs(ask.proc, sheet, ask.fixed))
            before = ask.proc.odds(sheet, params)
            known = condition in ask.system.what_ifs()
            moved = ask.system.what_if(condition, sheet, params) if known else None
            after = before if moved is None else ask.proc.odds(*moved)
        except RulesError as problem:
            rows.append(WhatIfRow(character, error=str(problem)))
            continue
        rows.append(WhatIfRow(character, before, after, moved=moved is not None and after != before, unknown=not known))
    befores = [row.before for row in rows if row.before is not None]
    afters = [row.after for row in rows if row.after is not None]
    if not rule or len(befores) != len(rows) or len(afters) != len(rows):
        return WhatIf(condition, label, tuple(rows))
    only = plan_system(plan, [character.system for character, _ in asked])
    system, key = (only.system, only.proc.key) if only is not None else (None, "")
    return WhatIf(
        condition,
        label,
        tuple(rows),
        check_odds(rule, befores, system, key),
        check_odds(rule, afters, system, key),
    )
