"""Fell (late revision) by Jacob Densford: attribute dice STR/DEX/INT/WIL, ADV/DIS and IMP/ENH, armour, and
advancement by hoard.

Rules from seed 001 ("Playing the Game", ../shared/seeds/001_9a541ab1b0476299.txt) with the spec's [REC]
readings (rules-spec.md §001); creation and tables from the published text of the same commit
(../shared/sources/fell-late-95e0caa/, loaded as data in ``rules.data.fell_late``). The same game as Fell (draft)
with other core mechanics: only the dice-ladder helpers of ``rules.dice`` are shared, no procedure.

State layout (normalised by ``state.validate_state``)::

    {"attributes": {"STR": {"die": 6, "original": 6}, "DEX": ..., "INT": ..., "WIL": ...},
     "hp": 3, "hp_max": 3, "skills": ["lore"], "spells": [], "coins": 12,
     "hoard": 0, "advances": 0, "legend_choice": "",          # thresholds reached in order; rank follows
     "fatigue": 0, "deprived": False, "days_deprived": 0, "out": False, "dead": False,
     "wil_impaired": False, "locked_spells": [], "drawbacks": [{"spell", "kind", "until"}],
     "background": "", "age": 0, "alignment": "", "drive": "", "traits": [],
     "hireling": False, "hire_rank": "", "paid_up": False, "fees_paid": 0}

Items: weapons ``data={"damage": 8, "bulky": True, "blast": True, "pure_iron": True}``, armour and shields
``{"armour": 1}`` (counted when worn, 3 at most), treasure ``{"value": 250}`` (its worth fills slots like coin).

Per-campaign settings (spec §5.1): help stacking, armour against spilled harm, HP gained, contest ties.

Where the seed, the source and the spec differ, or leave a gap
----------------------------------------------------------------
- The source says "three attributes" and lists four; the seed uses four (spec §001.2). Four.
- Contest ties past the die size: spec §001.5.4 [REC] says the situation is unchanged (or reroll, the GM's
  choice); §5.1 lists "larger die, then next-highest die, then status quo". With one kept die per side the
  "next-highest die" exists only with ADV/DIS dice; we offer the §001.5.4 pair (stands / reroll) as the setting.
- "Gain HP" has no amount: +1 ([REC]); the table may roll the DEX die instead (§001.10).
- Critical harm: the seed says harm past HP "may lower a relevant attribute" and names STR for spill; the
  attribute tested is STR by default and may be another one for attacks that say so (bestiary "dazzle").
- Over the slots "your HP is zero": we keep the HP on the sheet and count them as zero while over, so putting
  the load down gives them back (the seed does not say HP are lost).
- The custom background's "equipment worth 40 C" and the chosen route's "additional equipment worth 20 C" are
  given as coin to spend in the catalogue, since Lantern cannot pick the equipment for the player.
- Hirelings "created just like PCs" get the full creation rolls except traits; their kit is not carried as items.
- An unwilling target "may turn your test into a contest": a calm casting has no test, but a target that resists
  is the same situation, so a resisting target makes it a WIL contest however the spell is cast; losing (or a
  standing tie) means it does not take hold on them, and counts as a failed test for the chosen drawback.
- "If you fail the test, choose one": the caster may pick the drawback before the roll or after it (the sheet then
  shows a banner until "Choose a spell's drawback" records it); side effects and lessening last the casting,
  WIL impaired and a locked spell last until dawn (a comfortable night's rest).
- Critical harm at a d4 that fails: the seed says lowering below d4 "from critical harm" is death; a hand
  adjustment below d4 is refused rather than killing.

At the GM's table (``table.py``, issue 16):
- An NPC's harm is typed at the table, and harm past its HP is critical harm: the table rolls the NPC's STR test
  (DN 4, exact odds) as the damage is typed (``npc_damage`` with a random source), logs it as the GM's roll, and a
  failure lowers its STR die a step and marks it defeated (taken out; below d4, dead). The GM's own "Critical
  harm test" button does the same for harm the table did not see.
- Morale: the tracker sees one NPC, so its "role" (one of a group, their leader, a lone enemy, a detachment)
  says which of this revision's triggers it can fire: a lone enemy at 0 HP (§001.11.9 [REC]); a leader or the
  first of a group when critical harm may take it out; a detachment (a group fought as one) brought to half its
  HP is "their force reduced by half" (across separate NPCs that is the GM's call). A detachment's attack rolls
  with ADV and has blast (seed 001, Detachments). The
  contest itself is the player's "Enemy morale" roll (a roll request), against the NPC's WIL die.
- Time: the game clock starts at midnight of day 1; a day's rations are eaten at each midnight (they are sold by
  the day); "until dawn" ends at 06:00. Unfed, the sheet is deprived, and past the first day gains a fatigue
  level a day, as the "A day deprived" roll counts; eating again ends that deprivation, and fatigue goes only
  with nights of rest. A torch burns 1 hour and a lantern's oil 4 hours (the price list); the luck die (d6) is
  rolled hidden for the GM at the start of every exploration and travel round advanced, none for a whole day.
"""

from rules.systems.fell_late.system import PROCEDURES, SYSTEM, FellLate

__all__ = ["PROCEDURES", "SYSTEM", "FellLate"]
