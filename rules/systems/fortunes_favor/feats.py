"""Fortune's Favor: what the class features keep on a sheet (the ``feats`` field), and its validation.

Kept apart from state.py's own fields so a sheet from before the class features were played still loads: an
absent ``feats`` is the empty default. The rules that read and change it are in features.py.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.base import RulesError
from rules.data import fortunes_favor_extras as extras
from rules.validation import boolean, bounded_int

BOONS_MAX = 6
BOON_ON = ("test", "attack", "any", "deflect")
TEMP_HEALTH_MAX = 200


def default_feats() -> dict[str, Any]:
    return {
        "hype": 0,  # Hype Man: Hype held, at most 3
        "uses": {},  # feature -> uses spent since the rest that restores them
        "boons": [],  # one-off bonuses waiting for the next matching roll (Enhance, Hype Up, ...)
        "picks": {},  # feature -> the options picked (Signature Move, Infusions, ...)
        "form": "",  # Shapeshifter: the form worn now ("" = own shape)
        "form_choice": "",  # Shape Changer: the form picked at level 1
        "form_health": 0,  # a Big form's extra Health, lost first and gone with the form
        "beast": "",  # Beastmaster: the beast's kind
        "beast_health": 0,
        "infusion": "",  # Spellsword: the Infusion active now
        "slab": False,  # Brawler, Slab of Beef: damage halved until the next round
        "reinvigorated": False,  # Shapeshifter, Reinvigorate: + Heart Armor until the next round
        "overcharged": False,  # Elementalist, Overcharge: the next damage dealt is two steps up
        "long_shot": False,  # Ranger, Long Shot: range doubled and speed 0 until the next round
        "pelt": False,  # Beastmaster, Protective Pelt: +2 Armor for you and the beast until the next round
    }


def _names(value: Any, label: str, limit: int) -> list[str]:
    if not isinstance(value, list) or len(value) > limit or not all(isinstance(v, str) for v in value):
        raise RulesError(f"{label} must be a short list of names.")
    return [v[:60] for v in value]


def validate_feats(raw: Any) -> dict[str, Any]:
    """A normalised copy of the ``feats`` field, or RulesError saying what is wrong."""
    if not isinstance(raw, Mapping):
        raise RulesError("Class feature state must be a set of named fields.")
    base = default_feats()
    unknown = sorted(str(k) for k in raw if k not in base)
    if unknown:
        raise RulesError(f"Class feature state has no field {', '.join(unknown)[:200]}.")
    merged = {**base, **copy.deepcopy(dict(raw))}
    out: dict[str, Any] = {}
    out["hype"] = bounded_int(merged["hype"], "Hype", 0, extras.HYPE_MAX)
    uses = merged["uses"]
    if not isinstance(uses, Mapping) or len(uses) > 40:
        raise RulesError("Feature uses must be named counts.")
    out["uses"] = {str(k)[:60]: bounded_int(v, f"{k}: uses", 0, 99) for k, v in uses.items()}
    boons = merged["boons"]
    if not isinstance(boons, list) or len(boons) > BOONS_MAX:
        raise RulesError(f"At most {BOONS_MAX} bonuses can wait for a roll.")
    out["boons"] = []
    for boon in boons:
        if not isinstance(boon, Mapping):
            raise RulesError("A waiting bonus must be a set of named fields.")
        on = boon.get("on", "test")
        if on not in BOON_ON:
            raise RulesError("A waiting bonus applies to a test, an attack, either, or a deflect.")
        out["boons"].append(
            {
                "from": str(boon.get("from", ""))[:60],
                "bonus": bounded_int(boon.get("bonus", 0), "Bonus", -20, 20),
                "die": bounded_int(boon.get("die", 0), "Bonus die", 0, 12),
                "dice": bounded_int(boon.get("dice", 1), "Bonus dice", 1, 4),
                "favor": boolean(boon.get("favor", False), "Fortune's Favor"),
                "stats": _names(boon.get("stats", []), "Stats", 4),
                "on": on,
                "step": boolean(boon.get("step", False), "One step better"),
                "round": boolean(boon.get("round", False), "Until the next round"),
                "d20": boolean(boon.get("d20", False), "Another d20"),
                "reroll": boolean(boon.get("reroll", False), "A deflect die rerolled"),
            }
        )
    picks = merged["picks"]
    if not isinstance(picks, Mapping) or len(picks) > 10:
        raise RulesError("Picked options must be named lists.")
    out["picks"] = {str(k)[:60]: _names(v, str(k), 8) for k, v in picks.items()}
    for key in ("form", "form_choice"):
        value = merged[key]
        if not isinstance(value, str) or (value != "" and value not in extras.FORMS):  # a list is no key either
            raise RulesError(f"There is no form called {str(value)[:40]}.")
        out[key] = value
    out["form_health"] = bounded_int(merged["form_health"], "Form Health", 0, TEMP_HEALTH_MAX)
    beast = merged["beast"]
    if not isinstance(beast, str) or (beast != "" and beast not in extras.BEASTS):
        raise RulesError(f"There is no beast called {str(beast)[:40]}.")
    out["beast"] = beast
    out["beast_health"] = bounded_int(merged["beast_health"], "Beast Health", 0, TEMP_HEALTH_MAX)
    infusion = merged["infusion"]
    if not isinstance(infusion, str) or len(infusion) > 40:
        raise RulesError("The active Infusion must be a name.")
    out["infusion"] = infusion
    out["slab"] = boolean(merged["slab"], "Slab of Beef")
    out["reinvigorated"] = boolean(merged["reinvigorated"], "Reinvigorate")
    out["overcharged"] = boolean(merged["overcharged"], "Overcharge")
    out["long_shot"] = boolean(merged["long_shot"], "Long Shot")
    out["pelt"] = boolean(merged["pelt"], "Protective Pelt")
    return out
