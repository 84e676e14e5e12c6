"""Grit & Flesh: the GameSystem for seed 004. See the package docstring for sources and readings."""

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
    Procedure,
    RulesError,
    Sheet,
    Track,
    returns,
)
from rules.clock import burning
from rules.data import grit_flesh as data
from rules.systems.grit_flesh import display
from rules.systems.grit_flesh.advancement import GainXpProcedure, LevelUpProcedure
from rules.systems.grit_flesh.checks import CheckProcedure, SaveProcedure
from rules.systems.grit_flesh.combat import AttackProcedure, IncomingProcedure, InitiativeProcedure
from rules.systems.grit_flesh.creation import apply_settings, create, creation_params
from rules.systems.grit_flesh.damage import (
    DAMAGE_MAX,
    ComeRoundProcedure,
    RestProcedure,
    SurgeonProcedure,
    TakeDamageProcedure,
)
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
    NPC_TARGETS,
    TIME_UNITS,
    advance_time,
    combat_order,
    harm_from_outside,
    hits_on_npc,
    npc_attack_harm,
    npc_attack_outside,
    npc_damage,
    npc_roll,
    npc_target_params,
    round_passes,
)

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


# The table's shared checks (issue 42, rules.base.SHARED_CHECKS) as this system's own rolls. Attribute checks (STR,
# DEX, INT, CHA); danger is the saving throw; there is no luck roll.
SHARED_CHECKS: Mapping[str, CheckAsked] = MappingProxyType(
    {
        "might": CheckAsked("check", {"attribute": "STR"}),
        "agility": CheckAsked("check", {"attribute": "DEX"}),
        "wits": CheckAsked("check", {"attribute": "INT"}),
        "presence": CheckAsked("check", {"attribute": "CHA"}),
        "danger": CheckAsked("save"),
    }
)


@dataclass(frozen=True)
class GritFlesh(GameSystem):
    """Grit & Flesh: the GameSystem for seed 004."""

    id: str = "grit-flesh"
    name: str = "Grit & Flesh"
    coin_label: str = "gp"
    # In copper pieces, a torch worth 1 (issue 42's common unit). Seed 004 prices no torch: a Lantern reading from a
    # medium weapon (6 gp, spec §004) against the 25-35 coin of seed 000's (spec §000.8), 5 cp to the gp.
    coin_worth: Fraction | None = Fraction(5)
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
    creation_params = staticmethod(creation_params)
    create = staticmethod(create)
    slots = staticmethod(slots)
    procedures = returns(PROCEDURES)
    shared_checks = returns(SHARED_CHECKS)

    # --- settings: settings.py, creation.py -----------------------------------------------------------------
    rule_settings = returns(SETTINGS)
    light_sources = returns(LIGHTS)
    apply_settings = staticmethod(apply_settings)

    def validate_settings(self, values: Mapping[str, Any]) -> dict[str, Any]:
        return validate(values, self.name, KIT_SLOTS)

    def validate_sheet(self, sheet: Sheet) -> Sheet:
        checked = super().validate_sheet(sheet)
        if len(checked.hirelings) > HELPER_LIMIT:
            raise RulesError(f"Nobody keeps more than {HELPER_LIMIT} helpers at once.")
        return checked

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

    def harm_offer(self, sheet: Sheet, key: str, delta: int) -> HarmOffer | None:
        """Seed 004 (Grit and Flesh): damage past Grit goes into Flesh, and Flesh at 0 calls the save vs death:
        Grit lowered past 0, or Flesh to 0, by hand is better taken as damage."""
        state = st_of(sheet)
        if delta >= 0 or key not in ("grit", "flesh"):
            return None
        if key == "grit" and state["grit"] + delta < 0:
            return HarmOffer(
                "damage", {"amount": min(-delta, DAMAGE_MAX)}, "the damage past Grit into Flesh and the save vs death"
            )
        if key == "flesh" and state["flesh"] + delta <= 0:
            return HarmOffer(
                "damage", {"amount": min(-delta, DAMAGE_MAX), "to_flesh": True}, "the save vs death at 0 Flesh"
            )
        return None

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

    # --- presentation: display.py ----------------------------------------------------------------------------
    banners = staticmethod(display.banners)
    sheet_facts = staticmethod(display.sheet_facts)
    table_facts = staticmethod(display.table_facts)
    quick_rolls = staticmethod(display.quick_rolls)

    # --- economy and hired help: inventory.py, hired_help.py (money is "<n> gp", the default) ---------------
    catalogue = returns(CATALOGUE)
    hire_params = staticmethod(hire_params)
    hire = staticmethod(hire)

    def hireling_limit(self, sheet: Sheet) -> int:
        return HELPER_LIMIT

    # --- the GM's table: table.py -------------------------------------------------------------------------------
    table_procedures = returns(TABLE_PROCEDURES)
    combat_round_seconds: int = 60  # the seed gives no length: Lantern counts a round as a minute
    end_of_combat = returns("after_fight")
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
    fight_ends = staticmethod(burning(LIGHTS))  # the fight's minutes burn the lit light sources, as the clock's do
    round_passes = staticmethod(round_passes)


SYSTEM = GritFlesh()
