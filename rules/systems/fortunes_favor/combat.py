"""Fortune's Favor: the exchange, damage, deflect, actions and Counter Actions, dying, Last Stand.

Seed 003 §Combat (../shared/seeds/003_eeb4db86843669ac.txt) with rules-spec §003.6.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import DieRoll, RandomSource, die_dist, roll_die, three_outcome_of
from rules.errors import Settled
from rules.systems.fortunes_favor import beasts, features
from rules.systems.fortunes_favor.checks import (
    STAT_CHOICES,
    favor_params,
    odds_of,
    pay,
    points,
    roll_test,
    setup,
    test_params,
)
from rules.systems.fortunes_favor.inventory import statuses_now
from rules.systems.fortunes_favor.state import (
    LAST_STAND_ROUNDS,
    STAT_NAMES,
    STATUSES,
    _st,
    attack_bonus,
    cls,
    damage_dice,
    deflect_dice_max,
    deflect_die,
    deflect_flat,
    deflect_rerolls_ones,
    gain_favor,
    health_max,
    is_dead,
    readable_state,
    setting,
    spend_stamina,
    stamina_cost,
    stamina_max,
    validate_state,
)
from rules.systems.fortunes_favor.state import (
    armor as armor_of,
)
from rules.systems.fortunes_favor.state import (
    counter as counter_of,
)

DAMAGE_MAX = 500
ARMOR_MAX = 40
DEFLECT_COST = 2  # seed 003, Deflect: 2 Stamina a die
DEFLECT_DICE_CAP = 1 + 8 // 2  # the most any level allows
DYING_ACTION_COST = 1  # seed 003, Dying: an Action or a long move costs 1 Stamina
HEAL_DYING = (15, 10)  # seed 003, Healing a Dying Ally: Intellect 15/10
EXCHANGE_KEYS = {"pass": "hit", "mixed": "clash", "fail": "countered"}
TIMED = {"Rattled": 1, "Slowed": 1, "Engaged": 1}  # until the end of the target's next turn: one round


def add_status(statuses: dict[str, int], name: str, rounds: int) -> None:
    """Seed 003 §Statuses: the same status never stacks; keep the longer (0 = until removed is longest)."""
    if name in statuses:
        held = statuses[name]
        if held == 0 or (rounds != 0 and held >= rounds):
            return
    statuses[name] = rounds


def _dying_check(state: Mapping[str, Any], params: Mapping[str, Any]) -> None:
    """Refuse, before any odds are shown, an Action a dying character cannot pay for."""
    if state["health"] > 0 or params.get("ally_helps"):
        return
    if state["stamina"] < stamina_cost(state, DYING_ACTION_COST):
        raise RulesError("Dying with no Stamina left: you cannot act.")


def _dying_cost(state: dict[str, Any], params: Mapping[str, Any], what: str) -> list[str]:
    """Seed 003, Dying: an Action at 0 Health costs 1 Stamina unless an ally helps within 5 ft; the last
    Stamina paid this way leaves 0 Health and 0 Stamina, which is death (spend_stamina marks it)."""
    _dying_check(state, params)
    if state["health"] > 0 or params.get("ally_helps"):
        return []
    return spend_stamina(state, DYING_ACTION_COST, f"{what} while dying")


def _dying_param() -> Param:
    return Param("ally_helps", "An ally helps within 5 ft", "bool", False, help="While dying, acting is then free.")


def _damage_odds_dice(state: Mapping[str, Any]) -> tuple[int, ...]:
    return damage_dice(state)


@dataclass(frozen=True)
class ExchangeProcedure:
    """Seed 003, the Exchange: d20 + attack bonus against Armor (hit) and Counter (Clash); below, Countered."""

    key: str = "attack"
    label: str = "Attack (exchange)"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param(
                "target",
                "A character you attack",
                "character",
                help="Their own Armor and Counter count, and they become Engaged.",
            ),
            Param("armor", "Target's Armor", "int", 12, 0, ARMOR_MAX),
            Param("counter", "Target's Counter", "int", None, 0, ARMOR_MAX, help="Empty: Armor − 5."),
            Param(
                "kind",
                "Action",
                "choice",
                "attack",
                choices=(("attack", "Attack"), ("careful", "Careful Attack (half damage, no Counter Actions)")),
            ),
            Param("ranged_in_melee", "A ranged attack in melee range", "bool", False),
            Param("ranged", "A ranged attack", "bool", False, help="A Prone target gives ranged attacks Misfortune."),
            Param(
                "target_statuses",
                "The target is",
                "multichoice",
                (),
                choices=tuple((name, name) for name in features.TARGET_STATUSES),
                help="A character you attack brings their own; Blind and Prone cancel as the rules say.",
            ),
            features.maneuver_param(sheet),
            *beasts.params(sheet),
            *features.tag_move_param(sheet),
            *favor_params(pushing=False, helping=False),
            _dying_param(),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Any, int, int]:
        state, s, success, failure, _ = self._prepare(sheet, p)
        return state, s, success, failure

    def _prepare(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Any, int, int, Any]:
        state = _st(sheet)
        armor = p["armor"]
        counter = armor - 5 if p["counter"] is None else p["counter"]
        ranged = bool(p.get("ranged") or p["ranged_in_melee"])
        statuses = set(p.get("target_statuses") or ())
        if isinstance(p.get("target"), Sheet):
            target = validate_state(p["target"].state)
            armor, counter = armor_of(target), counter_of(target)
            statuses |= set(target["statuses"])  # seed 003, Statuses: Blind and Prone on the target's own sheet
        favor, misfortune, target_notes = features.target_situation(statuses, ranged)
        success, failure = points({"success": armor, "failure": counter})
        if p["ranged_in_melee"]:
            if setting(sheet, "ranged_in_melee") == "forbidden":
                raise RulesError("This table's rules forbid ranged attacks in melee range.")
            misfortune += 1
        features.check_maneuver(state, p)
        extras_ = features.test_extras(state, p, state["attack_stat"], attack=True)
        s = setup(
            sheet,
            state,
            p,
            stat=state["attack_stat"],
            attack=True,
            extra_favor=favor + extras_.favor,
            extra_misfortune=misfortune,
        )
        s.bonus = s.bonus - state["stats"][state["attack_stat"]] + attack_bonus(state) + extras_.bonus
        attacker = features.attacker_for(state, p)
        if attacker is not None:  # Follow-up: the beast rolls the attack with your Heart
            s.bonus += attacker[0] - attack_bonus(state)
            s.notes.append(f"the attack is {attacker[1]}")
        s.extra = (*s.extra, *extras_.dice)
        s.third_d20 = extras_.d20  # Luck On Your Side
        s.notes += target_notes + extras_.notes
        if p["ranged_in_melee"]:
            s.notes.append("ranged in melee: Misfortune")
        _dying_check(state, p)
        return state, s, success, failure, extras_

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, s, success, failure = self._setup(sheet, p)
        base = odds_of(s, success, failure)
        return Odds(tuple((EXCHANGE_KEYS[k], v) for k, v in base.outcomes), success_keys=("hit",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, s, success, failure, extras_ = self._prepare(sheet, p)
        odds = self.odds(sheet, p)
        notes = s.notes + pay(state, s) + features.pay_maneuver(state, p) + features.pay_extras(state, extras_)
        notes += _dying_cost(state, p, "attacking")
        dice, outcome, total, nat1 = roll_test(rng, s, success, failure)
        kept = next(d.face for d in dice if d.kept and d.sides == 20)
        result = EXCHANGE_KEYS[outcome]
        careful = p["kind"] == "careful"
        words = {
            "hit": "a clean hit",
            "clash": "a Clash: both sides choose a Counter Action",
            "countered": "Countered: the target may use a Counter Action",
        }[result]
        if careful and result != "hit":
            words = "a Clash, but a Careful Attack gives no Counter Actions" if result == "clash" else "a miss"
        summary = f"Attack {total} against Armor {success} / Counter {failure}: {words}."
        clash_deals = setting(sheet, "clash_deals_damage") or features.deals_on_clash(p)
        deals = result == "hit" or (result == "clash" and clash_deals)
        damage = None
        beast = None
        if deals:
            # natural 20: double damage, the whole total (spec §003.4 [REC]); the class features' changes in
            # features.roll_damage
            dealt = features.roll_damage(rng, state, p, result, kept, careful)
            dice = (*dice, *dealt.dice)
            damage, beast = dealt.total, dealt.beast
            summary += f" {'; '.join(dealt.words)}."
        elif features.follow_up_on_miss(state, p):
            dealt = features.Damage()
            beast = features.beast_follow_up(rng, state, dealt, p)
            dice = (*dice, *dealt.dice)
            summary += f" {'; '.join(dealt.words)} (it lands though the Setup missed)."
        if nat1:
            summary += " A natural 1."
        if outcome == "fail":
            gain_favor(state, sheet)
            summary += " Fortune's Favor gained."
        state["exposed"] = False
        state["defending"] = False
        state["statuses"].pop("Hidden", None)
        others: dict[str, dict[str, Any]] = {}
        other_state = None
        if isinstance(p.get("target"), Sheet):
            other_state = validate_state(p["target"].state)
            add_status(other_state["statuses"], "Engaged", 1)  # seed 003, Engaged: whoever you attack
            others["target"] = other_state
        riders = features.attack_riders(state, p, result, other_state)
        if riders:
            summary += f" {'; '.join(riders)}."
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(
            self.key,
            self.label,
            result,
            summary,
            dice,
            total,
            odds,
            shown_inputs(p),
            state,
            details={
                **({"damage": damage} if damage is not None else {}),
                **({"beast_damage": beast} if beast is not None else {}),
            },
            other_states=others,
        )


def _deflect_one(state: Mapping[str, Any]) -> dict[int, Fraction]:
    """One deflect die's faces (a medium shield rerolls 1s once)."""
    die = deflect_die(state)
    one = die_dist(die)
    if deflect_rerolls_ones(state):
        p = Fraction(1, die)
        one = {face: (p * p if face == 1 else p + p * p) for face in range(1, die + 1)}
    return one


def _roll_deflect_die(rng: RandomSource, state: Mapping[str, Any], label: str = "deflect") -> list[DieRoll]:
    """One deflect die as rolled (a medium shield's rerolled 1 first, not kept)."""
    size = deflect_die(state)
    die = roll_die(rng, size, label)
    if die.face == 1 and deflect_rerolls_ones(state):
        return [DieRoll(die.sides, die.face, False, label), roll_die(rng, size, f"{label} reroll")]
    return [die]


def _deflect_dist(state: Mapping[str, Any], count: int, p: Mapping[str, Any] | None = None) -> dict[int, Fraction]:
    """Exact total of ``count`` deflect dice plus the flat bonus, with the class features that change it
    (Toughen Up's reroll, the Absorb Infusion's dice)."""
    one = _deflect_one(state)
    total = {deflect_flat(state) if count else 0: Fraction(1)}
    for _ in range(count):
        nxt: dict[int, Fraction] = {}
        for a, pa in total.items():
            for b, pb in one.items():
                nxt[a + b] = nxt.get(a + b, Fraction(0)) + pa * pb
        total = nxt
    if count and features.toughened(state) is not None:
        total = {deflect_flat(state) + k: v for k, v in features.reroll_lowest_dist(one, count).items()}
    return features.add_dice_dist(total, features.absorb_dice(state, p or {}))


def apply_damage(state: dict[str, Any], sheet: Sheet | None, amount: int) -> list[str]:
    """Seed 003, Taking Damage: Health falls, floored at 0; past 0 it is lost unless the table spills it."""
    notes = []
    taken = min(amount, state["health"])
    state["health"] -= taken
    rest = amount - taken
    if rest and setting(sheet, "zero_health_spills"):
        spilled = min(rest, state["stamina"])
        state["stamina"] -= spilled
        notes.append(f"{spilled} spilled into Stamina")
    if state["health"] == 0 and state["stamina"] == 0:
        state["dead"] = True
    return notes


@dataclass(frozen=True)
class TakeDamageProcedure:
    """Seed 003, Taking Damage and Deflect: spend 2 Stamina a deflect die, roll them together, damage falls."""

    key: str = "take_damage"
    label: str = "Take damage"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param("damage", "Damage", "int", 0, 0, DAMAGE_MAX),
            Param(
                "deflect",
                "Deflect dice",
                "int",
                0,
                0,
                DEFLECT_DICE_CAP,
                help="2 Stamina each (4 if Fatigued); up to 1 + half your level.",
                resets=True,
            ),
            *_damage_feature_params(sheet),
        )

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
        state = _st(sheet)
        if is_dead(state):
            raise Settled("The dead take no more damage.")
        if p.get("beast") and state["feats"]["beast_health"] <= 0:
            raise RulesError("Your beast is already down.")
        count = p["deflect"]
        allowed = deflect_dice_max(state)
        if count > allowed:
            raise RulesError(f"At level {state['level']} you may roll at most {allowed} deflect {_dice(allowed)}.")
        if count:
            if state["last_stand"] == 0 and "Incapacitated" in statuses_now(sheet, state):
                raise RulesError("An Incapacitated character cannot deflect.")
            probe = dict(state, statuses=dict(state["statuses"]))
            spend_stamina(probe, DEFLECT_COST * count, f"deflecting with {count} {_dice(count)}")
        return state, count

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        """Every deflect total, put through the same ``_land`` the roll uses on a copy of the sheet after the
        deflect dice are paid for, so the chance shown for each outcome is the chance the roll lands on it."""
        p = clean_params(self, sheet, params)
        state, count = self._check(sheet, p)
        paid = copy.deepcopy(state)
        _pay_deflect(paid, count)
        keys = ("unhurt", "hurt", "down") if p.get("beast") else ("unhurt", "hurt", "dying", "dead")
        out = dict.fromkeys(keys, Fraction(0))
        for total, pr in _deflect_dist(state, count, p).items():
            outcome, _, _ = _land(copy.deepcopy(paid), sheet, p, total)
            out[outcome] += pr
        return Odds(tuple((k, v) for k, v in out.items() if v), success_keys=("unhurt", "hurt"))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, count = self._check(sheet, p)
        odds = self.odds(sheet, p)
        notes = _pay_deflect(state, count)
        dice: list[DieRoll] = []
        reduced = 0
        if count:
            for _ in range(count):
                rolled = _roll_deflect_die(rng, state)
                dice += rolled
                reduced += rolled[-1].face
            reduced += deflect_flat(state)
            change, again, said = features.toughen_up(
                state, _deflect_one(state), [d for d in dice if d.kept], lambda: _roll_deflect_die(rng, state)[-1]
            )
            reduced, dice, notes = reduced + change, dice + again, notes + said
        for sides in features.absorb_dice(state, p):  # the Absorb Infusion
            die = roll_die(rng, sides, "Absorb")
            dice.append(die)
            reduced += die.face
            notes.append(f"Absorb: {die.face} off")
        before = state["feats"]["beast_health"] if p.get("beast") else state["health"]
        outcome, taken, landed = _land(state, sheet, p, reduced)
        notes = _incoming_notes(state, p) + notes + landed
        summary = f"{p['damage']} damage" + (" to the beast" if p.get("beast") else "")
        if count:
            summary += f", {reduced} deflected"
        if p.get("beast"):
            summary += f": its Health {before} → {state['feats']['beast_health']}."
            if outcome == "down":
                summary += " Down: a Night's Rest stabilises it at 1 Health."
        else:
            summary += f": Health {before} → {state['health']}."
            if outcome == "dying":
                summary += " Dying: each Action costs 1 Stamina."
            elif outcome == "dead":
                summary += " Dead."
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(self.key, self.label, outcome, summary, tuple(dice), taken, odds, shown_inputs(p), state)


def _pay_deflect(state: dict[str, Any], count: int) -> list[str]:
    """Seed 003, Deflect: 2 Stamina a die, paid before the dice are rolled (the last Stamina at 0 Health is death,
    which spend_stamina marks)."""
    if not count:
        return []
    return spend_stamina(state, DEFLECT_COST * count, f"deflecting with {count} {_dice(count)}")


def _land(state: dict[str, Any], sheet: Sheet, p: Mapping[str, Any], reduced: int) -> tuple[str, int, list[str]]:
    """Seed 003, Taking Damage: what reaches the sheet once ``reduced`` is deflected, changed in ``state`` (its
    deflect dice already paid for). The one state function the roll and the odds both read: the outcome (the
    beast's unhurt/hurt/down, or the character's unhurt/hurt/dying/dead as the sheet now stands), the damage
    taken after deflect, and the notes."""
    taken = max(0, _incoming(state, p) - reduced)
    if p.get("beast"):
        feats = state["feats"]
        feats["beast_health"] = max(0, feats["beast_health"] - taken)
        return ("unhurt" if taken == 0 else "down" if feats["beast_health"] == 0 else "hurt"), taken, []
    reaching, notes = features.absorb_form_health(state, taken)
    if not state["dead"]:
        notes += apply_damage(state, sheet, reaching)
        notes += features.after_damage(state)
    outcome = "dead" if is_dead(state) else "dying" if state["health"] == 0 else "hurt" if taken else "unhurt"
    return outcome, taken, notes


def _damage_feature_params(sheet: Sheet | None) -> tuple[Param, ...]:
    """Take damage's class-feature inputs, offered to the characters who have them."""
    state = readable_state(sheet)
    if state is None:
        return ()
    out = []
    if state["feats"]["beast"]:
        out.append(
            Param("beast", "Damage to your beast", "bool", False, help="Beast Bond: your deflect dice may cover it.")
        )
    if features.has(state, "You Won't Be The One To Kill Me"):
        out.append(Param("sworn", "From the creature you named at your Last Stand", "bool", False))
    if state["feats"]["infusion"] == "Absorb":
        out.append(Param("absorb", "Absorb takes the Infusion Dice off it", "bool", True, help="Needs a shield."))
    return tuple(out)


def _incoming(state: Mapping[str, Any], p: Mapping[str, Any]) -> int:
    """The damage after the features that cut it before deflect: Slab of Beef halves it (rounded down);
    during a Last Stand the named creature deals none (You Won't Be The One To Kill Me)."""
    amount = int(p["damage"])
    if p.get("sworn") and state["last_stand"] and features.has(state, "You Won't Be The One To Kill Me"):
        return 0
    if state["feats"]["slab"] and not p.get("beast"):
        amount //= 2
    return amount


def _incoming_notes(state: Mapping[str, Any], p: Mapping[str, Any]) -> list[str]:
    if p.get("sworn") and state["last_stand"] and features.has(state, "You Won't Be The One To Kill Me"):
        return ["immune to the creature you named"]
    if state["feats"]["slab"] and not p.get("beast"):
        return ["Slab of Beef: halved"]
    return []


def _dice(n: int) -> str:
    return "die" if n == 1 else "dice"


# Seed 003, Basic Actions and Counter Actions, with what each does to statuses.
ACTIONS = (
    ("defend", "Defend: +2 Armor and Counter until your next turn"),
    ("sprint", "Sprint: double Speed this turn"),
    ("expose", "Expose: an ally within 30 ft gets +3 on their next attack on the target"),
    ("rattle", "Rattle: the target is Rattled (−2) until the end of its next turn"),
    ("reposition", "Reposition: move yourself, the target or both 5 ft"),
    ("stagger", "Stagger: the target is Slowed until the end of its next turn"),
)
TARGET_STATUS = {"rattle": "Rattled", "stagger": "Slowed"}


@dataclass(frozen=True)
class ActionProcedure:
    """Seed 003, Basic Actions (Defend, Sprint) and Counter Actions (Expose, Rattle, Reposition, Stagger)."""

    key: str = "act"
    label: str = "Action or Counter Action"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param("action", "Action", "choice", "defend", choices=ACTIONS),
            Param(
                "target",
                "Character at the table",
                "character",
                help="Rattle and Stagger: the target. Expose: the ally who gets +3 on their next attack.",
            ),
            Param(
                "counter",
                "As a Counter Action",
                "bool",
                False,
                help="On a Clash or when Countered: it is not your turn's Action.",
            ),
            _dying_param(),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        self._check(sheet, p)
        return Odds(((p["action"], Fraction(1)),), success_keys=(p["action"],))

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> dict[str, Any]:
        state = _st(sheet)
        if is_dead(state):
            raise Settled("The dead do not act.")
        if "Incapacitated" in statuses_now(sheet, state):
            raise RulesError("An Incapacitated character cannot act.")
        if p["counter"] and p["action"] in ("defend", "sprint"):
            raise RulesError("Defend and Sprint are basic actions, not Counter Actions.")
        dying = state["health"] == 0 and not p["counter"] and not p.get("ally_helps")
        if dying and state["stamina"] < stamina_cost(state, DYING_ACTION_COST):
            raise RulesError("Dying with no Stamina left: you cannot act.")
        return state

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = self._check(sheet, p)
        action = p["action"]
        notes = [] if p["counter"] else _dying_cost(state, p, "acting")
        label = dict(ACTIONS)[action]
        others: dict[str, dict[str, Any]] = {}
        target = p.get("target")
        if action == "defend":
            state["defending"] = True
        elif target is not None and (action in TARGET_STATUS or action == "expose"):
            other = validate_state(target.state)
            if action == "expose":
                other["exposed"] = True  # the ally named: +3 on their next attack test (seed 003, Expose)
            else:
                add_status(other["statuses"], TARGET_STATUS[action], 1)
            others["target"] = other
        who = f" ({target.name})" if target is not None and others else ""
        summary = f"{label}{who}."
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(
            self.key,
            self.label,
            action,
            summary,
            odds=self.odds(sheet, p),
            inputs=shown_inputs(p),
            state=state,
            other_states=others,
        )


@dataclass(frozen=True)
class HideProcedure:
    """Seed 003, Hide: an Agility test at the GM's difficulty; a pass makes you Hidden."""

    key: str = "hide"
    label: str = "Hide"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            *test_params(),
            Param("retry", "Tried last round", "bool", False, help="A second try is 3 easier."),
            *favor_params(pushing=False),
            _dying_param(),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Any, int, int]:
        state = _st(sheet)
        success, failure = points(p)
        if p["retry"]:
            success, failure = success - 3, failure - 3
        s = setup(sheet, state, p, stat="agility")
        _dying_check(state, p)  # seed 003: Hide is one of the Basic Actions
        return state, s, success, failure

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, s, success, failure = self._setup(sheet, p)
        return odds_of(s, success, failure)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, s, success, failure = self._setup(sheet, p)
        odds = odds_of(s, success, failure)
        notes = pay(state, s) + _dying_cost(state, p, "hiding")
        dice, outcome, total, _ = roll_test(rng, s, success, failure)
        if outcome == "pass":
            add_status(state["statuses"], "Hidden", 0)
            summary = f"Hide {total}: Hidden."
        elif outcome == "mixed":
            summary = f"Hide {total}: harder to spot, not hidden; next round's try is 3 easier."
        else:
            gain_favor(state, sheet)
            summary = f"Hide {total}: seen. Fortune's Favor gained."
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(self.key, self.label, outcome, summary, dice, total, odds, shown_inputs(p), state)


@dataclass(frozen=True)
class HealDyingProcedure:
    """Seed 003, Healing a Dying Ally: an Intellect test 15/10; pass +1 Health, fail −1 Stamina to them."""

    key: str = "heal_dying"
    label: str = "Heal a dying ally"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param("ally", "The dying ally", "character"),
            *favor_params(pushing=False, helping=False),
            _dying_param(),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any], Any]:
        state = _st(sheet)
        ally = p.get("ally")
        if ally is None:
            raise RulesError("Pick the dying ally at the table.")
        other = validate_state(ally.state)
        if other["health"] > 0 or is_dead(other):
            raise RulesError(f"{ally.name or 'That character'} is not dying.")
        medical = 1 if "Medical Training" in state["novice_features"] else 0
        s = setup(sheet, state, p, stat="intellect", extra_favor=medical)
        _dying_check(state, p)  # seed 003: healing a dying ally takes your Action
        return state, other, s

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, _, s = self._setup(sheet, p)
        return odds_of(s, *HEAL_DYING)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, other, s = self._setup(sheet, p)
        odds = odds_of(s, *HEAL_DYING)
        notes = pay(state, s) + _dying_cost(state, p, "healing")
        dice, outcome, total, _ = roll_test(rng, s, *HEAL_DYING)
        name = p["ally"].name or "the ally"
        if outcome == "pass":
            other["health"] = min(health_max(other), other["health"] + 1)
            summary = f"Intellect {total}: {name} is back to 1 Health."
        elif outcome == "fail":
            other["stamina"] = max(0, other["stamina"] - 1)
            if other["stamina"] == 0:
                other["dead"] = True
            gain_favor(state, sheet)
            summary = f"Intellect {total}: {name} loses 1 Stamina. Fortune's Favor gained."
        else:
            summary = f"Intellect {total}: no change (mixed)."
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(
            self.key,
            self.label,
            outcome,
            summary,
            dice,
            total,
            odds,
            shown_inputs(p),
            state,
            other_states={"ally": other},
        )


@dataclass(frozen=True)
class LastStandProcedure:
    """Seed 003, Last Stand: declared when hit, before damage; all Health and Stamina back each round."""

    key: str = "last_stand"
    label: str = "Declare a Last Stand"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return ()

    def _check(self, sheet: Sheet) -> dict[str, Any]:
        state = _st(sheet)
        if is_dead(state):
            raise RulesError("Too late for a Last Stand.")
        if state["last_stand"]:
            raise RulesError("You are already making your Last Stand.")
        if "Incapacitated" in statuses_now(sheet, state):
            raise RulesError("An unconscious character cannot make a Last Stand.")
        return state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        self._check(sheet)
        return Odds((("last_stand", Fraction(1)),), success_keys=("last_stand",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = self._check(sheet)
        state["last_stand"] = 1
        state["health"] = health_max(state)
        state["stamina"] = stamina_max(state)
        summary = (
            f"Last Stand: Health and Stamina full again now and each round; death at 0 Stamina "
            f"or at the end of round {LAST_STAND_ROUNDS}."
        )
        more = features.on_last_stand(state, sheet)
        if more:
            summary += f" {'; '.join(more)}."
        return RollResult(
            self.key, self.label, "last_stand", summary, odds=self.odds(sheet, p), inputs=shown_inputs(p), state=state
        )


@dataclass(frozen=True)
class NewRoundProcedure:
    """Seed 003, Rounds: statuses with durations tick down; Defend ends; a Last Stand refills or ends."""

    key: str = "new_round"
    label: str = "Start of my next turn"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        state = _st(sheet)
        key = "dead" if state["last_stand"] == LAST_STAND_ROUNDS else "next_round"
        return Odds(((key, Fraction(1)),), success_keys=("next_round",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        if is_dead(state):
            raise Settled("The dead take no more turns.")
        if (sheet.table or {}).get("fight"):  # the tracker starts each round for everyone: not twice
            raise RulesError("The GM's encounter tracker starts each round for the whole party.")
        odds = self.odds(sheet, p)
        state, outcome, notes = new_round(state, sheet)
        summary = "A new round" + (f": {'; '.join(notes)}." if notes else ".")
        return RollResult(self.key, self.label, outcome, summary, odds=odds, inputs=shown_inputs(p), state=state)


def new_round(state: dict[str, Any], sheet: Sheet | None = None) -> tuple[dict[str, Any], str, list[str]]:
    """Seed 003, Rounds and Statuses: durations tick down (a status on its last round ends; 0 lasts until
    removed); Defend ends; a Last Stand refills Health and Stamina at the start of each round, and kills at the
    end of its 5th (spec §003.6 [REC]). The state (changed in place), the outcome and the notes."""
    notes: list[str] = []
    for name, rounds in list(state["statuses"].items()):
        if rounds == 1:
            del state["statuses"][name]
            notes.append(f"{name} ends")
        elif rounds > 1:
            state["statuses"][name] = rounds - 1
    if state["defending"]:
        state["defending"] = False
        notes.append("Defend ends")
    outcome = "next_round"
    if state["last_stand"]:
        if state["last_stand"] >= LAST_STAND_ROUNDS:
            state["dead"] = True
            outcome = "dead"
            notes.append("the Last Stand is over: dead")
        else:
            state["last_stand"] += 1
            state["health"] = health_max(state)
            state["stamina"] = stamina_max(state)
            notes.append(f"Last Stand round {state['last_stand']}: Health and Stamina full")
    notes += features.on_new_round(state, sheet)
    return state, outcome, notes


def fight_over(state: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Seed 003, Statuses: durations count combat rounds, so when the fight ends the ones still counting end
    with it (Lantern's reading); statuses that last until removed stay. Defend ends with the fight."""
    notes = [f"{name} ends" for name, rounds in state["statuses"].items() if rounds > 0]
    state["statuses"] = {name: rounds for name, rounds in state["statuses"].items() if rounds == 0}
    if state["defending"]:
        state["defending"] = False
        notes.append("Defend ends")
    return state, notes


@dataclass(frozen=True)
class StatusProcedure:
    """Seed 003 §Statuses: set or clear one status with its duration in rounds (0: until removed)."""

    key: str = "status"
    label: str = "Set or clear a status"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        names = tuple((n, n) for n in STATUSES if n not in ("Dying", "Dead"))
        return (
            Param("status", "Status", "choice", "Prone", choices=names),
            Param("rounds", "Rounds", "int", 0, 0, 100, help="0: until removed."),
            Param("clear", "Clear it", "bool", False),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        key = "cleared" if p["clear"] else "set"
        return Odds(((key, Fraction(1)),), success_keys=(key,))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        name = p["status"]
        if p["clear"]:
            if name not in state["statuses"]:
                raise RulesError(f"You are not {name}.")
            del state["statuses"][name]
            summary = f"{name} cleared."
        else:
            before = state["statuses"].get(name)
            add_status(state["statuses"], name, p["rounds"])
            held = state["statuses"][name]
            how = "until removed" if held == 0 else f"for {held} round{'s' if held != 1 else ''}"
            summary = f"{name} {how}."
            if before is not None:
                summary += " (Statuses never stack: the longer one stays.)"
        return RollResult(
            self.key,
            self.label,
            "cleared" if p["clear"] else "set",
            summary,
            odds=self.odds(sheet, p),
            inputs=shown_inputs(p),
            state=state,
        )


_ = (STAT_CHOICES, STAT_NAMES, cls, three_outcome_of)


@dataclass(frozen=True)
class AreaAttackProcedure:
    """Seed 003, AOE Exchange: one attack roll against each target's Armor and Counter; one damage roll for every
    target hit. The class features that make one (Elemental Burst, Sweeping Attack, Spinning Lariat) charge their
    Stamina here. The odds are the exact chance of hitting each number of targets."""

    key: str = "area_attack"
    label: str = "Area attack"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param(
                "armors",
                "Each target's Armor",
                "text",
                "12, 12",
                1,
                200,
                help="Separated by commas; write 14/8 where a Counter is not Armor − 5.",
            ),
            Param(
                "feature",
                "Class feature",
                "choice",
                "",
                choices=(("", "— an area attack —"), *features.area_choices(sheet)),
            ),
            *favor_params(pushing=False, helping=False),
            _dying_param(),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Any, list[tuple[int, int]], int]:
        state = _st(sheet)
        targets = features.parse_armors(p["armors"])
        name = p["feature"] or ""
        if name and name not in dict(features.area_choices(sheet)):
            raise RulesError(f"{name} is not one of your area attacks.")
        cost = features.area_cost(state, name, len(targets))
        extras_ = features.test_extras(state, p, state["attack_stat"], attack=True)
        s = setup(sheet, state, p, stat=state["attack_stat"], attack=True, extra_favor=extras_.favor)
        s.bonus = s.bonus - state["stats"][state["attack_stat"]] + attack_bonus(state) + extras_.bonus
        s.extra = (*s.extra, *extras_.dice)
        s.third_d20 = extras_.d20  # Luck On Your Side
        s.notes += extras_.notes
        if cost:
            spend_stamina(dict(state, statuses=dict(state["statuses"])), cost, name)
        _dying_check(state, p)
        return state, s, targets, cost

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, s, targets, _ = self._setup(sheet, p)
        chances = features.area_odds(s.bonus, s.mode, s.extra, targets, s.third_d20)
        hits = tuple(k for k in chances if k != "hit 0")
        return Odds(tuple(chances.items()), success_keys=hits)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, s, targets, cost = self._setup(sheet, p)
        odds = self.odds(sheet, p)
        extras_ = features.test_extras(state, p, state["attack_stat"], attack=True)
        notes = s.notes + pay(state, s) + features.pay_extras(state, extras_)
        if cost:
            notes += spend_stamina(state, cost, p["feature"])
        notes += _dying_cost(state, p, "attacking")
        dice, _, total, nat1 = roll_test(rng, s, 0, 0)
        kept = next(d.face for d in dice if d.kept and d.sides == 20)
        results = [three_outcome_of(kept, total, armor, counter) for armor, counter in targets]
        hit = sum(1 for r in results if r == "pass")
        words = ", ".join(f"{armor}: {dict(EXCHANGE_KEYS)[r]}" for (armor, _), r in zip(targets, results, strict=True))
        summary = f"Area attack {total} against Armor {words}."
        damage = None
        final = p["feature"] == "Power Overwhelming"
        if hit or final:
            dealt = features.roll_damage(rng, state, {"maneuver": p["feature"]} if final else {}, "hit", kept, False)
            dice = (*dice, *dealt.dice)
            damage = dealt.total
            summary += f" {dealt.words[0]} to each target hit."
        if final:
            summary += " " + features.final_blast(state, damage or 0, hit, len(results) - hit)
        elif any(r != "pass" for r in results):
            summary += " Any Clash or Counter goes to one creature the GM picks."
        if nat1:
            summary += " A natural 1."
        if all(r == "fail" for r in results):
            gain_favor(state, sheet)
            summary += " Fortune's Favor gained."
        state["exposed"] = False
        state["statuses"].pop("Hidden", None)
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(
            self.key,
            self.label,
            f"hit {hit}",
            summary,
            dice,
            total,
            odds,
            shown_inputs(p),
            state,
            details={"damage": damage, "results": results} if damage is not None else {"results": results},
        )
