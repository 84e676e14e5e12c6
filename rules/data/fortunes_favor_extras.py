"""Fortune's Favor 1b: the Beastmaster's beasts, the Shapeshifter's forms and the class features' options.

Numbers and names are facts from LankeyBoard/RulesGraph ``src/rules/1b/`` at 6cff1a6 (playerClasses.ts: the
Shapeshifter's ``extra.forms``; playerClasses/beastmaster.ts: ``extra.beastMasterPet``; spellsword.ts: the
infusions; the options of Signature Move, Focused Training and Ultimate Tag Team). Descriptions are ours.
"""

from __future__ import annotations

# Beasts: size, Health (base + per level after the first, as a class's), Armor, stats, speeds, damage
# (count, die, stat) and the Setup / Follow-up abilities by name.
BEASTS: dict[str, dict] = {
    "LARGE": {
        "name": "Large beast (bear, tiger)",
        "size": "large",
        "health": (16, 3),
        "armor": 12,
        "stats": {"mettle": 4, "agility": 0, "heart": 0, "intellect": -4},
        "speeds": {"ground": 30},
        "damage": (1, 8, "mettle"),
        "abilities": (("Follow-up", "Heavy Blow", "damage one step up"),),
    },
    "MEDIUM": {
        "name": "Medium beast (wolf, panther)",
        "size": "medium",
        "health": (6, 2),
        "armor": 15,
        "stats": {"mettle": 0, "agility": 4, "heart": 0, "intellect": -4},
        "speeds": {"ground": 40},
        "damage": (1, 6, "agility"),
        "abilities": (
            ("Setup", "Menacing Attack", "the Follow-up's damage one step up"),
            ("Follow-up", "Takedown", "Mettle test 13/8: Prone on a Fail, Slowed on a Mixed"),
        ),
    },
    "SMALL-FLYING": {
        "name": "Small flying beast (hawk, falcon)",
        "size": "small",
        "health": (4, 1),
        "armor": 15,
        "stats": {"mettle": 0, "agility": 4, "heart": 0, "intellect": -4},
        "speeds": {"fly": 60},
        "damage": (1, 4, "agility"),
        "abilities": (
            ("Passive", "Flyby Attacks", "no Counter Action when it leaves melee after attacking"),
            ("Setup", "Raking Attack", "adds your Heart to the Follow-up's damage"),
        ),
    },
    "SMALL-GROUND": {
        "name": "Small ground beast (badger, snake)",
        "size": "small",
        "health": (4, 1),
        "armor": 15,
        "stats": {"mettle": 0, "agility": 4, "heart": 0, "intellect": -4},
        "speeds": {"ground": 30},
        "damage": (1, 6, "agility"),
        "abilities": (("Follow-up", "Surprise Strike", "damage two steps up while the target cannot see it"),),
    },
}

# Shapeshifter forms: size, attack stat, damage parts (count, die, stat or None), Armor (base, stat), speed
# change, Health per Shapeshifter level held while in the form.
FORMS: dict[str, dict] = {
    "BIG": {
        "name": "Big (bear, bull)",
        "size": "large",
        "attack_stat": "mettle",
        "damage": ((1, 10, "mettle"),),
        "armor": (12, "mettle"),
        "speed": 0,
        "health_per_level": 4,
        "notes": "+3 to Mettle tests to lift, carry or drag; Heavy Blows (2 Stamina: knock down a Medium or smaller)",
    },
    "MEDIUM": {
        "name": "Medium (wolf, big cat)",
        "size": "medium",
        "attack_stat": "agility",
        "damage": ((1, 10, "agility"),),
        "armor": (12, "agility"),
        "speed": 10,
        "health_per_level": 0,
        "notes": "Agility added to jumps and to crossing difficult terrain; Menacing Strike (2 Stamina)",
    },
    "SMALL": {
        "name": "Small (snake, lizard)",
        "size": "small",
        "attack_stat": "agility",
        "damage": ((1, 4, None), (1, 4, "heart")),
        "armor": (10, "agility"),
        "speed": -10,
        "health_per_level": 0,
        "notes": "+5 to sneak and hide; Agility added to jumps; Venomous Strike (2 Stamina: rot damage a step up)",
    },
}

# Features that offer options: (feature, how many to pick, options).
OPTIONS: dict[tuple[str, str], tuple[int, tuple[str, ...]]] = {
    ("BRAWLER", "Signature Move"): (
        1,
        ("Spinning Lariat", "Crippling Strike", "Top Rope Takedown", "Counter Throw"),
    ),
    ("ELEMENTALIST", "Focused Training"): (1, ("Elemental Armor", "Bolt Thrower", "Bigger Burst")),
    ("BEASTMASTER", "Ultimate Tag Team"): (
        2,
        ("Entangling Strike", "Predator's Leap", "Protective Pelt", "Savage Rend"),
    ),
    ("SPELLSWORD", "Infusions"): (
        2,
        ("Absorb", "Bind", "Bolster", "Disrupt", "Elemental Weapon", "Launch", "Sight", "Veil"),
    ),
}
INFUSION_DIE = 6  # Spellsword, Infusion Dice: 1d6
INFUSION_DIE_POWER = 8  # Infusion of Power (level 6): 1d8
HYPE_MAX = 3  # Hype Man, Build Hype: at most 3
# Ultimate Tag Team: which maneuver each option replaces, its extra Stamina, and Protective Pelt's Armor.
TAG_MOVES = {
    "Entangling Strike": "Setup",
    "Predator's Leap": "Setup",
    "Protective Pelt": "Follow-up",
    "Savage Rend": "Follow-up",
}
TAG_MOVE_STAMINA = 2
PELT_ARMOR = 2

# One line each on what an option does, for the feature's own select (Lantern's words, not the source's).
OPTION_WORDS: dict[str, str] = {
    "Spinning Lariat": "an area attack on every enemy in reach, 1 Stamina + 1 per enemy",
    "Crippling Strike": "2 Stamina: a melee hit halves the enemy's damage and holds it in place this round",
    "Top Rope Takedown": "1 Stamina: your attack stat against the target's, and the winner knocks it Prone",
    "Counter Throw": "1 Stamina: a Push counter throws the enemy up to 15 ft",
    "Elemental Armor": "your Intellect is added to your Armor",
    "Bolt Thrower": "your range is 30 ft longer",
    "Bigger Burst": "Elemental Burst reaches 10 ft instead of 5",
    "Entangling Strike": "a Setup: on a hit the target tests Mettle (13/8) or is Entangled until the next round",
    "Predator's Leap": "a Setup: on a hit you may move half your speed at once",
    "Protective Pelt": "a Follow-up: you and the beast have +2 Armor until the next round",
    "Savage Rend": "a Follow-up: the target bleeds 1d4 each round until it spends an Action to stop it",
    "Absorb": "with a shield: the Infusion Dice come off damage you take",
    "Bind": "an enemy within 30 ft tests Mettle against 10 + the Infusion Dice or is held down",
    "Bolster": "the Infusion Dice are added to your next Mettle or Agility test",
    "Disrupt": "the Infusion Dice come off an attack roll made against you",
    "Elemental Weapon": "a weapon of your element that deals your Base Damage for a minute",
    "Launch": "a ranged attack reaches twice as far and adds the Infusion Dice to its damage",
    "Sight": "you see the invisible, and in the dark, for ten minutes",
    "Veil": "the Infusion Dice are added to your hiding and sneaking tests for a minute",
}
