"""Grit & Flesh: the unidentified "Players Rules" of seed 004 (Grit then Flesh, gear bubbles, attacks that
land above the target's AC and at or under the attacker's AV, armour that wears down, corrupted spells).

Rules from ../shared/seeds/004_ebd0e2535c17253c.txt and rules-spec.md §004 with its [REC] readings. No
published source was found, so every word a player reads is Lantern's, and every number the seed leaves
out (§004.12) is a per-campaign rule setting marked "house default, not from the rules" (``settings.py``).

State layout (a JSON-able dict, normalised by ``validate_state``)::

    {
      "cls": "Fighter", "level": 1, "xp": 0,
      "attributes": {"STR": 11, "DEX": 9, ...},        # names and dice from the table's settings
      "st": 14, "av": 12,
      "grit": 4, "grit_max": 4, "flesh": 4, "flesh_max": 4,
      "skills": ["climbing"], "tools": ["rope and hooks"],
      "bubbles": 0,                                      # gear bubbles filled, 0..5
      "spellbook": [{"name": "Slumber", "level": 1, "corrupted": False}],
      "scrolls": [{"name": "Glow", "level": 1}],
      "coins": 120,                                      # gp; 200 coins a slot
      "out_rounds": 0, "dead": False,                    # out cold after a passed save vs death
      "feint": False,                                    # next round: two attacks with an advantage
      "safe_nights": 0,                                  # safe nights' sleep the clock counted, to purify with
    }

Items: weapons ``{"size", "hands", "damage_bonus" (on 1d6), "range" (feet, 0 melee), "cost", "out_of_ammunition"}``;
armour and shields ``{"AC", "current_AC", "cost"}``, counted when worn. Helpers are hirelings of kind
"helper" with ``{"role", "weekly", "grit", "flesh", "av", "st", "ac", "kit", "paid_weeks", "weeks", "dead"}``
("weeks": weeks of service begun, counted by the table's clock). Light sources are items of kind "light"
with ``{"lit", "burned", "turns"}`` (rules/clock.py). The GM's table (monsters, initiative, time): ``table.py``.

Where the seed and the spec differ, or both are silent
------------------------------------------------------
- Grit overflow: the seed takes damage from Flesh only "if you have no Grit remaining"; the spec [REC]
  lets the rest of one hit spill into Flesh. Spilling is the default; the setting "Damage spills from
  Grit into Flesh" gives the literal reading (a hit that empties Grit stops there).
- Armour turning an attack: the seed says "your armor's current AC" as if one piece; with armour and a
  shield both worn the spec [REC] takes the shield first and lets the player choose: the table's setting
  picks the order and "Take an attack" lets the player pick for one attack.
- Shield slots: half of +1 AC is ½ a slot in the seed; the spec [REC] rounds up to 1.
- Scrolls: the seed destroys a scroll only when its spell slips out of control; it never says a controlled
  casting uses the scroll up, so a scroll survives a controlled casting here (a GM removes it by hand if the
  table reads otherwise).
- A quick cast's control roll (own AC < d20 ≤ ST) uses the AC the character wears now, after any wear.
- Firing into a melee: the seed picks the target at random; the roll's odds are worked out against the AC
  the player gave, since the others' AC is the GM's to know.
- Two rolls "take the worse result" (beyond range) and a feint's two attacks rank critical > hit > miss
  (spec §004.11.3); between two misses the lower die stands.
- The spec's placeholders give ST 14, AV 12, Grit 1d6, Flesh CON ÷ 3 rounded up and six 3d6 attributes;
  the growth per level, classes, XP table, spell list, starting gold (3d6 × 10) and kit, helpers' and
  monsters' numbers are Lantern's own placeholders, all settings.
"""

from rules.systems.grit_flesh.system import PROCEDURES, SYSTEM, GritFlesh

__all__ = ["PROCEDURES", "SYSTEM", "GritFlesh"]
