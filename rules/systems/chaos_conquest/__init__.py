"""Chaos & Conquest (2023-12-20 rules) by Alexander Gomez and The Chaos Consortium.

Rules from seed 002 ("How to Play", ../shared/seeds/002_882aafdbf41b7f4b.txt), creation, equipment,
magic and hired help from the companion rules of the same date (loaded as data in
``rules.data.chaos_conquest``, CC BY-SA 4.0), and the spec's [REC] readings (rules-spec.md §002).

State layout (a JSON-able dict, normalised by ``validate_state``)::

    {
      "attributes": {"STR": {"current": 12, "base": 12}, "DEX": {...}, "WIL": {...}},
      "level": 1, "xp": 0,
      "xp_ledger": [{"kind": "treasure" | "waste", "amount": 1200, "note": "Barrow silver"}],
      "stamina": 5, "stamina_max": 5,          # stamina may sit at 0 or below on Death's door
      "stress": 0,                             # each point fills an inventory slot
      "talents": ["Survival", ...], "background": "Ranger", "archetype": "Pathfinder",
      "faction": "Law",                        # secret: the app hides it from other players
      "age": 24,
      "status": "fine" | "deaths_door" | "dying" | "dead",
      "scars": [{"roll": 3, "name": "Hobbled", "text": "..."}], "doomed": False, "limp": False,
      "coins": 540,                            # brass pennies; 1 m = 20 s = 240 p
      "av_lost": 0,                            # armour points knocked off by criticals, mended by Supply
      "av_crit_pending": 0,                    # criticals taken this round: AV drops at the round's end
      "aura": False, "aura_lost": False, "bark": False, "wings": False, "tumours": 0,  # mishap marks
      "mishaps": ["12: magic aura"], "swapped": False,
    }

``attributes[..]["base"]`` is the score a full rest returns to; ``current`` may sit lower (poison,
arcane burns). Scars, level-ups and lasting mishaps move both.

Items (``Item.data``): weapons ``{"damage": 8, "bonus": 1, "ranged": True, "silver": True,
"worn_out": True}`` (``worn_out`` is the rules' "worn" weapon: damage 1, no criticals); armour and
helmets ``{"av": 2, "min_str": 12, "dex_disadvantage": True, "magic": True}`` counting when
``Item.worn``; a held shield is a ``kind="shield"`` item with ``worn=True``; Supplies are
``{"supply": True}``; rations ``kind="ration"`` (``{"days": 7}``); ammo ``kind="ammo"``
(``{"last_shot": True}`` after a bad ammo roll); spell books ``kind="spellbook"`` with
``{"grimoire": True, "spells": [...]}``, ``{"holy_book": True, "faction": "Law", "spells": [...]}`` or
``{"scroll": True, "spell": "Bless"}``; mounts ``kind="animal"`` with ``{"mount": True}``.

Hirelings (``Hireling.state``): ``{"role": "porter" | "teamster" | "explorer" | "retainer",
"attributes": {...as above}, "stamina", "stamina_max", "status", "doomed", "scars", "slots",
"morale"`` (hirelings) or ``"loyalty", "level", "xp", "weapon"`` (retainers) ``}``.

App helpers beyond the GameSystem protocol: ``SYSTEM.check_can_carry(sheet, item)`` (call before
adding an item), ``SYSTEM.armour_value(sheet)``, ``SYSTEM.treasure_shares(total, pcs, retainers)`` and
``SYSTEM.heir_split(share)`` (pure), ``SYSTEM.credit``; the forms come from ``creation_params()`` and
``hire_params(sheet)``. Starting rolls are all in ``Creation.rolls``. A retainer's fee up front is
``Hireling.upfront``: ``hire`` cannot touch the employer's sheet, so the app deducts it from ``coins``.
``SYSTEM.private_fields`` names the state the app shows only to the owner and the GM (the faction).

Where the seed and the spec differ
----------------------------------
We found no rule where spec §002 contradicts the seed; these are the places where one says more
than the other, and what we did:
- Level-up at the cap: the seed says "No attribute score can be increased above 18"; the spec's
  "+1 to one attribute (max 18)" could read as a precondition. With every attribute at 18 the seed
  caps the rise and the level still comes, with its stamina roll.
- Stress that kills: spec §002.7 lists stress sources; the seed says a character whose every slot
  holds stress dies, and stress with no slot costs d6 damage each. A push, a failed casting save, a
  mishap, a party-save leader's cover or a scar that shrinks the slots can therefore kill, so the
  odds of those rolls show death (and the dying) with its exact chance. A push that fills the last
  slot kills before the save is rolled; a failed save's stress that kills ends the cast unresolved.
- Night's rest when sleep is interrupted: spec §002.6 (from Camp) says only that no stamina comes
  back; the seed's Night's Rest needs "a full night's rest of two watches", which an interrupted
  night is not, so we give neither stamina nor the stress removal (the ration is still eaten).
- Starting kit: the seed's two Supplies, torch and dagger hold no ration, and a night's rest needs one;
  every new character also carries three days' rations, so the first night's rest can happen.
- Chronic Wound: the seed says "permanently lose 2 stamina"; the spec reads it as 2 *max* stamina.
  Losing current stamina "permanently" means nothing once rested, so we follow the spec.
- Status: spec §002.3 folds Death's door and dying into one value; the seed has two steps (the d6,
  then dying until treated), so the sheet keeps ``deaths_door`` (the d6 still to roll, after a
  hand adjustment) and ``dying`` apart.
- Doomed: the seed says "the next time you are on Death's door". The spec does not say what
  happens after that time; a character who rolls the 6 and lives has spent the doom, so we clear it.
- Treating the dying: the seed gives one WIL save "within a turn"; a treatment takes that turn
  (a turn is "enough time for ... any other significant activity"), so a failed save means death.
- Reorienting Head Wound: the seed compares 3d6 with "your current attribute score"; we compare with
  the current value and never lower the rested score (spec §002.3 caps it at 18).
- Full rest "restores any lowered attributes": spec §002.13.4 [REC] keeps scar losses; we do too
  (scars lower ``base``, other losses only ``current``).
- Party save: the seed's "best result among them" leaves open whether the leader's own failure
  costs stress; we follow [REC] §002.4.6 (members' failures only, taken even when the party passes).

Package layout (each module imports only from the ones listed before it, never back):

- ``state``: the state's shape, ``validate_state``, a hireling's small sheet, shared low-level helpers;
- ``catalogue``: money (``format_money``, coins by weight) and the equipment tables;
- ``inventory``: items, slots and armour (``slots``, ``check_can_carry``, ``armour_value``);
- ``effects``: what a roll does to a sheet (damage, Death's door, scars, stress) and procedure helpers;
- ``saves``, ``combat``, ``rest``, ``magic``, ``advancement``, ``npcs``, ``hired_help``: the procedures;
- ``creation``: ``create`` and its form;
- ``sheet``: tracks, hand adjustments and conditions;
- ``display``: banners, ``sheet_facts`` and ``table_facts``, the plain values the system's templates show;
- ``system``: ``PROCEDURES``, ``TABLE_PROCEDURES`` and the ``ChaosConquest`` class; ``SYSTEM`` is its one instance.
"""

from __future__ import annotations

from rules.systems.chaos_conquest.advancement import (
    LevelUpProcedure,
    SwapProcedure,
    XpProcedure,
    level_for_xp,
    level_up_odds,
    xp_for_level,
)
from rules.systems.chaos_conquest.catalogue import CATALOGUE, coin_count, coin_slots, format_money
from rules.systems.chaos_conquest.combat import (
    AttackProcedure,
    CombatOrderProcedure,
    DeathsDoorProcedure,
    EndCombatProcedure,
    EndRoundProcedure,
    TakeDamageProcedure,
    TreatProcedure,
    Weapon,
    attack_distribution,
    weapon_outcomes,
)
from rules.systems.chaos_conquest.creation import create, creation_params
from rules.systems.chaos_conquest.display import ATTRIBUTE_HELP, STATUS_WORDS, banners, sheet_facts, table_facts
from rules.systems.chaos_conquest.effects import DEATH, damage_odds, deaths_door_death_chance
from rules.systems.chaos_conquest.hired_help import (
    HelperDamageProcedure,
    LoyaltyProcedure,
    Shares,
    heir_split,
    hire,
    hire_params,
    hireling_limit,
    retainer_row,
    treasure_shares,
)
from rules.systems.chaos_conquest.inventory import (
    ITEM_FIELDS,
    armour_summary,
    armour_value,
    check_can_carry,
    slots,
    validate_item,
)
from rules.systems.chaos_conquest.magic import CastProcedure, mishap_chances, power_cost
from rules.systems.chaos_conquest.npcs import (
    MORALE_DEFAULT,
    MoraleProcedure,
    ReactionProcedure,
    TableMoraleProcedure,
    morale_odds,
)
from rules.systems.chaos_conquest.rest import RestProcedure, StressProcedure
from rules.systems.chaos_conquest.saves import (
    PARTY_MEMBERS,
    OpposedSaveProcedure,
    PartySaveProcedure,
    SaveProcedure,
    opposed_odds,
    save_chance,
)
from rules.systems.chaos_conquest.sheet import ADJUSTABLE, adjust, conditions, tracks
from rules.systems.chaos_conquest.state import (
    ARMOR_MASTER,
    ATTRIBUTE_CHOICES,
    ATTRIBUTE_MAX,
    ATTRIBUTES,
    BONUS_DICE,
    DAMAGE_MAX,
    HELPER_FIELDS,
    HIRE_KINDS,
    MAGIC_AV_MAX,
    MIN_SLOTS,
    MUNDANE_AV_MAX,
    POWER_MAX,
    STAMINA_FLOOR,
    STARTING_SUPPLIES,
    STATUSES,
    UNARMED,
    WEAPON_DICE,
    WING_SLOTS,
    validate_hireling,
    validate_state,
)
from rules.systems.chaos_conquest.system import PROCEDURES, SYSTEM, TABLE_PROCEDURES, ChaosConquest

__all__ = [
    "ADJUSTABLE",
    "ARMOR_MASTER",
    "ATTRIBUTES",
    "ATTRIBUTE_CHOICES",
    "ATTRIBUTE_HELP",
    "ATTRIBUTE_MAX",
    "AttackProcedure",
    "BONUS_DICE",
    "CATALOGUE",
    "CastProcedure",
    "ChaosConquest",
    "CombatOrderProcedure",
    "DAMAGE_MAX",
    "DEATH",
    "DeathsDoorProcedure",
    "EndCombatProcedure",
    "EndRoundProcedure",
    "HELPER_FIELDS",
    "HIRE_KINDS",
    "HelperDamageProcedure",
    "ITEM_FIELDS",
    "LevelUpProcedure",
    "LoyaltyProcedure",
    "MAGIC_AV_MAX",
    "MIN_SLOTS",
    "MORALE_DEFAULT",
    "MUNDANE_AV_MAX",
    "MoraleProcedure",
    "OpposedSaveProcedure",
    "PARTY_MEMBERS",
    "POWER_MAX",
    "PROCEDURES",
    "PartySaveProcedure",
    "ReactionProcedure",
    "RestProcedure",
    "STAMINA_FLOOR",
    "STARTING_SUPPLIES",
    "STATUSES",
    "STATUS_WORDS",
    "SYSTEM",
    "SaveProcedure",
    "Shares",
    "StressProcedure",
    "SwapProcedure",
    "TABLE_PROCEDURES",
    "TableMoraleProcedure",
    "TakeDamageProcedure",
    "TreatProcedure",
    "UNARMED",
    "WEAPON_DICE",
    "WING_SLOTS",
    "Weapon",
    "XpProcedure",
    "adjust",
    "armour_summary",
    "armour_value",
    "attack_distribution",
    "banners",
    "check_can_carry",
    "coin_count",
    "coin_slots",
    "conditions",
    "create",
    "creation_params",
    "damage_odds",
    "deaths_door_death_chance",
    "format_money",
    "heir_split",
    "hire",
    "hire_params",
    "hireling_limit",
    "level_for_xp",
    "level_up_odds",
    "mishap_chances",
    "morale_odds",
    "opposed_odds",
    "power_cost",
    "retainer_row",
    "save_chance",
    "sheet_facts",
    "slots",
    "table_facts",
    "tracks",
    "treasure_shares",
    "validate_hireling",
    "validate_item",
    "validate_state",
    "weapon_outcomes",
    "xp_for_level",
]
