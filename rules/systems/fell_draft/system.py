"""Fell (draft): system. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any, ClassVar

from rules.base import (
    CheckAsked,
    CombatOrder,
    GameSystem,
    HarmOffer,
    Item,
    Procedure,
    RulesError,
    Sheet,
    Track,
    check_count,
    returns,
)
from rules.clock import LightProcedure, burning
from rules.data import fell_draft as data
from rules.dice import (
    RandomSource,
)
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
from rules.systems.fell_draft.hired_help import (
    OrderHirelingProcedure,
    PayHirelingsProcedure,
    hire,
    hire_params,
    hireling_limit,
)
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
    HARM_MAX,
    MAX_PROTECTION,
    _default_state,
    _is_dead,
    _st,
    retired,
    validate_state,
)
from rules.systems.fell_draft.table import (
    LIGHTS,
    NPC_FIELDS,
    NPC_ROLLS,
    NPC_TARGETS,
    ORDER,
    TIME_UNITS,
    WHAT_IFS,
    advance_time,
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


# The table's shared checks (issue 42, rules.base.SHARED_CHECKS) as this system's own rolls. Seed 000, Tasks and
# Tests: every check is a test of one of three abilities; BOD holds strength and nimbleness alike, so a save against
# danger is a BOD test; there is no luck roll.
SHARED_CHECKS: Mapping[str, CheckAsked] = MappingProxyType(
    {
        "might": CheckAsked("test", {"ability": "BOD"}),
        "agility": CheckAsked("test", {"ability": "BOD"}),
        "wits": CheckAsked("test", {"ability": "INT"}),
        "presence": CheckAsked("test", {"ability": "WIL"}),
        "danger": CheckAsked("test", {"ability": "BOD"}),
    }
)


@dataclass(frozen=True)
class FellDraft(GameSystem):
    """Fell (v0.4-era draft): the GameSystem for seed 000."""

    id: str = "fell-draft"
    name: str = "Fell (draft, ability points)"
    coin_label: str = "coin"
    coin_worth: Fraction | None = Fraction(1)  # in copper pieces, a torch worth 1 (spec §000.8: a torch costs 1 coin)
    money_note: str = MONEY_NOTE
    credit: str = data.CREDIT
    private_fields: tuple[str, ...] = ()  # nothing on a Fell sheet is hidden from the table
    field_labels: ClassVar[Mapping[str, str]] = MappingProxyType(FIELD_LABELS)
    outcome_labels: ClassVar[Mapping[str, str]] = MappingProxyType(OUTCOME_LABELS)

    # Each member is the module function itself (mypy checks it against the protocol's signature).
    # --- the core: state.py, inventory.py, creation.py -------------------------------------------------------
    default_state = staticmethod(_default_state)
    validate_state = staticmethod(validate_state)
    validate_item = staticmethod(validate_item)
    validate_hireling = staticmethod(validate_hireling)
    check_can_carry = staticmethod(check_can_carry)
    creation_params = staticmethod(creation_params)
    create = staticmethod(create)
    slots = staticmethod(slots)
    procedures = returns(PROCEDURES)

    def item_slots(self, sheet: Sheet, item: Item) -> int:
        return _item_slots(item)

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

    def harm_offer(self, sheet: Sheet, key: str, delta: int) -> HarmOffer | None:
        """Seed 000 (Harm and Death): harm past 0 HP is critical harm, off an ability's points, with a test that
        leaves you dying on a failure: HP taken below 0 by hand is better taken as harm (the number is what got
        through, so no protection)."""
        state = _st(sheet)
        if key != "hp" or delta >= 0 or state["hp"] + delta >= 0:
            return None
        return HarmOffer(
            "take_harm", {"amount": min(-delta, HARM_MAX), "armour": False}, "critical harm past 0 HP and its test"
        )

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

    # --- settings, presentation: settings.py, display.py ---------------------------------------------------
    rule_settings = returns(SETTINGS)
    light_sources = returns(LIGHTS)
    detail_params = staticmethod(detail_params)
    quick_rolls = staticmethod(quick_rolls)
    banners = staticmethod(banners)
    sheet_facts = staticmethod(sheet_facts)

    # --- economy and hired help: catalogue.py, hired_help.py (money is "<n> coin", the default) -------------
    catalogue = returns(CATALOGUE)
    hireling_limit = staticmethod(hireling_limit)
    hire_params = staticmethod(hire_params)
    hire = staticmethod(hire)

    # --- the GM's table: table.py -----------------------------------------------------------------------------
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
    time_units = returns(TIME_UNITS)
    advance_time = staticmethod(advance_time)
    time_checks = staticmethod(time_checks)
    fight_ends = staticmethod(burning(LIGHTS))  # the fight's minutes burn the lit light sources, as the clock's do
    light_level = staticmethod(light_level)
    what_ifs = returns(WHAT_IFS)
    shared_checks = returns(SHARED_CHECKS)
    what_if = staticmethod(what_if)

    def combat_order(self, round_number: int, rng: RandomSource) -> CombatOrder:
        """Seed 000, Combat: the PCs act first, as a group; no dice."""
        return ORDER

    def check_limits(self, sheet: Sheet) -> None:
        """Seed 000 (Hirelings, Spells, Skills): hirelings and spells up to WIL's face, skills up to INT's, each
        die read unharmed (``full_die``): harm lowers a die for a while and takes nothing away."""
        state = _st(sheet)
        wil, intellect = (state["abilities"][ab]["full_die"] for ab in ("WIL", "INT"))
        by_wil, by_int = f"with WIL d{wil} the rules allow", f"with INT d{intellect} the rules allow"
        check_count(sheet.hirelings, wil, "hirelings", by_wil, counts=self.counts_against_limit)
        check_count(state["spells"], wil, "spells", by_wil)
        check_count(state["skills"], intellect, "skills", by_int)

    # helpers beyond the protocol
    buy = staticmethod(buy)
    protection = staticmethod(protection)

    def retired(self, sheet: Sheet) -> bool:
        return retired(_st(sheet))


SYSTEM = FellDraft()
