"""What the Chaos & Conquest sheet and table card show: tracks and their hand adjustments, conditions."""

from __future__ import annotations

from typing import Any

from rules.base import HarmOffer, RulesError, Sheet, Track
from rules.errors import Settled
from rules.systems.chaos_conquest.advancement import xp_for_level
from rules.systems.chaos_conquest.inventory import (
    _armour_pieces,
    _fits_armour,
    _free_slots,
    _raw_av,
    _slots_max,
    _slots_used,
    _supplies,
    _worn_weapons,
    armour_value,
)
from rules.systems.chaos_conquest.state import ATTRIBUTES, DAMAGE_MAX, _scar_rolls, _st, validate_state

ADJUSTABLE: tuple[str, ...] = ("stamina", "stamina_max", "stress", *ATTRIBUTES, "av", "coins")


def tracks(sheet: Sheet) -> tuple[Track, ...]:
    state = _st(sheet)
    out = [
        Track("stamina", "Stamina", state["stamina"], state["stamina_max"], minimum=min(0, state["stamina"])),
        Track("stamina_max", "Max stamina", state["stamina_max"], minimum=1),
        Track("stress", "Stress", state["stress"], _slots_max(state)),
    ]
    for a in ATTRIBUTES:
        score = state["attributes"][a]
        out.append(Track(a, a, score["current"], score["base"]))
    out += [
        Track("av", "AV", armour_value(sheet, state), _raw_av(sheet, state)),
        Track("supplies", "Supplies", sum(i.quantity for i in _supplies(sheet.items)), adjustable=False),
        Track("level", "Level", state["level"], adjustable=False),
        Track("xp", "XP", state["xp"], xp_for_level(state["level"] + 1), adjustable=False),
        Track("coins", "Coins (pennies)", state["coins"]),
    ]
    return tuple(out)


def harm_offer(sheet: Sheet, key: str, delta: int) -> HarmOffer | None:
    """Seed 002 (Stamina & Death; Inventory & Stress): stamina at 0 or lower sends a PC to Death's door, a d6
    that may kill; stress with no empty slot drops items or deals d6 damage a stress. Stamina taken to 0 by hand,
    or more stress than there are empty slots, is better done by those rules (the number is what got through,
    so no armour)."""
    state = _st(sheet)
    if state["status"] != "fine":
        return None
    if key == "stamina" and delta < 0 and state["stamina"] + delta <= 0:
        return HarmOffer("take_damage", {"amount": min(-delta, DAMAGE_MAX), "armour": False}, "the Death's door roll")
    if key == "stress" and delta > _free_slots(sheet, state):
        return HarmOffer("stress", {"amount": delta}, "dropping items or d6 damage for stress that does not fit")
    return None


def adjust(sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
    """Change one track by ``delta``, clamped by the rules (seed 002): stamina 0..max (0 puts you on
    Death's door), stress only into empty slots (all slots stress kills), attributes 0..their rested
    score, AV between 0 and the armour worn, coins not below 0 nor past your slots."""
    if key not in ADJUSTABLE:
        raise RulesError(f"{key} cannot be changed by hand.")
    if isinstance(delta, bool) or not isinstance(delta, int) or abs(delta) > 1_000_000:
        raise RulesError("Change it by a whole number.")
    state = _st(sheet)
    if key == "stamina":
        if state["status"] == "dead":
            raise Settled("The dead have no stamina to change.")
        if state["status"] != "fine":
            raise RulesError("Bleeding out: roll Death's door or treat the wounds instead.")
        state["stamina"] = max(0, min(state["stamina_max"], state["stamina"] + delta))
        if state["stamina"] <= 0:
            state["status"] = "deaths_door"
    elif key == "stamina_max":
        state["stamina_max"] = max(1, min(999, state["stamina_max"] + delta))
        state["stamina"] = min(state["stamina"], state["stamina_max"])
    elif key == "stress":
        if delta > 0:
            free = _free_slots(sheet, state)
            if free < delta:
                raise RulesError(
                    f"Only {free} empty slot(s) for {delta} stress. Drop an item first, or use Take stress to "
                    "drop items or take d6 damage for each stress that does not fit."
                )
        state["stress"] = max(0, state["stress"] + delta)
        if state["stress"] >= _slots_max(state):
            state["status"] = "dead"
    elif key in ATTRIBUTES:
        a = state["attributes"][key]
        a["current"] = max(0, min(a["base"], a["current"] + delta))
        if state["stress"] >= _slots_max(state):
            # Fewer slots than the stress carried (spec §002.13.10): seed 002 says a PC cannot hold more
            # stress than slots and that stress in every slot kills, so every slot fills and they die.
            state["stress"] = _slots_max(state)
            state["status"] = "dead"
    elif key == "av":
        state["av_lost"] = max(0, min(_raw_av(sheet, state), state["av_lost"] - delta))
    else:
        state["coins"] = max(0, state["coins"] + delta)
        if delta > 0 and _slots_used(sheet, state) > _slots_max(state):
            raise RulesError("That much coin needs slots you do not have: leave some in safe keeping.")
    return validate_state(state)


def conditions(sheet: Sheet) -> tuple[str, ...]:
    state = _st(sheet)
    status = state["status"]
    if status == "dead":
        return ("Dead",)
    out = []
    if status == "deaths_door":
        out.append("On Death's door: roll the d6")
    elif status == "dying":
        out.append("Unconscious and dying")
    if state["doomed"]:
        out.append("Doomed")
    if _slots_used(sheet, state) > _slots_max(state):
        out.append("Over-encumbered")
    elif _free_slots(sheet, state) == 0:
        out.append("No empty slot")
    if state["stress"]:
        out.append(f"Stress {state['stress']}")
    if any(a["current"] < a["base"] for a in state["attributes"].values()):
        out.append("Weakened")
    worn = [i.name for i in _worn_weapons(sheet.items).values()]
    if worn:
        out.append("Worn: " + ", ".join(worn))
    if any(not _fits_armour(i, state) for i in _armour_pieces(sheet, state)):
        out.append("Armour too heavy")
    scars = _scar_rolls(state)
    for roll, words in ((7, "One leg"), (8, "One eye"), (9, "One arm")):
        if roll in scars:
            out.append(words)
    if state["limp"]:
        out.append("Limping")
    if state["xp"] >= xp_for_level(state["level"] + 1):
        out.append("Level up ready")
    return tuple(out)
