"""The readings a Chaos & Conquest table may choose (rules-spec §5.1), read by the procedures below system.py."""

from __future__ import annotations

from typing import Any

from rules.base import Sheet
from rules.clock import LIGHT_SETTINGS
from rules.settings import Setting

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "scar_losses_permanent",
        "Scars lower attributes for good",
        True,
        "A full rest restores lowered attributes; on by default, what a scar takes stays taken. "
        "Off: a full rest gives it back too.",
        kind="bool",
    ),
    *LIGHT_SETTINGS,  # the table's light rules (rules.clock, issue 41)
)
_DEFAULTS = {s.key: s.default for s in SETTINGS}


def setting(sheet: Sheet | None, key: str) -> Any:
    """The table's value (a sheet read outside a campaign gets the default)."""
    if sheet is not None and key in sheet.settings:
        return sheet.settings[key]
    return _DEFAULTS[key]
