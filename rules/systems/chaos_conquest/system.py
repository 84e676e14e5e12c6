"""The Chaos & Conquest GameSystem: its procedures and the ``ChaosConquest`` class that offers everything to the app."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from types import MappingProxyType
from typing import ClassVar

from rules.base import (
    CheckAsked,
    GameSystem,
    Hireling,
    LootShare,
    Procedure,
    RollResult,
    Sheet,
    check_count,
    returns,
)
from rules.clock import LightProcedure, burnt_for
from rules.data import chaos_conquest as data
from rules.dice import RandomSource
from rules.systems.chaos_conquest.advancement import LevelUpProcedure, SwapProcedure, XpProcedure
from rules.systems.chaos_conquest.catalogue import CATALOGUE, MONEY_NOTE, format_money
from rules.systems.chaos_conquest.combat import (
    AttackProcedure,
    CombatOrderProcedure,
    DeathsDoorProcedure,
    EndCombatProcedure,
    EndRoundProcedure,
    TakeDamageProcedure,
    TreatProcedure,
)
from rules.systems.chaos_conquest.creation import create, creation_params
from rules.systems.chaos_conquest.display import (
    FIELD_LABELS,
    OUTCOME_LABELS,
    banners,
    detail_params,
    quick_rolls,
    sheet_facts,
    table_facts,
)
from rules.systems.chaos_conquest.hired_help import (
    HelperDamageProcedure,
    LoyaltyProcedure,
    heir_split,
    hire,
    hire_params,
    hireling_limit,
    retainer_row,
    treasure_shares,
)
from rules.systems.chaos_conquest.inventory import armour_value, check_can_carry, row_slots, slots, validate_item
from rules.systems.chaos_conquest.magic import CastProcedure
from rules.systems.chaos_conquest.npcs import MoraleProcedure, ReactionProcedure, TableMoraleProcedure
from rules.systems.chaos_conquest.rest import RestProcedure, StressProcedure
from rules.systems.chaos_conquest.saves import OpposedSaveProcedure, PartySaveProcedure, SaveProcedure
from rules.systems.chaos_conquest.settings import SETTINGS
from rules.systems.chaos_conquest.sheet import adjust, conditions, harm_offer, tracks
from rules.systems.chaos_conquest.state import _default_state, _helper_state, _st, validate_hireling, validate_state
from rules.systems.chaos_conquest.table import (
    LIGHTS,
    NPC_FIELDS,
    NPC_ROLLS,
    NPC_TARGETS,
    TIME_UNITS,
    WHAT_IFS,
    advance_time,
    combat_order,
    group_result,
    harm_from_outside,
    hits_on_npc,
    light_level,
    npc_attack_harm,
    npc_attack_outside,
    npc_damage,
    npc_roll,
    npc_target_params,
    time_checks,
    what_if,
)
from rules.systems.chaos_conquest.travel import TRAVEL_PROCEDURES

PROCEDURES: dict[str, Procedure] = {
    p.key: p
    for p in (
        SaveProcedure(),
        OpposedSaveProcedure(),
        PartySaveProcedure(),
        AttackProcedure(),
        TakeDamageProcedure(),
        DeathsDoorProcedure(),
        TreatProcedure(),
        EndRoundProcedure(),
        EndCombatProcedure(),
        StressProcedure(),
        RestProcedure(),
        CastProcedure(),
        XpProcedure(),
        LevelUpProcedure(),
        SwapProcedure(),
        HelperDamageProcedure(),
        LoyaltyProcedure(),
        MoraleProcedure(),
        ReactionProcedure(),
        CombatOrderProcedure(),
        LightProcedure(LIGHTS),
    )
}

# Rolls the GM makes from the table for no character (seed 002, Morale: the NPCs' 2d6); called with sheet=None.
TABLE_PROCEDURES: dict[str, Procedure] = {p.key: p for p in (TableMoraleProcedure(), *TRAVEL_PROCEDURES)}


# The table's shared checks (issue 42, rules.base.SHARED_CHECKS) as this system's own rolls. Every check is a save of
# STR, DEX or WIL: wits and presence are WIL, danger a DEX save; there is no luck roll.
SHARED_CHECKS: Mapping[str, CheckAsked] = MappingProxyType(
    {
        "might": CheckAsked("save", {"attribute": "STR"}),
        "agility": CheckAsked("save", {"attribute": "DEX"}),
        "wits": CheckAsked("save", {"attribute": "WIL"}),
        "presence": CheckAsked("save", {"attribute": "WIL"}),
        "danger": CheckAsked("save", {"attribute": "DEX"}),
    }
)


@dataclass(frozen=True)
class ChaosConquest(GameSystem):
    """Chaos & Conquest (2023-12 rules): the GameSystem for seed 002."""

    id: str = "chaos-conquest"
    name: str = "Chaos & Conquest"
    coin_label: str = "pennies"
    coin_worth: Fraction | None = Fraction(1, 6)  # in copper pieces, a torch worth 1 (equipment.md: a torch is 6 p)
    money_note: str = MONEY_NOTE
    # Ammo and rations wear down one item at a time (equipment.md, Ammo: a d6 after each fight; a ration's days
    # count down at each night's rest), so each keeps its own row; Supply, lights and treasure stack.
    stacking_kinds: frozenset[str] = frozenset({"gear", "light", "treasure", "coins"})
    credit: str = data.CREDIT
    # character-creation.md (spec §002): the faction is secret; the app shows it to the owner and the GM only.
    private_fields: tuple[str, ...] = ("faction",)
    # hireling_limit() caps retainers only: porters and other paid help do not count against WIL.
    limited_hireling_kinds: tuple[str, ...] = ("retainer",)
    field_labels: ClassVar[Mapping[str, str]] = MappingProxyType(FIELD_LABELS)
    outcome_labels: ClassVar[Mapping[str, str]] = MappingProxyType(OUTCOME_LABELS)

    # Each member is the module function itself (mypy checks it against the protocol's signature).
    # --- the core: rules/systems/chaos_conquest/{state,creation,sheet,inventory}.py ------------------------
    default_state = staticmethod(_default_state)
    validate_state = staticmethod(validate_state)
    validate_item = staticmethod(validate_item)
    validate_hireling = staticmethod(validate_hireling)
    check_can_carry = staticmethod(check_can_carry)
    item_slots = staticmethod(row_slots)
    creation_params = staticmethod(creation_params)
    create = staticmethod(create)
    tracks = staticmethod(tracks)
    adjust = staticmethod(adjust)
    harm_offer = staticmethod(harm_offer)
    slots = staticmethod(slots)
    conditions = staticmethod(conditions)
    procedures = returns(PROCEDURES)

    # --- settings, presentation (settings.py, display.py) -------------------------------------------------
    rule_settings = returns(SETTINGS)
    light_sources = returns(LIGHTS)
    quick_rolls = staticmethod(quick_rolls)
    detail_params = staticmethod(detail_params)
    banners = staticmethod(banners)
    sheet_facts = staticmethod(sheet_facts)
    table_facts = staticmethod(table_facts)

    # --- economy and hired help (catalogue.py, hired_help.py) ---------------------------------------------
    catalogue = returns(CATALOGUE)
    format_money = staticmethod(format_money)
    hireling_limit = staticmethod(hireling_limit)
    hire_params = staticmethod(hire_params)
    hire = staticmethod(hire)

    def counts_against_limit(self, hireling: Hireling) -> bool:
        """A retainer by its sheet's role, as ``hire`` counts them: the row's kind alone could be mislabelled."""
        return _helper_state(hireling)["role"] == "retainer"

    def check_limits(self, sheet: Sheet) -> None:
        """Seed 002 (Retainers, Shields): retainers up to what WIL allows, read from its base score (damage to WIL
        heals and takes no retainer away); one spare shield at most besides the one in hand."""
        wil = _st(sheet)["attributes"]["WIL"]["base"]
        most = retainer_row(wil)[1]
        check_count(
            sheet.hirelings, most, "retainers", f"with WIL {wil} the rules allow", counts=self.counts_against_limit
        )
        shields = [item for item in sheet.items if item.kind == "shield" for _ in range(max(0, item.quantity))]
        check_count(shields, 2, "shields", "one in hand and one spare:")

    # --- the GM's table (table.py) --------------------------------------------------------------------------
    table_procedures = returns(TABLE_PROCEDURES)
    group_result = staticmethod(group_result)
    what_ifs = returns(WHAT_IFS)
    shared_checks = returns(SHARED_CHECKS)
    what_if = staticmethod(what_if)
    combat_round_seconds: int = 20  # seed 002, Time: a round is 20 seconds
    npc_fields = returns(NPC_FIELDS)
    npc_damage = staticmethod(npc_damage)
    npc_rolls = returns(NPC_ROLLS)
    npc_roll = staticmethod(npc_roll)
    npc_attack_harm = staticmethod(npc_attack_harm)
    npc_attack_outside = staticmethod(npc_attack_outside)
    harm_from_outside = staticmethod(harm_from_outside)
    npc_target_procedures = returns(NPC_TARGETS)
    npc_target_params = staticmethod(npc_target_params)
    hits_on_npc = staticmethod(hits_on_npc)
    combat_order = staticmethod(combat_order)
    end_of_combat = returns("end_combat")  # seed 002, Worn Weapons and Ammo: each PC rolls for what they used
    time_units = returns(TIME_UNITS)
    advance_time = staticmethod(advance_time)
    time_checks = staticmethod(time_checks)
    light_level = staticmethod(light_level)

    def round_passes(self, sheet: Sheet, rng: RandomSource) -> RollResult:
        """Seed 002, Critical Hits (spec §002.13.9 [REC]): AV lost to criticals lands at the end of the round."""
        if not sheet.state.get("av_crit_pending"):
            return RollResult("round", "A new round", "nothing", "")
        return EndRoundProcedure().roll(sheet, {}, rng)

    def fight_ends(self, sheet: Sheet, minutes: int, rng: RandomSource) -> RollResult:
        """The last round's criticals land (as ``round_passes``), and the fight's minutes burn the lit light
        sources (equipment.md, Light), as the clock's do."""
        ended = self.round_passes(sheet, rng)
        after = sheet.with_state(ended.state) if ended.state is not None else sheet
        burnt = burnt_for(after, minutes, LIGHTS)
        words = " ".join(w for w in (ended.summary, burnt.summary) if w)
        changed = ended.state is not None or burnt.outcome != "nothing"
        return replace(burnt, outcome="over" if changed else "nothing", summary=words, state=ended.state)

    # helpers beyond the protocol (the tests and the rules texts' own questions)
    armour_value = staticmethod(armour_value)

    def loot_share(self, hireling: Hireling) -> LootShare | None:
        """hired-help.md (Retainers; Shares of Treasure): a retainer takes half a share; hirelings are paid by
        the day and take none."""
        return LootShare(Fraction(1, 2), 0, "half a share") if hireling.kind == "retainer" else None

    treasure_shares = staticmethod(treasure_shares)
    heir_split = staticmethod(heir_split)


SYSTEM = ChaosConquest()
