"""The GM's "what if" on a group check (issue 40): every asked character's exact chance and the group's, before and
after a table condition (the dark, a difficulty step, the system's advantage or disadvantage for all), each in the
system's own sense (``GameSystem.what_if``). Reads only: nothing is written, nothing announced."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from campaigns.services import CampaignError
from campaigns.session.requests import fixed_inputs, requestable
from characters import services
from characters.models import Character
from rules import RulesError
from rules import base as rules_base
from rules.group import check_odds


@dataclass(frozen=True)
class WhatIfRow:
    """One character's chance before and after (``error``: why there is none; ``moved`` False: the condition means
    nothing to this roll of theirs)."""

    character: Character
    before: rules_base.Odds | None = None
    after: rules_base.Odds | None = None
    error: str = ""
    moved: bool = False


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
    proc = requestable(system).get(procedure)
    if proc is None:
        raise CampaignError(f"{system.name} has no roll a player makes called {procedure!r}.")
    label = system.what_ifs().get(condition)
    if label is None:
        raise CampaignError(f"Try one of: {', '.join(system.what_ifs().values())}.")
    fixed = {k: v for k, v in fixed.items() if v not in (None, "")}
    rows = []
    for character, sheet in asked:
        if sheet is None:
            rows.append(WhatIfRow(character, error=f"{character.name}'s sheet holds numbers the rules can't read."))
            continue
        try:
            params = services.odds_params(character, proc, sheet, fixed_inputs(proc, sheet, fixed))
            before = proc.odds(sheet, params)
            moved = system.what_if(condition, sheet, params)
            after = before if moved is None else proc.odds(*moved)
        except RulesError as problem:
            rows.append(WhatIfRow(character, error=str(problem)))
            continue
        rows.append(WhatIfRow(character, before, after, moved=moved is not None and after != before))
    befores = [row.before for row in rows if row.before is not None]
    afters = [row.after for row in rows if row.after is not None]
    if not rule or len(befores) != len(rows) or len(afters) != len(rows):
        return WhatIf(condition, label, tuple(rows))
    return WhatIf(
        condition,
        label,
        tuple(rows),
        check_odds(rule, befores, system, proc.key),
        check_odds(rule, afters, system, proc.key),
    )
