"""Fortune's Favor: the ten 1b classes' features as rules, from one table.

``FEATURES`` maps every class feature (RulesGraph 1b @ 6cff1a6, rules/data/fortunes_favor.py) to what Lantern
does with it: a situational bonus on a test, a one-off bonus waiting for the next roll, a use that charges its
Stamina, Fortune's Favor, Hype or per-rest uses, an attack maneuver, a number on the sheet, or text only with the
reason. The procedures (checks.py, combat.py, this module's FeatureProcedure and AreaAttackProcedure) read the
table; nothing names a class elsewhere. docs/fortunes-favor-classes.md is generated from it (``feature_table``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import fortunes_favor as data
from rules.data import fortunes_favor_extras as extras
from rules.dice import (
    DieRoll,
    RandomSource,
    dice_label,
    ff_damage_step,
    pool_dist,
    roll_die,
    three_outcome_of,
)
from rules.systems.fortunes_favor import beasts
from rules.systems.fortunes_favor.state import (
    STAT_NAMES,
    _st,
    beast_health_max,
    damage_dice,
    damage_stat,
    gain_favor,
    health_max,
    is_dead,
    readable_state,
    spend_stamina,
    stat,
    validate_state,
)

RESTS_RESTORING = {"breath": ("breath",), "night": ("breath", "night"), "rr": ("breath", "night", "rr")}
REST_WORDS = {"breath": "Catch Your Breath", "night": "Night's Rest", "rr": "Rest and Relax"}


@dataclass(frozen=True)
class Feature:
    """What Lantern does with one class feature.

    ``kind``: "sheet" (a number the sheet shows), "test" (a situational bonus the test form offers), "boon" (a use
    that leaves a bonus waiting for someone's next roll), "use" (a use: cost charged, uses counted, an effect),
    "attack" (an attack maneuver), "area" (an area attack), "auto" (applies by itself when its moment comes), or
    "text" (read and played at the table; ``how`` says why).
    """

    kind: str
    how: str
    bonus: int | str = 0  # "test": +N, or a stat's value
    stamina: int = 0  # charged on use (the data's staminaCost, unless the text charges otherwise)
    favor: bool = False  # spends Fortune's Favor
    hype: int = 0  # spends Hype
    uses: tuple[int, str] | None = None  # (uses, the rest that restores them)
    effect: str = ""  # what a use does: a key of _USE_EFFECTS
    boon: Mapping[str, Any] = field(default_factory=dict)  # "boon": the bonus left waiting
    ally: bool = False  # a use may name an ally at the table
    action: bool = False  # it takes your Action: while dying it costs 1 Stamina more (seed 003, Dying)

    @property
    def automated(self) -> bool:
        return self.kind != "text"


def _t(how: str) -> Feature:
    return Feature("text", how)


STAT_UP = Feature("sheet", "levelling up raises one stat by 1 (max 5) and adds a novice feature (Level up roll)")
STAT_UP_2 = Feature("sheet", "levelling up raises one stat by 1 (max 5) and adds a veteran feature (Level up roll)")

FEATURES: dict[tuple[str, str], Feature] = {
    # --- Beastmaster ---------------------------------------------------------------------------------------
    ("BEASTMASTER", "Beast Bond"): Feature(
        "use",
        "choose the beast: it gets its own Health track and numbers on the sheet, attacks with your Heart, "
        "heals what you heal on a rest, is stabilised at 1 Health by a Night's Rest, and takes damage through "
        "Take damage (your deflect dice may cover it)",
        effect="bond",
    ),
    ("BEASTMASTER", "Setup"): Feature(
        "attack",
        "2 Stamina: your attack's damage one step down; on a hit the beast's Follow-up hits too (its damage "
        "rolled with yours)",
        stamina=2,
    ),
    ("BEASTMASTER", "Follow-up"): Feature(
        "attack",
        "2 Stamina: the beast attacks (your Heart as its bonus, its damage a step down); on a hit your Follow-up "
        "hits automatically with your Base Damage",
        stamina=2,
    ),
    ("BEASTMASTER", "Tracking Team"): Feature("test", "+3 to track when the beast knows the quarry", bonus=3),
    ("BEASTMASTER", "Scavenger's at Heart"): _t("twice the forage is the GM's call about what is found"),
    ("BEASTMASTER", "Ferocity"): Feature(
        "auto", "with Fortune's Favor spent on a Setup attack, the beast's Follow-up lands even on a miss"
    ),
    ("BEASTMASTER", "Stat Up"): STAT_UP,
    ("BEASTMASTER", "Ultimate Tag Team"): Feature(
        "use",
        "pick the two maneuvers (kept on the sheet); the Attack form's Setup or Follow-up then offers them for 2 "
        "Stamina more: Protective Pelt gives you and the beast +2 Armor until the next round, the others' riders "
        "(a Mettle test against Entangled, a half-speed move, bleeding) are said on a hit",
        stamina=2,
        effect="pick",
    ),
    ("BEASTMASTER", "Shared Senses"): Feature(
        "use", "once per Night's Rest: counted, and restored by the Night's Rest", uses=(1, "night")
    ),
    ("BEASTMASTER", "Bonded Pair"): _t("knowing where the beast is has no number"),
    ("BEASTMASTER", "Friends Till the End"): Feature(
        "auto", "declaring a Last Stand restores the beast's Health; Follow-ups land even on a miss during it"
    ),
    ("BEASTMASTER", "Stat Up 2"): STAT_UP_2,
    # --- Brawler -------------------------------------------------------------------------------------------
    ("BRAWLER", "Fighting Style"): Feature(
        "sheet", "the attack stat is chosen (Mettle or Agility); Agility doubles range"
    ),
    ("BRAWLER", "Muscle Bound Body"): Feature("sheet", "unarmoured Armor is 10 + Mettle + Agility (at most 2)"),
    ("BRAWLER", "Tag Team"): Feature(
        "boon",
        "after your melee hit: the ally you name has Fortune's Favor on their next attack before the next round "
        "(moving the enemy to them is the map's)",
        boon={"favor": True, "on": "attack", "round": True},
        ally=True,
    ),
    ("BRAWLER", "Bravado"): Feature("test", "adds Mettle to tests to intimidate", bonus="mettle"),
    ("BRAWLER", "Counter Puncher"): Feature("use", "2 Stamina charged for a second Counter Action", stamina=2),
    ("BRAWLER", "Mix It Up"): Feature(
        "attack", "Fortune's Favor spent before the attack: Base Damage doubled on a hit", favor=True
    ),
    ("BRAWLER", "Stat Up"): STAT_UP,
    ("BRAWLER", "Signature Move"): Feature(
        "use",
        "pick the move; Spinning Lariat is an area attack costing 1 Stamina + 1 per enemy; Crippling Strike and Top "
        "Rope Takedown are then the Attack form's, charging their Stamina and saying their rider on a hit; Counter "
        "Throw's Stamina is charged on use",
        effect="pick",
    ),
    ("BRAWLER", "Slab of Beef"): Feature(
        "use", "Fortune's Favor: damage taken is halved until the next round", favor=True, effect="slab"
    ),
    ("BRAWLER", "Running on Pure Adrenaline"): Feature(
        "auto", "during a Last Stand Mettle tests have Fortune's Favor (lift and jumps doubled are the GM's)"
    ),
    ("BRAWLER", "Stat Up 2"): STAT_UP_2,
    # --- Devoted -------------------------------------------------------------------------------------------
    ("DEVOTED", "Spellcasting"): Feature(
        "use",
        "cast a spell of your level or lower: its level in Stamina is charged (which spell it is, from 1b's list, "
        "and its effect are the table's)",
        effect="cast",
    ),
    ("DEVOTED", "Holy Symbol"): _t("a hand rule for casting, checked by the table"),
    ("DEVOTED", "I've Studied the Word"): Feature(
        "test", "+3 to Intellect tests recalling history or religion", bonus=3
    ),
    ("DEVOTED", "Rapid Recuperation"): Feature(
        "use",
        "3 charges per Rest and Relax: at Catch Your Breath you regain Health equal to Heart (allies roll it "
        "on their own sheets)",
        uses=(3, "rr"),
        effect="heal_heart",
    ),
    ("DEVOTED", "Reading the Signs"): Feature(
        "boon", "1 Stamina: Fortune's Favor on your next test", stamina=1, boon={"favor": True, "on": "test"}
    ),
    ("DEVOTED", "Minor Intervention"): Feature(
        "boon",
        "once a day, Fortune's Favor: your or an ally's next test comes out one step better (a Failure Mixed, "
        "a Mixed a Success); Lantern takes it before that roll, so use it when the test matters",
        favor=True,
        uses=(1, "night"),
        boon={"step": True, "on": "test"},
        ally=True,
    ),
    ("DEVOTED", "Stat Up"): STAT_UP,
    ("DEVOTED", "Shepherd of the Word"): Feature("test", "+3 to persuade others to your god's tenets", bonus=3),
    ("DEVOTED", "Martyr"): Feature("auto", "during a Last Stand Base Damage is one step up (two spells is text)"),
    ("DEVOTED", "Divine Inspiration"): Feature(
        "use",
        "3 free castings per adventure: counted, restored by Rest and Relax (Lantern's reading of an adventure)",
        uses=(3, "rr"),
    ),
    ("DEVOTED", "Stat Up 2"): STAT_UP_2,
    # --- Elementalist --------------------------------------------------------------------------------------
    ("ELEMENTALIST", "Elemental Adept"): _t("minor tricks of the element have no number"),
    ("ELEMENTALIST", "Elemental Burst"): Feature(
        "area", "1 Stamina: one attack roll against every creature within 5 ft (10 ft with Bigger Burst)", stamina=1
    ),
    ("ELEMENTALIST", "Enhance"): Feature(
        "boon",
        "1 Stamina: you or an ally add your Intellect to the next Mettle or Agility test; Fortune's Favor "
        "spent doubles it",
        stamina=1,
        boon={"bonus": "intellect", "stats": ["mettle", "agility"], "on": "test"},
        ally=True,
    ),
    ("ELEMENTALIST", "Focused Training"): Feature(
        "use", "pick: Elemental Armor adds Intellect to Armor; Bolt Thrower +30 ft range; Bigger Burst", effect="pick"
    ),
    ("ELEMENTALIST", "Stat Up"): STAT_UP,
    ("ELEMENTALIST", "Twin Attack"): Feature(
        "use", "2 Stamina charged; the two attacks are rolled one after the other", stamina=2
    ),
    ("ELEMENTALIST", "Overcharge"): Feature(
        "use",
        "after damage of your element hits you: the next damage you deal has Base Damage two steps up",
        effect="overcharge",
    ),
    ("ELEMENTALIST", "Power Overwhelming"): Feature(
        "area",
        "during your Last Stand: a last area attack on everyone within 30 ft, three times your Base Damage dice to "
        "each hit and half to the rest; the character dies",
    ),
    ("ELEMENTALIST", "Bursting Shot"): Feature(
        "attack", "Fortune's Favor spent: on a hit, enemies within 5 ft take half the damage (shown)", favor=True
    ),
    ("ELEMENTALIST", "Stat Up 2"): STAT_UP_2,
    # --- Hype Man ------------------------------------------------------------------------------------------
    ("HYPEMAN", "Build Hype"): Feature(
        "use", "1 Stamina: +1 Hype (at most 3), a track on the sheet", stamina=1, effect="hype"
    ),
    ("HYPEMAN", "Hype Up"): Feature(
        "boon", "1 Hype: the ally's next test adds 1d6", hype=1, boon={"die": 6, "on": "any"}, ally=True
    ),
    ("HYPEMAN", "Fortune's Friend"): Feature(
        "use", "when a hyped ally still fails: gain Fortune's Favor", effect="gain_favor"
    ),
    ("HYPEMAN", "Luck On Your Side"): Feature(
        "boon",
        "your Fortune's Favor: the ally's next roll, if it has Fortune's Favor, rolls a third d20 and keeps the "
        "best (exact odds on their sheet)",
        favor=True,
        boon={"d20": True, "on": "any"},
        ally=True,
    ),
    ("HYPEMAN", "Toughen Up"): Feature(
        "boon",
        "2 Stamina: the ally's next deflect rerolls its lowest die when that is below the die's average, and "
        "keeps the new face (exact odds on their Take damage)",
        stamina=2,
        boon={"reroll": True, "on": "deflect"},
        ally=True,
    ),
    ("HYPEMAN", "Stat Up"): STAT_UP,
    ("HYPEMAN", "Bedtime Story"): Feature(
        "use", "once per Rest and Relax, at a Night's Rest: regain 2d4 + Heart Health", uses=(1, "rr"), effect="story"
    ),
    ("HYPEMAN", "Don't Let Me Die In Vain"): Feature("auto", "+1 Hype at the start of each round of a Last Stand"),
    ("HYPEMAN", "Try Again Buddy"): Feature(
        "use", "3 Hype: an ally rerolls a missed attack", hype=3, ally=True, action=True
    ),
    ("HYPEMAN", "I'll Pull Up The Slack"): Feature(
        "test", "3 Hype: + Heart to a non-combat test", bonus="heart", hype=3
    ),
    ("HYPEMAN", "Stat Up 2"): STAT_UP_2,
    # --- Knight --------------------------------------------------------------------------------------------
    ("KNIGHT", "Driving Attack"): Feature(
        "attack", "1 Stamina: a Clash also deals damage or drives 5 ft back (you choose); a hit does both", stamina=1
    ),
    ("KNIGHT", "Sweeping Attack"): Feature(
        "area", "1 Stamina: one attack roll against the target and each adjacent enemy in reach", stamina=1
    ),
    ("KNIGHT", "Vow"): Feature("test", "+3 to Heart tests convincing someone of the truth", bonus=3),
    ("KNIGHT", "Intercept"): Feature("use", "1 Stamina: take an adjacent ally's hit (then Take damage)", stamina=1),
    ("KNIGHT", "Stat Up"): STAT_UP,
    ("KNIGHT", "Unstoppable"): Feature("use", "Fortune's Favor: speed not below half until your next turn", favor=True),
    ("KNIGHT", "No Retreat, No Surrender"): Feature(
        "attack", "attacking last turn's creature without backing off: Base Damage one step up"
    ),
    ("KNIGHT", "Mounted Combatant"): Feature("test", "+3 to control a trained mount", bonus=3),
    ("KNIGHT", "You Won't Be The One To Kill Me"): Feature(
        "auto", "during a Last Stand, damage from the creature you named is 0 (Take damage: from the named creature)"
    ),
    ("KNIGHT", "Stat Up 2"): STAT_UP_2,
    # --- Maverick ------------------------------------------------------------------------------------------
    ("MAVERICK", "Keen Intuition"): Feature("test", "+3 to spot a lie or avoid a trap", bonus=3),
    ("MAVERICK", "Whip Expert"): _t("pulling things with the whip has no number"),
    ("MAVERICK", "Yoink"): Feature(
        "attack",
        "2 Stamina, whip attack: a hit also knocks a character target Prone; a Clash deals half damage",
        stamina=2,
    ),
    ("MAVERICK", "Lucky Shot"): Feature(
        "attack", "Fortune's Favor spent before the roll: +2d6 damage on a hit", favor=True
    ),
    ("MAVERICK", "Sleight of Hand"): Feature("test", "+3 to snatch and hide small things", bonus=3),
    ("MAVERICK", "A Keen Eye for Coin"): _t("knowing a relic's worth is the GM's answer"),
    ("MAVERICK", "Stat Up"): STAT_UP,
    ("MAVERICK", "Balanced Fighter"): Feature(
        "use", "1 Stamina charged; the second attack is rolled separately", stamina=1
    ),
    ("MAVERICK", "Luck Runs Out"): Feature("auto", "Fortune's Favor on declaring a Last Stand and each round of it"),
    ("MAVERICK", "Flee the Scene"): Feature("use", "3 Stamina: double speed until your next turn", stamina=3),
    ("MAVERICK", "Stat Up 2"): STAT_UP_2,
    # --- Ranger --------------------------------------------------------------------------------------------
    ("RANGER", "Predator's Sense"): Feature(
        "test", "+3 to track and to find hidden creatures (doubled during a Last Stand with Final Hunt)", bonus=3
    ),
    ("RANGER", "Precision of the Hawk"): Feature("auto", "1s on attack damage dice are rerolled once"),
    ("RANGER", "Cunning Stalker"): Feature("test", "1 Stamina: +2 to a stealth test", bonus=2, stamina=1),
    ("RANGER", "Wild Guide"): Feature(
        "sheet", "the off-road march on the sheet adds your Heart in miles (the party you guide goes as far)"
    ),
    ("RANGER", "Quickdraw Counter"): _t("which weapon counters has no number"),
    ("RANGER", "Stat Up"): STAT_UP,
    ("RANGER", "Poisoned Blade"): Feature("attack", "a coated weapon adds 1d4 rot damage"),
    ("RANGER", "Final Hunt"): Feature(
        "auto", "during a Last Stand every attack adds Poisoned Blade's 1d4 and Predator's Sense is +6 (speed +10 ft)"
    ),
    ("RANGER", "Long Shot"): Feature(
        "use", "your speed drops to 0 and your range doubles on the sheet until the next round", effect="long_shot"
    ),
    ("RANGER", "Stat Up 2"): STAT_UP_2,
    # --- Shapeshifter --------------------------------------------------------------------------------------
    ("SHIFTER", "Shape Changer"): Feature(
        "use",
        "pick the form; while worn it replaces size, Armor and damage (Heart may stand in for its stat)",
        effect="form_choice",
    ),
    ("SHIFTER", "Shift"): Feature(
        "use",
        "1 Stamina: take the form (a Big form adds 4 Health per level, lost first); it ends at Catch Your Breath, "
        "at 0 Health, or by choice",
        stamina=1,
        effect="shift",
        action=True,
    ),
    ("SHIFTER", "Commune with Nature"): Feature("test", "+3 with animals like your form", bonus=3),
    ("SHIFTER", "Reinvigorate"): Feature(
        "use", "Fortune's Favor: + Heart to Armor until the next round", favor=True, effect="reinvigorate", action=True
    ),
    ("SHIFTER", "Stat Up"): STAT_UP,
    ("SHIFTER", "Unusual Form"): Feature("use", "2 Stamina charged for a movement (played on the map)", stamina=2),
    ("SHIFTER", "Nature's Wrath"): Feature("auto", "during a Last Stand every attack adds 2d6 rot damage"),
    ("SHIFTER", "Blood Tracker"): Feature("test", "+5 to track an enemy you hurt in the last hour", bonus=5),
    ("SHIFTER", "Impeccable Survivalist"): _t("foraging without slowing has no number"),
    ("SHIFTER", "Stat Up 2"): STAT_UP_2,
    # --- Spellsword ----------------------------------------------------------------------------------------
    ("SPELLSWORD", "Fighting Style"): Feature("sheet", "the attack and damage stat is chosen (Mettle or Agility)"),
    ("SPELLSWORD", "Infusions"): Feature(
        "use",
        "pick two; activating one costs 2 Stamina and replaces the active one (a rest deactivates it); Bolster "
        "waits for the next Mettle or Agility test with the Infusion Dice; Launch adds them to ranged damage",
        stamina=2,
        effect="infuse",
    ),
    ("SPELLSWORD", "Infusion Dice"): Feature("sheet", "the Infusion Dice are 1d6 (1d8 from Infusion of Power)"),
    ("SPELLSWORD", "Double Up"): Feature("use", "Fortune's Favor: a second Infusion for one round", favor=True),
    ("SPELLSWORD", "Infusion Training"): Feature("use", "a third Infusion to pick", effect="pick"),
    ("SPELLSWORD", "Stat Up"): STAT_UP,
    ("SPELLSWORD", "Spell Weaver"): Feature(
        "auto", "activating an Infusion leaves the Infusion Dice waiting for your next attack test this round"
    ),
    ("SPELLSWORD", "Infusion of Power"): Feature("sheet", "Infusion Dice 1d8, and a fourth Infusion to pick"),
    ("SPELLSWORD", "Limit Break"): Feature("auto", "during a Last Stand the Infusion Dice are doubled (two dice)"),
    ("SPELLSWORD", "Stat Up 2"): STAT_UP_2,
}


# Novice features (seed 003 with noviceFeatures.ts): those a test, a speed or a load reads, and those left as text.
_N3 = "+3 to the tests it names"
NOVICE: dict[str, Feature] = {
    "Academic": Feature("test", "Fortune's Favor when researching in a library", bonus=0),
    "Aid": Feature("sheet", 'the test form\'s help adds +2 more ("A helper has Aid")'),
    "Artisan": _t("a tool training has no number"),
    "Athletic": Feature("test", "+3 to Mettle tests of strength or endurance", bonus=3),
    "Daring": _t("a coin flip instead of a test is played at the table (3 per Rest and Relax)"),
    "Disguise Master": Feature("test", "+3 to disguise yourself", bonus=3),
    "Imitator": Feature("test", "+3 to imitate a voice", bonus=3),
    "Independent": Feature("test", "once a day, +3 to a non-combat test made alone", bonus=3, uses=(1, "night")),
    "Infiltrator": Feature("test", "+3 to sneak", bonus=3),
    "Insightful": Feature("test", "+3 to Heart tests reading intent or spotting a lie", bonus=3),
    "Keen Eyed": Feature("test", "+3 to Heart tests spotting hidden things", bonus=3),
    "Knowledgeable": Feature("test", "+3 on tests about the chosen subject", bonus=3),
    "Linguist": Feature("sheet", "one more language at creation; +3 to decipher (test form)", bonus=3),
    "Long Jumper": Feature("sheet", "+5 ft on the jump distances the sheet shows"),
    "Medical Training": Feature("sheet", "Fortune's Favor on Heal a dying ally"),
    "Performer": Feature("test", "+3 to judge your performance", bonus=3),
    "Reliable Skill": _t("counting a roll as 12 is the player's call after seeing it (3 per Rest and Relax)"),
    "Silver Tongued": Feature("test", "+3 to Heart tests of emotional appeal", bonus=3),
    "Swift": Feature("sheet", "+10 ft ground speed on the sheet"),
    "Swift Climber": Feature("sheet", "+5 ft climb speed on the sheet"),
    "Swift Swimmer": Feature("sheet", "+5 ft swim speed on the sheet"),
    "Trekker": Feature("sheet", "lift and drag doubled on the sheet"),
}
# Linguist's +3 is a test situation too.
NOVICE_TEST_ALSO = ("Linguist",)
VETERAN: dict[str, Feature] = {
    "Charger": Feature("attack", "after 15 ft in a straight line: Base Damage one step up (the shove is the map's)"),
    "Folk Hero": _t("being known is a luck test the GM calls (the Test roll's Luck)"),
    "Imbued Attacks": _t("a damage type has no number in 1b's damage"),
    "Legendary": _t("which novice bonus doubles is a choice the sheet does not keep yet"),
    "Perpetual Amateur": _t("the two extra novice features are added by hand with Level up's novice pick"),
    "Skirmisher's Agility": _t("movement is played on the map"),
    "Unfailing": _t("turning a failed roll into a mixed one after the dice is the player's call (spend by hand)"),
    "Weapon Master": Feature("attack", "with the chosen weapon class: Base Damage one step up"),
}


def feature_level(class_key: str, name: str) -> int:
    return next(level for level, n, _, _ in data.CLASSES[class_key]["features"] if n == name)


def has(state: Mapping[str, Any], name: str) -> bool:
    """The character has the feature: their class's at their level, or a novice or veteran feature taken."""
    for level, n, _, _ in data.CLASSES[state["class"]]["features"]:
        if n == name:
            return level <= state["level"]
    return name in state["novice_features"] or name in state["veteran_features"]


# Signature Move's melee moves (Brawler 5), taken on the Attack form once picked: their own Stamina (the "+1 per
# size larger" is added by hand) and the rider a hit brings, said in the roll.
SIGNATURE_ATTACKS: dict[str, Feature] = {
    "Crippling Strike": Feature(
        "attack",
        "2 Stamina, melee: on a hit the enemy deals half damage and cannot move until the round ends",
        stamina=2,
    ),
    "Top Rope Takedown": Feature(
        "attack",
        "1 Stamina, from an ally or something sturdy beside the target: on a hit, your attack stat against the "
        "target's, and if you win it is knocked Prone",
        stamina=1,
    ),
}


def feature(state: Mapping[str, Any], name: str) -> Feature:
    if (state["class"], name) in FEATURES:
        return FEATURES[(state["class"], name)]
    if name in SIGNATURE_ATTACKS:
        return SIGNATURE_ATTACKS[name]
    if name in NOVICE:
        return NOVICE[name]
    return VETERAN[name]


def owned(state: Mapping[str, Any], kind: str) -> list[str]:
    """The character's features of one kind: class features in level order, then novice and veteran ones."""
    out = [
        n
        for level, n, _, _ in data.CLASSES[state["class"]]["features"]
        if level <= state["level"] and FEATURES[(state["class"], n)].kind == kind
    ]
    for n in state["novice_features"]:
        if NOVICE[n].kind == kind or (kind == "test" and n in NOVICE_TEST_ALSO):
            out.append(n)
    out += [n for n in state["veteran_features"] if VETERAN[n].kind == kind]
    if kind == "attack" and has(state, "Signature Move"):
        out += [n for n in picked(state, "Signature Move") if n in SIGNATURE_ATTACKS]
    return out


def picked(state: Mapping[str, Any], name: str) -> list[str]:
    return list(state["feats"]["picks"].get(name, []))


def _bonus_value(state: Mapping[str, Any], bonus: int | str) -> int:
    return stat(state, bonus) if isinstance(bonus, str) else int(bonus)


def in_last_stand(state: Mapping[str, Any]) -> bool:
    return bool(state["last_stand"])


def infusion_dice(state: Mapping[str, Any]) -> tuple[int, ...]:
    """Infusion Dice: 1d6, 1d8 from Infusion of Power; Limit Break doubles them in a Last Stand (two dice)."""
    die = extras.INFUSION_DIE_POWER if has(state, "Infusion of Power") else extras.INFUSION_DIE
    count = 2 if in_last_stand(state) and has(state, "Limit Break") else 1
    return (die,) * count


# --- tests: situational bonuses and waiting boons --------------------------------------------------------


def test_situations(sheet: Sheet | None) -> tuple[tuple[str, str], ...]:
    """The class features that may add to a test, for the test form's choice."""
    state = readable_state(sheet)
    if state is None:
        return ()
    out = []
    for name in owned(state, "test"):
        f = feature(state, name)
        out.append((name, f"{name}: {f.how}"))
    if state["feats"]["infusion"] == "Veil":
        out.append(("Veil", f"Veil: {extras.OPTION_WORDS['Veil']}"))
    return tuple(out)


def situation_param(sheet: Sheet | None) -> Param:
    return Param(
        "situation",
        "A class feature that applies",
        "choice",
        "",
        choices=(("", "—"), *test_situations(sheet)),
        help="Only when the feature's situation is the one being tested.",
    )


@dataclass
class TestExtras:
    """What class features add to one roll: bonus, Fortune's Favor, dice, what it costs, what it uses up."""

    bonus: int = 0
    favor: int = 0
    dice: tuple[int, ...] = ()
    stamina: int = 0
    hype: int = 0
    boons: list[int] = field(default_factory=list)  # indexes into feats["boons"] consumed
    uses: str = ""  # the feature whose use per rest this roll counts
    step: bool = False  # Minor Intervention: the result one step better
    d20: bool = False  # Luck On Your Side: a third d20 when the roll has Fortune's Favor
    notes: list[str] = field(default_factory=list)
    what: str = ""


def test_extras(
    state: Mapping[str, Any], params: Mapping[str, Any], stat_key: str | None, *, attack: bool
) -> TestExtras:
    """The bonuses class features give a test (or an attack test) now; refused before the odds if unaffordable."""
    x = TestExtras()
    name = params.get("situation") or ""
    if name == "Veil":  # Spellsword, the Veil Infusion while active: the Infusion Dice on hiding and sneaking
        if state["feats"]["infusion"] != "Veil":
            raise RulesError("Veil adds only while it is your active Infusion.")
        x.dice += infusion_dice(state)
        x.notes.append(f"Veil: +{dice_label(infusion_dice(state), True)}")
        name = ""
    if name:
        if name not in owned(state, "test"):
            raise RulesError(f"{name} is not one of your features for tests.")
        f = feature(state, name)
        if f.uses and state["feats"]["uses"].get(name, 0) >= f.uses[0]:
            raise RulesError(f"{name} is used up until your next {REST_WORDS[f.uses[1]]}.")
        value = _bonus_value(state, f.bonus)
        if name == "Academic":
            x.favor += 1
            x.notes.append("Academic: Fortune's Favor")
        x.uses = name if f.uses else ""
        if name == "Predator's Sense" and in_last_stand(state) and has(state, "Final Hunt"):
            value *= 2
        x.bonus += value
        x.stamina += f.stamina
        x.hype += f.hype
        if value:
            x.notes.append(f"{name}: {value:+d}")
        x.what = name
    if not attack and stat_key == "mettle" and in_last_stand(state) and has(state, "Running on Pure Adrenaline"):
        x.favor += 1
        x.notes.append("Running on Pure Adrenaline: Fortune's Favor")
    for i, boon in enumerate(state["feats"]["boons"]):
        wanted = boon["on"] in ("any", "attack" if attack else "test")
        if not wanted or (boon["stats"] and stat_key not in boon["stats"]):
            continue
        x.boons.append(i)
        x.bonus += boon["bonus"]
        if boon["die"]:
            x.dice += (boon["die"],) * boon["dice"]
        if boon["favor"]:
            x.favor += 1
        x.step = x.step or boon["step"]
        x.d20 = x.d20 or boon["d20"]
        parts = [
            f"{boon['bonus']:+d}" if boon["bonus"] else "",
            f"+{boon['dice']}d{boon['die']}" if boon["die"] else "",
        ]
        parts.append("Fortune's Favor" if boon["favor"] else "")
        parts.append("the result one step better" if boon["step"] else "")
        parts.append("a third d20 with Fortune's Favor" if boon["d20"] else "")
        x.notes.append(f"{boon['from']}: {' '.join(p for p in parts if p)}")
    if x.hype > state["feats"]["hype"]:
        raise RulesError(f"{x.what} costs {x.hype} Hype; you have {state['feats']['hype']}.")
    if x.stamina:
        spend_stamina(dict(state, statuses=dict(state["statuses"])), x.stamina, x.what)
    return x


def pay_extras(state: dict[str, Any], x: TestExtras) -> list[str]:
    """Charge what the features cost and use up the boons the roll took."""
    notes: list[str] = []
    if x.stamina:
        notes += spend_stamina(state, x.stamina, x.what)
    if x.hype:
        state["feats"]["hype"] -= x.hype
        notes.append(f"{x.what}: −{x.hype} Hype")
    if x.boons:
        state["feats"]["boons"] = [b for i, b in enumerate(state["feats"]["boons"]) if i not in x.boons]
    if x.uses:
        state["feats"]["uses"][x.uses] = state["feats"]["uses"].get(x.uses, 0) + 1
        notes.append(f"{x.uses}: used until your next {REST_WORDS[feature(state, x.uses).uses[1]]}")  # type: ignore[index]
    return notes


# --- attacks: maneuvers and damage -------------------------------------------------------------------------


def maneuver_choices(sheet: Sheet | None) -> tuple[tuple[str, str], ...]:
    state = readable_state(sheet)
    if state is None:
        return ()
    return tuple((n, f"{n}: {feature(state, n).how}") for n in owned(state, "attack"))


def maneuver_param(sheet: Sheet | None) -> Param:
    return Param(
        "maneuver",
        "Class feature",
        "choice",
        "",
        choices=(("", "— a plain attack —"), *maneuver_choices(sheet)),
        resets=True,
    )


def sheet_state(sheet: Sheet | None) -> dict[str, Any] | None:
    """The sheet's state for drawing a form, or None without a sheet or with one the rules cannot read."""
    if sheet is None:
        return None
    try:
        return _st(sheet)
    except RulesError:
        return None


def tag_move_param(sheet: Sheet | None) -> tuple[Param, ...]:
    """Ultimate Tag Team: the picked maneuvers, offered on a Setup or Follow-up attack."""
    state = sheet_state(sheet)
    moves = picked(state, "Ultimate Tag Team") if state is not None and has(state, "Ultimate Tag Team") else []
    if not moves:
        return ()
    choices = tuple((m, f"{m} ({extras.TAG_MOVES[m]}): {extras.OPTION_WORDS[m]}") for m in moves)
    return (
        Param(
            "tag_move",
            "Ultimate Tag Team maneuver",
            "choice",
            "",
            choices=(("", "— none —"), *choices),
            help=f"In place of the Setup or Follow-up it names, {extras.TAG_MOVE_STAMINA} Stamina more.",
        ),
    )


def _tag_move(state: Mapping[str, Any], params: Mapping[str, Any]) -> str:
    move = params.get("tag_move") or ""
    if not move:
        return ""
    if move not in picked(state, "Ultimate Tag Team"):
        raise RulesError(f"{move} is not one of your Ultimate Tag Team picks.")
    if (params.get("maneuver") or "") != extras.TAG_MOVES[move]:
        raise RulesError(f"{move} takes the place of a {extras.TAG_MOVES[move]}: pick that class feature.")
    return move


def _maneuver_stamina(state: Mapping[str, Any], f: Feature, params: Mapping[str, Any]) -> int:
    return f.stamina + (extras.TAG_MOVE_STAMINA if _tag_move(state, params) else 0)


def check_maneuver(state: Mapping[str, Any], params: Mapping[str, Any]) -> Feature | None:
    name = params.get("maneuver") or ""
    if not name:
        if params.get("tag_move"):
            raise RulesError("An Ultimate Tag Team maneuver takes the place of a Setup or Follow-up: pick one.")
        return None
    if name not in owned(state, "attack"):
        raise RulesError(f"{name} is not one of your attack features.")
    f = feature(state, name)
    if f.favor and state["fortunes_favor"] < 1:
        raise RulesError(f"{name} spends Fortune's Favor, and you have none.")
    if f.favor and params.get("spend_favor"):
        raise RulesError(f"{name} spends your Fortune's Favor: it cannot also buy a second d20.")
    if name in ("Setup", "Follow-up") and not state["feats"]["beast"]:
        raise RulesError("Choose your beast first (Use a class feature: Beast Bond).")
    beasts.check(state, name)  # a Follow-up needs a beast with a Setup
    cost = _maneuver_stamina(state, f, params)
    if cost:
        spend_stamina(dict(state, statuses=dict(state["statuses"])), cost, name)
    return f


def pay_maneuver(state: dict[str, Any], params: Mapping[str, Any]) -> list[str]:
    name = params.get("maneuver") or ""
    if not name:
        return []
    f = feature(state, name)
    notes: list[str] = []
    cost = _maneuver_stamina(state, f, params)
    if cost:
        notes += spend_stamina(state, cost, _tag_move(state, params) or name)
    if f.favor:
        state["fortunes_favor"] -= 1
        notes.append(f"{name}: Fortune's Favor spent")
    return notes


def base_damage(state: Mapping[str, Any]) -> tuple[tuple[int, ...], int, list[tuple[tuple[int, ...], int, str]]]:
    """Base Damage now: the dice, the stat bonus, and any further parts (a Small form's rot die). A form
    replaces the class's damage (Heart may stand in for the form's stat); Martyr steps it up in a Last Stand."""
    form = state["feats"]["form"]
    more: list[tuple[tuple[int, ...], int, str]] = []
    if form:
        parts = extras.FORMS[form]["damage"]
        count, die, key = parts[0]
        pool: tuple[int, ...] = (die,) * count
        bonus = max(stat(state, key), stat(state, "heart")) if key else 0
        for count2, die2, key2 in parts[1:]:
            more.append(((die2,) * count2, max(stat(state, key2), stat(state, "heart")) if key2 else 0, "rot"))
        if "Exhausted" in state["statuses"]:
            pool = ff_damage_step(pool, -2)
    else:
        pool, bonus = damage_dice(state), damage_stat(state)
    if in_last_stand(state) and has(state, "Martyr"):
        pool = ff_damage_step(pool, 1)
    return pool, bonus, more


def beast_damage(state: Mapping[str, Any]) -> tuple[tuple[int, ...], int]:
    count, die, key = extras.BEASTS[state["feats"]["beast"]]["damage"]
    return (die,) * count, extras.BEASTS[state["feats"]["beast"]]["stats"][key]


@dataclass
class Damage:
    dice: list[DieRoll] = field(default_factory=list)
    total: int = 0
    words: list[str] = field(default_factory=list)
    beast: int | None = None


def _roll_part(rng: RandomSource, pool: tuple[int, ...], label: str, hawk: bool, out: Damage) -> int:
    total = 0
    for die in pool:
        d = roll_die(rng, die, label)
        if hawk and d.face == 1:
            out.dice.append(DieRoll(d.sides, d.face, False, label))
            d = roll_die(rng, die, f"{label} reroll")
        out.dice.append(d)
        total += d.face
    return total


OVERCHARGE_STEPS = 2  # Elementalist 5, Overcharge: "2 dice steps"
POWER_OVERWHELMING_TIMES = 3  # Elementalist 6, Power Overwhelming: three times your Base Damage dice


def final_blast(state: dict[str, Any], damage: int, hits: int, others: int) -> str:
    """Power Overwhelming: half the damage to every target not hit, and the character dies."""
    state["dead"] = True
    state["last_stand"] = 0
    half = f"; {damage // 2} to each of the {others} not hit" if others else ""
    return f"Power Overwhelming: {damage} to each of the {hits} hit{half}. The blast ends your Last Stand: dead."


def roll_damage(
    rng: RandomSource, state: dict[str, Any], params: Mapping[str, Any], result: str, kept: int, careful: bool
) -> Damage:
    """Seed 003 damage for an attack that deals it, with the class features that change it (in order: the
    maneuver's steps, Martyr, the dice with Precision of the Hawk, the stat, Lucky Shot's 2d6, rot from Poisoned
    Blade / Final Hunt / Nature's Wrath, doubling for a natural 20 or Mix It Up, halving for care or a Clash)."""
    name = params.get("maneuver") or ""
    out = Damage()
    pool, bonus, more = base_damage(state)
    steps = 0
    if name == "Setup":
        steps -= 1
    if name in ("No Retreat, No Surrender", "Charger", "Weapon Master"):
        steps += 1
    boost: list[str] = []
    if name == "Follow-up":  # the beast's Setup ability on your Follow-up (Menacing Attack, Raking Attack)
        more_steps, more_bonus, boost = beasts.setup_boost(state)
        steps, bonus = steps + more_steps, bonus + more_bonus
    if name == "Power Overwhelming":  # three times the Base Damage dice
        pool = pool * POWER_OVERWHELMING_TIMES
    overcharged = state["feats"]["overcharged"]
    if overcharged:  # Elementalist, Overcharge: spent on this damage
        steps += OVERCHARGE_STEPS
        state["feats"]["overcharged"] = False
    if steps:
        pool = ff_damage_step(pool, steps)
    hawk = has(state, "Precision of the Hawk")
    if name == "Follow-up":
        # The beast's Setup is the roll; on a hit your Follow-up lands with your Base Damage (below) and the
        # beast's own attack deals its damage a step down.
        bpool, bbonus = beast_damage(state)
        bpool = ff_damage_step(bpool, -1)
        out.beast = max(0, _roll_part(rng, bpool, "beast damage", False, out) + bbonus)
        out.words.append(f"the beast's Setup {out.beast} ({dice_label(bpool, True)}{bbonus:+d})")
    total = _roll_part(rng, pool, "damage", hawk, out) + bonus
    how = [f"{dice_label(pool, True)}{bonus:+d}", *boost]
    if overcharged:
        how.append("Overcharge: two steps up")
    if hawk:
        how.append("1s rerolled")
    for mpool, mbonus, kind in more:
        total += _roll_part(rng, mpool, kind, hawk, out) + mbonus
        how.append(f"{dice_label(mpool, True)}{mbonus:+d} {kind}")
    if name == "Lucky Shot":
        total += _roll_part(rng, (6, 6), "Lucky Shot", False, out)
        how.append("Lucky Shot 2d6")
    if name == "Poisoned Blade" or (in_last_stand(state) and has(state, "Final Hunt")):
        total += _roll_part(rng, (4,), "rot", False, out)
        how.append("Poisoned Blade 1d4 rot")
    if in_last_stand(state) and has(state, "Nature's Wrath"):
        total += _roll_part(rng, (6, 6), "rot", False, out)
        how.append("Nature's Wrath 2d6 rot")
    if state["feats"]["infusion"] == "Launch" and params.get("ranged"):
        launch = infusion_dice(state)
        total += _roll_part(rng, launch, "Launch", False, out)
        how.append(f"Launch {dice_label(launch, True)}")
    if kept == 20:
        total *= 2
        how.append("doubled for a natural 20")
    if name == "Mix It Up" and result == "hit":
        total *= 2
        how.append("doubled by Mix It Up")
    if careful:
        total //= 2
        how.append("halved for care")
    if result == "clash" and name == "Yoink":
        total //= 2
        how.append("halved: Yoink's Clash")
    out.total = max(0, total)
    out.words.insert(0, f"{out.total} damage ({', '.join(how)})")
    if follow_up_allowed(state, params, result):
        out.beast = beast_follow_up(rng, state, out, params)
    return out


def follow_up_allowed(state: Mapping[str, Any], params: Mapping[str, Any], result: str) -> bool:
    """Setup: the beast's Follow-up lands on a hit; on a miss too with Fortune's Favor spent on the attack
    (Ferocity) or during your Last Stand (Friends Till the End). A beast at 0 Health, or without a Follow-up
    (beasts.follows_up), does nothing."""
    if (params.get("maneuver") or "") != "Setup" or not beasts.follows_up(state):
        return False
    if result == "hit":
        return True
    if params.get("spend_favor") and has(state, "Ferocity"):
        return True
    return in_last_stand(state) and has(state, "Friends Till the End")


def follow_up_on_miss(state: Mapping[str, Any], params: Mapping[str, Any]) -> bool:
    return follow_up_allowed(state, params, "miss")


def beast_follow_up(rng: RandomSource, state: Mapping[str, Any], out: Damage, params: Mapping[str, Any]) -> int:
    """The beast's Follow-up after your Setup, with its Follow-up ability (beasts.follow_up_damage)."""
    bpool, bbonus, notes = beasts.follow_up_damage(state, params)
    value = max(0, _roll_part(rng, bpool, "beast damage", False, out) + bbonus)
    out.words.append(f"the beast's Follow-up {value} ({', '.join([f'{dice_label(bpool, True)}{bbonus:+d}', *notes])})")
    return value


def deals_on_clash(params: Mapping[str, Any]) -> bool:
    """Driving Attack (choose damage on a Mix) and Yoink (half damage on a Clash) deal damage on a Clash."""
    return (params.get("maneuver") or "") in ("Driving Attack", "Yoink")


def attack_riders(
    state: dict[str, Any], params: Mapping[str, Any], result: str, target: dict[str, Any] | None
) -> list[str]:
    """What a maneuver does besides damage: Yoink's Prone, Driving Attack's push, Bursting Shot's splash,
    Setup/Follow-up when they miss."""
    name = params.get("maneuver") or ""
    notes: list[str] = []
    if name == "Yoink" and result == "hit" and target is not None:
        target["statuses"].setdefault("Prone", 0)
        notes.append("Yoink: the target is Prone")
    elif name == "Yoink" and result == "clash":
        notes.append("Yoink: the next attack on the target this turn has Fortune's Favor")
    if name == "Driving Attack" and result in ("hit", "clash"):
        notes.append("Driving Attack: driven 5 ft back" + (" too" if result == "hit" else " instead, if you choose"))
    if name == "Bursting Shot" and result == "hit":
        notes.append("Bursting Shot: enemies within 5 ft of the target take half")
    if name == "Follow-up" and result != "hit":
        notes.append("the beast's Setup missed: no Follow-up")
    if name in SIGNATURE_ATTACKS and result == "hit":
        notes.append(f"{name}: {SIGNATURE_ATTACKS[name].how.split(': ', 1)[1]}")
    move = params.get("tag_move") or ""
    if move == "Protective Pelt":  # "You and your Beast each gain +2 Armor until the start of the next round"
        state["feats"]["pelt"] = True
        notes.append(f"Protective Pelt: +{extras.PELT_ARMOR} Armor for you and the beast until the next round")
    elif move and result == "hit":
        notes.append(f"{move}: {TAG_RIDERS[move]}")
    return notes


# Ultimate Tag Team's riders on a hit that the table plays out (no number on a sheet Lantern holds).
TAG_RIDERS = {
    "Entangling Strike": "the target tests Mettle (13/8) or is Entangled until the next round",
    "Predator's Leap": "you may move up to half your speed now",
    "Savage Rend": "the target bleeds 1d4 at the start of each round until it spends an Action to stop it",
}


def attacker_for(state: Mapping[str, Any], params: Mapping[str, Any]) -> tuple[int, str] | None:
    """Follow-up: the beast makes the attack roll with your Heart (Beast Bond). None: you attack."""
    if (params.get("maneuver") or "") == "Follow-up":
        return stat(state, "heart"), "the beast (your Heart)"
    form = state["feats"]["form"]
    if form:  # Shape Changer: the form's attack stat, or Heart in its place
        key = extras.FORMS[form]["attack_stat"]
        return max(stat(state, key), stat(state, "heart")), f"in your form ({STAT_NAMES[key]} or Heart)"
    return None


TARGET_STATUSES = ("Blind", "Prone")  # the target's statuses that change an attack on it (seed 003, Statuses)


def target_situation(statuses: Iterable[str], ranged: bool) -> tuple[int, int, list[str]]:
    """Seed 003, Statuses, of the target (the names on its sheet, or an NPC's as the GM wrote them, in any
    case): Blind gives attacks on it Fortune's Favor; Prone gives melee attacks Fortune's Favor and ranged ones
    Misfortune. (favor, misfortune, notes): the roll cancels them one for one (spec §003.4). Every attack on a
    target, from a sheet or the GM's tracker, and every NPC attack on a character asks this one function."""
    favor = misfortune = 0
    notes = []
    now = {str(name).strip().lower() for name in statuses}
    if "blind" in now:
        favor += 1
        notes.append("target Blind: Fortune's Favor")
    if "prone" in now:
        if ranged:
            misfortune += 1
            notes.append("target Prone, ranged: Misfortune")
        else:
            favor += 1
            notes.append("target Prone, melee: Fortune's Favor")
    return favor, misfortune, notes


# --- the rounds and rests --------------------------------------------------------------------------------


def on_last_stand(state: dict[str, Any], sheet: Sheet | None) -> list[str]:
    notes = []
    if has(state, "Friends Till the End") and state["feats"]["beast"]:
        state["feats"]["beast_health"] = beast_health_max(state)
        notes.append("Friends Till the End: the beast's Health is full")
    if has(state, "Luck Runs Out"):
        gain_favor(state, sheet)
        notes.append("Luck Runs Out: Fortune's Favor")
    if has(state, "Nature's Wrath"):
        notes.append("Nature's Wrath: you may Shift now")
    return notes


def on_new_round(state: dict[str, Any], sheet: Sheet | None) -> list[str]:
    """The start of a round: Slab of Beef and Reinvigorate end; Last Stand features fire."""
    notes = []
    feats = state["feats"]
    if feats["slab"]:
        feats["slab"] = False
        notes.append("Slab of Beef ends")
    if feats["reinvigorated"]:
        feats["reinvigorated"] = False
        notes.append("Reinvigorate ends")
    if feats["long_shot"]:
        feats["long_shot"] = False
        notes.append("Long Shot ends")
    if feats["pelt"]:
        feats["pelt"] = False
        notes.append("Protective Pelt ends")
    lasting = [b for b in feats["boons"] if not b["round"]]
    if len(lasting) < len(feats["boons"]):
        notes += [f"{b['from']} ends" for b in feats["boons"] if b["round"]]
        feats["boons"] = lasting
    if state["last_stand"] and not state["dead"]:
        if has(state, "Luck Runs Out"):
            gain_favor(state, sheet)
            notes.append("Luck Runs Out: Fortune's Favor")
        if has(state, "Don't Let Me Die In Vain"):
            feats["hype"] = min(extras.HYPE_MAX, feats["hype"] + 1)
            notes.append("Don't Let Me Die In Vain: +1 Hype")
    return notes


def on_rest(state: dict[str, Any], kind: str, healed: int, finished: bool) -> list[str]:
    """Beginning a rest deactivates Infusions; finishing it ends a form at Catch Your Breath (and longer), heals
    the beast what you healed (a Night's Rest stabilises a downed beast at 1), and restores uses per rest."""
    feats = state["feats"]
    notes = []
    if feats["infusion"]:
        feats["infusion"] = ""
        notes.append("Infusions deactivated")
    if not finished:
        return notes
    if feats["form"]:
        feats["form"], feats["form_health"] = "", 0
        notes.append("the form ends")
    if feats["beast"]:
        top = beast_health_max(state)
        before = feats["beast_health"]
        if before == 0:
            if kind in ("night", "rr"):
                feats["beast_health"] = min(top, 1 + (healed if kind == "rr" else 0))
        else:
            feats["beast_health"] = min(top, before + healed)
        if kind == "rr":
            feats["beast_health"] = top
        if feats["beast_health"] != before:
            notes.append(f"the beast's Health {before} → {feats['beast_health']}")
    restored = RESTS_RESTORING[kind]
    for name in list(feats["uses"]):
        f = FEATURES.get((state["class"], name)) or NOVICE.get(name)
        if f is not None and f.uses and f.uses[1] in restored:
            del feats["uses"][name]
    return notes


# --- deflecting: the Absorb Infusion and Toughen Up -------------------------------------------------------


def disrupt_dice(state: Mapping[str, Any]) -> tuple[int, ...]:
    """Spellsword, the Disrupt Infusion while active: an attack roll against you loses the Infusion Dice."""
    return infusion_dice(state) if state["feats"]["infusion"] == "Disrupt" else ()


def absorb_dice(state: Mapping[str, Any], p: Mapping[str, Any]) -> tuple[int, ...]:
    """Spellsword, the Absorb Infusion: with a shield, the Infusion Dice come off damage you take (when ticked)."""
    if not p.get("absorb"):
        return ()
    if state["feats"]["infusion"] != "Absorb":
        raise RulesError("Absorb works only while it is your active Infusion.")
    if state["shield"] == "none":
        raise RulesError("Absorb needs a shield.")
    return infusion_dice(state)


def toughened(state: Mapping[str, Any]) -> int | None:
    """Toughen Up waiting on this sheet: the index of its boon, or None."""
    return next((i for i, b in enumerate(state["feats"]["boons"]) if b["on"] == "deflect" and b["reroll"]), None)


def _mean(one: Mapping[int, Fraction]) -> Fraction:
    return sum((face * p for face, p in one.items()), Fraction(0))


def reroll_lowest_dist(one: Mapping[int, Fraction], count: int) -> dict[int, Fraction]:
    """The total of ``count`` dice of distribution ``one`` when the lowest is rolled again (and the new face kept)
    if it is below the die's average (Toughen Up): exact, over (total, lowest) pairs."""
    mean = _mean(one)
    pairs: dict[tuple[int, int], Fraction] = {(0, 99): Fraction(1)}
    for _ in range(count):
        nxt: dict[tuple[int, int], Fraction] = {}
        for (total, low), pa in pairs.items():
            for face, pf in one.items():
                key = (total + face, min(low, face))
                nxt[key] = nxt.get(key, Fraction(0)) + pa * pf
        pairs = nxt
    out: dict[int, Fraction] = {}
    for (total, low), pa in pairs.items():
        if count and low < mean:
            for face, pf in one.items():
                out[total - low + face] = out.get(total - low + face, Fraction(0)) + pa * pf
        else:
            out[total] = out.get(total, Fraction(0)) + pa
    return out


def add_dice_dist(dist: Mapping[int, Fraction], dice: tuple[int, ...]) -> dict[int, Fraction]:
    """``dist`` plus the sum of ``dice`` (each fair), exactly."""
    out = dict(dist)
    for sides in dice:
        nxt: dict[int, Fraction] = {}
        for total, pa in out.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, Fraction(0)) + pa / sides
        out = nxt
    return out


def toughen_up(
    state: dict[str, Any], one: Mapping[int, Fraction], kept: list[DieRoll], reroll: Any
) -> tuple[int, list[DieRoll], list[str]]:
    """Roll Toughen Up's reroll of the lowest deflect die (``reroll()`` rolls one as deflecting does) and use up
    its boon: (the change to the total, the dice, notes)."""
    index = toughened(state)
    if index is None or not kept:
        return 0, [], []
    state["feats"]["boons"] = [b for i, b in enumerate(state["feats"]["boons"]) if i != index]
    low = min(kept, key=lambda d: d.face)
    if low.face >= _mean(one):
        return 0, [], [f"Toughen Up: the lowest die ({low.face}) is kept"]
    new = reroll()
    return new.face - low.face, [new], [f"Toughen Up: {low.face} rerolled to {new.face}"]


def absorb_form_health(state: dict[str, Any], amount: int) -> tuple[int, list[str]]:
    """A Big form's extra Health is lost first; what is left reaches Health."""
    feats = state["feats"]
    if not feats["form_health"] or amount <= 0:
        return amount, []
    taken = min(amount, feats["form_health"])
    feats["form_health"] -= taken
    return amount - taken, [f"{taken} taken by the form's Health"]


def after_damage(state: dict[str, Any]) -> list[str]:
    """Shape Changer: the form ends at 0 Health."""
    if state["feats"]["form"] and state["health"] == 0:
        state["feats"]["form"], state["feats"]["form_health"] = "", 0
        return ["at 0 Health the form ends"]
    return []


# --- Use a class feature -----------------------------------------------------------------------------------


# The features that take an option, each through a select of its own (issue 36): (the input's name, its label).
# A feature offers only its own options, each with a line on what it does; a class with none shows no select.
# Infusion Training picks from the Infusions' list, so the two share theirs.
OPTION_FIELDS: dict[str, tuple[str, str]] = {
    "Beast Bond": ("beast", "Beast"),
    "Shape Changer": ("form", "Form"),
    "Shift": ("shift", "Take or end the form"),
    "Spellcasting": ("spell_level", "Spell level"),
    "Signature Move": ("move", "Signature move"),
    "Focused Training": ("training", "Focused training"),
    "Ultimate Tag Team": ("tag_move", "Tag team maneuver"),
    "Infusions": ("infusion", "Infusion"),
    "Infusion Training": ("infusion", "Infusion"),
}
_PICKED_VERB = {"Infusions": "Activate", "Infusion Training": "Activate", "Focused Training": "Picked:"}


def _beast_words(beast: Mapping[str, Any]) -> str:
    count, die, key = beast["damage"]
    return f"{beast['name']}: Health {beast['health'][0]}, Armor {beast['armor']}, {count}d{die}+{STAT_NAMES[key]}"


def _form_words(form: Mapping[str, Any]) -> str:
    base, key = form["armor"]
    damage = " + ".join(f"{n}d{d}" + (f"+{STAT_NAMES[k]}" if k else "") for n, d, k in form["damage"])
    return f"{form['name']}: Armor {base}+{STAT_NAMES[key]}, damage {damage}"


def option_choices(state: Mapping[str, Any], name: str) -> tuple[tuple[str, str], ...]:
    """The options one feature offers (value, a line on what it does)."""
    if name == "Beast Bond":
        return tuple((k, _beast_words(b)) for k, b in extras.BEASTS.items())
    if name == "Shape Changer":
        return tuple((k, _form_words(f)) for k, f in extras.FORMS.items())
    if name == "Shift":
        return (("take", "Take your form"), ("end", "End the form: back in your own shape"))
    if name == "Spellcasting":
        return tuple((str(n), f"A level {n} spell: {n} Stamina") for n in range(1, state["level"] + 1))
    home = _pick_home(name)
    _, options = extras.OPTIONS[(state["class"], home)]
    have = picked(state, home)
    verb = _PICKED_VERB.get(name, "Use")
    return tuple((o, f"{verb if o in have else 'Pick'} {o}: {extras.OPTION_WORDS[o]}") for o in options)


def option_params(state: Mapping[str, Any], names: list[str]) -> tuple[Param, ...]:
    """One select per option-taking feature the character uses (shared ones once, naming each feature)."""
    readers: dict[str, list[str]] = {}
    for n in names:
        if n in OPTION_FIELDS:
            readers.setdefault(OPTION_FIELDS[n][0], []).append(n)
    out = []
    for key, features in readers.items():
        choices = option_choices(state, features[0])
        label = OPTION_FIELDS[features[0]][1]
        out.append(
            Param(
                key,
                f"{label} ({', '.join(features)})",
                "choice",
                choices[0][0],
                choices=choices,
                help=f"Read only when you use {' or '.join(features)}.",
                when=("feature", tuple(features)),
            )
        )
    return tuple(out)


def chosen_option(name: str, p: Mapping[str, Any]) -> str:
    """The option the feature being used reads from its own select ("" for a feature that takes none)."""
    key = OPTION_FIELDS.get(name, ("", ""))[0]
    return str(p.get(key) or "") if key else ""


@dataclass(frozen=True)
class FeatureProcedure:
    """Use one of the class's features: charge its Stamina, Fortune's Favor, Hype or a use, and do what it does."""

    key: str = "feature"
    label: str = "Use a class feature"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        usable: tuple[tuple[str, str], ...] = ()
        options: tuple[Param, ...] = ()
        if sheet is not None:
            try:
                state = _st(sheet)
                names = owned(state, "use") + owned(state, "boon")
                usable = tuple((n, n) for n in names)
                options = option_params(state, names)
            except RulesError:
                usable, options = (), ()
        return (
            Param("feature", "Feature", "choice", usable[0][0] if usable else "", choices=usable or (("", "—"),)),
            *options,
            Param("ally", "Ally at the table", "character", help="For a feature used on an ally."),
            Param(
                "ally_helps",
                "An ally helps within 5 ft",
                "bool",
                False,
                help="While dying, a feature that takes your Action is then free.",
            ),
            Param(
                "spend_favor",
                "Spend Fortune's Favor too",
                "bool",
                False,
                help="Enhance: doubles the bonus.",
                resets=True,
            ),
        )

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Feature, str]:
        state = _st(sheet)
        if is_dead(state):
            raise RulesError("The dead use no features.")
        name = p["feature"]
        if not name or not has(state, name) or feature(state, name).kind not in ("use", "boon"):
            raise RulesError("Pick one of your class features to use.")
        f = feature(state, name)
        option = chosen_option(name, p)
        if f.uses and state["feats"]["uses"].get(name, 0) >= f.uses[0]:
            raise RulesError(f"{name} is used up until your next {REST_WORDS[f.uses[1]]}.")
        favor_needed = int(f.favor) + int(bool(p["spend_favor"]) and name == "Enhance")
        if p["spend_favor"] and name != "Enhance":
            raise RulesError("Only Enhance takes extra Fortune's Favor.")
        if state["fortunes_favor"] < favor_needed:
            raise RulesError(f"{name} spends Fortune's Favor, and you have none.")
        if f.hype > state["feats"]["hype"]:
            raise RulesError(f"{name} costs {f.hype} Hype; you have {state['feats']['hype']}.")
        if f.ally and f.kind == "boon" and name in ALLY_ONLY and p.get("ally") is None:
            raise RulesError(f"{name} helps an ally: pick them.")
        _EFFECT_CHECKS.get(f.effect, _no_check)(state, name, option)
        cost = use_cost(state, name, option) + _dying_extra(state, f, p)
        if cost:
            spend_stamina(dict(state, statuses=dict(state["statuses"])), cost, name)
        return state, f, option

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        state, f, _ = self._check(sheet, p)
        if f.effect == "story":
            heart = stat(state, "heart")
            dist = pool_dist((4, 4), "sum")
            return Odds(tuple((f"heal {k + heart}", v) for k, v in sorted(dist.items())), success_keys=())
        if f.effect == "cast":  # the roll lands on "cast" (_effect_cast): the odds name the same outcome
            return Odds((("cast", Fraction(1)),), success_keys=("cast",))
        return Odds((("used", Fraction(1)),), success_keys=("used",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, f, option = self._check(sheet, p)
        odds = self.odds(sheet, p)
        name = p["feature"]
        notes: list[str] = []
        cost = use_cost(state, name, option)
        if cost:
            notes += spend_stamina(state, cost, name)
        if _dying_extra(state, f, p):
            notes += spend_stamina(state, 1, f"{name} while dying")
        if f.favor:
            state["fortunes_favor"] -= 1
            notes.append("Fortune's Favor spent")
        if f.hype:
            state["feats"]["hype"] -= f.hype
            notes.append(f"−{f.hype} Hype")
        if f.uses:
            used = state["feats"]["uses"].get(name, 0) + 1
            state["feats"]["uses"][name] = used
            notes.append(f"{used} of {f.uses[0]} used until your next {REST_WORDS[f.uses[1]]}")
        others: dict[str, dict[str, Any]] = {}
        dice: list[DieRoll] = []
        outcome = "used"
        what = f.how
        if f.kind == "boon":
            boon = {**f.boon, "from": name}
            if isinstance(boon.get("bonus"), str):
                boon["bonus"] = stat(state, boon["bonus"])
                if p["spend_favor"]:
                    state["fortunes_favor"] -= 1
                    boon["bonus"] *= 2
                    notes.append("Fortune's Favor spent: doubled")
            ally = p.get("ally")
            holder = validate_state(ally.state) if (ally is not None and f.ally) else state
            if len(holder["feats"]["boons"]) >= 6:
                raise RulesError("Six bonuses already wait for a roll there.")
            holder["feats"]["boons"].append(boon)
            if holder is not state:
                others["ally"] = holder
            who = ally.name if holder is not state and ally is not None else "your"
            whose = "your" if who == "your" else f"{who}'s"
            roll_word = "roll" if boon.get("on") == "any" else "test"
            what = f"a bonus waits for {whose} next {roll_word}"
        else:
            effect = _USE_EFFECTS.get(f.effect)
            if effect is not None:
                what, outcome, rolled = effect(state, name, option, rng)
                dice += rolled
        summary = f"{name}: {what}."
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(
            self.key,
            self.label,
            outcome,
            summary,
            tuple(dice),
            None,
            odds,
            shown_inputs(p),
            state,
            other_states=others,
        )


# Boons that only an ally takes (Enhance and Minor Intervention may be your own).
ALLY_ONLY = ("Hype Up", "Tag Team", "Luck On Your Side", "Toughen Up")


def step_up(outcome: str) -> str:
    """Minor Intervention: a Failure becomes Mixed, a Mixed a Success."""
    return {"fail": "mixed", "mixed": "pass"}.get(outcome, outcome)


def step_up_odds(odds: Odds) -> Odds:
    moved: dict[str, Fraction] = {k: Fraction(0) for k, _ in odds.outcomes}
    for k, v in odds.outcomes:
        moved[step_up(k)] += v
    return Odds(tuple(moved.items()), success_keys=odds.success_keys)


def _dying_extra(state: Mapping[str, Any], f: Feature, p: Mapping[str, Any]) -> int:
    """Seed 003, Dying: an Action at 0 Health costs 1 Stamina unless an ally helps within 5 ft."""
    return 1 if f.action and state["health"] == 0 and not p.get("ally_helps") else 0


def _no_check(state: Mapping[str, Any], name: str, option: str) -> None:
    return None


# Signature Move's options' own Stamina (Brawler, level 5); the "+1 per size larger" is added by hand.
OPTION_COSTS = {"Crippling Strike": 2, "Top Rope Takedown": 1, "Counter Throw": 1}


def _is_new_pick(state: Mapping[str, Any], name: str, option: str) -> bool:
    return (state["class"], _pick_home(name)) in extras.OPTIONS and option not in picked(state, _pick_home(name))


def use_cost(state: Mapping[str, Any], name: str, option: str) -> int:
    """The Stamina a use charges: nothing to pick an option or to end a form; a picked move's own cost (Signature
    Move); otherwise the feature's."""
    f = feature(state, name)
    if f.effect == "shift" and option == "end":
        return 0
    if f.effect in ("pick", "infuse") and _is_new_pick(state, name, option):
        return 0
    if name == "Signature Move":
        return OPTION_COSTS.get(option, 0)
    if f.effect == "cast":
        return int(option)
    return f.stamina


def _check_options(state: Mapping[str, Any], name: str, option: str) -> None:
    """Pick an option (up to the feature's count), or use one already picked."""
    _, options = _options_for(state, name)
    if option not in options:
        raise RulesError(f"{name}: pick one of {', '.join(options)}.")
    have = picked(state, _pick_home(name))
    if option in have:
        if name in ("Focused Training", "Infusion Training"):
            raise RulesError(f"{option} is already picked.")
        return
    if len(have) >= _pick_limit(state, name):
        raise RulesError(f"{name}: every pick is made ({', '.join(have)}).")


def _pick_home(name: str) -> str:
    """Infusion Training and Infusion of Power add to the Infusions' picks."""
    return "Infusions" if name in ("Infusion Training", "Infusion of Power") else name


def _options_for(state: Mapping[str, Any], name: str) -> tuple[int, tuple[str, ...]]:
    return extras.OPTIONS[(state["class"], _pick_home(name))]


def _pick_limit(state: Mapping[str, Any], name: str) -> int:
    count, _ = _options_for(state, name)
    if _pick_home(name) == "Infusions":
        count += int(has(state, "Infusion Training")) + int(has(state, "Infusion of Power"))
    return count


def _check_form(state: Mapping[str, Any], name: str, option: str) -> None:
    if option not in extras.FORMS:
        raise RulesError("Pick a form: Big, Medium or Small.")
    if state["feats"]["form_choice"]:
        raise RulesError("The form is chosen at first level; it stays.")


def _check_shift(state: Mapping[str, Any], name: str, option: str) -> None:
    if option == "end":
        if not state["feats"]["form"]:
            raise RulesError("You are in your own shape.")
        return
    if not state["feats"]["form_choice"]:
        raise RulesError("Pick your form first (Shape Changer).")
    if state["feats"]["form"]:
        raise RulesError("You are already in your form.")


def _check_bond(state: Mapping[str, Any], name: str, option: str) -> None:
    if option not in extras.BEASTS:
        raise RulesError("Pick a beast: Large, Medium, Small flying or Small ground.")
    if state["feats"]["beast"] and state["feats"]["beast_health"] > 0:
        raise RulesError("Your beast is alive: a new one is found only after losing it, at a Rest and Relax.")


def _check_infuse(state: Mapping[str, Any], name: str, option: str) -> None:
    if _is_new_pick(state, name, option) and option in extras.OPTIONS[("SPELLSWORD", "Infusions")][1]:
        _check_options(state, name, option)
        return
    if option not in picked(state, "Infusions"):
        have = ", ".join(picked(state, "Infusions")) or "none yet"
        raise RulesError(f"Activate one of your picked Infusions ({have}); pick them with the option first.")


def _check_cast(state: Mapping[str, Any], name: str, option: str) -> None:
    """Spellcasting: a spell's level is at most yours (1b: only spells up to your level are learnt)."""
    if not option.isdigit() or not 1 <= int(option) <= state["level"]:
        raise RulesError(f"Pick the spell's level: 1 to {state['level']}, your level.")


def _check_reinvigorate(state: Mapping[str, Any], name: str, option: str) -> None:
    if state["feats"]["reinvigorated"]:
        raise RulesError("Reinvigorate is already on until the next round.")


def _effect_pick(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    home = _pick_home(name)
    if option in picked(state, home):
        return f"{option} used", "used", []
    state["feats"]["picks"][home] = [*picked(state, home), option]
    return f"{option} picked", "picked", []


def _effect_form_choice(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    state["feats"]["form_choice"] = option
    return f"your form is {extras.FORMS[option]['name']}", "picked", []


def _effect_shift(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    feats = state["feats"]
    if option == "end":
        feats["form"], feats["form_health"] = "", 0
        return "back in your own shape", "ended", []
    form = extras.FORMS[feats["form_choice"]]
    feats["form"] = feats["form_choice"]
    feats["form_health"] = form["health_per_level"] * state["level"]
    extra = f", +{feats['form_health']} Health while in it" if feats["form_health"] else ""
    return f"now {form['name']}{extra}", "shifted", []


def _effect_bond(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    state["feats"]["beast"] = option
    state["feats"]["beast_health"] = beast_health_max(state)
    return f"your beast is a {extras.BEASTS[option]['name']} with {state['feats']['beast_health']} Health", "bonded", []


def _effect_infuse(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    if option not in picked(state, "Infusions"):
        return _effect_pick(state, name, option, rng)
    state["feats"]["infusion"] = option
    words = f"{option} active"
    boons = [b for b in state["feats"]["boons"] if b["from"] not in ("Bolster", "Spell Weaver")]
    dice = infusion_dice(state)
    if option == "Bolster":
        boons.append(
            {
                "from": "Bolster",
                "bonus": 0,
                "die": dice[0],
                "dice": len(dice),
                "favor": False,
                "stats": ["mettle", "agility"],
                "on": "test",
            }
        )
        words += f": {dice_label(dice, True)} waits for your next Mettle or Agility test"
    if has(state, "Spell Weaver"):
        boons.append(
            {
                "from": "Spell Weaver",
                "bonus": 0,
                "die": dice[0],
                "dice": len(dice),
                "favor": False,
                "stats": [],
                "on": "attack",
            }
        )
        words += f"; Spell Weaver: {dice_label(dice, True)} on your next attack test"
    state["feats"]["boons"] = boons[-6:]
    return words, "infused", []


def _effect_hype(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    feats = state["feats"]
    feats["hype"] = min(extras.HYPE_MAX, feats["hype"] + 1)
    return f"Hype {feats['hype']} of {extras.HYPE_MAX}", "used", []


def _effect_gain_favor(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    gain_favor(state, None)
    return "Fortune's Favor gained", "used", []


def _heal(state: dict[str, Any], amount: int) -> str:
    before = state["health"]
    state["health"] = min(health_max(state), before + amount)
    return f"Health {before} → {state['health']}"


def _effect_heal_heart(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    return _heal(state, max(0, stat(state, "heart"))), "healed", []


def _effect_story(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    a, b = roll_die(rng, 4, "Bedtime Story"), roll_die(rng, 4, "Bedtime Story")
    amount = max(0, a.face + b.face + stat(state, "heart"))
    return f"{_heal(state, amount)} (2d4 + Heart = {amount})", f"heal {amount}", [a, b]


def _effect_slab(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    state["feats"]["slab"] = True
    return "damage taken is halved until the next round", "used", []


def _effect_reinvigorate(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    state["feats"]["reinvigorated"] = True
    return f"+{stat(state, 'heart')} Armor until the next round", "used", []


# Uses that switch a mark on the sheet on until it is spent or the round ends: the feats field, the refusal while
# it is on, what the use does, and its outcome.
_MARKS = {
    "overcharge": (
        "overcharged",
        "Overcharge already waits for your next damage.",
        "your next damage's Base Damage is two steps up",
        "charged",
    ),
    "long_shot": (
        "long_shot",
        "Long Shot is already on until the next round.",
        "speed 0 and range doubled until the next round",
        "used",
    ),
}


def _check_mark(state: Mapping[str, Any], name: str, option: str) -> None:
    key, refusal, _, _ = _MARKS[feature(state, name).effect]
    if state["feats"][key]:
        raise RulesError(refusal)


def _effect_mark(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    key, _, words, outcome = _MARKS[feature(state, name).effect]
    state["feats"][key] = True
    return words, outcome, []


def _effect_cast(state: dict[str, Any], name: str, option: str, rng: RandomSource) -> tuple[str, str, list]:
    return f"a level {option} spell cast", "cast", []


_EFFECT_CHECKS = {
    "pick": _check_options,
    "form_choice": _check_form,
    "shift": _check_shift,
    "bond": _check_bond,
    "infuse": _check_infuse,
    "reinvigorate": _check_reinvigorate,
    "cast": _check_cast,
    "overcharge": _check_mark,
    "long_shot": _check_mark,
}
_USE_EFFECTS = {
    "pick": _effect_pick,
    "form_choice": _effect_form_choice,
    "shift": _effect_shift,
    "bond": _effect_bond,
    "infuse": _effect_infuse,
    "hype": _effect_hype,
    "gain_favor": _effect_gain_favor,
    "heal_heart": _effect_heal_heart,
    "story": _effect_story,
    "slab": _effect_slab,
    "reinvigorate": _effect_reinvigorate,
    "cast": _effect_cast,
    "overcharge": _effect_mark,
    "long_shot": _effect_mark,
}


# --- area attacks ------------------------------------------------------------------------------------------

AREA_TARGETS_MAX = 12


def parse_armors(text: str) -> list[tuple[int, int]]:
    """ "14, 12/7, 15": each target's Armor, optionally /Counter (Counter = Armor − 5 when not given)."""
    out = []
    for part in str(text or "").replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            if "/" in part:
                a, c = part.split("/", 1)
                armor, counter = int(a), int(c)
            else:
                armor = int(part)
                counter = armor - 5
        except ValueError:
            raise RulesError(f"{part[:20]!r} is not an Armor number (write them like 14, 12/7, 15).") from None
        if not 0 <= counter <= armor <= 40:
            raise RulesError("Each Armor is 0 to 40, with its Counter at or below it.")
        out.append((armor, counter))
    if not out:
        raise RulesError("Give each target's Armor, separated by commas.")
    if len(out) > AREA_TARGETS_MAX:
        raise RulesError(f"At most {AREA_TARGETS_MAX} targets.")
    return out


def area_odds(
    bonus: int, mode: str, extra: tuple[int, ...], targets: list[tuple[int, int]], third: bool = False
) -> dict[str, Fraction]:
    """One attack roll against every target's defences (seed 003, AOE Exchange): the exact chance of hitting
    each number of them. A natural 20 hits all, a natural 1 misses all (seed 003, Tests). ``third``: Luck On
    Your Side's third d20 with Fortune's Favor."""
    d20s = (20,) if mode == "plain" else (20, 20, 20) if third and mode == "favor" else (20, 20)
    how = {"plain": "sum", "favor": "highest", "misfortune": "lowest"}[mode]
    kept = pool_dist(d20s, how)  # type: ignore[arg-type]
    more = pool_dist(extra, "sum")
    out: dict[str, Fraction] = {f"hit {n}": Fraction(0) for n in range(len(targets) + 1)}
    for face, pf in kept.items():
        for e, pe in more.items():
            hits = sum(
                1 for armor, counter in targets if three_outcome_of(face, face + e + bonus, armor, counter) == "pass"
            )
            out[f"hit {hits}"] += pf * pe
    return {k: v for k, v in out.items() if v}


def area_choices(sheet: Sheet | None) -> tuple[tuple[str, str], ...]:
    state = readable_state(sheet)
    if state is None:
        return ()
    names = [n for n in owned(state, "area") if n != "Power Overwhelming" or in_last_stand(state)]
    if "Spinning Lariat" in picked(state, "Signature Move"):
        names.append("Spinning Lariat")
    return tuple((n, n) for n in names)


def area_cost(state: Mapping[str, Any], name: str, targets: int) -> int:
    """Elemental Burst and Sweeping Attack: 1 Stamina; Spinning Lariat: 1 + 1 per enemy in reach."""
    if name == "Spinning Lariat":
        return 1 + targets
    if not name:
        return 0
    return feature(state, name).stamina


# --- the feature table for the docs ------------------------------------------------------------------------

KIND_WORDS = {
    "sheet": "automated (a number on the sheet)",
    "test": "automated (a bonus the Test form offers)",
    "boon": "automated (Use a class feature: a bonus waits for the next roll)",
    "use": "automated (Use a class feature)",
    "attack": "automated (an Attack's class feature)",
    "area": "automated (Area attack)",
    "auto": "automated (applies by itself)",
    "text": "text only",
}


def _row(level: str, name: str, cost: str, f: Feature) -> str:
    status = KIND_WORDS[f.kind]
    extra = []
    if f.uses:
        extra.append(f"{f.uses[0]} per {REST_WORDS[f.uses[1]]}")
    how = f.how + (f" ({'; '.join(extra)})" if extra else "")
    status_how = f"{status}: {how}" if f.automated else f"text only, because {how}"
    return f"| {level} | {name} | {cost} | {status_how} |"


def feature_table() -> str:
    """docs/fortunes-favor-classes.md: every class, novice and veteran feature with what Lantern does with it,
    generated from the class data and FEATURES (tests/rules/test_fortunes_favor_classes.py keeps it current)."""
    lines = [
        "# Fortune's Favor: what each feature does in Lantern",
        "",
        "Generated from `rules/data/fortunes_favor.py` (RulesGraph 1b @ 6cff1a6) and the feature table in",
        "`rules/systems/fortunes_favor/features.py` by `python -m rules.systems.fortunes_favor.features`;",
        "a test fails when this file is out of date. Cost: the data's Stamina cost, FF = spends Fortune's Favor.",
        "",
    ]
    counts = {"automated": 0, "text": 0}
    for key, c in data.CLASSES.items():
        lines += [f"## {c['name']}", "", "| Level | Feature | Cost | In Lantern |", "|---|---|---|---|"]
        for level, name, stamina, favor in c["features"]:
            f = FEATURES[(key, name)]
            counts["automated" if f.automated else "text"] += 1
            cost = ", ".join(p for p in (f"{stamina} Stamina" if stamina else "", "FF" if favor else "") if p) or "—"
            lines.append(_row(str(level), name, cost, f))
            if (key, name) in extras.OPTIONS:
                count, options = extras.OPTIONS[(key, name)]
                lines.append(f"| | ↳ options (pick {count}) | | {', '.join(options)} |")
        if key == "BEASTMASTER":
            beasts = "; ".join(
                f"{b['name']}: Health {b['health'][0]} (+{b['health'][1]}/level), Armor {b['armor']}, "
                f"{b['damage'][0]}d{b['damage'][1]}+{STAT_NAMES[b['damage'][2]]}"
                for b in extras.BEASTS.values()
            )
            lines.append(f"| | ↳ beasts | | {beasts} |")
        if key == "SHIFTER":
            forms = "; ".join(
                f"{f_['name']}: Armor {f_['armor'][0]}+{STAT_NAMES[f_['armor'][1]]}, "
                + " + ".join(f"{n}d{d}" + (f"+{STAT_NAMES[k]}" if k else "") for n, d, k in f_["damage"])
                for f_ in extras.FORMS.values()
            )
            lines.append(f"| | ↳ forms | | {forms} |")
        lines.append("")
    for title, table in (("Novice features", NOVICE), ("Veteran features", VETERAN)):
        lines += [f"## {title}", "", "| | Feature | | In Lantern |", "|---|---|---|---|"]
        for name, f in table.items():
            counts["automated" if f.automated else "text"] += 1
            lines.append(_row("", name, "", f))
        lines.append("")
    lines.insert(6, f"{counts['automated']} features automated, {counts['text']} text only (each says why).\n")
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover - the docs' generator
    import pathlib

    pathlib.Path("docs/fortunes-favor-classes.md").write_text(feature_table(), encoding="utf-8")
