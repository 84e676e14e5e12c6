"""Fell (late): the readings a table may choose (rules-spec §5.1 for seed 001), kept low so every module reads them."""

from __future__ import annotations

from typing import Any

from rules.base import Sheet
from rules.clock import LIGHT_SETTINGS
from rules.settings import Setting

HELP_STACKING = "help_stacking"
ARMOUR_SPILL = "armour_spill"
HP_GAIN = "hp_gain"
CONTEST_TIE = "contest_tiebreak"

SETTINGS: tuple[Setting, ...] = (
    Setting(
        HELP_STACKING,
        "Helpers' advantage",
        "net",
        "Whether several helpers each add an advantage die, or all of them together add one.",
        choices=(("net", "Each helper adds one (they stack)"), ("one", "At most one, however many help")),
    ),
    Setting(
        ARMOUR_SPILL,
        "Armour and harm past HP",
        "once",
        "Armour comes off an attack's whole harm before it is split, or only off the part that lands on HP.",
        choices=(
            ("once", "Once, from the whole harm"),
            ("hp_only", "Only from harm to HP; the rest reaches STR in full"),
        ),
    ),
    Setting(
        HP_GAIN,
        "HP gained on advancing",
        "one",
        "How much maximum HP a hoard threshold that gains HP gives.",
        choices=(
            ("one", "+1"),
            ("dex_roll", "Roll the DEX die: take it if higher than maximum HP, else +1"),
        ),
    ),
    Setting(
        CONTEST_TIE,
        "Contest ties",
        "stands",
        "After the larger die, a tie on the same die leaves things as they were, or both sides roll again.",
        choices=(("stands", "Nothing changes"), ("reroll", "Roll again until someone wins")),
    ),
    *LIGHT_SETTINGS,  # the table's light rules (rules.clock, issue 41)
)

_DEFAULTS = {s.key: s.default for s in SETTINGS}


def setting(sheet: Sheet | None, key: str) -> Any:
    """The value in force for the sheet's campaign, or the default (no campaign, a table roll)."""
    if sheet is not None and key in sheet.settings:
        return sheet.settings[key]
    return _DEFAULTS[key]
