"""Fell (late): the GameSystem for seed 001."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from rules.base import (
    Banner,
    CatalogueEntry,
    CombatOrder,
    Creation,
    GameSystem,
    Hireling,
    Item,
    NpcHarm,
    Param,
    Procedure,
    QuickRoll,
    RollResult,
    RulesError,
    Sheet,
    SlotSummary,
    TimeUnit,
    Track,
    check_count,
)
from rules.clock import burnt_for
from rules.data import fell_late as data
from rules.dice import RandomSource
from rules.settings import Setting
from rules.systems.fell_late import display
from rules.systems.fell_late.advancement import AdvanceProcedure, LearnSkillProcedure, LearnSpellProcedure
from rules.systems.fell_late.catalogue import CATALOGUE
from rules.systems.fell_late.checks import SURPRISE, ContestProcedure, TestProcedure
from rules.systems.fell_late.combat import AttackProcedure, BlastProcedure, NpcAttackProcedure, TakeHarmProcedure
from rules.systems.fell_late.creation import create, creation_params
from rules.systems.fell_late.hired_help import (
    OrderHirelingProcedure,
    PayHirelingsProcedure,
    ShareProcedure,
    hire,
    hire_params,
    hireling_limit,
)
from rules.systems.fell_late.inventory import (
    armour,
    check_can_carry,
    over_slots,
    slots,
    slots_max,
    slots_used,
    validate_hireling,
    validate_item,
)
from rules.systems.fell_late.magic import CastProcedure, ChooseDrawbackProcedure
from rules.systems.fell_late.npcs import LeverageProcedure, LuckProcedure, MoraleProcedure, ReactionProcedure
from rules.systems.fell_late.rest import DeprivationProcedure, RestProcedure
from rules.systems.fell_late.settings import SETTINGS
from rules.systems.fell_late.state import ATTRIBUTES, HP_MAX, MAX_ARMOUR, default_state, st, step, validate_state
from rules.systems.fell_late.table import (
    LIGHTS,
    NPC_FIELDS,
    NPC_ROLLS,
    TIME_UNITS,
    LightOrPutOut,
    advance_time,
    combat_order,
    light_level,
    npc_damage,
    npc_roll,
    time_checks,
)

PROCEDURES: dict[str, Procedure] = {
    p.key: p
    for p in (
        TestProcedure(),
        ContestProcedure(),
        SURPRISE,
        CastProcedure(),
        ChooseDrawbackProcedure(),
        AttackProcedure(),
        BlastProcedure(),
        TakeHarmProcedure(),
        NpcAttackProcedure(),
        ReactionProcedure(),
        LeverageProcedure(),
        MoraleProcedure(),
        RestProcedure(),
        DeprivationProcedure(),
        AdvanceProcedure(),
        LearnSkillProcedure(),
        LearnSpellProcedure(),
        PayHirelingsProcedure(),
        ShareProcedure(),
        OrderHirelingProcedure(),
        LightOrPutOut(),
    )
}

TABLE_PROCEDURES: dict[str, Procedure] = {"luck": LuckProcedure()}

_ADJUSTABLE = ("hp", "hp_max", "coins", "fatigue", *ATTRIBUTES)


@dataclass(frozen=True)
class FellLate(GameSystem):
    """Fell (late revision): attribute dice, ADV/DIS and IMP/ENH, armour, hoard advancement."""

    id: str = "fell-late"
    name: str = "Fell (late revision)"
    coin_label: str = "C"
    credit: str = data.CREDIT
    private_fields: tuple[str, ...] = ()
    field_labels: ClassVar[Mapping[str, str]] = MappingProxyType(display.FIELD_LABELS)
    outcome_labels: ClassVar[Mapping[str, str]] = MappingProxyType(display.OUTCOME_LABELS)

    def rule_settings(self) -> tuple[Setting, ...]:
        return SETTINGS

    def default_state(self) -> dict[str, Any]:
        return default_state()

    def validate_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return validate_state(state)

    def validate_item(self, item: Item) -> Item:
        return validate_item(item)

    def validate_hireling(self, hireling: Hireling) -> Hireling:
        return validate_hireling(hireling)

    def check_can_carry(self, sheet: Sheet, item: Item) -> SlotSummary:
        return check_can_carry(sheet, item)

    def creation_params(self) -> tuple[Param, ...]:
        return creation_params()

    def create(
        self, choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None
    ) -> Creation:
        return create(choices, rng)

    def tracks(self, sheet: Sheet) -> tuple[Track, ...]:
        state = st(sheet)
        out = [Track("hp", "HP", state["hp"], state["hp_max"])]
        for a in ATTRIBUTES:
            entry = state["attributes"][a]
            out.append(Track(a, f"{a} die", entry["die"], entry["original"], minimum=4, adjustable=True))
        out += [
            Track("armour", "Armour", armour(sheet), MAX_ARMOUR, adjustable=False),
            Track("fatigue", "Fatigue", state["fatigue"]),
            Track("coins", "Coin", state["coins"]),
        ]
        return tuple(out)

    def adjust(self, sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
        """One track by ``delta``: HP within 0..max, an attribute die by ladder steps up to its original."""
        if key not in _ADJUSTABLE:
            raise RulesError(f"{key} cannot be changed by hand.")
        if isinstance(delta, bool) or not isinstance(delta, int) or abs(delta) > 100_000:
            raise RulesError("Change it by a whole number.")
        state = st(sheet)
        if key in ATTRIBUTES:
            entry = state["attributes"][key]
            moved = step(entry["die"], delta)
            if moved is None:
                raise RulesError(f"{key} cannot go below d4 by hand; critical harm decides death.")
            entry["die"] = min(moved, entry["original"])
        elif key == "hp":
            state["hp"] = min(state["hp_max"], max(0, state["hp"] + delta))
        elif key == "hp_max":
            state["hp_max"] = max(0, min(HP_MAX, state["hp_max"] + delta))
            state["hp"] = min(state["hp"], state["hp_max"])
        elif key == "coins":
            state["coins"] = max(0, state["coins"] + delta)
            if delta > 0 and slots_used(sheet, state) > 2 * slots_max(state):
                raise RulesError(
                    f"That much coin would take you past {2 * slots_max(state)} slots, more than anyone carries."
                )
        else:
            state["fatigue"] = max(0, state["fatigue"] + delta)
        return state

    def slots(self, sheet: Sheet) -> SlotSummary:
        return slots(sheet)

    def conditions(self, sheet: Sheet) -> tuple[str, ...]:
        state = st(sheet)
        if state["dead"]:
            return ("Dead",)
        out = []
        if state["out"]:
            out.append("Taken out, dying")
        if any(state["attributes"][a]["die"] < state["attributes"][a]["original"] for a in ATTRIBUTES):
            out.append(
                "Lowered "
                + ", ".join(a for a in ATTRIBUTES if state["attributes"][a]["die"] < state["attributes"][a]["original"])
            )
        if state["deprived"]:
            out.append("Deprived")
        if state["fatigue"]:
            out.append(f"Fatigued ({state['fatigue']})")
        if state["wil_impaired"]:
            out.append("WIL impaired until dawn")
        if over_slots(sheet, state):
            out.append("Over-encumbered")
        if state["hireling"] and not state["paid_up"]:
            out.append("Unpaid")
        return tuple(out)

    def banners(self, sheet: Sheet) -> tuple[Banner, ...]:
        return display.banners(sheet)

    def sheet_facts(self, sheet: Sheet) -> Mapping[str, Any]:
        return display.sheet_facts(sheet)

    def table_facts(self, party: Sequence[tuple[int, Sheet]]) -> Mapping[str, Any]:
        return display.table_facts(party)

    def quick_rolls(self, sheet: Sheet) -> tuple[QuickRoll, ...]:
        return display.quick_rolls(sheet)

    def detail_params(self) -> tuple[Param, ...]:
        return display.detail_params()

    def procedures(self) -> Mapping[str, Procedure]:
        return PROCEDURES

    def table_procedures(self) -> Mapping[str, Procedure]:
        return TABLE_PROCEDURES

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return CATALOGUE

    def format_money(self, amount: int) -> str:
        return f"{amount} C"

    def hireling_limit(self, sheet: Sheet) -> int:
        return hireling_limit(sheet)

    def check_limits(self, sheet: Sheet) -> None:
        """Seed 001 (Hirelings, Skills, Spells): hirelings and spells up to WIL's face, skills up to INT's, each
        read from the original die: a lowered die comes back with rest and takes nothing away."""
        state = st(sheet)
        wil, intellect = (state["attributes"][a]["original"] for a in ("WIL", "INT"))
        by_wil, by_int = f"with WIL d{wil} the rules allow", f"with INT d{intellect} the rules allow"
        check_count(sheet.hirelings, self.counts_against_limit, wil, "hirelings", by_wil)
        check_count(state["spells"], _any, wil, "spells", by_wil)
        check_count(state["skills"], _any, intellect, "skills", by_int)

    def hire_params(self, sheet: Sheet) -> tuple[Param, ...]:
        return hire_params(sheet)

    def hire(self, sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
        return hire(sheet, choices, rng)

    # --- the GM's table (issue 16): rules/systems/fell_late/table.py -----------------------------------------
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
        return npc_damage(stats, start, amount, ignore_armour, rng)

    def npc_rolls(self) -> Mapping[str, str]:
        return NPC_ROLLS

    def npc_roll(self, key: str, stats: Mapping[str, Any], rng: RandomSource) -> RollResult:
        return npc_roll(key, stats, rng)

    def combat_order(self, round_number: int, rng: RandomSource) -> CombatOrder:
        return combat_order(round_number)

    def time_units(self) -> tuple[TimeUnit, ...]:
        return TIME_UNITS

    def advance_time(
        self, sheet: Sheet, unit: str, count: int, start_minutes: int, rng: RandomSource, start_seconds: int = 0
    ) -> RollResult:
        return advance_time(sheet, unit, count, start_minutes, rng)

    def time_checks(self, unit: str, count: int, start_minutes: int, rng: RandomSource) -> tuple[RollResult, ...]:
        return time_checks(unit, count, start_minutes, rng)

    def fight_ends(self, sheet: Sheet, minutes: int, rng: RandomSource) -> RollResult:
        """The fight's minutes burn the lit light sources, as the clock's do."""
        return burnt_for(sheet, minutes, LIGHTS)

    def light_level(self, party: Sequence[Sheet]) -> Banner | None:
        return light_level(party)


def _any(_row: Any) -> bool:
    return True


SYSTEM = FellLate()
