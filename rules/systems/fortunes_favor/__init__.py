"""Fortune's Favor, rules 1b, by LankeyBoard: d20 tests with three outcomes, Fortune's Favor and the exchange.

Rules from seed 003 (../shared/seeds/003_eeb4db86843669ac.txt, word for word RulesGraph's generalRules.md @
6cff1a6) with the spec's [REC] readings (rules-spec.md §003); class, lineage, culture and feature numbers from
RulesGraph ``src/rules/1b/`` @ 6cff1a6 (``rules.data.fortunes_favor``; no licence stated, so names and numbers
only, every description in our words). The later 2a numbers are not used.

State layout (normalised by ``validate_state``): class, lineage, culture, size, level, stats (Mettle,
Agility, Intellect, Heart), attack_stat, health, stamina, stamina_max_lost (sleep deprivation), fortunes_favor,
armour, shield, hand_full, novice/veteran/animal features, element, languages, statuses {name: rounds, 0 =
until removed}, defending, exposed, hours_awake, last_stand (round 1-5), dead, resting, level_ready,
quick_retrieval, coins, bits, background. Max Health and Stamina, Armor, Counter, damage, deflect and gear
slots are derived (state.py), never stored.

Where the seed and the spec differ, or the seed is silent
---------------------------------------------------------
- Fortune's Favor is never counted in the seed ("gain", "spend"): a flag by default, a counter by setting
  (spec §003.11.2). The second d20 keeps the higher (2a text, spec [REC]).
- A Clash deals no damage by default (spec §003.11.1), a setting turns it on; Countered deals none (1b).
- Ranged weapons in melee: the seed both forbids them and gives them Misfortune; Misfortune by default,
  "forbidden" by setting (spec §003.11.4).
- Damage at 0 Health is lost (literal reading); a setting spills it into Stamina (spec §003.11.3).
- Base Damage adds the class's damage stat: not in the seed, from the class data (spec §003.11.5).
- Help: Fortune's Favor from help does not use up the resource; each of Favor and +3 once (spec §003.11.8).
  Favor and Misfortune from all sources cancel one for one [REC]; spending Fortune's Favor against
  Misfortune is how the seed's "give it up to cancel Misfortune" plays out.
- Sleep deprivation: the first test, at hour 25, is already one harder (15/10 + 1), spec §003.11.11.
- Healing a dying ally on a Mixed does nothing (spec §003.11.12).
- The seed's sizes "Miniscule (>6in)" and "Colossal (<50ft)" are read with the signs the other way.
- The garbled armour-training sentence is read as: only the armour types the class data lists (§003.11.13).
- Exhausted has no trigger in the seed: only the GM (or a feature) sets it (§003.11.9).
- Gear slots have no hard limit: past double the slots a character is Pinned, not refused.
- Contests compare totals only; natural 1 and 20 are read as rules of tests against points, not contests.
"""

from rules.systems.fortunes_favor.system import PROCEDURES, SYSTEM

__all__ = ["PROCEDURES", "SYSTEM"]
