"""Chaos & Conquest (2023-12-20 rules) tables as plain data: backgrounds, equipment, magic, help, scars.

Transcribed from the companion rules of The-Chaos-Consortium/chaos-and-conquest at commit 15fcfe4
(2023-12-20): ``docs/character-creation.md``, ``docs/backgrounds/*.md``, ``docs/equipment.md``,
``docs/hired-help.md``, ``docs/magic-spellcasting.md`` and ``docs/npcs.md``; the level and scar tables
come from seed 002 ("Advancement", "Stamina & Death"). Prices are in brass pennies
(1 m = 20 s = 240 p; 1 s = 12 p). Spell, mishap and scar texts are shortened into our own words.
Item kinds are the app's own (weapon, armour, helmet, shield, gear, ration, light, ammo, spellbook,
animal, service); what makes a Supply, a scroll or a grimoire is in the item's data.
"""

from __future__ import annotations

from typing import Any

# Long table rows read better unwrapped.
# ruff: noqa: E501

CREDIT = (
    "Chaos & Conquest by Alexander Gomez and The Chaos Consortium (rules.chaosconquest.io), "
    "2023-12-20 rules, CC BY-SA 4.0."
)

PENNIES_PER_SHILLING = 12
PENNIES_PER_MARK = 240
FREE_COINS = 500  # equipment.md, Currency: up to 500 coins ride free
COINS_PER_SLOT = 1000  # ... and every further 1,000 coins (any denomination) take a slot

ATTRIBUTES: tuple[str, ...] = ("STR", "DEX", "WIL")
ATTRIBUTE_MAX = 18
FACTIONS: tuple[str, ...] = ("Chaos", "Law", "Balance")

# Seed 002, Advancement: XP needed for levels 1-10; each level past 10 needs 250,000 more.
LEVEL_XP: tuple[int, ...] = (0, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 125_000, 250_000, 500_000)
XP_PER_LEVEL_PAST_10 = 250_000
STAMINA_PER_LEVEL_PAST_10 = 2

# magic-spellcasting.md: stamina cost by Power 1..5.
POWER_COST: tuple[int, ...] = (1, 2, 4, 8, 16)

# hired-help.md, Retainer Loyalty and Max Amount: (lowest WIL, highest WIL, loyalty, max retainers).
RETAINER_TABLE: tuple[tuple[int, int, int, int], ...] = (
    (3, 3, 4, 1),
    (4, 5, 5, 2),
    (6, 8, 6, 3),
    (9, 12, 7, 4),
    (13, 15, 8, 5),
    (16, 17, 9, 6),
    (18, 18, 10, 7),
)
RETAINER_UPFRONT_PER_LEVEL = 5 * PENNIES_PER_SHILLING  # 5 s x level before signing on
RETAINER_SLOTS = 10

# hired-help.md, Hirelings: 8 in each attribute, 6 Morale, 1d8 stamina, 10 slots; wages per month and day.
# The explorer has no day rate; we charge a 30-day month (480 p / 30 = 16 p a day).
HIRELINGS: dict[str, dict[str, Any]] = {
    "porter": {
        "label": "Porter",
        "month": 30 * PENNIES_PER_SHILLING,
        "day": 12,
        "slots": 15,
        "does": "Carries torches, shields and luggage; 5 more slots than other hirelings.",
    },
    "teamster": {
        "label": "Teamster",
        "month": 30 * PENNIES_PER_SHILLING,
        "day": 15,
        "slots": 10,
        "does": "Drives vehicles and pack animals (up to 10); unridden pack animals carry 20 more slots.",
    },
    "explorer": {
        "label": "Explorer",
        "month": 40 * PENNIES_PER_SHILLING,
        "day": 16,
        "slots": 10,
        "does": "Knows the local country: no navigation check where they are familiar.",
    },
}
HIRELING_ATTRIBUTE = 8
HIRELING_MORALE = 6

# npcs.md, Reaction: (lowest 2d6, highest 2d6, reaction).
REACTIONS: tuple[tuple[int, int, str], ...] = (
    (2, 3, "Hostile"),
    (4, 5, "Unfriendly"),
    (6, 8, "Indifferent"),
    (9, 10, "Friendly"),
    (11, 12, "Helpful"),
)

ARCHETYPE_TALENT: dict[str, str] = {
    "Pathfinder": "Survival",
    "Fighter": "Armor Master",
    "Priest": "Religion",
    "Mage": "Arcane",
    "Thief": "Stealth",
}


def _w(name: str, die: int, slots: int, **extra: Any) -> dict[str, Any]:
    """A weapon item as the background lists write it."""
    return {"name": name, "kind": "weapon", "slots": slots, "data": {"damage": die, **extra}}


def _g(name: str, slots: int = 1, kind: str = "gear", quantity: int = 1, **data: Any) -> dict[str, Any]:
    return {"name": name, "kind": kind, "slots": slots, "quantity": quantity, "data": data}


def _animal(name: str, hd: int, skill: int, ml: int, **extra: Any) -> dict[str, Any]:
    return {"name": name, "kind": "animal", "slots": 0, "data": {"hd": hd, "skill": skill, "ml": ml, **extra}}


AMMO = _g("Ammo", kind="ammo")
HOLY_WATER = _g("Holy water", note="Undead doused in it take d8 damage, ignoring AV.", damage=8)

# backgrounds/*.md: d20 -> background. "grimoire" adds a grimoire with one random spell (mage.md).
# Items without a listed size take 1 slot (equipment.md); clothes and trinkets take none, which is how
# we read the Burglar's shoes and cloak (their file gives no size).
BACKGROUNDS: dict[int, dict[str, Any]] = {
    1: {
        "name": "Roadwarden",
        "archetype": "Pathfinder",
        "talents": ("Survival", "Intimidation", "Animals"),
        "items": (
            _animal("Horse", 2, 9, 7, mount=True, slots_ridden=10, slots_unridden=20),
            _w("Polearm", 10, 3, two_handed=True, reach=True),
            _w("Crossbow", 8, 3, two_handed=True, ranged=True),
            AMMO,
            _g("Small tent and cooking gear"),
            _g("Writ of office", slots=0),
        ),
    },
    2: {
        "name": "Ranger",
        "archetype": "Pathfinder",
        "talents": ("Survival", "Herbalism", "Stealth"),
        "items": (
            _w("Longbow", 8, 3, two_handed=True, ranged=True),
            AMMO,
            _w("Short sword", 6, 1),
            _g("Trap", damage=6, note="d6 damage; a failed STR save leaves the victim stuck."),
        ),
    },
    3: {
        "name": "Bounty Hunter",
        "archetype": "Pathfinder",
        "talents": ("Survival", "Dirty Fighting", "Rumors"),
        "items": (
            _w("Pistol", 6, 2, bonus=1, ranged=True, loud=True),
            AMMO,
            _g("Sturdy rope"),
            _g("Manacles"),
            _g("Wanted posters", slots=0, quantity_die=3),
        ),
    },
    4: {
        "name": "Outlaw",
        "archetype": "Pathfinder",
        "talents": ("Survival", "Performance", "Traps"),
        "items": (
            _g("Hooded cloak, or hat and mask", slots=0),
            _w("Hand crossbow", 6, 2, ranged=True),
            AMMO,
        ),
    },
    5: {
        "name": "Soldier",
        "archetype": "Fighter",
        "talents": ("Armor Master", "Tactics", "Endurance"),
        "items": (
            _g("Suit of mail", slots=2, kind="armour", av=2, dex_disadvantage=True, min_str=12),
            _w("Arming sword", 8, 2),
            _w("Short spear", 6, 1),
            _g("Shield", kind="shield"),
        ),
    },
    6: {
        "name": "Knight",
        "archetype": "Fighter",
        "talents": ("Armor Master", "Influence", "Brute Strength"),
        "items": (
            _g("Heavy plate armour", slots=3, kind="armour", av=3, dex_disadvantage=True, min_str=14),
            _w("Longsword", 10, 3, two_handed=True, reach=True),
            _animal("Warhorse", 3, 10, 9, mount=True, slots_ridden=5, slots_unridden=15),
        ),
        "retainer": "Squire",
    },
    7: {
        "name": "Duelist",
        "archetype": "Fighter",
        "talents": ("Armor Master", "Honor", "Acrobatics"),
        "items": (
            _w("Rapier", 8, 2),
            _w("Pistol", 6, 2, bonus=1, ranged=True, loud=True),
            AMMO,
            _g("Light armour", kind="armour", av=1),
        ),
    },
    8: {
        "name": "Slayer",
        "archetype": "Fighter",
        "talents": ("Armor Master", "Monster Lore", "History"),
        "items": (
            _g("Kickass hat", kind="helmet", av=1),
            _g("String of garlic"),
            HOLY_WATER,
            _w("Silver knife", 6, 1, silver=True),
            _g("Hawthorn stake"),
        ),
    },
    9: {
        "name": "Exorcist",
        "archetype": "Priest",
        "talents": ("Religion", "Spirits", "Divine Wards"),
        "items": (
            _g("Necklace of beads", slots=0),
            HOLY_WATER,
            _g("Scroll of Bless", kind="spellbook", scroll=True, spell="Bless"),
        ),
    },
    10: {
        "name": "Warpriest",
        "archetype": "Priest",
        "talents": ("Religion", "Armor Master", "Healing"),
        "items": (
            _g("Brigandine", slots=2, kind="armour", av=2, dex_disadvantage=True, min_str=12),
            _w("Warhammer", 10, 3, two_handed=True, reach=True),
            _g("Scroll of Heal", kind="spellbook", scroll=True, spell="Heal"),
            _g("Holy symbol", slots=0),
        ),
    },
    11: {
        "name": "Initiate",
        "archetype": "Priest",
        "talents": ("Religion", "Brewing", "Scribing"),
        "items": (
            _g("Raiment of your order", kind="armour", av=1),
            _g("Book of hymns", slots=0),
            _g("Bottle of fine beer"),
        ),
    },
    12: {
        "name": "Charlatan",
        "archetype": "Priest",
        "talents": ("Religion", "Silver Tongue", "Forgery"),
        "items": (
            _g("Divination tools"),
            _g("Vials of sugar water"),
            _g("Pack of cards", slots=0),
            _g("Counterfeit silver coins", slots=0, quantity_die=6),
            _w("Club", 6, 1),
        ),
    },
    13: {
        "name": "Wizard's Apprentice",
        "archetype": "Mage",
        "talents": ("Arcane", "Research", "Scribing"),
        "items": (
            _g("Cloak with magical emblems", slots=0),
            _w("Staff", 6, 1),
            _g("Books on magical theory"),
        ),
        "grimoire": True,
    },
    14: {
        "name": "Warlock",
        "archetype": "Mage",
        "talents": ("Arcane", "Rituals", "Bargaining"),
        "items": (
            _g("Glowing eyes with night vision", note="They take a slot, as the background says."),
            _g("Daemon skull", slots=0),
        ),
        "grimoire": True,
    },
    15: {
        "name": "Alchemist",
        "archetype": "Mage",
        "talents": ("Arcane", "Alchemy", "Perseverance"),
        "items": (
            _g("Small chest of alchemy gear"),
            _g("Tonic of health"),
        ),
        "grimoire": True,
    },
    16: {
        "name": "Witch",
        "archetype": "Mage",
        "talents": ("Arcane", "Potions", "Divination"),
        "items": (
            _g("Candles, herbs, chalk and needles"),
            _animal("Animal familiar", 1, 6, 7),
        ),
        "grimoire": True,
    },
    17: {
        "name": "Rat Catcher",
        "archetype": "Thief",
        "talents": ("Stealth", "Traps", "Animals"),
        "items": (
            _w("Staff hung with dead rats", 6, 1),
            _animal("Small fierce dog", 1, 6, 8, bite=6),
            _g("Flute"),
        ),
    },
    18: {
        "name": "Beggar",
        "archetype": "Thief",
        "talents": ("Stealth", "Pick-pocketing", "Disguise"),
        "items": (
            _g("Tin bowl", slots=0),
            _g("Ragged clothes", slots=0),
            _w("Club", 6, 1),
        ),
    },
    19: {
        "name": "Grave Robber",
        "archetype": "Thief",
        "talents": ("Stealth", "Anatomy", "Cartography"),
        "items": (
            _g("Hooded cloak", slots=0),
            _g("Spade"),
            _g("Crowbar"),
            _g("Oversized sack"),
        ),
    },
    20: {
        "name": "Burglar",
        "archetype": "Thief",
        "talents": ("Stealth", "Lock-picking", "Climbing"),
        "items": (
            _g("Lock-picks"),
            _g("Soft shoes", slots=0, note="Advantage on saves where quiet feet help."),
            _g("Hooded cloak", slots=0, note="Advantage on saves where hiding helps."),
        ),
    },
}

# character-creation.md: every PC starts with these, and (ours) three days' rations: a night's rest needs a ration
# (Rest & Healing), and a kit without one refused the first night's rest.
STARTING_ITEMS: tuple[dict[str, Any], ...] = (
    _g("Supply", quantity=2, supply=True),
    _g("Torch", kind="light", lp=2, turns=6),
    _g("Rations (3 days)", kind="ration", days=3),
    _w("Dagger", 6, 1),
)
GRIMOIRE_SLOTS = 2

# equipment.md, Weapons & Armor. (name, damage die, slots, price in p, extra data, note)
WEAPONS: tuple[tuple[str, int, int, int | None, dict[str, Any], str], ...] = (
    ("Improvised or unarmed", 4, 0, None, {"unarmed": True}, ""),
    ("Dagger", 6, 1, 60, {}, ""),
    ("Club", 6, 1, 60, {}, ""),
    ("Staff", 6, 1, 60, {}, ""),
    ("Short sword", 6, 1, 60, {}, ""),
    ("Sword", 8, 2, 240, {}, ""),
    ("Axe", 8, 2, 240, {}, ""),
    ("Flail", 8, 2, 240, {}, ""),
    ("Lance", 8, 2, 240, {}, ""),
    ("Longsword", 10, 3, 600, {"two_handed": True, "reach": True}, "Two hands, reach."),
    ("Halberd", 10, 3, 600, {"two_handed": True, "reach": True}, "Two hands, reach."),
    ("Warhammer", 10, 3, 600, {"two_handed": True, "reach": True}, "Two hands, reach."),
    ("Sling", 6, 2, 120, {"ranged": True, "reload_two_hands": True}, "Two hands to reload."),
    ("Hand crossbow", 6, 2, 120, {"ranged": True, "reload_two_hands": True}, "Two hands to reload."),
    ("Thrown weapon", 6, 2, 120, {"ranged": True, "thrown": True, "reload_two_hands": True}, "Two hands to reload."),
    ("Bow", 8, 3, 420, {"ranged": True, "two_handed": True, "long_range": True}, "Two hands, long range."),
    ("Crossbow", 8, 3, 420, {"ranged": True, "two_handed": True, "long_range": True}, "Two hands, long range."),
    ("Pistol", 6, 2, 480, {"ranged": True, "bonus": 1, "loud": True, "reload_two_hands": True}, "d6+1, loud."),
    ("Musket", 8, 3, 1200, {"ranged": True, "bonus": 1, "loud": True, "reload_two_hands": True}, "d8+1, loud."),
)
SILVER_PRICE_FACTOR = 10  # equipment.md, Silver Weapons: ten times the price, and wear after every attack

# (name, kind, AV, slots, price in p, extra data, note)
ARMOUR: tuple[tuple[str, str, int, int, int, dict[str, Any], str], ...] = (
    ("Helmet", "helmet", 1, 1, 300, {}, ""),
    ("Light armour (padded)", "armour", 1, 1, 120, {}, ""),
    (
        "Medium armour (mail)",
        "armour",
        2,
        2,
        2400,
        {"dex_disadvantage": True, "min_str": 12},
        "Disadvantage on DEX saves; STR 12+ or Armor Master.",
    ),
    (
        "Heavy armour (plate)",
        "armour",
        3,
        3,
        4800,
        {"dex_disadvantage": True, "min_str": 14},
        "Disadvantage on DEX saves; STR 14+ or Armor Master.",
    ),
    ("Shield", "shield", 0, 1, 120, {"sunder": True}, "Break it to stop all damage from one attack."),
)

# (name, kind, slots, price in p, data, note)
GEAR: tuple[tuple[str, str, int, int | None, dict[str, Any], str], ...] = (
    ("Supply", "gear", 1, 84, {"supply": True}, "Trade for a simple common item, or repair 1 AV or a worn weapon."),
    ("Ammo", "ammo", 1, 60, {}, "Roll a d6 after a fight with a ranged weapon: on a 1, one shot left."),
    ("Silver ammo (one shot)", "ammo", 0, 12, {"silver": True, "shots": 1}, "Spent when fired."),
    ("Common item (rope, torch, saw...)", "gear", 1, 6, {"rarity": 1}, ""),
    ("Uncommon item (lantern, bear trap...)", "gear", 1, 24, {"rarity": 3}, ""),
    ("Rare item (sextant, hourglass...)", "gear", 1, 120, {"rarity": 4}, "From 10 s upward."),
    ("Torch", "light", 1, 6, {"lp": 2, "turns": 6}, "Burns 6 turns."),
    ("Lantern", "light", 1, 24, {"lp": 5, "turns": 24, "needs_oil": True}, "Burns 24 turns on a flask of oil."),
    (
        "Flask of oil",
        "gear",
        1,
        None,
        {"damage": 8, "rounds": 2},
        "Take it for a Supply; d8 a round for two rounds on a doused, lit target.",
    ),
    ("Rations (7 days)", "ration", 1, 84, {"days": 7}, ""),
    ("Animal feed (7 days)", "gear", 1, 42, {"days": 7}, ""),
    (
        "Grimoire (blank)",
        "spellbook",
        2,
        720,
        {"grimoire": True, "spells": []},
        "A spellbook; decoding another's costs a week and 1 m a spell.",
    ),
    (
        "Holy book",
        "spellbook",
        2,
        None,
        {"holy_book": True, "spells": []},
        "From your order at level 3; only its faithful can read it.",
    ),
    (
        "Scroll (make one)",
        "spellbook",
        1,
        240,
        {"scroll": True, "spell": ""},
        "Takes a day; the spell must be in your grimoire.",
    ),
)

# equipment.md, Food & Lodging and Travel Services: (name, price in p, note); they take no slots.
SERVICES: tuple[tuple[str, int, str], ...] = (
    ("Daily horse stabling", 6, ""),
    ("Daily food and lodging (poor)", 8, ""),
    ("Daily food and lodging (common)", 12, ""),
    ("Daily food and lodging (horse)", 18, ""),
    ("Daily food and lodging (private)", 24, ""),
    ("Daily food and lodging (rich)", 48, ""),
    ("Daily food and lodging (nobility)", 96, "From 8 s upward."),
    ("Tavern drink", 1, "1 p to 3 s."),
    ("Tavern meal", 2, "2 p (poor) to 3 s (feast)."),
    ("Cart or wagon", 22, ""),
    ("Cart with 2 horses", 34, ""),
    ("Wagon, 3 horses", 54, ""),
    ("Coach", 72, ""),
    ("River boat or barge", 20, ""),
    ("Ship's passage", 48, ""),
)

# equipment.md, Buildings (construction prices): (name, price in p, rarity or None).
BUILDINGS: tuple[tuple[str, int, int | None], ...] = (
    ("Hovel", 120, 1),
    ("Wood cottage", 300, 1),
    ("Row house", 1_200, 2),
    ("Craftsman's house", 2_400, 3),
    ("Merchant's house", 7_200, 3),
    ("Villa", 21_600, 3),
    ("Guildhall", 32_600, 4),
    ("Stone tower", 48_000, 4),
    ("Temple", 75_000, 4),
    ("Stronghold", 100_000, 4),
    ("Cathedral", 250_000, 5),
    ("Imperial palace", 750_000, 5),
    ("Graded dirt road (per mile)", 1_000, None),
    ("Gravel road (per mile)", 2_500, None),
    ("Paved cobblestone road (per mile)", 4_000, None),
    ("Roman road (per mile)", 6_000, None),
    ("Wooden bridge (per mile)", 3_000, None),
    ("Stone bridge (per mile)", 15_000, None),
    ("Wooden wall (per 100 ft)", 125, None),
    ("Stone wall (per 100 ft)", 5_000, None),
)

# equipment.md, Mounts: (name, slots ridden, slots unridden, miles a day, price in p, HD, Skill, ML, traits).
MOUNTS: tuple[tuple[str, int, int, int, int, int, int, int, str], ...] = (
    ("Riding horse", 10, 20, 30, 1_200, 2, 9, 7, "Lives on grass alone."),
    (
        "War horse",
        5,
        15,
        24,
        10_000,
        3,
        10,
        9,
        "A lance charge does double damage; horse and rider both attack in melee.",
    ),
    ("Mule", 10, 40, 24, 600, 2, 9, 9, "May go underground; only fights in self-defence; lives on grass."),
)

# magic-spellcasting.md, List of Spells (d66), shortened. [DICE] = Power, [SUM] = total of the dice.
SPELLS: dict[int, tuple[str, str]] = {
    11: ("Animate Dead", "[DICE] nearby skeletons rise and obey you for [DICE] turns."),
    12: ("Arcane Eye", "See through a floating magic eye you steer for [DICE] turns."),
    13: ("Auditory Illusion", "Up to [DICE] false sounds from directions you pick."),
    14: ("Be Understood", "[DICE] creatures of another species understand you for [DICE] turns."),
    15: ("Beast Form", "Become a mundane animal; [DICE] animal actions during a watch."),
    16: ("Bless", "[DICE] close targets get advantage on their next save."),
    21: ("Bolt", "[SUM] + [DICE] damage to a far-away creature."),
    22: ("Charm", "A nearby target saves on WIL or treats you as a friend for [SUM] turns."),
    23: ("Clairvoyance", "Once a day, see through the eyes of a creature you touched, for [DICE] turns."),
    24: ("Command", "A target saves on WIL or obeys a command of up to [SUM] words."),
    25: ("Control Weather", "Change the kind of weather for [SUM] minutes."),
    26: ("Create Pit", "A pit 3 x [SUM] ft deep and 9 ft across for [DICE] hours."),
    31: ("Darkness", "A sphere of darkness [SUM] x 2 ft across for [DICE] turns."),
    32: ("Detect Magic", "Find and understand [DICE] nearby magical effects."),
    33: ("Earthquake", "The ground shakes hard for [DICE] turns."),
    34: ("Fear", "[DICE] close creatures save on WIL or flee."),
    35: ("Fireball", "[SUM] blast damage to every creature close to the impact."),
    36: ("Freezing Touch", "The next creature you touch takes 2 x [SUM] damage."),
    41: ("Grease", "A close area turns slick; STR save or fall."),
    42: ("Greed", "[DICE] creatures save on WIL or crave an item you choose."),
    43: ("Grow", "A close creature grows to [DICE] + 1 times its size for a turn."),
    44: ("Haste", "[DICE] close targets get an extra move and action next round."),
    45: ("Heal", "Heal [SUM] damage, an affliction and one stress; once a day per creature."),
    46: ("Invisibility", "A close creature is invisible for [DICE] turns."),
    51: ("Leap", "A close target jumps 10 ft high for [DICE] rounds."),
    52: ("Light", "[DICE] close creatures save on WIL or are stunned d4 rounds; or torchlight for [SUM] turns."),
    53: ("Magic Rope", "A rope 2 x [SUM] ft long that obeys one command."),
    54: ("Miniaturize", "[DICE] close targets shrink to mouse size for a turn."),
    55: ("Mirror Image", "[DICE] illusory copies of you that you control."),
    56: ("Pacify", "[DICE] nearby creatures save on WIL or shun violence."),
    61: ("Read Mind", "Hear [SUM] surface thoughts nearby for [DICE] turns."),
    62: ("Shield", "A close creature ignores [SUM] mundane damage for a turn."),
    63: ("Sleep", "[DICE] nearby creatures save on WIL or doze off."),
    64: ("Spiritual Weapon", "A held weapon glows for [DICE] turns; its first hit gets +d12 and counts as magic."),
    65: ("Ward", "A 50 ft ring that [SUM] creatures of one kind cannot cross for [DICE] turns."),
    66: ("Web", "Sticky web fills a close area for [DICE] turns; DEX save or be caught."),
}
HOLY_BOOK_LEVEL = 3  # magic-spellcasting.md, Holy Book: not before level 3

# magic-spellcasting.md, Mishaps Table by [SUM], shortened; 21 stands for 21 and above.
MISHAPS: dict[int, str] = {
    2: "No spellcasting for [DICE] hours.",
    3: "Every cast in the next 24 hours adds a stress.",
    4: "The spell sets off a chain reaction (the GM says how). Take a stress.",
    5: "The spell works in reverse (the GM says how). Take a stress.",
    6: "Everything you carry that is not metal bursts into flame; short bursts of fire no longer hurt you.",
    7: "You cannot lie and think out loud until sunrise.",
    8: "You swap places with the spell's target.",
    9: "Your skin turns deep purple: invisible by moonlight, eyes glowing yellow at night.",
    10: "Your spirit leaves your body for [DICE] hours: you fly through walls but touch nothing.",
    11: "Arcane burns: lose [DICE] WIL. You may add +1 Power on a separate die; on 4-6 lose 1 WIL.",
    12: "A magic aura takes one slot for good and gives 1 AV when you let it show.",
    13: "Your grimoire is ruined; a new one made from its remains keeps the spells.",
    14: "[DICE] magic tumours each fill a slot until a special healer removes them.",
    15: "Part of your soul moves into your grimoire: lose half your WIL; the book takes no slots.",
    16: "Plants fuse with your skin: lose [DICE] STR for good, +1 AV, fire adds +d6 against you.",
    17: "Huge wings burst out: gain [DICE] STR and flight, no armour or backpack, 5 fewer slots.",
    18: "A hand fuses to your grimoire (now 1 slot); it can shoot a d6 arcane bolt.",
    19: "A deity from beyond notices you; you are linked now, for better or worse.",
    20: "A scribe of the Council of Numbers follows you for a week, taking notes.",
    21: "The power tears you apart: you die and deal [SUM] damage to everything in your zone.",
}

# Seed 002, Stamina & Death: the d10 scars table, in our own words. "effect" drives the sheet change.
SCARS: dict[int, dict[str, Any]] = {
    1: {"name": "Scarred", "text": "A vivid mark on your {where}.", "effect": "mark"},
    2: {"name": "Sickly", "text": "STR -1.", "effect": "lose", "attribute": "STR", "amount": 1},
    3: {
        "name": "Hobbled",
        "text": "You limp until it is fixed; DEX -1.",
        "effect": "lose",
        "attribute": "DEX",
        "amount": 1,
    },
    4: {"name": "Dazed", "text": "WIL -1.", "effect": "lose", "attribute": "WIL", "amount": 1},
    5: {
        "name": "Reorienting head wound",
        "text": "Reroll {attribute} on 3d6 and keep it if higher.",
        "effect": "reroll",
    },
    6: {"name": "Chronic wound", "text": "Max stamina -2 and STR -2, for good.", "effect": "chronic"},
    7: {"name": "Shattered leg", "text": "One leg is gone.", "effect": "leg"},
    8: {"name": "Lost eye", "text": "Your ranged attacks are impaired.", "effect": "eye"},
    9: {"name": "Severed arm", "text": "One arm is gone.", "effect": "arm"},
    10: {"name": "Doomed", "text": "Next time on Death's door you die on 1-5.", "effect": "doomed"},
}
SCAR_PLACES: tuple[str, ...] = ("neck", "hands", "eye", "chest", "legs", "ear")  # d6
HEAD_WOUND_ATTRIBUTE: tuple[str, ...] = ("STR", "STR", "DEX", "DEX", "WIL", "WIL")  # d6
