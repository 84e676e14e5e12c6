"""Fell (v0.4-era draft) by Jacob Densford: ability dice, ability points, steel dice and protection.

Rules from seed 000 ("Playing the Game", ../shared/seeds/000_72fc736675279766.txt), character
creation and tables from the published draft (fell/creating-a-character.md and fell/tables.md @ 80a18b5,
loaded as data in ``rules.data.fell_draft``), and the spec's [REC] readings (rules-spec.md §000).

State layout (a JSON-able dict, normalised by ``validate_state``)::

    {
      "abilities": {"BOD": {"die": 6, "full_die": 6, "points": 6}, "INT": {...}, "WIL": {...}},
      "hp": 4, "hp_max": 4,
      "skills": ["survival"], "spells": ["Comprehend"], "spell_die": 8,   # 0 = no spell die
      "coins": 12,
      "deprived": False, "days_deprived": 0, "fatigue": 0,
      "dying": False, "dead": False,                                   # dead also when points hit 0
      "protection_damage": 0,                                          # optional referee field
      "background": "Hunter", "age": 38, "traits": ["Athletic", ...],
      "hireling": False, "paid_up": False, "steel_die": 0, "equipment": [],  # hirelings only
    }

``die`` is the ability die now, ``full_die`` the die it returns to after a week's rest (critical harm
may lower ``die``); an ability's points run from 0 to the highest face of ``die``.

Items: weapons carry ``data={"steel_die": 6, "bulky": True, "blast": True}``, armour and shields
``data={"protection": 1}`` and count only when ``Item.worn``.

App helpers beyond the GameSystem protocol: ``SYSTEM.check_can_carry(sheet, item)`` (call before
adding an item; RulesError past twice the slots), ``SYSTEM.buy(sheet, entry, quantity)`` (a purchase
from an admin-edited CatalogueEntry), ``SYSTEM.protection(sheet)`` and ``SYSTEM.retired(sheet)``.

Where the seed and the spec differ
----------------------------------
- Advancement: the seed compares each die with "your current hit points"; the spec [REC] (§000.11)
  compares with maximum HP taken before the roll. The brief asks for the [REC], and on a return to
  safety current HP is normally full, so we compare with ``hp_max``.
- Extra dice in a test: the seed's "an applicable steel, skill, or spell die if you have one" reads
  most plainly as one extra die, and the spec's own cheat sheet says "≤1"; §000.12.1 [REC] allows one
  of each kind. We follow the [REC] and offer the strict reading as the table's rule setting ``extra_die_rule``
  (with ``advance_clauses_stack`` and ``contest_tiebreak``: ``settings.py``).
- Critical harm test: the spec [REC] (§000.7) names only fatigue as a shift on the ability die; the
  seed's encumbrance rule gives disadvantage on every test, so we apply being over the slots too.
- Detachments: the seed says attacks on a detachment have disadvantage "unless they have blast"; the
  spec reads "they" as the attacker's weapon. Same thing in play: a blast weapon escapes it.
- The seed's typos ("steal die", "WILL", "Surender") are read as steel die, WIL and Surrender.
- Whose spell die backlashes: the seed says "whenever using your spell die" and the spec (§000.5.5)
  writes the caster's case only. A helper who lends their spell die (seed, Help: "roll an applicable
  steel, skill, or spell die") is using it, so it backlashes on the helper against the test's ability
  die; an opponent whose contest pool holds their spell die takes it against their own ability die.
  A hireling lends its spell die only when it is larger than its steel and skill dice.
- Critical harm that lowers a die: the seed leaves ability points to the creation rules, where they
  equal the die's highest face (spec §000.3), so points above the lowered die's face come down to it.
- Spec §000.13's contest vector has a d4 showing 6, which a d4 cannot roll; the tie-break it shows
  (a 6 on a d8 beats a 6 on a d6) is tested with the dice as written, and again with a real d4 face.
"""

from rules.systems.fell_draft.advancement import AdvanceProcedure, advancement_gain
from rules.systems.fell_draft.catalogue import CATALOGUE
from rules.systems.fell_draft.checks import (
    ABILITY_CHOICES,
    DIE_CHOICES,
    NO,
    ContestProcedure,
    TestProcedure,
)
from rules.systems.fell_draft.combat import (
    AttackProcedure,
    NpcAttackProcedure,
    TakeHarmProcedure,
    harm_odds,
)
from rules.systems.fell_draft.creation import (
    create,
    creation_params,
)
from rules.systems.fell_draft.harm import (
    Harm,
    apply_harm,
    critical_survival_chance,
)
from rules.systems.fell_draft.hired_help import (
    OrderHirelingProcedure,
    PayHirelingsProcedure,
    hire,
    hire_params,
    hireling_wage,
)
from rules.systems.fell_draft.inventory import (
    ITEM_FIELDS,
    check_can_carry,
    protection,
    slots,
    validate_hireling,
    validate_item,
)
from rules.systems.fell_draft.learning import (
    BuyProcedure,
    LearnSkillProcedure,
    LearnSpellProcedure,
    SpellDieProcedure,
    buy,
)
from rules.systems.fell_draft.magic import CastProcedure
from rules.systems.fell_draft.npcs import (
    LeverageProcedure,
    MoraleProcedure,
    ReactionProcedure,
)
from rules.systems.fell_draft.pools import (
    Pool,
    PoolDie,
    contest_chances,
    contest_winner,
    pass_chance,
    shift_dice,
)
from rules.systems.fell_draft.rest import DeprivationProcedure, DyingProcedure, RestProcedure
from rules.systems.fell_draft.state import (
    ABILITIES,
    BASE_SLOTS,
    COINS_PER_SLOT,
    CONTEST_WORK,
    DN_DEFAULT,
    DN_MAX,
    DN_MIN,
    HARM_MAX,
    HIRELING_HP,
    MAX_PROTECTION,
    OVERFLOW,
    RETIRE_HP,
    SHIFT_MAX,
    SPELL_COST,
    STARTING_HP,
    WAGE,
    WAGE_PER_STEP,
    retired,
    validate_state,
)
from rules.systems.fell_draft.system import (
    PROCEDURES,
    SYSTEM,
    FellDraft,
)

__all__ = [
    "ABILITIES",
    "ABILITY_CHOICES",
    "AdvanceProcedure",
    "AttackProcedure",
    "BASE_SLOTS",
    "BuyProcedure",
    "CATALOGUE",
    "COINS_PER_SLOT",
    "CONTEST_WORK",
    "CastProcedure",
    "ContestProcedure",
    "DIE_CHOICES",
    "DN_DEFAULT",
    "DN_MAX",
    "DN_MIN",
    "DeprivationProcedure",
    "DyingProcedure",
    "FellDraft",
    "HARM_MAX",
    "HIRELING_HP",
    "Harm",
    "ITEM_FIELDS",
    "LearnSkillProcedure",
    "LearnSpellProcedure",
    "LeverageProcedure",
    "MAX_PROTECTION",
    "MoraleProcedure",
    "NO",
    "NpcAttackProcedure",
    "OVERFLOW",
    "OrderHirelingProcedure",
    "PROCEDURES",
    "PayHirelingsProcedure",
    "Pool",
    "PoolDie",
    "RETIRE_HP",
    "ReactionProcedure",
    "RestProcedure",
    "SHIFT_MAX",
    "SPELL_COST",
    "STARTING_HP",
    "SYSTEM",
    "SpellDieProcedure",
    "TakeHarmProcedure",
    "TestProcedure",
    "WAGE",
    "WAGE_PER_STEP",
    "advancement_gain",
    "apply_harm",
    "buy",
    "check_can_carry",
    "contest_chances",
    "contest_winner",
    "create",
    "creation_params",
    "critical_survival_chance",
    "harm_odds",
    "hire",
    "hire_params",
    "hireling_wage",
    "pass_chance",
    "protection",
    "retired",
    "shift_dice",
    "slots",
    "validate_hireling",
    "validate_item",
    "validate_state",
]
