"""Fell (late): character creation (creating-a-character.md @ 95e0caa), every roll shown with its dice."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.base import Creation, Param, RollResult, RulesError
from rules.data import fell_late as data
from rules.dice import DieRoll, RandomSource, roll_dice, roll_die
from rules.systems.fell_late.catalogue import source_item
from rules.systems.fell_late.state import ATTRIBUTES, default_state, step, validate_state
from rules.validation import bounded_int, bounded_text

CUSTOM_BACKGROUND_COIN = 40  # "equipment worth 40 C" for a custom background
CHOSEN_EXTRA_COIN = 20  # "additional equipment worth 20 C" when choosing instead of rolling


def _result(label: str, outcome: str, dice: Sequence[DieRoll], total: int | None = None) -> RollResult:
    return RollResult("create", label, outcome, f"{label}: {outcome}.", tuple(dice), total)


def _band(table: tuple[tuple[int, int, Any], ...], value: int) -> Any:
    return next(result for low, high, result in table if low <= value <= high)


def _as_int(value: Any, label: str, low: int, high: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise RulesError(f"{label} must be a whole number.") from None
    return bounded_int(number, label, low, high)


def _assigned(choices: Mapping[str, Any]) -> dict[str, int] | None:
    """d6 in each; lowering some one step each raises others by as many steps in all (None: roll them)."""
    method = choices.get("attributes") or "roll"
    moves = {a: choices.get(f"move_{a}") for a in ATTRIBUTES}
    if method == "roll":
        if any(v not in (None, "", 0, "0") for v in moves.values()):
            raise RulesError("Moving steps between attributes is for d6 in each; choose that first.")
        return None
    if method != "assign":
        raise RulesError("Attribute dice are rolled, or d6 in each.")
    steps = {a: _as_int(moves[a] or 0, f"Steps for {a}", -1, 3) for a in ATTRIBUTES}
    if sum(steps.values()):
        down = -sum(v for v in steps.values() if v < 0)
        up = sum(v for v in steps.values() if v > 0)
        raise RulesError(f"Steps lowered ({down}) and raised ({up}) must match.")
    return {a: step(6, steps[a]) or 4 for a in ATTRIBUTES}


def _pick(name: str, value: Any, allowed: Sequence[str]) -> str | None:
    if value in (None, "", "roll"):
        return None
    if value not in allowed:
        raise RulesError(f"{name}: choose one of the table's entries.")
    return str(value)


def create(choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None) -> Creation:
    """Roll, in the source's order, whatever is not chosen: name, attributes (d8 each), HP (the DEX die),
    background (d20), spell (d100 when WIL is d8), coin (3d6), age (2d20+10), alignment (d8), drive (d20),
    traits (d10 on each table). Chosen instead: any name, background or a custom one, d6 in each with steps
    moved, the fixed HP, a spell when WIL is d8 or more, age, alignment, drive, no traits."""
    if not isinstance(choices, Mapping):
        raise RulesError("Creation choices must be named.")
    rolls: list[RollResult] = []
    assigned = _assigned(choices)
    hp_way = choices.get("hp") or "roll"
    if hp_way not in ("roll", "fixed"):
        raise RulesError("HP are rolled on the DEX die, or fixed by it.")
    names = [b[0] for b in data.BACKGROUNDS]
    bg_choice = choices.get("background") or "roll"
    custom = bg_choice == "custom"
    chosen_bg = None if custom else _pick("Background", bg_choice, names)
    custom_name = bounded_text(str(choices.get("custom_background") or ""), "Custom background", 100)
    custom_skill = bounded_text(str(choices.get("custom_skill") or ""), "Custom skill", 100).lower()
    if custom and not (custom_name and custom_skill):
        raise RulesError("A custom background needs a name and a skill.")
    chosen_spell = _pick("Spell", choices.get("spell"), [n for n, _ in data.SPELLS])
    alignment = _pick("Alignment", choices.get("alignment"), [a for _, _, a in data.ALIGNMENTS])
    drive = _pick("Drive", choices.get("drive"), list(data.DRIVES))
    traits_way = choices.get("traits") or "roll"
    if traits_way not in ("roll", "none"):
        raise RulesError("Traits are rolled, or left for later.")

    name = str(choices.get("name") or "").strip()[:100]
    if not name:
        given, family = roll_die(rng, 20, "given name"), roll_die(rng, 20, "family name")
        name = f"{data.GIVEN_NAMES[given.face - 1]} {data.FAMILY_NAMES[family.face - 1]}"
        rolls.append(_result("Name", name, (given, family)))
    if assigned is None:
        dice_rolled = [roll_die(rng, 8, a) for a in ATTRIBUTES]
        attrs = {a: _band(data.ATTRIBUTE_DIE_ROLL, d.face) for a, d in zip(ATTRIBUTES, dice_rolled, strict=True)}
        rolls.append(_result("Attribute dice", ", ".join(f"{a} d{attrs[a]}" for a in ATTRIBUTES), dice_rolled))
    else:
        attrs = assigned
    if hp_way == "roll":
        hp_die = roll_die(rng, attrs["DEX"], "DEX")
        hp = hp_die.face
        rolls.append(_result("Hit protection", f"{hp} HP", (hp_die,), hp))
    else:
        hp = data.FIXED_HP[attrs["DEX"]]
    coins = 0
    kit: tuple[str, ...] = ()
    if custom:
        bg_name, skill = custom_name, custom_skill
        coins += CUSTOM_BACKGROUND_COIN + CHOSEN_EXTRA_COIN
    elif chosen_bg:
        bg_name, skill, kit = data.BACKGROUNDS[names.index(chosen_bg)]
        coins += CHOSEN_EXTRA_COIN
    else:
        r = roll_die(rng, 20, "background")
        bg_name, skill, kit = data.BACKGROUNDS[r.face - 1]
        rolls.append(_result("Background", f"{bg_name} ({skill})", (r,), r.face))
    spells: list[str] = []
    if chosen_spell:
        if attrs["WIL"] < 8:
            raise RulesError("Only a WIL of d8 or more starts with a spell.")
        spells.append(chosen_spell)
    elif attrs["WIL"] == 8:
        r = roll_die(rng, 100, "spell")
        spells.append(data.SPELLS[r.face - 1][0])
        rolls.append(_result("Spell", spells[0], (r,), r.face))
    coin_dice = roll_dice(rng, 3, 6, "coin")
    coins += sum(d.face for d in coin_dice)
    rolls.append(_result("Coin", f"{sum(d.face for d in coin_dice)} C", coin_dice, sum(d.face for d in coin_dice)))
    if choices.get("age") not in (None, ""):
        age = _as_int(choices["age"], "Age", 1, 1000)
    else:
        age_dice = roll_dice(rng, 2, 20, "age")
        age = sum(d.face for d in age_dice) + 10
        rolls.append(_result("Age", str(age), age_dice, age))
    if alignment is None:
        r = roll_die(rng, 8, "alignment")
        alignment = _band(data.ALIGNMENTS, r.face)
        rolls.append(_result("Alignment", alignment, (r,), r.face))
    if drive is None:
        r = roll_die(rng, 20, "drive")
        drive = data.DRIVES[r.face - 1]
        rolls.append(_result("Drive", f"I seek wealth {drive}", (r,), r.face))
    traits: list[str] = []
    if traits_way == "roll":
        trait_dice = []
        for category, table in data.TRAITS.items():
            r = roll_die(rng, len(table), category.lower())
            trait_dice.append(r)
            traits.append(f"{category}: {table[r.face - 1]}")
        rolls.append(_result("Traits", "; ".join(traits), trait_dice))
    state = validate_state(
        {
            **default_state(),
            "attributes": {a: {"die": d, "original": d} for a, d in attrs.items()},
            "hp": hp,
            "hp_max": hp,
            "skills": [skill],
            "spells": spells,
            "coins": coins,
            "background": bg_name,
            "age": age,
            "alignment": alignment,
            "drive": drive,
            "traits": traits,
        }
    )
    items = tuple(source_item(t) for t in kit) + tuple(source_item(t, n) for t, n in data.STARTING_KIT)
    return Creation(name, state, items, tuple(rolls))


_ROLL = ("roll", "Roll for it")


def creation_params() -> tuple[Param, ...]:
    """The creation form: every choice may be left to the dice (the app drops empty values)."""
    step_choices = (("", "—"), ("-1", "one step down"), ("1", "+1 step"), ("2", "+2 steps"), ("3", "+3 steps"))
    return (
        Param("name", "Name", "text", "", help="Leave empty to roll a given and a family name."),
        Param(
            "attributes",
            "Attribute dice",
            "choice",
            "roll",
            choices=(("roll", "Roll a d8 for each: 1–2 d4, 3–6 d6, 7–8 d8"), ("assign", "Take a d6 in each")),
        ),
        *(
            Param(
                f"move_{a}",
                f"Move {a}",
                "choice",
                "",
                choices=step_choices,
                help="With d6 in each: steps down pay for steps up.",
            )
            for a in ATTRIBUTES
        ),
        Param(
            "hp",
            "Hit protection",
            "choice",
            "roll",
            choices=(("roll", "Roll your DEX die"), ("fixed", "Fixed: 3, or 4/5/6 with DEX d8/d10/d12")),
        ),
        Param(
            "background",
            "Background",
            "choice",
            "roll",
            choices=(
                ("roll", "Roll a d20"),
                *((b[0], f"{b[0]} ({b[1]})") for b in data.BACKGROUNDS),
                ("custom", "My own"),
            ),
            help="It brings one skill and its tools.",
        ),
        Param("custom_background", "My own background's name", "text", ""),
        Param("custom_skill", "My own background's skill", "text", ""),
        Param(
            "spell",
            "Spell",
            "choice",
            "roll",
            choices=(("roll", "Roll a d100 (WIL d8)"), *((n, n) for n, _ in data.SPELLS)),
            help="A WIL of d8 rolls one; choose one only with WIL d8 or more.",
        ),
        Param("age", "Age", "int", None, 1, 1000, help="Leave empty to roll 2d20 + 10."),
        Param("alignment", "Alignment", "choice", "roll", choices=(_ROLL, *((a, a) for _, _, a in data.ALIGNMENTS))),
        Param("drive", "Drive: I seek wealth…", "choice", "roll", choices=(_ROLL, *((d, d) for d in data.DRIVES))),
        Param(
            "traits",
            "Traits",
            "choice",
            "roll",
            choices=(("roll", "Roll on each trait table"), ("none", "None for now")),
        ),
    )
