"""Grit & Flesh: the GameSystem for seed 004. See the package docstring for sources and readings."""

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
)
from rules.clock import burnt_for
from rules.data import grit_flesh as data
from rules.dice import RandomSource
from rules.settings import Setting
from rules.systems.grit_flesh import display
from rules.systems.grit_flesh.advancement import GainXpProcedure, LevelUpProcedure
from rules.systems.grit_flesh.checks import CheckProcedure, SaveProcedure
from rules.systems.grit_flesh.combat import AttackProcedure, IncomingProcedure, InitiativeProcedure
from rules.systems.grit_flesh.creation import apply_settings, create, creation_params
from rules.systems.grit_flesh.damage import ComeRoundProcedure, RestProcedure, SurgeonProcedure, TakeDamageProcedure
from rules.systems.grit_flesh.gear import (
    AfterFightProcedure,
    EmptyBubblesProcedure,
    FillBubbleProcedure,
    RepairProcedure,
    RestockProcedure,
    fill_bubble,
)
from rules.systems.grit_flesh.hired_help import HELPER_LIMIT, PayHelpersProcedure, hire, hire_params
from rules.systems.grit_flesh.inventory import (
    CATALOGUE,
    KIT_SLOTS,
    armour_class,
    slots,
    slots_used,
    validate_hireling,
    validate_item,
)
from rules.systems.grit_flesh.magic import CastProcedure, FindScrollProcedure, PurifyProcedure, StudyScrollProcedure
from rules.systems.grit_flesh.settings import SETTINGS, validate
from rules.systems.grit_flesh.state import BUBBLES, SLOTS, default_state, st_of, validate_state
from rules.systems.grit_flesh.table import (
    LIGHT_PROCEDURE,
    LIGHTS,
    NPC_FIELDS,
    NPC_ROLLS,
    TIME_UNITS,
    advance_time,
    combat_order,
    round_passes,
)
from rules.systems.grit_flesh.table import npc_damage as monster_damage
from rules.systems.grit_flesh.table import npc_roll as monster_roll

PROCEDURES: dict[str, Procedure] = {
    p.key: p
    for p in (
        CheckProcedure(),
        SaveProcedure(),
        AttackProcedure(),
        IncomingProcedure(),
        TakeDamageProcedure(),
        ComeRoundProcedure(),
        RestProcedure(),
        SurgeonProcedure(),
        CastProcedure(),
        PurifyProcedure(),
        FindScrollProcedure(),
        StudyScrollProcedure(),
        FillBubbleProcedure(),
        EmptyBubblesProcedure(),
        RestockProcedure(),
        RepairProcedure(),
        GainXpProcedure(),
        LevelUpProcedure(),
        PayHelpersProcedure(),
        LIGHT_PROCEDURE,
        AfterFightProcedure(),
    )
}
TABLE_PROCEDURES: dict[str, Procedure] = {"initiative": InitiativeProcedure()}
_ADJUSTABLE = ("grit", "flesh", "bubbles", "coins", "xp")


@dataclass(frozen=True)
class GritFlesh(GameSystem):
    """Grit & Flesh: the GameSystem for seed 004."""

    id: str = "grit-flesh"
    name: str = "Grit & Flesh"
    coin_label: str = "gp"
    credit: str = data.CREDIT
    private_fields: tuple[str, ...] = ()
    field_labels: ClassVar[Mapping[str, str]] = MappingProxyType(display.FIELD_LABELS)
    outcome_labels: ClassVar[Mapping[str, str]] = MappingProxyType(display.OUTCOME_LABELS)

    # --- settings ----------------------------------------------------------------------------------------
    def rule_settings(self) -> tuple[Setting, ...]:
        return SETTINGS

    def validate_settings(self, values: Mapping[str, Any]) -> dict[str, Any]:
        return validate(values, self.name, KIT_SLOTS)

    def apply_settings(self, sheet: Sheet) -> dict[str, Any]:
        return apply_settings(sheet)

    # --- state -------------------------------------------------------------------------------------------
    def default_state(self) -> dict[str, Any]:
        return default_state()

    def validate_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return validate_state(state)

    def validate_item(self, item: Item) -> Item:
        return validate_item(item)

    def validate_hireling(self, hireling: Hireling) -> Hireling:
        return validate_hireling(hireling)

    def validate_sheet(self, sheet: Sheet) -> Sheet:
        checked = super().validate_sheet(sheet)
        if len(checked.hirelings) > HELPER_LIMIT:
            raise RulesError(f"Nobody keeps more than {HELPER_LIMIT} helpers at once.")
        return checked

    def creation_params(self) -> tuple[Param, ...]:
        return creation_params()

    def create(
        self, choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None
    ) -> Creation:
        return create(choices, rng, settings)

    # --- the sheet ---------------------------------------------------------------------------------------
    def tracks(self, sheet: Sheet) -> tuple[Track, ...]:
        state = st_of(sheet)
        return (
            Track("grit", "Grit", state["grit"], state["grit_max"]),
            Track("flesh", "Flesh", state["flesh"], state["flesh_max"]),
            Track("bubbles", "Gear bubbles filled", state["bubbles"], BUBBLES),
            Track("ac", "AC", armour_class(sheet), adjustable=False),
            Track("coins", "Gold", state["coins"]),
            Track("xp", "XP", state["xp"]),
        )

    def adjust(self, sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
        """+/- by hand: Grit and Flesh within 0..max, a gear bubble filled or cleared (never a sixth), gold
        within what can be carried, XP."""
        if key not in _ADJUSTABLE:
            raise RulesError(f"{key} cannot be changed by hand.")
        if isinstance(delta, bool) or not isinstance(delta, int) or abs(delta) > 100_000:
            raise RulesError("Change it by a whole number.")
        state = st_of(sheet)
        if key == "bubbles":
            if delta > 0:
                for _ in range(delta):
                    fill_bubble(state)
            else:
                state["bubbles"] = max(0, state["bubbles"] + delta)
        elif key in ("grit", "flesh"):
            state[key] = min(state[f"{key}_max"], max(0, state[key] + delta))
        elif key == "coins":
            state["coins"] = max(0, state["coins"] + delta)
            if delta > 0 and slots_used(sheet, state) > SLOTS:
                raise RulesError(f"That much gold would fill more than {SLOTS} slots (200 coins a slot).")
        else:
            state["xp"] = max(0, min(100_000_000, state["xp"] + delta))
        return state

    def slots(self, sheet: Sheet) -> SlotSummary:
        return slots(sheet, st_of(sheet))

    def conditions(self, sheet: Sheet) -> tuple[str, ...]:
        state = st_of(sheet)
        if state["dead"]:
            return ("Dead",)
        out = []
        if state["out_rounds"]:
            out.append(f"Out cold ({state['out_rounds']} rounds)")
        elif state["flesh"] == 0:
            out.append("No Flesh left")
        elif state["flesh"] < state["flesh_max"]:
            out.append("Flesh wounded")
        if state["feint"]:
            out.append("Feint ready")
        return tuple(out)

    def banners(self, sheet: Sheet) -> tuple[Banner, ...]:
        return display.banners(sheet)

    def sheet_facts(self, sheet: Sheet) -> Mapping[str, Any]:
        return display.sheet_facts(sheet)

    def table_facts(self, party: Sequence[tuple[int, Sheet]]) -> Mapping[str, Any]:
        return display.table_facts(party)

    def quick_rolls(self, sheet: Sheet) -> tuple[QuickRoll, ...]:
        return display.quick_rolls(sheet)

    # --- rolls, equipment, help --------------------------------------------------------------------------
    def procedures(self) -> Mapping[str, Procedure]:
        return PROCEDURES

    def table_procedures(self) -> Mapping[str, Procedure]:
        return TABLE_PROCEDURES

    # --- the GM's table (table.py) ------------------------------------------------------------------------
    combat_round_seconds: int = 60  # the seed gives no length: Lantern counts a round as a minute

    def end_of_combat(self) -> str | None:
        return "after_fight"

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
        return monster_damage(stats, start, amount, ignore_armour)

    def npc_rolls(self) -> Mapping[str, str]:
        return NPC_ROLLS

    def npc_roll(self, key: str, stats: Mapping[str, Any], rng: RandomSource) -> RollResult:
        return monster_roll(key, stats, rng)

    def combat_order(self, round_number: int, rng: RandomSource) -> CombatOrder:
        return combat_order(round_number, rng)

    def time_units(self) -> tuple[TimeUnit, ...]:
        return TIME_UNITS

    def advance_time(
        self, sheet: Sheet, unit: str, count: int, start_minutes: int, rng: RandomSource, start_seconds: int = 0
    ) -> RollResult:
        return advance_time(sheet, unit, count, start_minutes, rng)

    def fight_ends(self, sheet: Sheet, minutes: int, rng: RandomSource) -> RollResult:
        """The fight's minutes burn the lit light sources, as the clock's do."""
        return burnt_for(sheet, minutes, LIGHTS)

    def round_passes(self, sheet: Sheet, rng: RandomSource) -> RollResult:
        return round_passes(sheet)

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return CATALOGUE

    def format_money(self, amount: int) -> str:
        return f"{amount} gp"

    def hireling_limit(self, sheet: Sheet) -> int:
        return HELPER_LIMIT

    def hire_params(self, sheet: Sheet) -> tuple[Param, ...]:
        return hire_params(sheet)

    def hire(self, sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
        return hire(sheet, choices, rng)


SYSTEM = GritFlesh()
