"""Fell (late): the GameSystem for seed 001."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any, ClassVar

from rules.base import (
    CheckAsked,
    GameSystem,
    HarmOffer,
    Hireling,
    LootShare,
    Procedure,
    RulesError,
    Sheet,
    Track,
    check_count,
    returns,
)
from rules.clock import burning
from rules.data import fell_late as data
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
    hireling_state,
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
from rules.systems.fell_late.state import (
    ATTRIBUTES,
    HARM_MAX,
    HP_MAX,
    MAX_ARMOUR,
    default_state,
    st,
    step,
    validate_state,
)
from rules.systems.fell_late.table import (
    LIGHTS,
    NPC_FIELDS,
    NPC_ROLLS,
    NPC_TARGETS,
    TIME_UNITS,
    WHAT_IFS,
    LightOrPutOut,
    advance_time,
    combat_order,
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


# The table's shared checks (issue 42, rules.base.SHARED_CHECKS) as this system's own rolls. Tests of one attribute:
# dodging danger is a DEX test; there is no luck roll.
SHARED_CHECKS: Mapping[str, CheckAsked] = MappingProxyType(
    {
        "might": CheckAsked("test", {"attribute": "STR"}),
        "agility": CheckAsked("test", {"attribute": "DEX"}),
        "wits": CheckAsked("test", {"attribute": "INT"}),
        "presence": CheckAsked("test", {"attribute": "WIL"}),
        "danger": CheckAsked("test", {"attribute": "DEX"}),
    }
)


@dataclass(frozen=True)
class FellLate(GameSystem):
    """Fell (late revision): attribute dice, ADV/DIS and IMP/ENH, armour, hoard advancement."""

    id: str = "fell-late"
    name: str = "Fell (late revision)"
    coin_label: str = "C"
    coin_worth: Fraction | None = Fraction(1)  # in copper pieces, a torch worth 1 (spec §001.2: a torch costs 1 C)
    credit: str = data.CREDIT
    private_fields: tuple[str, ...] = ()
    field_labels: ClassVar[Mapping[str, str]] = MappingProxyType(display.FIELD_LABELS)
    outcome_labels: ClassVar[Mapping[str, str]] = MappingProxyType(display.OUTCOME_LABELS)

    # Each member is the module function itself (mypy checks it against the protocol's signature).
    # --- the core: state.py, inventory.py, creation.py -------------------------------------------------------
    default_state = staticmethod(default_state)
    validate_state = staticmethod(validate_state)
    validate_item = staticmethod(validate_item)
    validate_hireling = staticmethod(validate_hireling)
    check_can_carry = staticmethod(check_can_carry)
    creation_params = staticmethod(creation_params)
    create = staticmethod(create)
    slots = staticmethod(slots)
    procedures = returns(PROCEDURES)

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

    def harm_offer(self, sheet: Sheet, key: str, delta: int) -> HarmOffer | None:
        """Seed 001 (Harm and Death): harm past 0 HP is critical harm, tested and perhaps deadly: HP taken below 0
        by hand is better taken as harm (the number is what got through, so no armour)."""
        state = st(sheet)
        if key != "hp" or delta >= 0 or state["hp"] + delta >= 0:
            return None
        return HarmOffer("take_harm", {"amount": min(-delta, HARM_MAX), "armour": False}, "critical harm past 0 HP")

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

    # --- settings, presentation: settings.py, display.py ---------------------------------------------------
    rule_settings = returns(SETTINGS)
    light_sources = returns(LIGHTS)
    banners = staticmethod(display.banners)
    sheet_facts = staticmethod(display.sheet_facts)
    table_facts = staticmethod(display.table_facts)
    quick_rolls = staticmethod(display.quick_rolls)
    detail_params = staticmethod(display.detail_params)

    # --- economy and hired help: catalogue.py, hired_help.py (money is "<n> C", the default) ----------------
    catalogue = returns(CATALOGUE)

    def loot_share(self, hireling: Hireling) -> LootShare | None:
        """Seed 001 (Hirelings): an equal share of any plunder, less the daily fees paid up front."""
        return LootShare(Fraction(1), hireling_state(hireling)["fees_paid"], "an equal share, less fees paid")

    hireling_limit = staticmethod(hireling_limit)
    hire_params = staticmethod(hire_params)
    hire = staticmethod(hire)

    def check_limits(self, sheet: Sheet) -> None:
        """Seed 001 (Hirelings, Skills, Spells): hirelings and spells up to WIL's face, skills up to INT's, each
        read from the original die: a lowered die comes back with rest and takes nothing away."""
        state = st(sheet)
        wil, intellect = (state["attributes"][a]["original"] for a in ("WIL", "INT"))
        by_wil, by_int = f"with WIL d{wil} the rules allow", f"with INT d{intellect} the rules allow"
        check_count(sheet.hirelings, wil, "hirelings", by_wil, counts=self.counts_against_limit)
        check_count(state["spells"], wil, "spells", by_wil)
        check_count(state["skills"], intellect, "skills", by_int)

    # --- the GM's table (issue 16): table.py ---------------------------------------------------------------------
    table_procedures = returns(TABLE_PROCEDURES)
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
    time_units = returns(TIME_UNITS)
    advance_time = staticmethod(advance_time)
    time_checks = staticmethod(time_checks)
    fight_ends = staticmethod(burning(LIGHTS))  # the fight's minutes burn the lit light sources, as the clock's do
    light_level = staticmethod(light_level)
    what_ifs = returns(WHAT_IFS)
    shared_checks = returns(SHARED_CHECKS)
    what_if = staticmethod(what_if)


SYSTEM = FellLate()
