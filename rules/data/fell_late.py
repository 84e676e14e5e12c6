"""Fell (late revision) tables as plain data: creation tables, drives, Cairn names, traits and spells, prices.

Transcribed from the published creation rules and tables matching seed 001 (``fell/creating-a-character.md``
and ``fell/tables.md`` of jacobdensford/jacobdensford.com at commit 95e0caa, kept in
../shared/sources/fell-late-95e0caa/). Item strings keep the source's notation ("crowbar (d4, bulky)",
"brigandine (1 armor)"); the rules package reads the damage die, bulk, blast and armour out of the parentheses.
"""

from __future__ import annotations

# The spell effects are quoted whole, so some lines run long.
# ruff: noqa: E501

CREDIT = (
    "Fell by Jacob Densford (jacobdensford.com/fell), CC BY-SA 4.0: creation rules, backgrounds, drives and prices. "
    "Names, traits and spells from Cairn by Yochai Gal (cairnrpg.com), CC BY-SA 4.0."
)

ATTRIBUTES: tuple[str, ...] = ("STR", "DEX", "INT", "WIL")

# What each attribute covers (creating-a-character.md), in our words.
ATTRIBUTE_HELP: dict[str, str] = {
    "STR": "toughness, grit, strength",
    "DEX": "aim, agility, speed",
    "INT": "cunning, learning, wits",
    "WIL": "leadership, magic, nerve",
}

# creating-a-character.md: d8 per attribute, in order -> attribute die (low, high, die).
ATTRIBUTE_DIE_ROLL: tuple[tuple[int, int, int], ...] = ((1, 2, 4), (3, 6, 6), (7, 8, 8))

# creating-a-character.md: fixed starting HP when not rolling the DEX die: 3, or 4/5/6 for DEX d8/d10/d12.
FIXED_HP: dict[int, int] = {4: 3, 6: 3, 8: 4, 10: 5, 12: 6}

# creating-a-character.md: d8 alignment (low, high, alignment).
ALIGNMENTS: tuple[tuple[int, int, str], ...] = ((1, 2, "Chaotic"), (3, 5, "Neutral"), (6, 8, "Lawful"))

# Seed 001 (Reactions; Morale): (lowest roll, highest roll, result).
REACTIONS: tuple[tuple[int, int, str], ...] = (
    (1, 3, "Hostile"),
    (4, 5, "Wary"),
    (6, 7, "Indifferent"),
    (8, 9, "Friendly"),
    (10, 12, "Helpful"),
)
MORALE: tuple[tuple[int, int, str], ...] = (
    (1, 3, "Hesitate"),
    (4, 5, "Retreat"),
    (6, 7, "Flee"),
    (8, 9, "Surrender conditionally"),
    (10, 12, "Surrender unconditionally"),
)

# Seed 001 (Advancement): hoard thresholds in coin, in order: (hoard, rank, gains HP, raises an attribute).
THRESHOLDS: tuple[tuple[int, str, bool, bool], ...] = (
    (1_000, "novice", True, True),
    (3_000, "professional", True, False),
    (6_000, "expert", False, True),
    (10_000, "veteran", True, False),
    (15_000, "master", False, True),
    (21_000, "legend", True, True),
)

# tables.md, Hirelings (cost per day): rank -> coin a day.
HIRELING_FEES: dict[str, int] = {
    "untrained": 5,
    "novice": 15,
    "professional": 30,
    "expert": 60,
    "veteran": 120,
    "master": 240,
}

# creating-a-character.md: the pack every character starts with (rations for one day, three torches).
STARTING_KIT: tuple[tuple[str, int], ...] = (("rations (1 day)", 1), ("torch (1 hour)", 3))

# The skills the backgrounds give (creating-a-character.md).
SKILLS: tuple[str, ...] = (
    "athletics",
    "discernment",
    "lore",
    "performance",
    "repair",
    "skulduggery",
    "speechcraft",
    "survival",
)

# creating-a-character.md, d20 Background: (name, skill, starting equipment in the source's notation).
BACKGROUNDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Alchemist", "lore", ("firebomb (d6 blast)", "bottle", "fire oil")),
    ("Bard", "performance", ("dagger (d4)", "musical instrument", "face paint")),
    ("Blacksmith", "repair", ("hammer (d4)", "brigandine (1 armor)", "bellows")),
    ("Burglar", "skulduggery", ("crowbar (d4, bulky)", "lockpicks", "rope (50ft)")),
    ("Butcher", "speechcraft", ("cleaver (d4)", "salt", "meat hook")),
    ("Carpenter", "skulduggery", ("chisel (d4)", "nails", "hand drill")),
    ("Farmer", "athletics", ("pitchfork (d4, bulky)", "cookpot", "pouch of seed")),
    ("Gambler", "discernment", ("firebomb (d6 blast)", "cards", "dice")),
    ("Gravedigger", "lore", ("shovel (d4, bulky)", "lantern", "cross necklace")),
    ("Herbalist", "survival", ("sheers (d4)", "mortar & pestle", "herbs")),
    ("Hunter", "survival", ("sling (d4)", "knife (d4)", "rodent trap")),
    ("Magician", "skulduggery", ("staff (d4, bulky)", "hourglass", "goat")),
    ("Mercenary", "athletics", ("club (d4, bulky)", "shield (+1 armor)", "lucky charm")),
    ("Merchant", "speechcraft", ("ornamental sword (d6)", "ledger", "cart")),
    ("Miner", "survival", ("pick (d4, bulky)", "lantern", "canary")),
    ("Noble", "speechcraft", ("family sword (d6)", "book of genealogy", "mirror")),
    ("Outlaw", "survival", ("shortsword (d6)", "shortbow (d4)", "arrows")),
    ("Priest", "performance", ("censer (d4)", "holy water", "incense")),
    ("Servant", "discernment", ("stolen dagger (d4)", "soap", "incriminating letters")),
    ("Scholar", "lore", ("letter opener (d4)", "book", "quill & ink")),
)

# tables.md, Drives (d20): "I seek wealth..."
DRIVES: tuple[str, ...] = (
    "to gain power and influence over others",
    "to acquire prestige and status among my peers",
    "to secure the safety and well-being of my family and loved ones",
    "to gain access to luxuries and resources not available in my current circumstances",
    "to fund a personal quest for knowledge, adventure, or revenge",
    "to acquire magical items or abilities",
    "to establish a stronghold to protect against my enemies",
    "to become independent from oppressive rulers or institutions",
    "to gain access to forbidden or ancient knowledge",
    "to create a legacy for future generations",
    "to fund a rebellion or resistance against an unjust regime",
    "to seek redemption for past wrongs",
    "to become a leader or hero",
    "to gain control over valuable resources such as gold mines, trade routes, or fertile land",
    "to pay off debts or obligations",
    "to gain leverage in political or social negotiations",
    "to gain respect or admiration from others",
    "to provide for future generations",
    "to buy freedom (for myself or others)",
    "to be able to help and support others in need",
)

# tables.md, Names (d20 given name, d20 family name).
GIVEN_NAMES: tuple[str, ...] = (
    "Agune",
    "Arwel",
    "Breagan",
    "Boroth",
    "Bronwyn",
    "Breagle",
    "Cannora",
    "Canhoreal",
    "Drelil",
    "Emrys",
    "Esme",
    "Gringle",
    "Gruwid",
    "Henaine",
    "Lisabeth",
    "Mannog",
    "Morgwen",
    "Orthax",
    "Sybil",
    "Wenlan",
)
FAMILY_NAMES: tuple[str, ...] = (
    "Abernathy",
    "Addercap",
    "Burl",
    "Candlewick",
    "Cormick",
    "Crumwaller",
    "Dunswallow",
    "Getri",
    "Glass",
    "Harkness",
    "Harper",
    "Loomer",
    "Malksmilk",
    "Smythe",
    "Sunderman",
    "Swinney",
    "Thatcher",
    "Tolmen",
    "Weaver",
    "Wolder",
)

# tables.md, Traits (d10 each).
TRAITS: dict[str, tuple[str, ...]] = {
    "Physique": (
        "Athletic",
        "Brawny",
        "Flabby",
        "Lanky",
        "Rugged",
        "Scrawny",
        "Short",
        "Statuesque",
        "Stout",
        "Towering",
    ),
    "Skin": (
        "Birthmark",
        "Dark",
        "Elongated",
        "Pockmarked",
        "Rosy",
        "Round",
        "Soft",
        "Tanned",
        "Tattooed",
        "Weathered",
    ),
    "Hair": ("Bald", "Braided", "Curly", "Filthy", "Frizzy", "Long", "Luxurious", "Oily", "Wavy", "Wispy"),
    "Face": ("Bony", "Broken", "Chiseled", "Elongated", "Pale", "Perfect", "Rat-like", "Sharp", "Square", "Sunken"),
    "Speech": (
        "Blunt",
        "Booming",
        "Cryptic",
        "Droning",
        "Formal",
        "Gravelly",
        "Precise",
        "Squeaky",
        "Stuttering",
        "Whispery",
    ),
    "Clothing": ("Antique", "Bloody", "Elegant", "Filthy", "Foreign", "Frayed", "Frumpy", "Livery", "Rancid", "Soiled"),
    "Virtue": (
        "Ambitious",
        "Cautious",
        "Courageous",
        "Disciplined",
        "Gregarious",
        "Honorable",
        "Humble",
        "Merciful",
        "Serene",
        "Tolerant",
    ),
    "Vice": ("Aggressive", "Bitter", "Craven", "Deceitful", "Greedy", "Lazy", "Nervous", "Rude", "Vain", "Vengeful"),
    "Reputation": (
        "Ambitious",
        "Boor",
        "Dangerous",
        "Entertainer",
        "Honest",
        "Loafer",
        "Oddball",
        "Repulsive",
        "Respected",
        "Wise",
    ),
    "Misfortune": (
        "Abandoned",
        "Addicted",
        "Blackmailed",
        "Condemned",
        "Curse",
        "Defrauded",
        "Demoted",
        "Discredited",
        "Disowned",
        "Exiled",
    ),
}

# tables.md, Spells (d100): (name, effect).
SPELLS: tuple[tuple[str, str], ...] = (
    ("Adhere", "An object is covered in extremely sticky slime."),
    ("Anchor", "A strong wire sprouts from your arms, affixing itself to two points within 50ft on each side."),
    ("Animate Object", "An object obeys your commands as best it can."),
    ("Anthropomorphize", "An animal either gains human intelligence or human appearance for one day."),
    ("Arcane Eye", "You can see through a magical floating eyeball that flies around at your command."),
    ("Astral Prison", "An object is frozen in time and space within an invulnerable crystal shell."),
    ("Attract", "Two objects are strongly magnetically attracted to each other if they come within 10 feet."),
    ("Auditory Illusion", "You create illusory sounds that seem to come from a direction of your choice."),
    ("Babble", "A creature must loudly and clearly repeat everything you think It is otherwise mute."),
    ("Bait Flower", "A plant sprouts from the ground that emanates the smell of decaying flesh."),
    ("Beast Form", "You and your possessions transform into a mundane animal."),
    ("Befuddle", "A creature of your choice is unable to form new short-term memories for the duration of the spell."),
    ("Body Swap", "You switch bodies with a creature you touch If one body dies, the other dies as well."),
    ("Charm", "A creature you can see treats you as a friend."),
    ("Comprehend", "You become fluent in all languages for a short while."),
    ("Command", "A target obeys a single three-word command that does not cause it harm."),
    ("Cone of Foam", "Dense foam sprays from your hand, coating the target."),
    ("Control Plants", "Nearby plants and trees obey you and gain the ability to move at a slow pace."),
    ("Control Weather", "You may alter the type of weather at will, but you do not otherwise control it."),
    ("Cure Wounds", "Restore 1d4 STR per day to a creature you can touch."),
    ("Deafen", "All nearby creatures are deafened."),
    ("Detect Magic", "You can see or hear nearby magical auras."),
    (
        "Disassemble",
        "Any of your body parts may be detached and reattached at will, without causing pain or damage. You can still control them.",
    ),
    (
        "Disguise",
        "You may alter the appearance of one character at will as long as they remain humanoid Attempts to duplicate other characters will seem uncanny.",
    ),
    ("Displace", "An object appears to be up to 15ft from its actual position."),
    ("Earthquake", "The ground begins shaking violently. Structures may be damaged or collapse."),
    ("Elasticity", "Your body can stretch up to 10ft."),
    ("Elemental Wall", "A straight wall of ice or fire 50ft long and 10ft high rises from the ground."),
    ("Filch", "A visible item teleports to your hands."),
    ("Flare", "A bright ball of energy fires a trail of light into the sky, revealing your location to friend or foe."),
    ("Fog Cloud", "A dense fog spreads out from you."),
    ("Frenzy", "A nearby creature erupts in a frenzy of violence."),
    ("Gate", "A portal to a random plane opens."),
    ("Gravity Shift", "You can change the direction of gravity, but only for yourself."),
    ("Greed", "A creature develops the overwhelming urge to possess a visible item of your choice."),
    ("Haste", "Your movement speed is tripled."),
    ("Hatred", "A creature develops a deep hatred of another creature or group and wishes to destroy them."),
    ("Hear Whispers", "You can hear faint sounds clearly."),
    ("Hover", "An object hovers, frictionless, 2ft above the ground. It can hold up to one humanoid."),
    ("Hypnotize", "A creature enters a trance and will truthfully answer one yes or no question you ask it."),
    ("Icy Touch", "A thick ice layer spreads across a touched surface, up to 10ft in radius."),
    (
        "Identify Owner",
        "Letters appear over the object you touch, spelling out the name of the object's owners, if there are any.",
    ),
    ("Illuminate", "A floating light moves as you command."),
    ("Invisible Tether", "Two objects within 10ft of each other cannot be moved more than 10ft apart."),
    ("Knock", "A nearby mundane or magical lock unlocks loudly."),
    ("Leap", "You jump up to 10ft high, once."),
    ("Liquid Air", "The air around you becomes swimmable."),
    ("Magic Dampener", "All nearby magical effects have their effectiveness halved."),
    ("Manse", "A sturdy, furnished cottage appears for hours You can permit and forbid entry to it at will."),
    ("Marble Craze", "Your pockets are full of marbles, and will refill every 30 seconds."),
    ("Masquerade", "A characters appearance and voice becomes identical to those of a character you touch."),
    ("Miniaturize", "A creature you touch is shrunk down to the size of a mouse."),
    ("Mirror Image", "An illusory duplicate of yourself appears and is under your control."),
    ("Mirrorwalk", "A mirror becomes a gateway to another mirror that you looked into today."),
    ("Multiarm", "You temporarily gain an extra arm."),
    ("Night Sphere", "A 50ft wide sphere of darkness displaying the night sky appears before you."),
    ("Objectify", "You become any inanimate object between the size of a grand piano and an apple."),
    ("Ooze Form", "You become a living jelly."),
    ("Pacify", "A creature near you has an aversion to violence."),
    ("Phobia", "A nearby creature becomes terrified of an object of your choice."),
    ("Pit", "A pit 10ft wide and 10ft deep opens in the ground."),
    ("Primal Surge", "A creature rapidly evolves into a future version of its species."),
    (
        "Push/Pull",
        "An object of any size is pulled directly towards you or pushed directly away from you with the strength of one man.",
    ),
    (
        "Raise Dead",
        "A skeleton rises from the ground to serve you. They are incredibly stupid and can only obey simple orders.",
    ),
    ("Raise Spirit", "The spirit of a nearby corpse manifests and will answer 1 question."),
    ("Read Mind", "You can hear the surface thoughts of nearby creatures."),
    ("Repel", "Two objects are strongly magnetically repelled from each other within 10 feet."),
    ("Scry", "You can see through the eyes of a creature you touched earlier today."),
    ("Sculpt Elements", "Inanimate material behaves like clay in your hands."),
    ("Sense", "Choose one kind of object (key, gold, arrow, jug, etc). You can sense the nearest example."),
    ("Shield", "A creature you touch is protected from mundane attacks for one minute."),
    ("Shroud", "A creature you touch is invisible until they move."),
    ("Shuffle", "Two creatures you can see instantly switch places."),
    ("Sleep", "A creature you can see falls into a light sleep."),
    ("Slick", "Every surface in a 30ft radius becomes extremely slippery."),
    ("Smoke Form", "Your body becomes a living smoke that you can control."),
    ("Sniff", "You can smell even the faintest traces of scents."),
    ("Snuff", "The source of any mundane light you can see is instantly snuffed out."),
    ("Sort", "Inanimate items sort themselves according to categories you set."),
    (
        "Spectacle",
        "A clearly false but impressive illusion of your choice appears, under your control. It may be up to the size of a palace and has full motion and sound.",
    ),
    (
        "Spellsaw",
        "A whirling blade flies from your chest, clearing any plant material in its way It is otherwise harmless.",
    ),
    ("Spider Climb", "You can climb surfaces like a spider."),
    (
        "Summon Cube",
        "Once per second you may summon or banish a 3-foot-wide cube of earth New cubes must be affixed to the earth or to other cubes.",
    ),
    ("Swarm", "You become a swarm of crows, rats, or piranhas You can only be harmed by blast attacks."),
    ("Telekinesis", "You may mentally move 1 item under 60lbs."),
    ("Telepathy", "Two creatures can hear each other's thoughts, no matter how far apart."),
    ("Teleport", "An object or person you can see is transported from one place to another in a 50ft radius."),
    ("Target Lure", "An object you touch becomes the target of any nearby spell."),
    ("Thicket", "A thicket of trees and dense brush up to 50ft wide suddenly sprouts up."),
    ("Summon Idol", "A carved stone statue the size of a mule rises from the ground."),
    ("Time Control", "Time in a 50ft bubble slows down or increases by 10% for 30 seconds."),
    ("True Sight", "You see through all nearby illusions."),
    ("Upwell", "A spring of seawater appears."),
    ("Vision", "You completely control what a creature sees."),
    ("Visual Illusion", "A silent, immobile, room-sized illusion of your choice appears."),
    ("Ward", "A silver circle 50ft across appears on the ground. Choose one species that cannot cross it."),
    ("Web", "Your wrists shoot thick webbing."),
    ("Widget", "A primitive version of a drawn tool or item appears before you and disappears after a short time."),
    (
        "Wizard Mark",
        "Your finger can shoot a stream of ulfire-colored paint. This paint is only visible to you and can be seen at any distance, even through solid objects.",
    ),
    ("X-Ray Vision", "You can see through walls, dirt, clothing, etc."),
)

# tables.md, Equipment: price lists in coin. (name, cost) per group; weapons and armour carry their notation.
TOOLS: tuple[str, ...] = (
    "air bladder",
    "animal trap",
    "bellows",
    "crowbar",
    "flint & steel",
    "glue",
    "grappling hook",
    "lantern & oil (4 hours)",
    "lockpicks",
    "manacles",
    "rope (25 feet)",
    "sack",
    "saw",
    "shovel",
    "spikes",
    "torch (1 hour)",
)
TOOL_COST = 1
LUXURIES: tuple[str, ...] = (
    "book",
    "face paint",
    "fire oil",
    "glass bottle",
    "holy water",
    "hourglass",
    "incense",
    "jewelry",
    "mirror",
    "musical instrument",
    "quill & ink",
    "salt",
    "spyglass",
)
LUXURY_COST = 10
RATION_COST = 1  # per day
ANIMALS: tuple[tuple[str, int], ...] = (("goat", 15), ("horse", 75), ("mule", 30))
VEHICLES: tuple[tuple[str, int], ...] = (("carriage", 350), ("cart", 30), ("rowboat", 100), ("wagon", 200))
SERVICES: tuple[tuple[str, int], ...] = (
    ("good meal", 1),
    ("pint of ale", 1),
    ("armor repair (per point of armor)", 10),
    ("silvered weapon", 20),
    ("warm bed (per week)", 5),
)
# Weapon classes: (class, cost, damage die, bulky, weapons).
WEAPON_CLASSES: tuple[tuple[str, int, int, bool, tuple[str, ...]], ...] = (
    ("crude", 1, 4, True, ("bow", "club", "staff", "pitchfork")),
    ("hand", 5, 4, False, ("dagger", "sling", "hand axe")),
    ("simple", 10, 6, False, ("javelin", "lance", "mace", "shortsword", "shortbow")),
    ("battle", 20, 8, True, ("battle axe", "crossbow", "flail", "longsword", "longbow", "warhammer")),
)
PURE_IRON_FACTOR = 2  # pure-iron weapons cost double and break on a 1
# Armour classes: (class, cost, armour, bulky, examples); the shield adds +1.
ARMOUR_CLASSES: tuple[tuple[str, int, int, bool, tuple[str, ...]], ...] = (
    ("crude", 20, 1, True, ("rough breastplate", "brigandine", "ceremonial armor")),
    ("great", 40, 2, True, ("mail", "plate", "scale")),
)
SHIELDS: tuple[str, ...] = ("heater shield", "kite shield", "targe")
SHIELD_COST = 10
