"""Grit & Flesh: the campaign's rule settings, with the house defaults the rules text leaves out.

Seed 004 gives no attributes, starting ST/AV/Grit/Flesh, growth, classes beyond Fighter and Magic-User, XP
table, spell list, helpers' or monsters' numbers, starting money or kit (rules-spec §004.12). Each is a
setting a GM may change, defaulting to the spec's placeholders and marked as a house default. Modules
below ``system.py`` read a value with ``value(settings, key)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rules.base import RulesError
from rules.clock import LIGHT_SETTINGS
from rules.data import grit_flesh as data
from rules.settings import Setting, validated

ATTRIBUTE_NAME_MAX = 12
SPELL_LEVEL_MAX = 9
SLOTS = 10
COINS_PER_SLOT = 200


def _house(key: str, label: str, default: Any, help: str, **more: Any) -> Setting:
    """A number the rules text leaves out: Lantern's placeholder, shaping characters made from now on."""
    return Setting(key, label, default, help, house_default=True, scope="creation", **more)


# Seed 004, Ranged Attacks: "if you roll a 20 to hit"; beyond range both of the two dice are rolled to hit.
AMMO_TWENTY = "ammo_twenty"

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "grit_spills",
        "Damage spills from Grit into Flesh",
        True,
        "Damage left over when Grit runs out goes on to Flesh in the same hit; off, a hit only empties Grit.",
        kind="bool",
    ),
    Setting(
        "degrade_first",
        "Armour that loses a point first",
        "shield",
        "When armour turns an attack aside, which piece loses a point of AC if you wear both.",
        choices=(("shield", "The shield, then the armour"), ("armour", "The armour, then the shield")),
    ),
    Setting(
        AMMO_TWENTY,
        "Out of ammunition beyond range",
        "any_die",
        "A shot beyond range rolls two dice: a 20 on either empties the weapon, or only a 20 on the die that stands.",
        choices=(("any_die", "A 20 on either die"), ("kept_die", "Only a 20 on the die that stands")),
    ),
    _house(
        "attributes",
        "Attributes",
        list(data.ATTRIBUTES),
        "The attributes every character has, one name a line; checks roll under one of them.",
        kind="list",
        min_items=1,
        max_items=12,
    ),
    _house(
        "attribute_dice",
        "Six-sided dice for each attribute",
        3,
        "Each attribute is this many d6 added up, rolled in order.",
        kind="int",
        minimum=1,
        maximum=6,
    ),
    _house("start_st", "Starting ST", 14, "A new character's Saving Throw.", kind="int", minimum=1, maximum=20),
    _house(
        "st_per_level",
        "ST gained each level",
        1,
        "Added to ST at each new level (ST never passes 20).",
        kind="int",
        minimum=0,
        maximum=5,
    ),
    _house("start_av", "Starting AV", 12, "A new character's Attack Value.", kind="int", minimum=1, maximum=20),
    _house(
        "fighter_av_per_level",
        "AV a Fighter gains each level",
        1,
        "Added to a Fighter's AV at each new level (AV never passes 20).",
        kind="int",
        minimum=0,
        maximum=5,
    ),
    _house(
        "av_per_level",
        "AV other classes gain each level",
        0,
        "Added to AV at each new level for every class but the Fighter.",
        kind="int",
        minimum=0,
        maximum=5,
    ),
    _house(
        "grit_die", "Grit die", 6, "Starting Grit is one roll of a die this size.", kind="int", minimum=1, maximum=20
    ),
    _house(
        "grit_each_level",
        "Roll the Grit die again at each level",
        True,
        "Each new level adds one roll of the Grit die to maximum Grit.",
        kind="bool",
    ),
    _house(
        "flesh_attribute",
        "Attribute Flesh comes from",
        ["CON"],
        "One attribute's name: starting Flesh is that attribute divided as below, rounded up.",
        kind="list",
        min_items=1,
        max_items=1,
    ),
    _house(
        "flesh_divisor",
        "Divide that attribute by",
        3,
        "Starting Flesh is the attribute divided by this, rounded up.",
        kind="int",
        minimum=1,
        maximum=10,
    ),
    _house(
        "flesh_per_level",
        "Flesh gained each level",
        0,
        "Added to maximum Flesh at each new level.",
        kind="int",
        minimum=0,
        maximum=5,
    ),
    _house(
        "classes",
        "Classes",
        list(data.CLASSES),
        "The classes a player may choose. The rules give Fighters and Magic-Users their own free attacks "
        "and spells; any other class makes one free attack a round and casts from scrolls only.",
        kind="list",
        min_items=1,
        max_items=12,
    ),
    _house(
        "xp_table",
        "XP for each level",
        list(data.XP_TABLE),
        "The XP a character needs for level 1, 2, 3 and on, one number a line, starting at 0 and rising.",
        kind="list",
        item_kind="int",
        minimum=0,
        maximum=10_000_000,
        min_items=1,
        max_items=20,
    ),
    _house(
        "spell_list",
        "Spell list",
        list(data.SPELLS),
        "The spells a Magic-User may learn, each with its level in brackets, like Slumber (1).",
        kind="list",
        min_items=1,
        max_items=100,
    ),
    _house(
        "starting_spells",
        "Spells a new Magic-User knows",
        1,
        "Rolled at random from the level 1 spells of the list.",
        kind="int",
        minimum=0,
        maximum=10,
    ),
    _house(
        "gold_dice",
        "Starting gold: d6 rolled",
        3,
        "A new character's gold is this many d6 added up, times the number below.",
        kind="int",
        minimum=0,
        maximum=10,
    ),
    _house(
        "gold_times",
        "Starting gold: the dice times",
        10,
        "Multiplies the starting gold dice.",
        kind="int",
        minimum=1,
        maximum=100,
    ),
    _house(
        "starting_kit",
        "Starting kit",
        list(data.STARTING_KIT),
        "Equipment every new character carries, one catalogue name a line (Light armour, Shield, "
        "Small melee weapon...).",
        kind="list",
        min_items=0,
        max_items=10,
    ),
    _house("helper_grit", "Helpers' Grit", 3, "Grit of a newly hired helper.", kind="int", minimum=0, maximum=20),
    _house("helper_flesh", "Helpers' Flesh", 3, "Flesh of a newly hired helper.", kind="int", minimum=1, maximum=20),
    _house("helper_av", "Helpers' AV", 12, "Attack Value of a newly hired helper.", kind="int", minimum=1, maximum=20),
    _house("helper_st", "Helpers' ST", 14, "Saving Throw of a newly hired helper.", kind="int", minimum=1, maximum=20),
    Setting(
        "monster_av_base",
        "Monsters' AV: this plus their HD",
        10,
        "The table's stat line for a monster with no numbers of its own.",
        kind="int",
        minimum=0,
        maximum=20,
        house_default=True,
    ),
    Setting(
        "monster_grit_per_hd",
        "Monsters' Grit for each HD",
        3,
        "A monster's Grit is its HD times this; its Flesh equals its HD.",
        kind="int",
        minimum=0,
        maximum=20,
        house_default=True,
    ),
    *LIGHT_SETTINGS,  # the table's light rules (rules.clock, issue 41)
)

DEFAULTS: dict[str, Any] = {s.key: s.default for s in SETTINGS}
_SPELL = re.compile(r"^(?P<name>.+?)\s*\((?P<level>\d+)\)$")


def value(settings: Mapping[str, Any] | None, key: str) -> Any:
    """One setting as the campaign has it, or its default (a sheet outside a campaign, a test)."""
    if settings and key in settings:
        return settings[key]
    return DEFAULTS[key]


def parse_spell(entry: str) -> tuple[str, int]:
    """A spell-list entry "Name (level)" as (name, level); RulesError saying what is wrong."""
    match = _SPELL.match(entry.strip()) if isinstance(entry, str) else None
    if match is None:
        raise RulesError(f"Spell list: {str(entry)[:40]!r} needs its level in brackets, like Slumber (1).")
    level = int(match["level"]) if len(match["level"]) <= 2 else 0
    if not 1 <= level <= SPELL_LEVEL_MAX:
        raise RulesError(
            f"Spell list: {match['name']} has level {match['level'][:4]}; levels run 1 to {SPELL_LEVEL_MAX}."
        )
    return match["name"].strip(), level


def spell_list(settings: Mapping[str, Any] | None) -> list[tuple[str, int]]:
    """The campaign's spells as (name, level), skipping entries that do not parse (validation refuses them)."""
    out = []
    for entry in value(settings, "spell_list"):
        try:
            out.append(parse_spell(entry))
        except RulesError:
            continue
    return out


def validate(values: Mapping[str, Any], system_name: str, kit_slots: Mapping[str, int]) -> dict[str, Any]:
    """Each value checked, then the ones that bind together: attribute names, the XP table's order, spells
    that parse, Flesh's attribute among the attributes, a starting kit from the catalogue within 10 slots."""
    clean = validated(SETTINGS, values, system_name)
    if "attributes" in clean:
        names = clean["attributes"]
        for name in names:
            if len(name) > ATTRIBUTE_NAME_MAX:
                raise RulesError(f"Attributes: {name[:20]!r} is longer than {ATTRIBUTE_NAME_MAX} characters.")
        if len({n.lower() for n in names}) != len(names):
            raise RulesError("Attributes: each name once.")
    if "xp_table" in clean:
        table = clean["xp_table"]
        if table[0] != 0:
            raise RulesError("XP for each level: level 1 starts at 0 XP.")
        if any(b <= a for a, b in zip(table, table[1:], strict=False)):
            raise RulesError("XP for each level: each level needs more XP than the one before.")
    if "spell_list" in clean:
        parsed = [parse_spell(entry) for entry in clean["spell_list"]]
        if len({n.lower() for n, _ in parsed}) != len(parsed):
            raise RulesError("Spell list: each spell once.")
    if {"attributes", "flesh_attribute"} <= set(clean) and clean["flesh_attribute"][0] not in clean["attributes"]:
        raise RulesError(
            f"Attribute Flesh comes from: {clean['flesh_attribute'][0]!r} is not one of the attributes "
            f"({', '.join(clean['attributes'])})."
        )
    if "starting_kit" in clean:
        unknown = [name for name in clean["starting_kit"] if name not in kit_slots]
        if unknown:
            raise RulesError(
                f"Starting kit: {unknown[0][:40]!r} is not in the catalogue ({', '.join(sorted(kit_slots))})."
            )
    if {"starting_kit", "gold_dice", "gold_times"} & set(clean):
        kit = clean.get("starting_kit", DEFAULTS["starting_kit"])
        most_gold = clean.get("gold_dice", DEFAULTS["gold_dice"]) * 6 * clean.get("gold_times", DEFAULTS["gold_times"])
        used = sum(kit_slots.get(name, 0) for name in kit) + -(-most_gold // COINS_PER_SLOT)
        if used > SLOTS:
            raise RulesError(
                f"Starting kit and gold: at most {most_gold} gp and that kit could take {used} slots, "
                f"and nobody carries more than {SLOTS}."
            )
    return clean
