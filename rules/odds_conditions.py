"""Which of the conditions a sheet is under change the odds of one roll, and how: the chips beside a roll control.

A condition's effect is read, not listed: the roll's exact odds are worked out again with that one condition
taken away, and a condition whose absence changes nothing gets no chip. So a chip shows only where the rules
apply it (C&C darkness on saves and attacks, not on a rest), in every system, with no system listing its effects
twice. The conditions are the table's (``Sheet.table``: the party's light, a fight running) and those a system
names on the sheet (``GameSystem.condition_probes``: a status set on the character).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules.base import GameSystem, Odds, Procedure, Sheet
from rules.errors import RulesError

# The table's conditions as a chip names them, by key and value ({"light": "darkness"}: "Dark").
TABLE_CONDITION_WORDS: Mapping[tuple[str, Any], str] = {
    ("light", "darkness"): "Dark",
    ("light", "dim"): "Dim light",
    ("light", "bright"): "Bright light",
    ("fight", True): "In a fight",
}


@dataclass(frozen=True)
class ConditionChip:
    """One condition that moves a roll's odds: what they would be without it, and what they are."""

    key: str  # "table-light", "status-Frightened": stable, for styling and tests
    label: str  # "Dark"
    without: Odds | None
    now: Odds | None

    @property
    def words(self) -> str:
        """What it does, in a few words: "Dark: 65.0% → 42.3% to succeed"."""
        if self.without is None or self.now is None or self.without.success == self.now.success:
            return f"{self.label}: changes these odds"
        return f"{self.label}: {_percent(self.without.success)} → {_percent(self.now.success)} to succeed"

    @property
    def harder(self) -> bool:
        return self.without is not None and self.now is not None and self.now.success < self.without.success


def _percent(p) -> str:
    return f"{float(round(p * 100, 1)):.1f}%"


def condition_label(key: str, value: Any) -> str:
    return TABLE_CONDITION_WORDS.get((key, value)) or key.replace("_", " ").capitalize()


def _without(sheet: Sheet, key: str) -> Sheet:
    table = dict(sheet.table or {})
    return replace(sheet, table={k: v for k, v in table.items() if k != key}) if key in table else sheet


def probes(system: GameSystem | None, sheet: Sheet) -> list[tuple[str, str, Sheet, str]]:
    """(key, label, the sheet without that condition, the table's key or "") for each condition the sheet is
    under. ``system`` None: the table's conditions alone."""
    out = []
    for key, value in dict(sheet.table or {}).items():
        if value in (None, False, ""):
            continue
        out.append((f"table-{key}", condition_label(key, value), _without(sheet, key), key))
    if system is not None:
        out += [(f"status-{label}", label, bare, "") for label, bare in system.condition_probes(sheet)]
    return out


def condition_chips(
    system: GameSystem | None, procedure: Procedure, sheet: Sheet, params: Mapping[str, Any], odds: Odds | None
) -> tuple[ConditionChip, ...]:
    """The conditions that change this roll's odds at these (checked) inputs, each with its odds without it. A
    table's condition is the whole table's: the other characters an input names (a party save's members) are
    read without it too."""
    chips = []
    for key, label, bare, table_key in probes(system, sheet):
        inputs = params
        if table_key:
            inputs = {k: _without(v, table_key) if isinstance(v, Sheet) else v for k, v in params.items()}
        try:
            without = procedure.odds(bare, inputs)
        except RulesError:
            continue  # without it the roll could not be made at all: not a change of odds to show
        if without != odds:
            chips.append(ConditionChip(key, label, without, odds))
    return tuple(chips)
