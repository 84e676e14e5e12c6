"""Fell (late): what the sheet and the table show, computed here so templates only display it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.base import BACKGROUND_AND_AGE, Banner, Param, QuickRoll, Sheet
from rules.data import fell_late as data
from rules.systems.fell_late.inventory import armour, effective_hp, over_slots, slots_max, slots_used, worth
from rules.systems.fell_late.npcs import LuckProcedure
from rules.systems.fell_late.state import ATTRIBUTES, COINS_PER_SLOT, DRAWBACKS, face, next_threshold, rank, st


def banners(sheet: Sheet) -> tuple[Banner, ...]:
    """Seed 001 (Harm and Death, Item Slots, Advancement): death, taken out, over the slots, a threshold reached."""
    state = st(sheet)
    who = sheet.name or "This character"
    out = []
    if state["dead"]:
        out.append(
            Banner("dead", "Dead", f"An attribute fell below d4 from critical harm: {who} rolls no more.", "bad")
        )
    elif state["out"]:
        out.append(
            Banner(
                "out",
                "Taken out",
                f"{who} failed a critical harm test: out of the fight, and dies without treatment.",
                "bad",
            )
        )
    if over_slots(sheet, state):
        out.append(
            Banner(
                "over-slots",
                "Carrying too much",
                f"{slots_used(sheet, state)} of {slots_max(state)} slots: DIS on every roll, and HP count as zero.",
                "warning",
            )
        )
    if state["pending_drawback"]:
        out.append(
            Banner(
                "drawback",
                "A drawback to choose",
                f"The hurried casting of {state['pending_drawback']} failed: it still works, and you pick its price.",
                "warning",
            )
        )
    nxt = next_threshold(state)
    if nxt is not None and state["hoard"] >= nxt[0] and not state["dead"]:
        out.append(Banner("advance", "Ready to advance", f"The hoard has reached {nxt[0]:,} C: {nxt[1]}.", "good"))
    if state["legend_choice"] == "retire":
        out.append(Banner("retired", "Retired a legend", f"{who} fulfilled their drive and retired to safety.", "good"))
    return tuple(out)


def sheet_facts(sheet: Sheet) -> dict[str, Any]:
    """Seed 001: every number the rules use, for the sheet's details."""
    state = st(sheet)
    attributes = [
        {
            "key": a,
            "die": state["attributes"][a]["die"],
            "original": state["attributes"][a]["original"],
            "lowered": state["attributes"][a]["die"] < state["attributes"][a]["original"],
            "help": data.ATTRIBUTE_HELP[a],
        }
        for a in ATTRIBUTES
    ]
    nxt = next_threshold(state)
    used, maximum = slots_used(sheet, state), slots_max(state)
    worn = [
        {"name": i.name, "armour": i.data.get("armour", 1 if i.kind == "shield" else 0), "shield": i.kind == "shield"}
        for i in sheet.items
        if i.worn and (i.data.get("armour") or i.kind == "shield")
    ]
    return {
        "attributes": attributes,
        "hp": state["hp"],
        "hp_max": state["hp_max"],
        "hp_effective": effective_hp(sheet, state),
        "critical_next": effective_hp(sheet, state) == 0,
        "armour": armour(sheet),
        "armour_max": 3,
        "worn": worn,
        "skills_limit": face(state, "INT"),
        "spells_limit": face(state, "WIL"),
        "hirelings_limit": face(state, "WIL"),
        "slots_used": used,
        "slots_max": maximum,
        "slots_hard": 2 * maximum,
        "over_slots": used > maximum,
        "coin_slots": worth(sheet, state) // COINS_PER_SLOT,
        "coins_per_slot": COINS_PER_SLOT,
        "fatigue": state["fatigue"],
        "hoard": state["hoard"],
        "rank": rank(state) or "none yet",
        "next_threshold": nxt[0] if nxt else None,
        "next_rank": nxt[1] if nxt else "",
        "drawbacks": [
            {"spell": d["spell"], "what": DRAWBACKS[d["kind"]], "until": d["until"]} for d in state["drawbacks"]
        ],
        "thresholds": [
            {"hoard": h, "rank": r, "reached": n < state["advances"]} for n, (h, r, _, _) in enumerate(data.THRESHOLDS)
        ],
    }


def table_facts(party: Sequence[tuple[int, Sheet]]) -> dict[str, Any]:
    """Seed 001 (Luck): the GM's luck die, its occasions and its odds (a d6 unless the GM picks another)."""
    luck = LuckProcedure()
    params = {p.name: p for p in luck.params(None)}
    return {
        "luck_when": params["when"].choices,
        "luck_dice": params["die"].choices,
        "luck_odds": luck.odds(None, {}),
    }


FIELD_LABELS = {
    "hp": "HP",
    "hp_max": "Max HP",
    "coins": "Coin",
    "hoard": "Hoard",
    "advances": "Thresholds reached",
    "out": "Taken out",
    "wil_impaired": "WIL impaired until dawn",
    "locked_spells": "Spells locked until dawn",
    "days_deprived": "Days deprived",
    "hire_rank": "Rank",
    "paid_up": "Paid up",
    "fees_paid": "Fees paid",
    "legend_choice": "Legend's choice",
    "pending_drawback": "Spell awaiting a drawback",
    **{f"attributes.{a}.die": f"{a} die" for a in ATTRIBUTES},
    **{f"attributes.{a}.original": f"{a} original die" for a in ATTRIBUTES},
}

OUTCOME_LABELS = {
    "no_harm": "no harm",
    "hp_harm": "harm to HP only",
    "critical_pass": "critical harm, test passed",
    "critical_fail": "critical harm, attribute lowered and taken out",
    "cast_with_drawback": "cast, with a drawback",
    "hoard_grows": "the hoard grows",
    "surrender_conditionally": "surrender on conditions",
    "surrender_unconditionally": "surrender without conditions",
}


def quick_rolls(sheet: Sheet) -> tuple[QuickRoll, ...]:
    """Seed 001 (Tests): the everyday roll is a test of one attribute at DN 4."""
    return tuple(QuickRoll(f"Test {a}", "test", {"attribute": a}, stat=a) for a in ATTRIBUTES)


def detail_params() -> tuple[Param, ...]:
    return (
        *BACKGROUND_AND_AGE,
        Param("alignment", "Alignment", "text", ""),
        Param("drive", "Drive: I seek wealth…", "text", ""),
    )
