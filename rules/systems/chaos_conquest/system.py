"""The Chaos & Conquest GameSystem: its procedures and the ``ChaosConquest`` class that offers everything to the app."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, ClassVar

from rules.base import (
    Banner,
    CatalogueEntry,
    CombatOrder,
    Creation,
    GameSystem,
    GroupResult,
    Hireling,
    Item,
    NpcHarm,
    Param,
    Procedure,
    QuickRoll,
    RollResult,
    Sheet,
    SlotSummary,
    TimeUnit,
    Track,
    check_count,
)
from rules.clock import LightProcedure, burnt_for
from rules.data import chaos_conquest as data
from rules.dice import RandomSource
from rules.settings import Setting
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
    Shares,
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
from rules.systems.chaos_conquest.sheet import adjust, conditions, tracks
from rules.systems.chaos_conquest.state import _default_state, _helper_state, _st, validate_hireling, validate_state
from rules.systems.chaos_conquest.table import (
    LIGHTS,
    NPC_FIELDS,
    NPC_ROLLS,
    TIME_UNITS,
    advance_time,
    combat_order,
    group_result,
    light_level,
    npc_damage,
    npc_roll,
    time_checks,
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


@dataclass(frozen=True)
class ChaosConquest(GameSystem):
    """Chaos & Conquest (2023-12 rules): the GameSystem for seed 002."""

    id: str = "chaos-conquest"
    name: str = "Chaos & Conquest"
    coin_label: str = "pennies"
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

    def quick_rolls(self, sheet: Sheet) -> tuple[QuickRoll, ...]:
        return quick_rolls(sheet)

    def detail_params(self) -> tuple[Param, ...]:
        return detail_params()

    def default_state(self) -> dict[str, Any]:
        return _default_state()

    def validate_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return validate_state(state)

    def rule_settings(self) -> tuple[Setting, ...]:
        return SETTINGS

    def create(
        self, choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None
    ) -> Creation:
        return create(choices, rng)

    def creation_params(self) -> tuple[Param, ...]:
        return creation_params()

    def tracks(self, sheet: Sheet) -> tuple[Track, ...]:
        return tracks(sheet)

    def adjust(self, sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
        return adjust(sheet, key, delta)

    def slots(self, sheet: Sheet) -> SlotSummary:
        return slots(sheet)

    def conditions(self, sheet: Sheet) -> tuple[str, ...]:
        return conditions(sheet)

    def banners(self, sheet: Sheet) -> tuple[Banner, ...]:
        return banners(sheet)

    def sheet_facts(self, sheet: Sheet) -> dict[str, Any]:
        return sheet_facts(sheet)

    def table_facts(self, party: Sequence[tuple[int, Sheet]]) -> dict[str, Any]:
        return table_facts(party)

    def procedures(self) -> Mapping[str, Procedure]:
        return PROCEDURES

    def table_procedures(self) -> Mapping[str, Procedure]:
        return TABLE_PROCEDURES

    def group_result(self, procedure: str, outcomes: Sequence[str]) -> GroupResult | None:
        return group_result(procedure, outcomes)

    combat_round_seconds: int = 20  # seed 002, Time: a round is 20 seconds

    def npc_fields(self) -> tuple[Param, ...]:
        return NPC_FIELDS

    def npc_damage(
        self,
        stats: Mapping[str, Any],
        start: Mapping[str, Any],
        amount: int,
        ignore_armour: bool = False,
        rng: RandomSource | None = None,
    ) -> NpcHarm:
        return npc_damage(stats, start, amount, ignore_armour)

    def npc_rolls(self) -> Mapping[str, str]:
        return NPC_ROLLS

    def npc_roll(self, key: str, stats: Mapping[str, Any], rng: RandomSource) -> RollResult:
        return npc_roll(key, stats, rng)

    def combat_order(self, round_number: int, rng: RandomSource) -> CombatOrder:
        return combat_order(round_number, rng)

    def end_of_combat(self) -> str | None:
        return "end_combat"  # seed 002, Worn Weapons and Ammo: each PC rolls for what they used

    def time_units(self) -> tuple[TimeUnit, ...]:
        return TIME_UNITS

    def advance_time(
        self, sheet: Sheet, unit: str, count: int, start_minutes: int, rng: RandomSource, start_seconds: int = 0
    ) -> RollResult:
        return advance_time(sheet, unit, count, start_minutes, rng)

    def time_checks(self, unit: str, count: int, start_minutes: int, rng: RandomSource) -> tuple[RollResult, ...]:
        return time_checks(unit, count, start_minutes, rng)

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

    def light_level(self, party: Sequence[Sheet]) -> Banner | None:
        return light_level(party)

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return CATALOGUE

    def format_money(self, amount: int) -> str:
        return format_money(amount)

    def hireling_limit(self, sheet: Sheet) -> int:
        return hireling_limit(sheet)

    def counts_against_limit(self, hireling: Hireling) -> bool:
        """A retainer by its sheet's role, as ``hire`` counts them: the row's kind alone could be mislabelled."""
        return _helper_state(hireling)["role"] == "retainer"

    def check_limits(self, sheet: Sheet) -> None:
        """Seed 002 (Retainers, Shields): retainers up to what WIL allows, read from its base score (damage to WIL
        heals and takes no retainer away); one spare shield at most besides the one in hand."""
        wil = _st(sheet)["attributes"]["WIL"]["base"]
        most = retainer_row(wil)[1]
        check_count(sheet.hirelings, self.counts_against_limit, most, "retainers", f"with WIL {wil} the rules allow")
        shields = [item for item in sheet.items if item.kind == "shield" for _ in range(max(0, item.quantity))]
        check_count(shields, _any, 2, "shields", "one in hand and one spare:")

    def hire_params(self, sheet: Sheet) -> tuple[Param, ...]:
        return hire_params(sheet)

    def hire(self, sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
        return hire(sheet, choices, rng)

    def validate_item(self, item: Item) -> Item:
        return validate_item(item)

    def validate_hireling(self, hireling: Hireling) -> Hireling:
        return validate_hireling(hireling)

    # helpers the app calls beyond the protocol
    def check_can_carry(self, sheet: Sheet, item: Item) -> SlotSummary:
        return check_can_carry(sheet, item)

    def item_slots(self, sheet: Sheet, item: Item) -> int:
        return row_slots(sheet, item)

    def armour_value(self, sheet: Sheet) -> int:
        return armour_value(sheet)

    def treasure_shares(self, total: int, pcs: int, retainers: int = 0) -> Shares:
        return treasure_shares(total, pcs, retainers)

    def heir_split(self, share: int) -> tuple[int, int]:
        return heir_split(share)


def _any(_row: Any) -> bool:
    return True


SYSTEM = ChaosConquest()
