"""Fortune's Favor (rules 1b): the GameSystem. See the package docstring for sources and readings."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from rules.base import (
    CatalogueEntry,
    CheckAsked,
    GameSystem,
    HarmOffer,
    Hireling,
    Procedure,
    RollResult,
    RulesError,
    Sheet,
    Track,
    returns,
)
from rules.data import fortunes_favor as data
from rules.data.fortunes_favor_extras import HYPE_MAX
from rules.dice import RandomSource, roll_die
from rules.systems.fortunes_favor.checks import ContestProcedure, GroupTestProcedure, TestProcedure
from rules.systems.fortunes_favor.combat import (
    DAMAGE_MAX,
    ActionProcedure,
    AreaAttackProcedure,
    ExchangeProcedure,
    HealDyingProcedure,
    HideProcedure,
    LastStandProcedure,
    NewRoundProcedure,
    StatusProcedure,
    TakeDamageProcedure,
    fight_over,
    new_round,
)
from rules.systems.fortunes_favor.creation import NAMES, create, creation_params
from rules.systems.fortunes_favor.display import (
    FIELD_LABELS,
    OUTCOME_LABELS,
    banners,
    detail_params,
    quick_rolls,
    sheet_facts,
)
from rules.systems.fortunes_favor.features import FeatureProcedure
from rules.systems.fortunes_favor.inventory import slots, statuses_now, validate_hireling, validate_item
from rules.systems.fortunes_favor.rest import LevelUpProcedure, RestProcedure, StayAwakeProcedure
from rules.systems.fortunes_favor.state import (
    COIN_MAX,
    HOURS_MAX,
    SETTINGS,
    STATE_UPGRADES,
    STATE_VERSION,
    _default_state,
    _st,
    beast_health_max,
    favor_max,
    health_max,
    is_dead,
    stamina_max,
    validate_state,
)
from rules.systems.fortunes_favor.table import (
    NPC_FIELDS,
    NPC_ROLLS,
    NPC_TARGETS,
    ROUND_PHASES,
    ROUND_SECONDS,
    TIME_UNITS,
    WHAT_IFS,
    advance_time,
    combat_order,
    group_result,
    harm_from_outside,
    hits_on_npc,
    npc_attack_harm,
    npc_attack_outside,
    npc_damage,
    npc_roll,
    npc_roll_at,
    npc_target_params,
    pc_attack_damage,
    pc_attack_on_npcs,
    what_if,
)
from rules.systems.fortunes_favor.travel import (
    EquipProcedure,
    FeatProcedure,
    PushPaceProcedure,
    QuickRetrievalProcedure,
)
from rules.upgrades import StateUpgrade

PROCEDURES: dict[str, Procedure] = {
    p.key: p
    for p in (
        TestProcedure(),
        ContestProcedure(),
        ExchangeProcedure(),
        AreaAttackProcedure(),
        FeatureProcedure(),
        TakeDamageProcedure(),
        ActionProcedure(),
        HideProcedure(),
        HealDyingProcedure(),
        LastStandProcedure(),
        NewRoundProcedure(),
        StatusProcedure(),
        RestProcedure(),
        StayAwakeProcedure(),
        LevelUpProcedure(),
        FeatProcedure(),
        PushPaceProcedure(),
        QuickRetrievalProcedure(),
        EquipProcedure(),
    )
}
TABLE_PROCEDURES: dict[str, Procedure] = {p.key: p for p in (GroupTestProcedure(),)}

CATALOGUE: tuple[CatalogueEntry, ...] = tuple(
    CatalogueEntry(name, kind, None, slots_, "Starting kit") for name, kind, slots_ in data.STARTING_KIT
) + (
    CatalogueEntry("Notable item", "gear", None, 1, "Gear", note="Anything worth noting takes a slot."),
    CatalogueEntry("Bulky item", "gear", None, 2, "Gear", {"bulky": True}, "Bulky things take more."),
)


_ADJUSTABLE = ("health", "stamina", "fortunes_favor", "coins", "hours_awake")
_FEAT_TRACKS = ("hype", "beast_health", "form_health")  # class features' tracks, kept in state["feats"]


# The table's shared checks (issue 42, rules.base.SHARED_CHECKS) as this system's own rolls. Tests of a stat (Mettle,
# Agility, Intellect, Heart), danger dodged with Agility; a test of pure luck is a test with no stat.
SHARED_CHECKS: Mapping[str, CheckAsked] = MappingProxyType(
    {
        "might": CheckAsked("test", {"stat": "mettle"}),
        "agility": CheckAsked("test", {"stat": "agility"}),
        "wits": CheckAsked("test", {"stat": "intellect"}),
        "presence": CheckAsked("test", {"stat": "heart"}),
        "danger": CheckAsked("test", {"stat": "agility"}),
        "luck": CheckAsked("test", {"stat": "luck"}),
    }
)


@dataclass(frozen=True)
class FortunesFavor(GameSystem):
    """Fortune's Favor, rules 1b: the GameSystem for seed 003."""

    id: str = "fortunes-favor"
    name: str = "Fortune's Favor"
    coin_label: str = "Coin"
    # coin_worth stays None: seed 003 prices nothing in Coin (its gear is by slot) and Bits are trivial: its money
    # has no worth in another system's coin (rules-spec §003.9).
    credit: str = data.CREDIT
    field_labels: ClassVar[Mapping[str, str]] = MappingProxyType(FIELD_LABELS)
    outcome_labels: ClassVar[Mapping[str, str]] = MappingProxyType(OUTCOME_LABELS)

    # Each member is the module function itself (mypy checks it against the protocol's signature).
    # --- the core: state.py, inventory.py, creation.py -------------------------------------------------------
    default_state = staticmethod(_default_state)
    validate_state = staticmethod(validate_state)
    state_version: int = STATE_VERSION
    state_upgrades: tuple[StateUpgrade, ...] = STATE_UPGRADES
    validate_item = staticmethod(validate_item)
    validate_hireling = staticmethod(validate_hireling)
    creation_params = staticmethod(creation_params)
    create = staticmethod(create)
    slots = staticmethod(slots)
    procedures = returns(PROCEDURES)

    # --- settings, presentation: state.py, display.py ------------------------------------------------------
    rule_settings = returns(SETTINGS)
    detail_params = staticmethod(detail_params)
    banners = staticmethod(banners)
    sheet_facts = staticmethod(sheet_facts)
    quick_rolls = staticmethod(quick_rolls)

    def tracks(self, sheet: Sheet) -> tuple[Track, ...]:
        state = _st(sheet)
        out = [
            Track("health", "Health", state["health"], health_max(state)),
            Track("stamina", "Stamina", state["stamina"], stamina_max(state)),
            Track("fortunes_favor", "Fortune's Favor", state["fortunes_favor"], favor_max(sheet)),
        ]
        feats = state["feats"]
        if state["class"] == "HYPEMAN":  # Build Hype: at most 3
            out.append(Track("hype", "Hype", feats["hype"], HYPE_MAX))
        if feats["beast"]:  # Beast Bond: the beast's own Health
            out.append(Track("beast_health", "Beast's Health", feats["beast_health"], beast_health_max(state)))
        if feats["form"] and feats["form_health"]:
            out.append(Track("form_health", "Form's Health", feats["form_health"]))
        out += [Track("coins", "Coin", state["coins"]), Track("hours_awake", "Hours awake", state["hours_awake"])]
        return tuple(out)

    def harm_offer(self, sheet: Sheet, key: str, delta: int) -> HarmOffer | None:
        """Seed 003 (Taking Damage; Dying): damage down to 0 Health leaves you Dying, and the rules' Take damage is
        where deflect dice and what lessens damage count: Health lowered to 0 by hand is better taken that way."""
        state = _st(sheet)
        if key != "health" or delta >= 0 or state["health"] + delta > 0:
            return None
        return HarmOffer("take_damage", {"damage": min(-delta, DAMAGE_MAX)}, "deflect dice and what lessens damage")

    def adjust(self, sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
        """Change a track by ``delta``, clamped to its bounds; Stamina spent by hand breaks a rest."""
        if key not in _ADJUSTABLE and key not in _FEAT_TRACKS:
            raise RulesError(f"{key} cannot be changed by hand.")
        if isinstance(delta, bool) or not isinstance(delta, int) or abs(delta) > 100_000:
            raise RulesError("Change it by a whole number.")
        state = _st(sheet)
        if key in _FEAT_TRACKS:
            shown = {t.key: t for t in self.tracks(sheet)}
            if key not in shown:
                raise RulesError(f"{key} cannot be changed by hand.")
            top = shown[key].maximum if shown[key].maximum is not None else 200
            state["feats"][key] = max(0, min(top, state["feats"][key] + delta))
            return validate_state(state)
        top = {
            "health": health_max(state),
            "stamina": stamina_max(state),
            "fortunes_favor": favor_max(sheet),
            "coins": COIN_MAX,
            "hours_awake": HOURS_MAX,
        }[key]
        state[key] = max(0, min(top, state[key] + delta))
        if key == "stamina" and delta < 0 and state["resting"]:
            state["resting"] = ""
        return validate_state(state)

    def conditions(self, sheet: Sheet) -> tuple[str, ...]:
        state = _st(sheet)
        now = statuses_now(sheet, state)
        if "Dead" in now:
            return ("Dead",)
        out = [n for n in sorted(now) if n != "Dying"]
        if "Dying" in now:
            out.insert(0, "Dying")
        if state["last_stand"]:
            out.insert(0, f"Last Stand ({state['last_stand']}/5)")
        return tuple(out)

    def condition_probes(self, sheet: Sheet) -> Sequence[tuple[str, Sheet]]:
        """Seed 003, Statuses: each status set on the character (Rattled, Pinned...), and the sheet without it, so
        the roll controls show it beside the tests it changes."""
        state = _st(sheet)
        return tuple(
            (name, sheet.with_state({**state, "statuses": {k: v for k, v in state["statuses"].items() if k != name}}))
            for name in sorted(state["statuses"])
        )

    def table_facts(self, party: Sequence[tuple[int, Sheet]]) -> Mapping[str, Any]:
        """Seed 003, Rounds: three phases; and who holds Fortune's Favor now."""
        # read, not validated: a broken sheet shows its own problem on its card, not an error page here
        favoured = [sheet.name for _, sheet in party if _holds_favor(sheet)]
        return {"phases": ROUND_PHASES, "favoured": favoured}

    # --- the GM's table (issue 16): table.py ---------------------------------------------------------------------
    # Seed 003 asks for no roll when a fight ends (Catching Your Breath is the players' choice): end_of_combat's
    # default.
    table_procedures = returns(TABLE_PROCEDURES)
    group_result = staticmethod(group_result)
    what_ifs = returns(WHAT_IFS)
    shared_checks = returns(SHARED_CHECKS)
    what_if = staticmethod(what_if)
    npc_fields = returns(NPC_FIELDS)
    npc_damage = staticmethod(npc_damage)
    npc_rolls = returns(NPC_ROLLS)
    npc_roll = staticmethod(npc_roll)
    npc_roll_at = staticmethod(npc_roll_at)
    npc_attack_harm = staticmethod(npc_attack_harm)
    npc_attack_outside = staticmethod(npc_attack_outside)
    harm_from_outside = staticmethod(harm_from_outside)
    npc_target_procedures = returns(NPC_TARGETS)
    npc_target_params = staticmethod(npc_target_params)
    hits_on_npc = staticmethod(hits_on_npc)
    attacks_npcs = True
    pc_attack_on_npcs = staticmethod(pc_attack_on_npcs)
    pc_attack_damage = staticmethod(pc_attack_damage)
    combat_order = staticmethod(combat_order)
    combat_round_seconds: int = ROUND_SECONDS  # seed 003, Combat: a round is 30 seconds
    time_units = returns(TIME_UNITS)
    advance_time = staticmethod(advance_time)

    def round_passes(self, sheet: Sheet, rng: RandomSource) -> RollResult:
        """Seed 003, Rounds: what "Start of my next turn" does, for every PC at once as the tracker starts a
        round (statuses tick down and end, Defend ends, a Last Stand refills or ends)."""
        state = _st(sheet)
        if is_dead(state):
            return RollResult("round", "A new round", "nothing", "")
        before = copy.deepcopy(state)
        state, outcome, notes = new_round(state, sheet)
        if state == before:
            return RollResult("round", "A new round", "nothing", "")
        counting = [f"{name} {rounds} more" for name, rounds in state["statuses"].items() if rounds]
        words = "; ".join(notes + counting)
        return RollResult("round", "A new round", outcome, f"A new round: {words}.", state=state)

    def fight_ends(self, sheet: Sheet, minutes: int, rng: RandomSource) -> RollResult:
        """Seed 003, Statuses: what counts in rounds ends with the fight (see ``fight_over``)."""
        state, notes = fight_over(_st(sheet))
        if not notes:
            return RollResult("fight_over", "The fight is over", "nothing", "")
        return RollResult(
            "fight_over", "The fight is over", "over", f"The fight is over: {'; '.join(notes)}.", state=state
        )

    catalogue = returns(CATALOGUE)

    def hire(self, sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
        """1b has no hireling rules: a helper is a name on the sheet, played by the GM, with no numbers."""
        name = str(choices.get("name") or "").strip()
        if not name:
            name = NAMES[roll_die(rng, len(NAMES), "name").face - 1]
        return validate_hireling(Hireling(name=name, kind="helper"))


def _holds_favor(sheet: Sheet) -> bool:
    value = sheet.state.get("fortunes_favor")
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


SYSTEM = FortunesFavor()
