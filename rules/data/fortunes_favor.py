"""Fortune's Favor, rules 1b: the class, lineage, culture and feature data the seed's rules refer to.

Names and numbers are facts taken from LankeyBoard/RulesGraph ``src/rules/1b/`` at commit
6cff1a6c5176b16e5f7cc59d0385c2d01b89fc8a (playerClasses.ts and playerClasses/*.ts, lineages.ts, cultures.ts,
noviceFeatures.ts, veteranFeatures.ts). That repository states no licence: every description here is
Lantern's own short summary, not the source's text. Derived-stat formulas: rules-spec §003.2.
"""

from __future__ import annotations

CREDIT = (
    "Fortune's Favor rules 1b by LankeyBoard (github.com/LankeyBoard/RulesGraph, src/rules/1b at 6cff1a6): "
    "class, lineage, culture and feature names and numbers; descriptions are Lantern's own."
)

STATS: tuple[str, ...] = ("mettle", "agility", "intellect", "heart")
STAT_NAMES = {"mettle": "Mettle", "agility": "Agility", "intellect": "Intellect", "heart": "Heart"}
STAT_ARRAY: tuple[int, ...] = (3, 2, 0, -2)  # seed 003, Stats: assign these four values
STAT_MAX = 5  # Stat Up (class features at levels 4 and 8): "max 5"
LEVEL_MAX = 8
STARTING_COIN = 5  # seed 003, Gear: 5 Coin to start

# Classes (playerClasses.ts): health (+ per level), stamina (+ per level) plus the stamina stat x level,
# attack stats (pick one where two), range in feet, base damage dice + stat, deflect die (+ flat),
# armour and shield training (None: untrained). Features: (level, name, stamina cost, costs Fortune's Favor).
# ``damage_stat_is_attack_stat``: the class's Fighting Style picks one stat for attack and damage (Spellsword);
# without it damage adds the best of ``damage_stats`` (Brawler's style picks the attack stat only).
CLASSES: dict[str, dict] = {
    "BEASTMASTER": {
        "name": "Beastmaster",
        "complexity": "complex",
        "health": 12,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "heart",
        "attack_stats": ("agility",),
        "range": (0, 120),
        "damage": (1, 6),
        "damage_stats": ("agility",),
        "deflect": (1, 4, 0),
        "armour": ("light",),
        "shields": (),
        "training": "melee: pick 1 of melee weapon class; ranged: pick 2 of ranged weapon class",
        "features": (
            (1, "Beast Bond", 0, False),
            (1, "Setup", 2, False),
            (1, "Follow-up", 2, False),
            (2, "Tracking Team", 0, False),
            (2, "Scavenger's at Heart", 0, False),
            (3, "Ferocity", 0, True),
            (4, "Stat Up", 0, False),
            (5, "Ultimate Tag Team", 2, False),
            (6, "Shared Senses", 0, False),
            (6, "Bonded Pair", 0, False),
            (7, "Friends Till the End", 0, False),
            (8, "Stat Up 2", 0, False),
        ),
    },
    "BRAWLER": {
        "name": "Brawler",
        "complexity": "standard",
        "health": 20,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "mettle",
        "attack_stats": ("mettle", "agility"),
        "range": (0, 40),
        "damage": (1, 10),
        "damage_stats": ("mettle", "agility"),
        "deflect": (1, 4, 2),
        "armour": (),
        "shields": (),
        "training": "melee: unarmed, improvised; ranged: improvised",
        "features": (
            (1, "Fighting Style", 0, False),
            (1, "Muscle Bound Body", 0, False),
            (1, "Tag Team", 0, False),
            (2, "Bravado", 0, False),
            (2, "Counter Puncher", 2, False),
            (3, "Mix It Up", 0, True),
            (4, "Stat Up", 0, False),
            (5, "Signature Move", 0, False),
            (6, "Slab of Beef", 0, True),
            (7, "Running on Pure Adrenaline", 0, False),
            (8, "Stat Up 2", 0, False),
        ),
    },
    "DEVOTED": {
        "name": "Devoted",
        "complexity": "complex",
        "health": 14,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "heart",
        "attack_stats": ("heart",),
        "range": (0, 60),
        "damage": (1, 6),
        "damage_stats": ("heart",),
        "deflect": (1, 4, 0),
        "armour": (),
        "shields": (),
        "training": "magic: Divine",
        "features": (
            (1, "Spellcasting", 0, False),
            (1, "Holy Symbol", 0, False),
            (1, "I've Studied the Word", 0, False),
            (2, "Rapid Recuperation", 0, False),
            (3, "Reading the Signs", 1, False),
            (3, "Minor Intervention", 0, True),
            (4, "Stat Up", 0, False),
            (5, "Shepherd of the Word", 0, False),
            (6, "Martyr", 0, False),
            (7, "Divine Inspiration", 0, False),
            (8, "Stat Up 2", 0, False),
        ),
    },
    "ELEMENTALIST": {
        "name": "Elementalist",
        "complexity": "simple",
        "health": 10,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "intellect",
        "attack_stats": ("intellect",),
        "range": (0, 80),
        "damage": (1, 6),
        "damage_stats": ("intellect",),
        "deflect": (1, 4, 0),
        "armour": (),
        "shields": (),
        "training": "magic: pick 1 of fire, cold, lightning, rot, psychic",
        "features": (
            (1, "Elemental Adept", 0, False),
            (1, "Elemental Burst", 1, False),
            (2, "Enhance", 1, False),
            (3, "Focused Training", 0, False),
            (4, "Stat Up", 0, False),
            (5, "Twin Attack", 2, False),
            (5, "Overcharge", 0, False),
            (6, "Power Overwhelming", 0, False),
            (7, "Bursting Shot", 0, True),
            (8, "Stat Up 2", 0, False),
        ),
    },
    "HYPEMAN": {
        "name": "Hype Man",
        "complexity": "complex",
        "health": 14,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "heart",
        "attack_stats": ("heart",),
        "range": (0, 60),
        "damage": (1, 6),
        "damage_stats": ("heart",),
        "deflect": (1, 4, 0),
        "armour": (),
        "shields": (),
        "training": "magic: Divine",
        "features": (
            (1, "Build Hype", 1, False),
            (1, "Hype Up", 0, False),
            (2, "Fortune's Friend", 0, False),
            (3, "Luck On Your Side", 0, True),
            (3, "Toughen Up", 0, False),
            (4, "Stat Up", 0, False),
            (5, "Bedtime Story", 0, False),
            (6, "Don't Let Me Die In Vain", 0, False),
            (6, "Try Again Buddy", 0, False),
            (7, "I'll Pull Up The Slack", 0, False),
            (8, "Stat Up 2", 0, False),
        ),
    },
    "KNIGHT": {
        "name": "Knight",
        "complexity": "simple",
        "health": 18,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "mettle",
        "attack_stats": ("mettle",),
        "range": (0, 120),
        "damage": (1, 10),
        "damage_stats": ("mettle",),
        "deflect": (1, 6, 0),
        "armour": ("light", "medium", "heavy"),
        "shields": ("light", "medium", "heavy"),
        "training": (
            "melee: pick 2 of Hammers & Clubs, Slashing Swords, Piercing Swords & Daggers, Axes, Flails; "
            "ranged: pick 2 of Heavy Throwing, Light Throwing, Bows, Crossbows"
        ),
        "features": (
            (1, "Driving Attack", 1, False),
            (1, "Sweeping Attack", 1, False),
            (2, "Vow", 0, False),
            (3, "Intercept", 1, False),
            (4, "Stat Up", 0, False),
            (5, "Unstoppable", 0, True),
            (6, "No Retreat, No Surrender", 0, False),
            (6, "Mounted Combatant", 0, False),
            (7, "You Won't Be The One To Kill Me", 0, False),
            (8, "Stat Up 2", 0, False),
        ),
    },
    "MAVERICK": {
        "name": "Maverick",
        "complexity": "standard",
        "health": 14,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "heart",
        "attack_stats": ("agility",),
        "range": (0, 80),
        "damage": (1, 8),
        "damage_stats": ("agility",),
        "deflect": (1, 6, 0),
        "armour": ("light",),
        "shields": (),
        "training": "melee: pick 2 of melee weapon classes; ranged: pick 1 of ranged weapon class; special: whips",
        "features": (
            (1, "Keen Intuition", 0, False),
            (1, "Whip Expert", 0, False),
            (1, "Yoink", 2, False),
            (2, "Lucky Shot", 0, True),
            (3, "Sleight of Hand", 0, False),
            (3, "A Keen Eye for Coin", 0, False),
            (4, "Stat Up", 0, False),
            (5, "Balanced Fighter", 1, False),
            (6, "Luck Runs Out", 0, False),
            (7, "Flee the Scene", 3, False),
            (8, "Stat Up 2", 0, False),
        ),
    },
    "RANGER": {
        "name": "Ranger",
        "complexity": "simple",
        "health": 16,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "agility",
        "attack_stats": ("agility",),
        "range": (0, 120),
        "damage": (1, 8),
        "damage_stats": ("agility",),
        "deflect": (1, 4, 0),
        "armour": ("light", "medium"),
        "shields": (),
        "training": (
            "melee: pick 1 of Axes, Piercing Swords & Dagers, Slashing Swords; "
            "ranged: pick 2 of Bows, Crossbows, Light Throwing"
        ),
        "features": (
            (1, "Predator's Sense", 0, False),
            (1, "Precision of the Hawk", 0, False),
            (2, "Cunning Stalker", 1, False),
            (2, "Wild Guide", 0, False),
            (3, "Quickdraw Counter", 0, False),
            (4, "Stat Up", 0, False),
            (5, "Poisoned Blade", 0, False),
            (6, "Final Hunt", 0, False),
            (7, "Long Shot", 0, False),
            (8, "Stat Up 2", 0, False),
        ),
    },
    "SHIFTER": {
        "name": "Shapeshifter",
        "complexity": "standard",
        "health": 16,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "heart",
        "attack_stats": ("heart",),
        "range": (0, 60),
        "damage": (1, 6),
        "damage_stats": ("heart",),
        "deflect": (1, 4, 0),
        "armour": ("light",),
        "shields": (),
        "training": (
            "melee: pick 1 of Hammers & Clubs, Slashing Swords, Piercing Swords & Daggers, Axes, Flails; "
            "ranged: pick 1 of Heavy Throwing, Light Throwing, Bows, Crossbows"
        ),
        "features": (
            (1, "Shape Changer", 0, False),
            (1, "Shift", 1, False),
            (2, "Commune with Nature", 0, False),
            (3, "Reinvigorate", 0, True),
            (4, "Stat Up", 0, False),
            (5, "Unusual Form", 2, False),
            (6, "Nature's Wrath", 0, False),
            (7, "Blood Tracker", 0, False),
            (7, "Impeccable Survivalist", 0, False),
            (8, "Stat Up 2", 0, False),
        ),
    },
    "SPELLSWORD": {
        "name": "Spellsword",
        "complexity": "complex",
        "health": 14,
        "health_per_level": 2,
        "stamina": 6,
        "stamina_per_level": 2,
        "stamina_stat": "intellect",
        "attack_stats": ("mettle", "agility"),
        "range": (0, 80),
        "damage": (1, 8),
        "damage_stats": ("mettle", "agility"),
        "damage_stat_is_attack_stat": True,  # Fighting Style picks the Attack and Damage Stat together
        "deflect": (1, 4, 0),
        "armour": ("light", "medium"),
        "shields": ("light", "medium"),
        "training": (
            "melee: pick 1 of Hammers & Clubs, Slashing Swords, Piercing Swords & Daggers, Axes, Flails; "
            "ranged: pick 1 of Heavy Throwing, Light Throwing, Bows, Crossbows"
        ),
        "features": (
            (1, "Fighting Style", 0, False),
            (1, "Infusions", 2, False),
            (1, "Infusion Dice", 0, False),
            (2, "Double Up", 0, True),
            (3, "Infusion Training", 0, False),
            (4, "Stat Up", 0, False),
            (5, "Spell Weaver", 0, False),
            (6, "Infusion of Power", 0, False),
            (7, "Limit Break", 0, False),
            (8, "Stat Up 2", 0, False),
        ),
    },
}

# Lineages (lineages.ts): sizes allowed, speeds in feet, which stats the +1 may go to, traits (our summaries).
LINEAGES: dict[str, dict] = {
    "HUMAN": {
        "name": "Human",
        "sizes": ("medium",),
        "speeds": {"ground": 30},
        "bonus": STATS,
        "traits": (
            ("Adaptable", "one more novice feature at level 1"),
            ("Resilient Immune System", "Fortune's Favor when resisting disease"),
        ),
    },
    "DWARF": {
        "name": "Dwarf",
        "sizes": ("medium",),
        "speeds": {"ground": 25},
        "bonus": ("mettle",),
        "traits": (
            ("Low Light Vision", "dim light is as good as bright; darkness is still dark"),
            ("Diggy Hole", "digs twice as fast, with Fortune's Favor on digging tests"),
            ("Hearty", "Fortune's Favor against poison and drink"),
        ),
    },
    "ELF": {
        "name": "Elf",
        "sizes": ("medium",),
        "speeds": {"ground": 35},
        "bonus": ("agility", "intellect"),
        "traits": (
            ("Farsight", "sees twice as far"),
            ("Light Footed", "walks on snow without sinking"),
            ("Trance", "six hours of aware trance instead of sleep"),
        ),
    },
    "FAERY": {
        "name": "Faery",
        "sizes": ("tiny",),
        "speeds": {"ground": 20, "fly": 20},
        "bonus": ("agility", "heart"),
        "traits": (
            ("Wings", "flies at 20 ft for up to ten minutes"),
            ("Fae Origins", "Fortune's Favor against charms"),
        ),
    },
    "CHIMERIC": {
        "name": "Chimeric",
        "sizes": ("small", "medium", "large"),
        "speeds": {"ground": 30},
        "bonus": STATS,
        "traits": (("Animal Features", "two animal features, chosen below"),),
    },
}
ANIMAL_FEATURES_TO_PICK = 2  # Chimeric: "Pick 2 options"
# Chimeric animal features: (name, our summary, numbers the sheet uses).
ANIMAL_FEATURES: dict[str, tuple[str, dict]] = {
    "Intimidating": ("+2 to intimidate", {}),
    "Cute": ("+2 to persuade", {}),
    "Prehensile Tail": ("+3 to climb and balance; the tail holds no weapon", {}),
    "Fast": ("+5 ft speed", {"speed": 5}),
    "Tough Skin/Shell": ("+3 Armor when wearing no armour", {"unarmoured_armor": 3}),
    "Flight": ("a fly speed equal to your speed, ten minutes at a time", {"fly": True}),
    "Claws/Fangs": ("natural weapons: base damage if trained in a melee weapon, else 1d6 + Mettle", {}),
    "Stealthy": ("+2 to sneak", {}),
}

# Cultures (cultures.ts): which stats the +1 may go to, languages (None: one of the player's choice), traits.
CULTURES: dict[str, dict] = {
    "DEEP-MINING": {
        "name": "Deep Mining",
        "bonus": ("mettle", "heart"),
        "languages": ("Allspeak", "Dwarvish"),
        "choose_language": False,
        "traits": (
            ("A Sense of Value", "knows roughly what stones and metals are worth"),
            ("The Stone Remembers", "Fortune's Favor on lore of stone, mining and masonry"),
        ),
    },
    "FOREST-FOLK": {
        "name": "Forest Folk",
        "bonus": ("agility", "intellect"),
        "languages": ("Allspeak", "Elvish"),
        "choose_language": False,
        "traits": (
            ("Nature's Steward", "Fortune's Favor on lore of trees, plants and animals"),
            ("Woodland Skills", "trained in an instrument or artist's tools"),
        ),
    },
    "NOMADS": {
        "name": "Nomads",
        "bonus": ("heart", "mettle"),
        "languages": ("Allspeak",),
        "choose_language": True,
        "traits": (
            ("Natural Navigator", "always knows the way back to the last place slept"),
            ("Versatile Skills", "trained in a game set or an instrument"),
        ),
    },
    "EMPYRIAN": {
        "name": "Empyrian",
        "bonus": ("intellect", "heart"),
        "languages": ("Allspeak",),
        "choose_language": True,
        "traits": (
            ("Multi-culturalist", "Fortune's Favor when talking across a language barrier"),
            ("Gaming Expertise", "trained in a game set"),
        ),
    },
    "MARINERS": {
        "name": "The Mariners",
        "bonus": ("agility", "heart"),
        "languages": ("Allspeak",),
        "choose_language": True,
        "traits": (
            ("Born on the Water", "swim speed doubled; holds breath twice as long"),
            ("Knotty", "+2 to tie knots"),
        ),
    },
    "HIGHLAND-CLANS": {
        "name": "Highland Clans",
        "bonus": ("mettle", "heart"),
        "languages": ("Allspeak",),
        "choose_language": False,
        "traits": (
            ("Rugged Mountaineer", "Fortune's Favor against cold; +2 on cliffs and mountains"),
            ("Craig Jumper", "+5 ft on long jumps"),
        ),
    },
    "MEADOWLANDS": {
        "name": "Peoples of the Meadowlands",
        "bonus": ("mettle", "heart"),
        "languages": ("Allspeak",),
        "choose_language": False,
        "traits": (
            ("Helping Hand", "may give up Fortune's Favor for +3 to an ally's test within 5 ft"),
            ("Meadowland Hospitality", "+2 to Heart tests on first meeting strangers"),
        ),
    },
    "FAE-FOLK": {
        "name": "Fae Folk",
        "bonus": ("intellect", "heart"),
        "languages": ("Allspeak", "Thistletongue"),
        "choose_language": False,
        "traits": (
            ("Never Trust a Tulip", "+2 to Heart tests to spot a lie"),
            ("Fae Touched", "ten minutes to make plants grow a month's worth"),
        ),
    },
}
# Seed 003, Languages.
LANGUAGES: tuple[str, ...] = (
    "Allspeak",
    "Elvish",
    "Dwarvish",
    "Thistletongue",
    "Starrend",
    "Deeproot",
    "Seawhisper",
    "Voidhowl",
)
ELEMENTS: tuple[str, ...] = ("fire", "cold", "lightning", "rot", "psychic")  # Elementalist: pick 1

# Novice features (noviceFeatures.ts): our summary and the numbers rules here use.
NOVICE_FEATURES: dict[str, tuple[str, dict]] = {
    "Academic": ("Fortune's Favor when researching in a library", {}),
    "Aid": ("+2 more to an ally's test you help with", {"aid": 2}),
    "Artisan": ("trained in a set of artisan's tools", {}),
    "Athletic": ("+3 to Mettle tests of strength or endurance", {"athletic": 3}),
    "Daring": ("three times per R&R, flip a coin instead of rolling a test", {}),
    "Disguise Master": ("+3 to disguise yourself", {}),
    "Imitator": ("+3 to imitate someone's voice", {}),
    "Independent": ("once a day, +3 to a non-combat test made without help", {}),
    "Infiltrator": ("+3 to sneak", {}),
    "Insightful": ("+3 to Heart tests to read intent or spot a lie", {}),
    "Keen Eyed": ("+3 to Heart tests to spot hidden things", {}),
    "Knowledgeable": ("+3 on tests about one chosen subject", {}),
    "Linguist": ("one more language; +3 to decipher codes and tongues", {"language": 1}),
    "Long Jumper": ("+5 ft to jumps", {"jump": 5}),
    "Medical Training": ("Fortune's Favor on the test to save a dying ally", {"medical": True}),
    "Performer": ("+3 to judge your performance; trained in one art", {}),
    "Reliable Skill": ("three times per R&R, count a non-combat roll as 12", {}),
    "Silver Tongued": ("+3 to Heart tests of emotional appeal", {}),
    "Swift": ("+10 ft ground speed", {"speed": 10}),
    "Swift Climber": ("+5 ft climb speed", {"climb": 5}),
    "Swift Swimmer": ("+5 ft swim speed", {"swim": 5}),
    "Trekker": ("lift, drag and pack twice as much", {"trekker": True}),
}

# Veteran features (veteranFeatures.ts), taken with Stat Up 2 at level 8.
VETERAN_FEATURES: dict[str, str] = {
    "Charger": "after 15 ft in a straight line, damage one step up and a 5 ft shove",
    "Folk Hero": "a luck test to be known by someone new",
    "Imbued Attacks": "attacks also deal one chosen damage type",
    "Legendary": "double the bonus of one novice feature",
    "Perpetual Amateur": "two more novice features",
    "Skirmisher's Agility": "closing to melee costs no speed",
    "Unfailing": "spend Fortune's Favor to turn a failed roll into a mixed one",
    "Weapon Master": "one trained weapon class deals damage one step up",
}

# Seed 003, Armor: armour types, base Armor and how Agility counts: "all" of it, at most 2 ("max 2", a
# negative Agility still counts in full), or "none" (heavy armour is a flat 17 whatever the Agility).
ARMOUR_AGILITY_MAX = 2
ARMOUR: dict[str, tuple[str, int, str]] = {
    "none": ("No armour", 10, "all"),
    "light": ("Light armour", 12, "all"),
    "medium": ("Medium armour", 14, "max 2"),
    "heavy": ("Heavy armour", 17, "none"),
}
# Seed 003, Shields: requirement (stat, minimum) pairs, Armor bonus, deflect effect.
SHIELDS: dict[str, tuple[str, tuple[tuple[str, int], ...], int]] = {
    "none": ("No shield", (), 0),
    "light": ("Light shield", (("agility", 3),), 0),
    "medium": ("Medium shield", (("agility", 1), ("mettle", 1)), 1),
    "heavy": ("Heavy shield", (("mettle", 3),), 2),
}
HEAVY_SHIELD_DEFLECT = 3  # flat, once per deflect
BRAWLER_AGILITY_MAX = 2  # Muscle Bound Body: 10 + Mettle + Agility (at most 2) unarmoured

# Seed 003, Starting kit (the class's weapons come from its training line).
STARTING_KIT: tuple[tuple[str, str, int], ...] = (
    ("Class weapons or focus", "weapon", 1),
    ("Light source", "light", 0),
    ("Basic pack (rope, bedroll, flint and tinder)", "gear", 0),
    ("Weather gear", "gear", 0),
)
