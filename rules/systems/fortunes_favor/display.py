"""Fortune's Favor: what the sheet and the table show, computed here so templates only display it."""

from __future__ import annotations

from typing import Any

from rules.base import Banner, Param, QuickRoll, Sheet
from rules.data import fortunes_favor as data
from rules.dice import dice_label
from rules.systems.fortunes_favor.inventory import slots_max, slots_used, statuses_now
from rules.systems.fortunes_favor.state import (
    LAST_STAND_ROUNDS,
    STAT_NAMES,
    STATS,
    STATUSES,
    _st,
    armor,
    attack_bonus,
    cls,
    counter,
    damage_dice,
    damage_stat,
    deflect_dice_max,
    deflect_die,
    deflect_flat,
    deflect_rerolls_ones,
    health_max,
    is_dead,
    is_dying,
    setting,
    shield_works,
    speeds,
    stamina_full,
    stamina_max,
)
from rules.systems.fortunes_favor.travel import jumps, lift, march_miles


def _number(value: Any) -> str:
    return str(int(value)) if value == int(value) else f"{float(value):g}"


def banners(sheet: Sheet) -> tuple[Banner, ...]:
    """Seed 003: death, dying, the Last Stand, a rest in progress, levelling up."""
    state = _st(sheet)
    who = sheet.name or "This character"
    out = []
    if is_dead(state):
        out.append(Banner("dead", "Dead", f"{who} is beyond all but magic.", "bad"))
    elif state["last_stand"]:
        out.append(
            Banner(
                "last-stand",
                f"Last Stand, round {state['last_stand']} of {LAST_STAND_ROUNDS}",
                "Health and Stamina refill each round; 0 Stamina or the end of the last round is death.",
                "bad",
            )
        )
    elif is_dying(state):
        out.append(
            Banner(
                "dying",
                "Dying",
                "At 0 Health: each Action or move past half Speed costs 1 Stamina; at 0 Stamina, death.",
                "bad",
            )
        )
    if state["resting"]:
        out.append(Banner("resting", "Resting", "Spending Stamina now breaks the rest.", "info"))
    if state["level_ready"] and not is_dead(state):
        out.append(Banner("level-ready", f"Ready for level {state['level'] + 1}", "Level up from the rolls.", "good"))
    return tuple(out)


def sheet_facts(sheet: Sheet) -> dict[str, Any]:
    """Seed 003 and rules-spec §003.2: every derived number the sheet shows."""
    state = _st(sheet)
    c = cls(state)
    now = statuses_now(sheet, state)
    pool = damage_dice(state)
    bonus = damage_stat(state)
    road, off_road = march_miles(state)
    lift_lb, drag_lb = lift(state)
    deflect = f"d{deflect_die(state)}"
    flat = deflect_flat(state)
    features = [
        {"level": level, "name": name, "stamina": cost, "favor": favor, "has": level <= state["level"]}
        for level, name, cost, favor in c["features"]
    ]
    return {
        "class_name": c["name"],
        "lineage_name": data.LINEAGES[state["lineage"]]["name"],
        "culture_name": data.CULTURES[state["culture"]]["name"],
        "size": state["size"].capitalize(),
        "stats": [{"key": k, "name": STAT_NAMES[k], "value": f"{state['stats'][k]:+d}"} for k in STATS],
        "health_max": health_max(state),
        "stamina_max": stamina_max(state),
        "stamina_lost": state["stamina_max_lost"],
        "stamina_full": stamina_full(state),
        "favor": state["fortunes_favor"],
        "favor_counter": bool(setting(sheet, "fortunes_favor_counter")),
        "armor": armor(state),
        "counter": counter(state),
        "armour_name": data.ARMOUR[state["armour"]][0],
        "shield_name": data.SHIELDS[state["shield"]][0],
        "shield_inactive": state["shield"] != "none" and not shield_works(state),
        "attack_bonus": f"{attack_bonus(state):+d}",
        "attack_stat": STAT_NAMES[state["attack_stat"]],
        "base_damage": f"{dice_label(pool, True)}{bonus:+d}",
        "range": f"{c['range'][0]}–{c['range'][1]} ft",
        "deflect": f"{deflect}{f'+{flat}' if flat else ''}" + (" (1s rerolled)" if deflect_rerolls_ones(state) else ""),
        "deflect_max": deflect_dice_max(state),
        "deflect_limit": f"up to {deflect_dice_max(state)} {'die' if deflect_dice_max(state) == 1 else 'dice'}",
        "training": c["training"],
        "armour_training": ", ".join(c["armour"]) or "none",
        "shield_training": ", ".join(c["shields"]) or "none",
        "slots_used": slots_used(sheet, state),
        "slots_max": slots_max(state),
        "statuses": [{"name": n, "rounds": r, "help": STATUSES[n]} for n, r in sorted(now.items())],
        "speeds": [{"kind": k, "feet": v} for k, v in speeds(state, now).items()],
        "languages": state["languages"],
        "novice_features": [{"name": n, "help": data.NOVICE_FEATURES[n][0]} for n in state["novice_features"]],
        "veteran_features": [{"name": n, "help": data.VETERAN_FEATURES[n]} for n in state["veteran_features"]],
        "animal_features": [{"name": n, "help": data.ANIMAL_FEATURES[n][0]} for n in state["animal_features"]],
        "lineage_traits": [{"name": n, "help": h} for n, h in data.LINEAGES[state["lineage"]]["traits"]],
        "culture_traits": [{"name": n, "help": h} for n, h in data.CULTURES[state["culture"]]["traits"]],
        "class_features": features,
        "element": state["element"],
        "hours_awake": state["hours_awake"],
        "march_road": road,
        "march_off_road": _number(off_road),
        "jumps": jumps(state),
        "lift": _number(lift_lb),
        "drag": _number(drag_lb),
        "quick_retrieval": state["quick_retrieval"],
    }


FIELD_LABELS = {
    "health": "Health",
    "stamina": "Stamina",
    "stamina_max_lost": "Max Stamina lost to sleeplessness",
    "fortunes_favor": "Fortune's Favor",
    "hours_awake": "Hours awake",
    "last_stand": "Last Stand round",
    "level_ready": "Ready to level up",
    "quick_retrieval": "Quick Retrieval slots",
    "coins": "Coin",
    "hand_full": "Something in one hand",
    **{f"stats.{k}": STAT_NAMES[k] for k in STATS},
}

OUTCOME_LABELS = {
    "hit": "hit",
    "clash": "Clash",
    "countered": "Countered",
    "last_stand": "Last Stand",
    "level_up": "level up",
    "next_round": "next round",
    "unhurt": "no damage",
    "critical": "natural 20",  # an NPC's attack (table.py)
    "fumble": "natural 1",
    "rolled": "rolled",
}


def quick_rolls(sheet: Sheet) -> tuple[QuickRoll, ...]:
    """Seed 003, Tests: the everyday roll is a test of one stat."""
    return tuple(QuickRoll(f"Test {STAT_NAMES[k]}", "test", {"stat": k}, stat=k) for k in STATS)


def detail_params() -> tuple[Param, ...]:
    return (Param("background", "Background", "text", ""),)
