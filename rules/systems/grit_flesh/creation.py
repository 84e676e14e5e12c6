"""Grit & Flesh: a new character, every number from the table's house defaults (rules-spec §004.12), and
``apply_settings`` to bring a character made earlier in line with changed ones."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.base import Creation, Param, RollResult, RulesError, Sheet, sheet_state
from rules.dice import DieRoll, RandomSource, roll_dice, roll_die
from rules.systems.grit_flesh.advancement import av_growth
from rules.systems.grit_flesh.inventory import catalogue_item
from rules.systems.grit_flesh.settings import spell_list, value
from rules.systems.grit_flesh.state import MAGIC_USER, STAT_MAX, default_state, validate_state
from rules.validation import name_list

OTHER = "other"


def creation_params() -> tuple[Param, ...]:
    """The creation form: a name, a class, skills and tools. The numbers come from the table's settings."""
    return (
        Param("name", "Name", "text", "", help="Leave empty for a random one."),
        Param(
            "cls",
            "Class",
            "choice",
            "Fighter",
            choices=(
                ("Fighter", "Fighter"),
                ("Magic-User", "Magic-User"),
                (OTHER, "Another class of the table's (name it below)"),
            ),
        ),
        Param(
            "other_class",
            "Other class",
            "text",
            "",
            help="Only for another class: one the GM listed in the rule settings.",
        ),
        Param("skills", "Skills", "text", "", help="Separated by commas: climbing, herb lore..."),
        Param("tools", "Tools", "text", "", help="Separated by commas: thieves' tools, a surgeon's kit..."),
    )


NAMES = ("Ash", "Bram", "Corin", "Della", "Edda", "Fenn", "Garet", "Hale", "Ilse", "Jory", "Kestrel", "Lark")


def _listed(text: Any, label: str) -> list[str]:
    words = [w.strip() for w in str(text or "").split(",") if w.strip()]
    return name_list(words, label, 30)


def flesh_from(attributes: Mapping[str, int], settings: Mapping[str, Any] | None) -> int:
    """House default: the chosen attribute divided (rounded up); at least 1."""
    name = value(settings, "flesh_attribute")[0]
    divisor = int(value(settings, "flesh_divisor"))
    score = attributes.get(name, (7 * int(value(settings, "attribute_dice"))) // 2)
    return max(1, -(-score // divisor))


def _class(choices: Mapping[str, Any], settings: Mapping[str, Any] | None) -> str:
    allowed = list(value(settings, "classes"))
    cls = str(choices.get("cls") or allowed[0])
    if cls == OTHER:
        cls = str(choices.get("other_class") or "").strip()
    lookup = {c.lower(): c for c in allowed}
    if cls.lower() not in lookup:
        raise RulesError(f"This table plays {', '.join(allowed)}; {cls or 'no class'!s} is not one of them.")
    return lookup[cls.lower()]


def create(choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None) -> Creation:
    """Rolls, in order: each attribute (Nd6), Grit (the Grit die), gold (Nd6 × M), a Magic-User's starting
    spells (random among level 1), a name if none is given."""
    if not isinstance(choices, Mapping):
        raise RulesError("Creation choices must be named.")
    cls = _class(choices, settings)
    skills, tools = _listed(choices.get("skills"), "Skills"), _listed(choices.get("tools"), "Tools")
    rolls: list[RollResult] = []

    def note(label: str, outcome: str, dice: tuple[DieRoll, ...], total: int | None = None) -> None:
        rolls.append(RollResult("create", label, outcome, f"{label}: {outcome}.", dice, total))

    count = int(value(settings, "attribute_dice"))
    attributes: dict[str, int] = {}
    for name in value(settings, "attributes"):
        dice = roll_dice(rng, count, 6, name)
        attributes[name] = sum(d.face for d in dice)
        note(name, str(attributes[name]), dice, attributes[name])
    grit_die = roll_die(rng, int(value(settings, "grit_die")), "Grit")
    note("Grit", str(grit_die.face), (grit_die,), grit_die.face)
    flesh = flesh_from(attributes, settings)
    gold_dice = roll_dice(rng, int(value(settings, "gold_dice")), 6, "gold")
    gold = sum(d.face for d in gold_dice) * int(value(settings, "gold_times"))
    note("Gold", f"{gold} gp", gold_dice, gold)
    book = []
    if cls == MAGIC_USER:
        spells = spell_list(settings)
        pool = [s for s in spells if s[1] == 1] or spells
        for _ in range(min(int(value(settings, "starting_spells")), len(pool))):
            die = roll_die(rng, len(pool), "spell")
            name, level = pool.pop(die.face - 1)
            book.append({"name": name, "level": level, "corrupted": False})
            note("Spell", name, (die,), die.face)
    name = str(choices.get("name") or "").strip()[:100]
    if not name:
        die = roll_die(rng, len(NAMES), "name")
        name = NAMES[die.face - 1]
    state = validate_state(
        {
            **default_state(),
            "cls": cls,
            "attributes": attributes,
            "st": int(value(settings, "start_st")),
            "av": int(value(settings, "start_av")),
            "grit": grit_die.face,
            "grit_max": grit_die.face,
            "flesh": flesh,
            "flesh_max": flesh,
            "skills": skills,
            "tools": tools,
            "spellbook": book,
            "coins": gold,
        }
    )
    items = tuple(catalogue_item(n) for n in value(settings, "starting_kit"))
    return Creation(name, state, items, tuple(rolls))


def apply_settings(sheet: Sheet) -> dict[str, Any]:
    """A character made earlier brought in line with the table's creation settings now in force.

    Attributes follow the list (a new one takes the dice's average, a dropped one goes); ST, AV and maximum
    Flesh are worked out again for the character's level, keeping the damage taken. Rolled numbers (the
    attributes kept, Grit, gold) and everything the character earned stay as they are.
    """
    settings = sheet.settings
    state = sheet_state(sheet, validate_state)
    count = int(value(settings, "attribute_dice"))
    state["attributes"] = {n: state["attributes"].get(n, (7 * count) // 2) for n in value(settings, "attributes")}
    grown = state["level"] - 1
    state["st"] = min(STAT_MAX, int(value(settings, "start_st")) + grown * int(value(settings, "st_per_level")))
    state["av"] = min(STAT_MAX, int(value(settings, "start_av")) + grown * av_growth(state["cls"], settings))
    lost = state["flesh_max"] - state["flesh"]
    state["flesh_max"] = min(
        999, flesh_from(state["attributes"], settings) + grown * int(value(settings, "flesh_per_level"))
    )
    state["flesh"] = max(0, state["flesh_max"] - lost)
    return validate_state(state)
