"""Fell (draft): creation. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.base import (
    Creation,
    Param,
    RollResult,
    RulesError,
)
from rules.data import fell_draft as data
from rules.dice import (
    DieRoll,
    RandomSource,
    roll_dice,
    roll_die,
    roll_pool,
)
from rules.systems.fell_draft.catalogue import _source_item
from rules.systems.fell_draft.checks import ABILITY_CHOICES, DIE_CHOICES
from rules.systems.fell_draft.hired_help import _BACKGROUND_CHOICES, _chosen
from rules.systems.fell_draft.state import ABILITIES, STARTING_HP, _default_state, _die, validate_state
from rules.validation import bounded_int, name_list


def _roll_result(label: str, outcome: str, dice: Sequence[DieRoll], total: int | None = None) -> RollResult:
    return RollResult("create", label, outcome, f"{label}: {outcome}.", tuple(dice), total)


def _assigned_dice(choices: Mapping[str, Any]) -> dict[str, int] | None:
    """Creation rules: d6 each, optionally one lowered to d4 to raise another to d8 (None: roll them)."""
    method = choices.get("abilities") or "roll"
    if method == "roll":
        if choices.get("lower") or choices.get("raise"):
            raise RulesError("Lowering one die to raise another is for assigned dice; choose to assign them.")
        return None
    if method != "assign":
        raise RulesError("Ability dice are either rolled or assigned.")
    out = dict.fromkeys(ABILITIES, 6)
    lower, raise_ = choices.get("lower"), choices.get("raise")
    if bool(lower) != bool(raise_):
        raise RulesError("Lower one ability to d4 only to raise another to d8, both or neither.")
    if lower:
        if lower not in ABILITIES or raise_ not in ABILITIES or lower == raise_:
            raise RulesError("Lower one ability and raise a different one (BOD, INT or WIL).")
        out[lower], out[raise_] = 4, 8
    return out


def _rolled_dice(rng: RandomSource, rolls: list[RollResult]) -> dict[str, int]:
    """Creation rules: d8 per ability, 1-4 d4, 5-6 d6, 7-8 d8."""
    dice, out = [], {}
    for ab in ABILITIES:
        r = roll_die(rng, 8, ab)
        out[ab] = next(die for low, high, die in data.ABILITY_DIE_ROLL if low <= r.face <= high)
        dice.append(r)
    rolls.append(_roll_result("Ability dice", ", ".join(f"{ab} d{out[ab]}" for ab in ABILITIES), dice))
    return out


def create(choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None) -> Creation:
    """Creation rules (creating-a-character.md), rolling in this order whatever is not chosen:

    name (d20 given, d20 family), age (2d20+10), ability dice (d8 BOD, INT, WIL), HP (all ability
    dice, keep the highest), background (d20), spell (d100, when WIL is d8), coin (3d6), traits (d10 for
    each trait table). Choices: name, age, abilities ("roll" | "assign" with lower/raise), hp ("roll" |
    "four"), background, spell, spell_die, traits ("roll" | "none" | a list of words).
    """
    if not isinstance(choices, Mapping):
        raise RulesError("Creation choices must be named.")
    rolls: list[RollResult] = []
    assigned = _assigned_dice(choices)  # refuse a bad choice before any die is rolled
    hp_method = choices.get("hp") or "roll"
    if hp_method not in ("roll", "four"):
        raise RulesError("Hit points are rolled or taken as 4.")
    backgrounds = [b[0] for b in data.BACKGROUNDS]
    chosen_bg = _chosen("background", choices.get("background"), backgrounds)
    spell_names = [s[0] for s in data.SPELLS]
    chosen_spell = _chosen("spell", choices.get("spell"), spell_names)
    traits_choice = choices.get("traits") or "roll"
    if not (traits_choice in ("roll", "none") or isinstance(traits_choice, list | tuple)):
        raise RulesError("Traits are rolled, chosen as a list, or left out.")
    name = str(choices.get("name") or "").strip()[:100]
    if not name:
        given, family = roll_die(rng, 20, "given name"), roll_die(rng, 20, "family name")
        name = f"{data.GIVEN_NAMES[given.face - 1]} {data.FAMILY_NAMES[family.face - 1]}"
        rolls.append(_roll_result("Name", name, (given, family)))
    if choices.get("age") not in (None, ""):
        age = bounded_int(_as_int(choices["age"]), "Age", 1, 1000)
    else:
        age_dice = roll_dice(rng, 2, 20, "age")
        age = sum(d.face for d in age_dice) + 10
        rolls.append(_roll_result("Age", str(age), age_dice, age))
    dice = assigned or _rolled_dice(rng, rolls)
    if hp_method == "roll":
        hp_dice, hp = roll_pool(rng, [dice[ab] for ab in ABILITIES], "highest", list(ABILITIES))
        rolls.append(_roll_result("Hit points", f"{hp} HP", hp_dice, hp))
    else:
        hp = STARTING_HP
    if chosen_bg:
        bg = data.BACKGROUNDS[backgrounds.index(chosen_bg)]
    else:
        r = roll_die(rng, 20, "background")
        bg = data.BACKGROUNDS[r.face - 1]
        rolls.append(_roll_result("Background", bg[0], (r,), r.face))
    spells: list[str] = []
    spell_die = 0
    if dice["WIL"] == 8:
        if chosen_spell:
            spells.append(chosen_spell)
        else:
            r = roll_die(rng, 100, "spell")
            spells.append(spell_names[r.face - 1])
            rolls.append(_roll_result("Spell", spells[0], (r,), r.face))
        spell_die = _die(_as_int(choices.get("spell_die") or 8), "The spell die")
    coin_dice = roll_dice(rng, 3, 6, "coin")
    coins = sum(d.face for d in coin_dice)
    rolls.append(_roll_result("Coin", f"{coins} coin", coin_dice, coins))
    traits = _creation_traits(traits_choice, rng, rolls)
    state = validate_state(
        {
            **_default_state(),
            "abilities": {ab: {"die": d, "full_die": d, "points": d} for ab, d in dice.items()},
            "hp": hp,
            "hp_max": hp,
            "skills": [bg[1]],
            "spells": spells,
            "spell_die": spell_die,
            "coins": coins,
            "background": bg[0],
            "age": age,
            "traits": traits,
        }
    )
    items = tuple(_source_item(t) for t in (*bg[2], *data.STARTING_KIT))
    return Creation(name, state, items, tuple(rolls))


def _as_int(value: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def _creation_traits(choice: Any, rng: RandomSource, rolls: list[RollResult]) -> list[str]:
    if choice == "none":
        return []
    if isinstance(choice, list | tuple):
        return name_list(list(choice), "Traits", 20)
    if choice != "roll":
        raise RulesError("Traits are rolled, chosen as a list, or left out.")
    out, dice = [], []
    for category, table in data.TRAITS.items():
        r = roll_die(rng, len(table), category.lower())
        dice.append(r)
        out.append(f"{category}: {table[r.face - 1]}")
    rolls.append(_roll_result("Traits", "; ".join(out), dice))
    return out


_ROLL = ("roll", "Roll for it")


def creation_params() -> tuple[Param, ...]:
    """The creation form (creating-a-character.md): every choice may be left to the dice.

    Values are what ``create`` takes; an empty answer never reaches it (the app drops empty values).
    """
    pick_one = (("", "—"), *ABILITY_CHOICES)
    return (
        Param("name", "Name", "text", "", help="Leave empty to roll a given and a family name."),
        Param("age", "Age", "int", None, 1, 1000, help="Leave empty to roll 2d20 + 10."),
        Param(
            "abilities",
            "Ability dice",
            "choice",
            "roll",
            choices=(("roll", "Roll a d8 for each: 1–4 d4, 5–6 d6, 7–8 d8"), ("assign", "Take a d6 in each")),
        ),
        Param("lower", "Lower to d4", "choice", "", choices=pick_one, help="Only with d6 in each, and with a raise."),
        Param("raise", "Raise to d8", "choice", "", choices=pick_one, help="Only with d6 in each, and with a lower."),
        Param(
            "hp",
            "Hit points",
            "choice",
            "roll",
            choices=(("roll", "Roll every ability die, keep the highest"), ("four", f"Start with {STARTING_HP}")),
        ),
        Param(
            "background",
            "Background",
            "choice",
            "roll",
            choices=(("roll", "Roll a d20"), *_BACKGROUND_CHOICES),
            help="It brings one skill and its tools.",
        ),
        Param(
            "spell",
            "Spell",
            "choice",
            "roll",
            choices=(("roll", "Roll a d100"), *((n, n) for n, _ in data.SPELLS)),
            help="Only a WIL of d8 starts with a spell.",
        ),
        Param(
            "spell_die",
            "Spell die",
            "choice",
            "8",
            choices=DIE_CHOICES,
            help="Only with a spell; any size, and you may change it whenever you like.",
        ),
        Param(
            "traits",
            "Traits",
            "choice",
            "roll",
            choices=(("roll", "Roll on each trait table"), ("none", "None for now")),
        ),
    )
