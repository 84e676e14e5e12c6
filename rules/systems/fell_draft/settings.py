"""The readings a Fell (draft) table may choose (rules-spec §5.1), read by the procedures below system.py."""

from __future__ import annotations

from typing import Any

from rules.base import Sheet
from rules.clock import LIGHT_SETTINGS
from rules.settings import Setting

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "extra_die_rule",
        "Extra dice in a test",
        "one_of_each",
        "The rules say a test may add an applicable steel, skill or spell die: one of each kind, or one in all.",
        choices=(("one_of_each", "One of each kind (steel, skill, spell)"), ("one_only", "One extra die in all")),
    ),
    Setting(
        "advance_clauses_stack",
        "Advancement: one die earns both gains",
        True,
        "When a die shows its top face and beats your maximum HP, it earns the HP of both clauses.",
        kind="bool",
    ),
    Setting(
        "contest_tiebreak",
        "Contest ties",
        "ladder",
        "When both sides' highest dice show the same face: the die higher up the ladder wins, then the next "
        "highest dice, then more dice; or the tie stands and nothing changes.",
        choices=(("ladder", "Larger die, then the next dice"), ("stands", "The tie stands")),
    ),
    *LIGHT_SETTINGS,  # the table's light rules (rules.clock, issue 41)
)
_DEFAULTS = {s.key: s.default for s in SETTINGS}


def setting(sheet: Sheet | None, key: str) -> Any:
    """The table's value (a sheet read outside a campaign gets the default)."""
    if sheet is not None and key in sheet.settings:
        return sheet.settings[key]
    return _DEFAULTS[key]
