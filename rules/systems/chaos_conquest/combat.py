"""Chaos & Conquest combat (seed 002, Combat; Attacks; Critical Hits; Damage & Armor; Stamina & Death).

Attacks, damage, treating the dying, wear and the round's end.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import replace as _replace
from fractions import Fraction
from itertools import product
from typing import Any

from rules.base import Hireling, Item, Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import chaos_conquest as data
from rules.dice import DieRoll, RandomSource, UnderMode, die_dist, roll_die, roll_under, sum_dist
from rules.errors import Settled
from rules.systems.chaos_conquest.effects import (
    _able,
    _door,
    _Effects,
    _hurt,
    _scar,
    _settle_crits,
    _stress_death,
    damage_odds,
    deaths_door_death_chance,
)
from rules.systems.chaos_conquest.inventory import (
    _ammo,
    _slots_max,
    _sunder_shield,
    _weapon_die,
    _weapons,
    armour_value,
)
from rules.systems.chaos_conquest.saves import _kept, _mode, _verdict, save_chance
from rules.systems.chaos_conquest.settings import setting
from rules.systems.chaos_conquest.state import (
    ATTRIBUTE_MAX,
    BONUS_DICE,
    DAMAGE_MAX,
    MAGIC_AV_MAX,
    UNARMED,
    _cur,
    _data,
    _helper_changed,
    _helper_state,
    _helpers,
    _lower,
    _scar_rolls,
    _st,
    light_at_table,
)


@dataclass(frozen=True)
class Weapon:
    key: str
    name: str
    die: int
    flat: int = 0  # pistol d6+1, musket d8+1
    worn_out: bool = False
    ranged: bool = False
    silver: bool = False
    item: Item | None = None


def _weapon(sheet: Sheet, key: str) -> Weapon:
    if key == UNARMED:
        return Weapon(UNARMED, "bare hands", 4)
    item = _weapons(sheet).get(key)
    if item is None:
        raise RulesError("That weapon is not on this sheet.")
    d = _data(item)
    flat = d.get("bonus", 0)
    flat = flat if isinstance(flat, int) and not isinstance(flat, bool) else 0
    return Weapon(
        key,
        item.name,
        _weapon_die(item),
        flat,
        bool(d.get("worn_out")),
        bool(d.get("ranged")),
        bool(d.get("silver")),
        item,
    )


def weapon_outcomes(weapon: Weapon, impaired: bool = False) -> dict[tuple[int, bool], Fraction]:
    """One weapon's (damage before bonus dice and armour, critical?) with exact chances.

    Seed 002 (Attacks; Critical Hits; Worn Weapons): the weapon's own die at its maximum is a critical;
    impaired rolls twice and keeps the lower, so both must show the maximum (spec §002.5 [REC]);
    a worn weapon does 1 and never crits; a flat bonus (pistol d6+1) needs the die itself at 6.
    """
    if weapon.worn_out:
        return {(1, False): Fraction(1)}
    out: dict[tuple[int, bool], Fraction] = {}
    if impaired:
        for a, b in product(range(1, weapon.die + 1), repeat=2):
            kept = min(a, b)
            key = (kept + weapon.flat, kept == weapon.die)
            out[key] = out.get(key, Fraction(0)) + Fraction(1, weapon.die**2)
        return out
    for face, p in die_dist(weapon.die).items():
        out[(face + weapon.flat, face == weapon.die)] = p
    return out


def _dealt(raw: int, crit: bool, bonus: int, av: int) -> int:
    """Seed 002: damage minus AV, never below 0; a critical bypasses all armour."""
    return raw + bonus if crit else max(0, raw + bonus - av)


def attack_distribution(
    weapons: Sequence[Weapon], av: int, bonus_dice: Sequence[int] = (), impaired: bool = False
) -> dict[tuple[int, bool], Fraction]:
    """Exact (damage dealt, critical?) of an attack; with two weapons (dual wielding) the better result
    is kept, a critical winning a tie since it also cracks the armour."""
    per = [weapon_outcomes(w, impaired) for w in weapons]
    bonus = sum_dist(tuple(bonus_dice))
    out: dict[tuple[int, bool], Fraction] = {}
    for combo in product(*(d.items() for d in per)):
        p_weapons = math.prod((p for _, p in combo), start=Fraction(1))
        for b, pb in bonus.items():
            best = max(((_dealt(raw, crit, b, av), crit) for (raw, crit), _ in combo))
            out[best] = out.get(best, Fraction(0)) + p_weapons * pb
    return out


def _damage_odds(dist: Mapping[tuple[int, bool], Fraction]) -> Odds:
    rows = sorted(dist.items())
    outcomes = tuple((f"{d} damage" + (" (critical)" if c else ""), p) for (d, c), p in rows)
    return Odds(outcomes, success_keys=tuple(k for k, _ in outcomes if not k.startswith("0 damage")))


@dataclass(frozen=True)
class _Attack:
    weapons: tuple[Weapon, ...]
    av: int
    bonus: tuple[tuple[int, str], ...]  # (sides, why)
    impaired: bool
    notes: tuple[str, ...]


@dataclass(frozen=True)
class AttackProcedure:
    """Seed 002, Attacks: always hit; the weapon die minus the target's AV; criticals, impaired and
    enhanced attacks, dual wielding, mounted combat and blast damage."""

    key: str = "attack"
    label: str = "Attack"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        weapons = tuple((k, f"{it.name} (d{_weapon_die(it)})") for k, it in _weapons(sheet).items())
        choices = (*weapons, (UNARMED, "Unarmed or improvised (d4)"))
        return (
            Param("weapon", "Weapon", "choice", choices[0][0], choices=choices),
            Param("second", "Second weapon (dual wielding)", "choice", "", choices=(("", "none"), *choices)),
            Param("target_av", "Target's AV", "int", 0, 0, MAGIC_AV_MAX, help="Ignored when a character is picked."),
            Param("opponent", "Target character", "character", help="Uses their AV and applies the damage."),
            Param("impaired", "Impaired (cover, grappled...)", "bool", False, help="Roll twice, keep the lower."),
            Param("bonus_die", "Enhanced: bonus die", "choice", "0", choices=BONUS_DICE, help="The GM picks it."),
            Param("helpless", "Target completely helpless", "bool", False, help="Always +d12."),
            Param("mounted", "Mounted, in melee against a smaller foe", "bool", False),
            Param("in_melee", "Engaged in melee", "bool", False, help="Ranged weapons cannot be used in melee."),
            Param("targets", "Blast: targets caught", "int", 1, 1, 20, help="Damage is rolled for each target."),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> _Attack:
        state = _st(sheet)
        _able(state)
        weapons = [_weapon(sheet, p["weapon"])]
        if p["second"]:
            if p["second"] == p["weapon"]:
                raise RulesError("Dual wielding takes two different weapons.")
            weapons.append(_weapon(sheet, p["second"]))
        notes: list[str] = []
        if p["in_melee"] and any(w.ranged for w in weapons):
            raise RulesError("Ranged weapons cannot be used in melee.")
        impaired = bool(p["impaired"])
        if not impaired and 8 in _scar_rolls(state) and any(w.ranged for w in weapons):
            impaired = True
            notes.append("lost eye: ranged attacks are impaired")
        light = light_at_table(sheet)  # equipment.md, Light: darkness impairs all attacks, dim light ranged ones
        if not impaired and (light == "darkness" or light == "dim" and any(w.ranged for w in weapons)):
            impaired = True
            notes.append(
                "darkness: attacks are impaired" if light == "darkness" else "dim light: ranged attacks are impaired"
            )
        bonus: list[tuple[int, str]] = []
        if p["helpless"]:
            bonus.append((12, "helpless"))
        elif p["bonus_die"] != "0":
            bonus.append((int(p["bonus_die"]), "enhanced"))
        first = weapons[0]
        # Mounted and dual wielding: the bonus die follows the first weapon (the rules do not say).
        if p["mounted"]:
            if not any(i.kind == "animal" and _data(i).get("mount") for i in sheet.items):
                raise RulesError("Mounted combat needs a horse or similar mount on your sheet.")
            if first.ranged:
                raise RulesError("The mounted bonus is for melee.")
            if first.worn_out:
                notes.append("a worn weapon gets no mounted bonus")  # spec §002.13.11 [REC]
            else:
                # A magic weapon past d10 uses "a basic similar weapon": the biggest basic die is d10.
                bonus.append((min(first.die, 10), "mounted"))
        if p["targets"] > 1 and isinstance(p.get("opponent"), Sheet):
            raise RulesError("Pick a target character for a single target only; roll blasts against NPCs.")
        av = armour_value(p["opponent"]) if isinstance(p.get("opponent"), Sheet) else p["target_av"]
        return _Attack(tuple(weapons), av, tuple(bonus), impaired, tuple(notes))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        a = self._setup(sheet, clean_params(self, sheet, params))
        return _damage_odds(attack_distribution(a.weapons, a.av, [s for s, _ in a.bonus], a.impaired))

    def _strike(self, a: _Attack, rng: RandomSource, fx: _Effects) -> tuple[int, bool, int]:
        options: list[tuple[int, bool, list[DieRoll]]] = []
        for w in a.weapons:
            if w.worn_out:
                options.append((1, False, []))
                continue
            dice = [roll_die(rng, w.die, w.name)]
            if a.impaired:
                dice.append(roll_die(rng, w.die, f"{w.name} (impaired)"))
                low = min(range(2), key=lambda i: (dice[i].face, i))
                dice = [_replace(d, kept=(i == low)) for i, d in enumerate(dice)]
            kept = next(d.face for d in dice if d.kept)
            options.append((kept + w.flat, kept == w.die, dice))
        bonus_dice = [roll_die(rng, s, f"bonus ({why})") for s, why in a.bonus]
        b = sum(d.face for d in bonus_dice)
        ranked = [(_dealt(raw, crit, b, a.av), crit) for raw, crit, _ in options]
        pick = max(range(len(options)), key=lambda i: (ranked[i], -i))
        for i, (_, _, dice) in enumerate(options):
            fx.dice += dice if i == pick else [_replace(d, kept=False) for d in dice]
        fx.dice += bonus_dice
        return ranked[pick][0], ranked[pick][1], pick

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        a = self._setup(sheet, p)
        odds = _damage_odds(attack_distribution(a.weapons, a.av, [s for s, _ in a.bonus], a.impaired))
        fx = _Effects(sheet)
        hits: list[dict[str, Any]] = []
        for t in range(p["targets"]):
            damage, crit, pick = self._strike(a, rng, fx)
            w = a.weapons[pick]
            after = max(0, a.av - 1) if crit else a.av
            hit = {"target": t + 1, "damage": damage, "critical": crit, "weapon": w.name}
            hits.append({**hit, "av_after_round": after})
            where = f"Target {t + 1}: " if p["targets"] > 1 else ""
            if crit:
                fx.say(
                    f"{where}{w.name}: critical! {damage} damage through all armour; "
                    "their AV drops by 1 at the end of the round."
                )
            else:
                fx.say(f"{where}{w.name}: {damage} damage after AV {a.av}.")
        for w in a.weapons:
            if w.silver and w.item is not None and not w.worn_out:  # equipment.md: silver wears after every attack
                wear = roll_die(rng, 6, f"wear: {w.name}")
                fx.dice.append(wear)
                if wear.face == 1:
                    fx.set_data(w.item, worn_out=True)
                    fx.say(f"The silver of {w.name} wears (rolled 1): damage 1 until repaired.")
        other_states: dict[str, Mapping[str, Any]] = {}
        target = p.get("opponent")
        if isinstance(target, Sheet):
            other = _st(target)
            words: list[str] = []
            if hits[0]["critical"]:
                other["av_crit_pending"] = min(MAGIC_AV_MAX, other["av_crit_pending"] + 1)
            _hurt(other, hits[0]["damage"], rng, fx.dice, words)
            fx.say(f"{target.name or 'The target'}: " + " ".join(words))
            other_states["opponent"] = other
        fx.details.update({"hits": hits, "av": a.av, "notes": list(a.notes), "impaired": a.impaired})
        fx.details["target_av_after_round"] = hits[0]["av_after_round"]
        total = sum(h["damage"] for h in hits)
        first = hits[0]
        outcome = f"{first['damage']} damage" + (" (critical)" if first["critical"] else "")
        if p["targets"] > 1:
            outcome = f"{total} damage in all"
        return fx.result(self, outcome, odds, shown_inputs(p), total=total, other_states=other_states)


@dataclass(frozen=True)
class TakeDamageProcedure:
    """Seed 002 (Damage & Armor; Shields; Stamina & Death): damage less your AV comes off stamina;
    at 0 or lower you roll on Death's door; a held shield can be sundered to stop one attack."""

    key: str = "take_damage"
    label: str = "Take damage"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("amount", "Damage rolled", "int", 1, 0, DAMAGE_MAX),
            Param("armour", "Your AV reduces it", "bool", True, help="Off for magic, falls and direct damage."),
            Param("critical", "A critical hit", "bool", False, help="Ignores armour; your AV drops 1 after the round."),
            Param("sunder", "Sunder your shield to block it", "bool", False, help="The shield breaks for good."),
        )

    def _amount(self, sheet: Sheet, p: Mapping[str, Any]) -> int:
        amount = p["amount"]
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= DAMAGE_MAX:
            raise RulesError(f"Damage must be a whole number from 0 to {DAMAGE_MAX}.")
        if p["sunder"]:
            if _sunder_shield(sheet) is None:
                raise RulesError("Sundering needs a shield in hand.")
            return 0
        if p["critical"] or not p["armour"]:
            return amount
        return max(0, amount - armour_value(sheet))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        if state["status"] == "dead":
            raise Settled("The dead take no more damage.")
        return damage_odds(state, self._amount(sheet, p))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        fx = _Effects(sheet)
        damage = self._amount(sheet, p)
        if p["sunder"]:
            shield = _sunder_shield(sheet)
            assert shield is not None
            fx.replace(shield, None)
            fx.say(f"{shield.name} is sundered and stops all {p['amount']} damage. It is beyond repair.")
        else:
            if p["critical"]:
                fx.state["av_crit_pending"] = min(MAGIC_AV_MAX, fx.state["av_crit_pending"] + 1)
                fx.say("A critical: armour does nothing, and your AV drops 1 at the end of the round.")
            elif p["armour"] and damage < p["amount"]:
                fx.say(f"AV stops {p['amount'] - damage}.")
            if damage == 0:
                fx.say("No damage gets through.")
            _hurt(fx.state, damage, rng, fx.dice, fx.words)
        outcome = {"dead": "dies", "dying": "dying"}.get(fx.state["status"], "hurt" if damage else "unhurt")
        return fx.result(self, outcome, odds, shown_inputs(p), total=damage)


@dataclass(frozen=True)
class DeathsDoorProcedure:
    """Seed 002, Stamina & Death: the d6 on Death's door, when stamina was set to 0 by hand."""

    key: str = "deaths_door"
    label: str = "Death's door"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        state = _st(sheet)
        if state["status"] != "deaths_door":
            raise RulesError("Only a character on Death's door (0 stamina or less) rolls this.")
        dies = deaths_door_death_chance(state["doomed"])
        return Odds((("dying", 1 - dies), ("dies", dies)), success_keys=("dying",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        clean_params(self, sheet, params)
        odds = self.odds(sheet, params)
        fx = _Effects(sheet)
        _door(fx.state, rng, fx.dice, fx.words)
        return fx.result(self, "dies" if fx.state["status"] == "dead" else "dying", odds, {})


@dataclass(frozen=True)
class TreatProcedure:
    """Seed 002, Stamina & Death: another character treats the dying with a WIL save or magic within
    a turn; survivors wake with 1 stamina and roll on the scars table. Also for retainers."""

    key: str = "treat"
    label: str = "Treat the dying"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        retainers = tuple((k, h.name) for k, h in _helpers(sheet, "retainer").items())
        return (
            Param("patient", "Who is dying", "choice", "self", choices=(("self", "this character"), *retainers)),
            Param("method", "Treatment", "choice", "wil", choices=(("wil", "healer's WIL save"), ("magic", "magic"))),
            Param("healer", "Healer", "character", help="Their WIL is used; a Healing talent gives advantage."),
            Param("healer_wil", "Healer's WIL (if not a character here)", "int", 10, 0, ATTRIBUTE_MAX),
            Param("advantage", "Healer has advantage", "bool", False),
            Param("disadvantage", "Healer has disadvantage", "bool", False),
            Param("in_time", "Treated within the turn (10 minutes)", "bool", True),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[int, UnderMode, list[str], Odds]:
        body = self._body(sheet, p)[1]
        if body["status"] != "dying":
            raise RulesError("Only someone unconscious and dying can be treated.")
        notes: list[str] = []
        healer = p.get("healer")
        wil = p["healer_wil"]
        advantage = bool(p["advantage"])
        if isinstance(healer, Sheet):
            hstate = _st(healer)
            _able(hstate)
            wil = _cur(hstate, "WIL")
            if "Healing" in hstate["talents"] and not advantage:
                advantage = True
                notes.append(f"{healer.name or 'the healer'}'s Healing talent: advantage")
        dark = light_at_table(sheet) == "darkness"  # equipment.md, Light: saves at disadvantage
        if dark and p["method"] != "magic":
            notes.append("darkness: disadvantage")
        mode = _mode(advantage, bool(p["disadvantage"]) or dark)
        if not p["in_time"]:
            odds = Odds((("saved", Fraction(0)), ("dies", Fraction(1))), success_keys=("saved",))
        elif p["method"] == "magic":
            odds = Odds((("saved", Fraction(1)), ("dies", Fraction(0))), success_keys=("saved",))
        else:
            c = save_chance(wil, mode)
            odds = Odds((("saved", c), ("dies", 1 - c)), success_keys=("saved",))
        saved = odds.of("saved")
        if saved and p["patient"] == "self":
            # The scar that follows can lower STR, and fewer slots can leave every one full of stress.
            shrink = Fraction(sum(1 for n in data.SCARS if self._scar_kills(body, n)), len(data.SCARS))
            odds = Odds((("saved", saved * (1 - shrink)), ("dies", 1 - saved * (1 - shrink))), success_keys=("saved",))
        return wil, mode, notes, odds

    @staticmethod
    def _scar_kills(body: Mapping[str, Any], face: int) -> bool:
        row = data.SCARS[face]
        if row["effect"] not in ("lose", "chronic") or (row.get("attribute", "STR") != "STR"):
            return False
        after = copy.deepcopy(dict(body))
        _lower(after, "STR", 2 if row["effect"] == "chronic" else row["amount"], permanent=True)
        return after["stress"] >= _slots_max(after)

    def _body(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Hireling | None, dict[str, Any]]:
        if p["patient"] == "self":
            return None, _st(sheet)
        h = _helpers(sheet, "retainer").get(p["patient"])
        if h is None:
            raise RulesError("That retainer is not with this character.")
        return h, _helper_state(h)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return self._setup(sheet, clean_params(self, sheet, params))[3]

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        wil, mode, notes, odds = self._setup(sheet, p)
        fx = _Effects(sheet)
        helper, body = self._body(sheet, p)
        if helper is None:
            body = fx.state
        if not p["in_time"]:
            ok = False
            fx.say("Nobody treated the wounds in time.")
        elif p["method"] == "magic":
            ok = True
            fx.say("Magic closes the wounds.")
        else:
            dice, ok, face = roll_under(rng, wil, mode, label="healer's WIL")
            fx.dice += dice
            fx.say(f"Healer's WIL save: {_kept(mode)} {face}, needing {wil} or less: {_verdict(ok)}.")
        if ok:
            body["status"] = "fine"
            body["stamina"] = 1
            fx.say("They wake with 1 stamina.")
            _scar(body, rng, fx.dice, fx.words, permanent=setting(sheet, "scar_losses_permanent"))
        else:
            body["status"] = "dead"
            fx.say("The wounds were not treated: dead.")
        if helper is None:
            _stress_death(fx)  # a scar can lower STR and so the slots (spec §002.13.10)
        fx.details["notes"] = notes
        result = fx.result(self, "saved" if body["status"] != "dead" else "dies", odds, shown_inputs(p))
        if helper is not None:
            result = _replace(result, hirelings_changed=(_helper_changed(helper, body),))
        return result


@dataclass(frozen=True)
class EndRoundProcedure:
    """Seed 002, Critical Hits: the AV a critical takes away goes at the end of the round."""

    key: str = "end_round"
    label: str = "End of round"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        clean_params(self, sheet, params)
        fx = _Effects(sheet)
        if not fx.state["av_crit_pending"]:
            fx.say("No criticals to settle this round.")
        _settle_crits(fx)
        fx.say(f"AV now {armour_value(fx.sheet(), fx.state)}.")
        return fx.result(self, "settled", None, {})


@dataclass(frozen=True)
class EndCombatProcedure:
    """Seed 002, Worn Weapons (a d6 per weapon used: 1 = worn) and equipment.md, Ammo (a d6 after
    using a ranged weapon: 1 = one shot left; once that is gone, so is the Ammo)."""

    key: str = "end_combat"
    label: str = "End of combat"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        weapons = tuple((k, it.name) for k, it in _weapons(sheet).items())
        return (Param("used", "Weapons you used", "multichoice", (), choices=weapons),)

    def _plan(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[list[Item], bool, Item | None]:
        weapons = _weapons(sheet)
        used = [weapons[k] for k in p["used"]]
        # Silver weapons already rolled after every attack; worn ones have nothing left to lose.
        wear = [w for w in used if not _data(w).get("worn_out") and not _data(w).get("silver")]
        ranged = any(_data(w).get("ranged") and not _data(w).get("thrown") for w in used)
        return wear, ranged, _ammo(sheet.items) if ranged else None

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        wear, _, ammo = self._plan(sheet, clean_params(self, sheet, params))
        rolls = len(wear) + (1 if ammo is not None and not _data(ammo).get("last_shot") else 0)
        fine = Fraction(5, 6) ** rolls
        return Odds((("all_fine", fine), ("something_wears", 1 - fine)), success_keys=("all_fine",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        wear, ranged, ammo = self._plan(sheet, p)
        fx = _Effects(sheet)
        bad = False
        for w in wear:
            die = roll_die(rng, 6, f"wear: {w.name}")
            fx.dice.append(die)
            if die.face == 1:
                bad = True
                fx.set_data(w, worn_out=True)
                fx.say(f"{w.name} is worn (rolled 1): damage 1 and no criticals until repaired.")
        if ranged and ammo is None:
            fx.say("You fired a ranged weapon, but there is no Ammo on your sheet.")
        elif ammo is not None and _data(ammo).get("last_shot"):
            fx.replace(ammo, None)
            fx.say(f"The last shot of {ammo.name} is gone.")
        elif ammo is not None:
            die = roll_die(rng, 6, f"ammo: {ammo.name}")
            fx.dice.append(die)
            if die.face == 1:
                bad = True
                fx.set_data(ammo, last_shot=True)
                fx.say(f"{ammo.name}: one shot left (rolled 1).")
        _settle_crits(fx)
        if not bad:
            fx.say("Your gear holds up.")
        return fx.result(self, "something_wears" if bad else "all_fine", odds, shown_inputs(p))


@dataclass(frozen=True)
class CombatOrderProcedure:
    """Seed 002, Combat: a d6 for each side each round; higher goes first, a tie acts at once."""

    key: str = "combat_order"
    label: str = "Combat order"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return Odds(
            (("party_first", Fraction(5, 12)), ("simultaneous", Fraction(1, 6)), ("enemies_first", Fraction(5, 12))),
            success_keys=("party_first",),
        )

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        clean_params(self, sheet, params)
        party, enemies = roll_die(rng, 6, "party"), roll_die(rng, 6, "enemies")
        if party.face == enemies.face:
            outcome, words = "simultaneous", "both sides act at once; all damage lands before anyone falls"
        elif party.face > enemies.face:
            outcome, words = "party_first", "the party acts first"
        else:
            outcome, words = "enemies_first", "the enemies act first"
        summary = f"Party {party.face}, enemies {enemies.face}: {words}."
        return RollResult(self.key, self.label, outcome, summary, (party, enemies), None, self.odds(sheet, params), {})
