"""Fortune's Favor: what the sheet and the table show, computed here so templates only display it."""

from __future__ import annotations

from typing import Any

from rules.base import Banner, Param, QuickRoll, Sheet
from rules.data import fortunes_favor as data
from rules.data import fortunes_favor_extras as extras
from rules.dice import dice_label
from rules.systems.fortunes_favor import features
from rules.systems.fortunes_favor.inventory import slots_max, slots_used, statuses_now
from rules.systems.fortunes_favor.state import (
    LAST_STAND_ROUNDS,
    STAT_NAMES,
    STATS,
    STATUSES,
    _st,
    armor,
    attack_bonus,
    beast_health_max,
    cls,
    counter,
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


def _range_max(state: dict[str, Any]) -> int:
    """Base range: Brawler's Fighting Style doubles it with Agility; Bolt Thrower adds 30 ft; Long Shot doubles it
    until the next round."""
    top = int(cls(state)["range"][1])
    if state["class"] == "BRAWLER" and state["attack_stat"] == "agility":
        top *= 2
    if "Bolt Thrower" in state["feats"]["picks"].get("Focused Training", []):
        top += 30
    if state["feats"]["long_shot"]:
        top *= 2
    return top


def _feature_fact(state: dict[str, Any], level: int, name: str, cost: int, favor: bool) -> dict[str, Any]:
    """One class feature on the sheet: whether it is the character's yet, what Lantern does with it (features.py),
    its options picked and its uses left."""
    f = features.FEATURES[(state["class"], name)]
    used = state["feats"]["uses"].get(name, 0)
    return {
        "level": level,
        "name": name,
        "stamina": cost,
        "favor": favor,
        "has": level <= state["level"],
        "auto": f.automated,
        "how": f.how,
        "picks": ", ".join(state["feats"]["picks"].get(name, [])),
        "uses_left": (f"{f.uses[0] - used} of {f.uses[0]} left" if f.uses else ""),
    }


def _companion_facts(state: dict[str, Any]) -> dict[str, Any]:
    """The beast (Beast Bond), the form worn (Shift), the active Infusion and the bonuses waiting for a roll."""
    feats = state["feats"]
    beast = None
    if feats["beast"]:
        b = extras.BEASTS[feats["beast"]]
        count, die, key = b["damage"]
        beast = {
            "name": b["name"],
            "health": feats["beast_health"],
            "health_max": beast_health_max(state),
            "armor": b["armor"] + (extras.PELT_ARMOR if feats["pelt"] else 0),
            "attack": f"{state['stats']['heart']:+d}",
            "damage": f"{count}d{die}{b['stats'][key]:+d}",
            "speeds": ", ".join(f"{k} {v} ft" for k, v in b["speeds"].items()),
            "abilities": [f"{kind}: {title}, {words}" for kind, title, words in b["abilities"]],
        }
    form = None
    if feats["form"] or feats["form_choice"]:
        f = extras.FORMS[feats["form"] or feats["form_choice"]]
        form = {
            "name": f["name"],
            "worn": bool(feats["form"]),
            "extra_health": feats["form_health"],
            "notes": f["notes"],
        }
    boons = [
        " ".join(
            p
            for p in (
                b["from"] + ":",
                f"{b['bonus']:+d}" if b["bonus"] else "",
                f"+{b['dice']}d{b['die']}" if b["die"] else "",
                "Fortune's Favor" if b["favor"] else "",
                f"on the next {'roll' if b['on'] == 'any' else b['on']}",
            )
            if p
        )
        for b in feats["boons"]
    ]
    return {
        "beast": beast,
        "form": form,
        "infusion": feats["infusion"],
        "infusion_dice": dice_label(features.infusion_dice(state), True) if state["class"] == "SPELLSWORD" else "",
        "waiting": boons,
        "hype": feats["hype"] if state["class"] == "HYPEMAN" else None,
    }


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
    pool, bonus, more = features.base_damage(state)  # a Shapeshifter's form replaces the class's
    road, off_road = march_miles(state)
    lift_lb, drag_lb = lift(state)
    deflect = f"d{deflect_die(state)}"
    flat = deflect_flat(state)
    class_features = [_feature_fact(state, level, name, cost, favor) for level, name, cost, favor in c["features"]]
    return {
        "class_name": c["name"],
        "lineage_name": data.LINEAGES[state["lineage"]]["name"],
        "culture_name": data.CULTURES[state["culture"]]["name"],
        "size": (
            extras.FORMS[state["feats"]["form"]]["size"] if state["feats"]["form"] else state["size"]
        ).capitalize(),
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
        "base_damage": f"{dice_label(pool, True)}{bonus:+d}"
        + "".join(f" + {dice_label(p, True)}{b:+d} {kind}" for p, b, kind in more),
        "range": f"{c['range'][0]}–{_range_max(state)} ft",
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
        "class_features": class_features,
        **_companion_facts(state),
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
