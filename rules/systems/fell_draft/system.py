"""Fell (draft): system. See the package docstring for sources and readings."""

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
from rules.clock import LightProcedure, burnt_for
from rules.data import fell_draft as data
from rules.dice import (
    RandomSource,
)
from rules.settings import Setting
from rules.systems.fell_draft.advancement import AdvanceProcedure
from rules.systems.fell_draft.catalogue import CATALOGUE
from rules.systems.fell_draft.checks import ContestProcedure, TestProcedure
from rules.systems.fell_draft.combat import AttackProcedure, NpcAttackProcedure, TakeHarmProcedure
from rules.systems.fell_draft.creation import create, creation_params
from rules.systems.fell_draft.display import (
    FIELD_LABELS,
    OUTCOME_LABELS,
    banners,
    detail_params,
    quick_rolls,
    sheet_facts,
)
from rules.systems.fell_draft.hired_help import OrderHirelingProcedure, PayHirelingsProcedure, hire, hire_params
from rules.systems.fell_draft.inventory import (
    MONEY_NOTE,
    _item_slots,
    _slots_max,
    _slots_used,
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
from rules.systems.fell_draft.npcs import LeverageProcedure, MoraleProcedure, ReactionProcedure
from rules.systems.fell_draft.rest import DeprivationProcedure, DyingProcedure, RestProcedure
from rules.systems.fell_draft.settings import SETTINGS
from rules.systems.fell_draft.state import (
    ABILITIES,
    MAX_PROTECTION,
    _default_state,
    _die_of,
    _is_dead,
    _st,
    retired,
    validate_state,
)
from rules.systems.fell_draft.table import (
    LIGHTS,
    NPC_FIELDS,
    NPC_ROLLS,
    ORDER,
    TIME_UNITS,
    advance_time,
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
        CastProcedure(),
        AttackProcedure(),
        TakeHarmProcedure(),
        NpcAttackProcedure(),
        RestProcedure(),
        DeprivationProcedure(),
        DyingProcedure(),
        ReactionProcedure(),
        LeverageProcedure(),
        MoraleProcedure(),
        AdvanceProcedure(),
        PayHirelingsProcedure(),
        OrderHirelingProcedure(),
        LearnSpellProcedure(),
        LearnSkillProcedure(),
        BuyProcedure(),
        SpellDieProcedure(),
        LightProcedure(LIGHTS),
    )
}


_ADJUSTABLE = ("hp", "hp_max", *ABILITIES, "coins", "fatigue")


@dataclass(frozen=True)
class FellDraft(GameSystem):
    """Fell (v0.4-era draft): the GameSystem for seed 000."""

    id: str = "fell-draft"
    name: str = "Fell (draft, ability points)"
    coin_label: str = "coin"
    money_note: str = MONEY_NOTE
    credit: str = data.CREDIT
    private_fields: tuple[str, ...] = ()  # nothing on a Fell sheet is hidden from the table
    field_labels: ClassVar[Mapping[str, str]] = MappingProxyType(FIELD_LABELS)
    outcome_labels: ClassVar[Mapping[str, str]] = MappingProxyType(OUTCOME_LABELS)

    def quick_rolls(self, sheet: Sheet) -> tuple[QuickRoll, ...]:
        return quick_rolls(sheet)

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
        """Seed 000, Combat: the PCs act first, as a group; no dice."""
        return ORDER

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

    def tracks(self, sheet: Sheet) -> tuple[Track, ...]:
        state = _st(sheet)
        out = [Track("hp", "HP", state["hp"], state["hp_max"])]
        for ab in ABILITIES:
            a = state["abilities"][ab]
            out.append(Track(ab, f"{ab} (d{a['die']})", a["points"], a["die"]))
        out += [
            Track("protection", "Protection", protection(sheet), MAX_PROTECTION, adjustable=False),
            Track("fatigue", "Fatigue", state["fatigue"]),
            Track("coins", "Coin", state["coins"]),
        ]
        return tuple(out)

    def adjust(self, sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
        """Change a track by ``delta``, clamped: HP to 0..max, points to 0..die, coin and fatigue ≥ 0."""
        if key not in _ADJUSTABLE:
            raise RulesError(f"{key} cannot be changed by hand.")
        if isinstance(delta, bool) or not isinstance(delta, int) or abs(delta) > 100_000:
            raise RulesError("Change it by a whole number.")
        state = _st(sheet)
        if key in ABILITIES:
            a = state["abilities"][key]
            a["points"] = min(a["die"], max(0, a["points"] + delta))
        elif key == "hp":
            state["hp"] = min(state["hp_max"], max(0, state["hp"] + delta))
        elif key == "hp_max":
            state["hp_max"] = max(0, min(999, state["hp_max"] + delta))
            state["hp"] = min(state["hp"], state["hp_max"])
        elif key == "coins":
            state["coins"] = max(0, state["coins"] + delta)
            if delta > 0:
                limit = 2 * _slots_max(state)
                if _slots_used(sheet, state) > limit:
                    raise RulesError(f"That much coin would take you past {limit} slots, more than anyone carries.")
        else:
            state["fatigue"] = max(0, state["fatigue"] + delta)
        return state

    def slots(self, sheet: Sheet) -> SlotSummary:
        return slots(sheet)

    def banners(self, sheet: Sheet) -> tuple[Banner, ...]:
        return banners(sheet)

    def sheet_facts(self, sheet: Sheet) -> Mapping[str, Any]:
        return sheet_facts(sheet)

    def conditions(self, sheet: Sheet) -> tuple[str, ...]:
        state = _st(sheet)
        if _is_dead(state):
            return ("Dead",)
        out = []
        if state["dying"]:
            out.append("Unconscious and dying")
        if state["deprived"]:
            out.append("Deprived")
        if state["fatigue"]:
            out.append(f"Fatigued ({state['fatigue']})")
        if _slots_used(sheet, state) > _slots_max(state):
            out.append("Over-encumbered")
        if state["hireling"] and not state["paid_up"]:
            out.append("Unpaid")
        if retired(state):
            out.append("Ready to retire")
        return tuple(out)

    def procedures(self) -> Mapping[str, Procedure]:
        return PROCEDURES

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return CATALOGUE

    def format_money(self, amount: int) -> str:
        return f"{amount} coin"

    def hireling_limit(self, sheet: Sheet) -> int:
        """Seed 000 (Hirelings): as many as WIL, the WIL die's highest face (spec §000.12.2)."""
        return _die_of(_st(sheet), "WIL")

    def check_limits(self, sheet: Sheet) -> None:
        """Seed 000 (Hirelings, Spells, Skills): hirelings and spells up to WIL's face, skills up to INT's, each
        die read unharmed (``full_die``): harm lowers a die for a while and takes nothing away."""
        state = _st(sheet)
        wil, intellect = (state["abilities"][ab]["full_die"] for ab in ("WIL", "INT"))
        by_wil, by_int = f"with WIL d{wil} the rules allow", f"with INT d{intellect} the rules allow"
        check_count(sheet.hirelings, self.counts_against_limit, wil, "hirelings", by_wil)
        check_count(state["spells"], _any, wil, "spells", by_wil)
        check_count(state["skills"], _any, intellect, "skills", by_int)

    def creation_params(self) -> tuple[Param, ...]:
        return creation_params()

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
        return _item_slots(item)

    def buy(self, sheet: Sheet, entry: CatalogueEntry, quantity: int = 1) -> RollResult:
        return buy(sheet, entry, quantity)

    def protection(self, sheet: Sheet) -> int:
        return protection(sheet)

    def retired(self, sheet: Sheet) -> bool:
        return retired(_st(sheet))


def _any(_row: Any) -> bool:
    return True


SYSTEM = FellDraft()
