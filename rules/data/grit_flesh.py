"""Grit & Flesh tables as plain data: the seed's price lists, its d8 miscast table, and Lantern's placeholders.

The equipment numbers and the miscast table's effects come from seed 004 ("Melee Weapons", "Ranged Weapons",
"Armor and Shields", "Hiring Helpers", "Miscast Table"); the miscast effects are described in Lantern's own
words. Everything else here is a house default of Lantern's (rules-spec §004.12): the rules text gives no
attributes, classes, XP table or spell list, so a campaign's GM may replace every one of them.
"""

from __future__ import annotations

CREDIT = (
    "Equipment numbers and the miscast table follow an unpublished players' rules text (author unknown); "
    "descriptions, the spell list and every house default are Lantern's own."
)

# (name, size, cost in gp, damage bonus on 1d6, hands, range in feet; 0 = melee)
MELEE_WEAPONS: tuple[tuple[str, str, int, int, int, int], ...] = (
    ("Small melee weapon", "small", 2, -1, 1, 0),
    ("Medium melee weapon", "medium", 6, 0, 1, 0),
    ("Large melee weapon", "large", 12, 1, 2, 0),
)
# Hands for ranged weapons are not given: spec §004.7 [REC] small 1, medium and large 2.
RANGED_WEAPONS: tuple[tuple[str, str, int, int, int, int], ...] = (
    ("Small ranged weapon", "small", 2, -1, 1, 20),
    ("Medium ranged weapon", "medium", 6, 0, 2, 40),
    ("Large ranged weapon", "large", 12, 1, 2, 80),
)
RELOAD = {"small": "no action", "medium": "a move action", "large": "a whole round"}

# (name, cost in gp, AC)
ARMOUR: tuple[tuple[str, int, int], ...] = (
    ("Light armour", 20, 2),
    ("Medium armour", 40, 4),
    ("Heavy armour", 60, 6),
)
SHIELD: tuple[str, int, int] = ("Shield", 10, 1)

# (kind, weekly cost in gp, what they do, in our words)
HELPERS: tuple[tuple[str, int, str], ...] = (
    ("Craftsman", 20, "makes, builds and mends"),
    ("Man-at-Arms", 15, "fights beside you"),
    ("Torchbearer", 2, "carries and travels"),
    ("Specialist", 100, "does skilled work; a mentor for learning spells"),
)
MAN_AT_ARMS_KIT = ("Light armour", "Medium melee weapon", "Small ranged weapon")

# The d8 miscast table, paraphrased: (key, what happens).
MISCAST: tuple[tuple[str, str], ...] = (
    ("other_spell_too", "A second, different spell also goes off, at a different target."),
    ("random_spell_elsewhere", "A random spell goes off at a different target instead of yours."),
    ("random_spell_too", "A random spell also strikes your target, as well as your spell."),
    ("random_spell_instead", "A random spell strikes your target instead of yours."),
    ("backlash", "You take 1d6 damage; if any of it reaches Flesh, the spell fizzles, otherwise it works."),
    ("random_target", "The spell lands on a random target."),
    ("reversed", "The spell does the opposite of what you meant."),
    ("halved", "The spell works at half strength."),
)

# --- Lantern's placeholders (house defaults, not from the rules) -----------------------------------------
ATTRIBUTES: tuple[str, ...] = ("STR", "DEX", "CON", "INT", "WIS", "CHA")
CLASSES: tuple[str, ...] = ("Fighter", "Magic-User")
XP_TABLE: tuple[int, ...] = (0, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 512000)
SPELLS: tuple[str, ...] = (
    "Slumber (1)",
    "Glow (1)",
    "Force Bolt (1)",
    "Ward (1)",
    "Soft Fall (1)",
    "Hear Thoughts (1)",
    "Unseen (2)",
    "Sticky Strands (2)",
    "Open Lock (2)",
    "Mirror Selves (2)",
    "Fire Burst (3)",
    "Flight (3)",
)
STARTING_KIT: tuple[str, ...] = ("Medium melee weapon", "Light armour")
