"""What a Chaos & Conquest roll does to a sheet (seed 002, Stamina & Death; Inventory & Stress).

Damage, Death's door, scars, stress, and the helpers every procedure shares.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace as _replace
from fractions import Fraction
from typing import Any

from rules.base import Item, Odds, Param, Procedure, RollResult, RulesError, Sheet
from rules.data import chaos_conquest as data
from rules.dice import DieRoll, RandomSource, roll_dice, roll_die, sum_dist
from rules.errors import Settled
from rules.systems.chaos_conquest.inventory import _free_slots, _item_keys, _item_slots, _slots_max, armour_value
from rules.systems.chaos_conquest.state import ATTRIBUTE_MAX, STAMINA_FLOOR, _lower, _st, shown_stamina


class _Effects:
    """What one roll does to a sheet, built step by step: state, item changes, dice and words."""

    def __init__(self, sheet: Sheet):
        self.sheet0 = sheet
        self.before = _st(sheet)
        self.state = copy.deepcopy(self.before)
        self.dice: list[DieRoll] = []
        self.words: list[str] = []
        self.removed: list[int] = []
        self.changed: dict[int, Item] = {}
        self.details: dict[str, Any] = {}

    def current(self, item: Item) -> Item | None:
        if item.id is None:
            return item
        if item.id in self.removed:
            return None
        return self.changed.get(item.id, item)

    def items(self) -> tuple[Item, ...]:
        return tuple(c for c in (self.current(i) for i in self.sheet0.items) if c is not None)

    def sheet(self) -> Sheet:
        return self.sheet0.with_state(self.state, self.items())

    def replace(self, old: Item, new: Item | None) -> None:
        if old.id is None:
            raise RulesError(f"{old.name} is not saved on the sheet yet; save it before using it in a roll.")
        if new is None:
            self.changed.pop(old.id, None)
            self.removed.append(old.id)
        else:
            self.changed[old.id] = new

    def use_one(self, item: Item) -> Item:
        """Spend one unit of a stack (a Supply, a scroll); the row goes when the last one does."""
        now = self.current(item)
        if now is None:
            raise RulesError(f"{item.name} is already used up.")
        self.replace(item, _replace(now, quantity=now.quantity - 1) if now.quantity > 1 else None)
        return now

    def set_data(self, item: Item, **changes: Any) -> None:
        now = self.current(item)
        if now is not None:
            self.replace(item, _replace(now, data={**dict(now.data or {}), **changes}))

    def say(self, text: str) -> None:
        self.words.append(text)

    def result(
        self,
        proc: Procedure,
        outcome: str,
        odds: Odds | None,
        inputs: Mapping[str, Any],
        total: int | None = None,
        other_states: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> RollResult:
        changed = tuple(i for k, i in self.changed.items() if k not in self.removed)
        return RollResult(
            proc.key,
            proc.label,
            outcome,
            " ".join(self.words),
            tuple(self.dice),
            total,
            odds,
            dict(inputs),
            self.state if self.state != self.before else None,
            dict(self.details),
            items_removed=tuple(self.removed),
            items_changed=changed,
            other_states=dict(other_states or {}),
        )


def deaths_door_death_chance(doomed: bool) -> Fraction:
    """Seed 002, Stamina & Death: the d6 kills on 1-3, or on 1-5 when Doomed."""
    return Fraction(5 if doomed else 3, 6)


def _door(body: dict[str, Any], rng: RandomSource, dice: list[DieRoll], words: list[str]) -> None:
    """Seed 002, Stamina & Death: roll a d6 on Death's door; survive it unconscious and dying."""
    die = roll_die(rng, 6, "Death's door")
    dice.append(die)
    deadly = 5 if body.get("doomed") else 3
    if body.get("doomed"):
        body["doomed"] = False  # the doom is for "the next time" only
    if die.face <= deadly:
        body["status"] = "dead"
        words.append(f"Death's door: {die.face} (dies on 1-{deadly}). Dead.")
    else:
        body["status"] = "dying"
        words.append(
            f"Death's door: {die.face}. Unconscious and dying: someone must treat the wounds (a WIL save or "
            "magic) within a turn, and any further damage kills."
        )


def _hurt(
    body: dict[str, Any], amount: int, rng: RandomSource, dice: list[DieRoll], words: list[str], door: bool = True
) -> None:
    """Seed 002, Stamina & Death: damage comes off stamina; at 0 or lower PCs and retainers go to
    Death's door and other NPCs die; any damage to the dying kills."""
    if amount <= 0:
        return
    if body["status"] == "dead":
        words.append("Already dead.")
        return
    if body["status"] in ("dying", "deaths_door"):
        body["status"] = "dead"
        words.append(f"{amount} damage while bleeding out: dead.")
        return
    body["stamina"] = max(STAMINA_FLOOR, body["stamina"] - amount)
    words.append(f"{amount} damage: stamina {shown_stamina(body)}/{body['stamina_max']}.")
    if body["stamina"] <= 0:
        if door:
            _door(body, rng, dice, words)
        else:
            body["status"] = "dead"
            words.append("A hireling at 0 stamina is dead.")


def _scar(
    body: dict[str, Any], rng: RandomSource, dice: list[DieRoll], words: list[str], *, permanent: bool = True
) -> dict[str, Any]:
    """Seed 002, scars table (d10), with its effect on the sheet (spec §002.13.4: scars are lasting).

    ``permanent``: the table's ``scar_losses_permanent`` setting; off, the attributes a scar lowers come back
    with a full rest like any other lowered attribute."""
    roll = roll_die(rng, 10, "scar")
    dice.append(roll)
    row = data.SCARS[roll.face]
    text = row["text"]
    effect = row["effect"]
    if effect == "mark":
        where = roll_die(rng, 6, "where")
        dice.append(where)
        text = text.format(where=data.SCAR_PLACES[where.face - 1])
    elif effect == "lose":
        _lower(body, row["attribute"], row["amount"], permanent=permanent)
        if roll.face == 3:
            body["limp"] = True
    elif effect == "reroll":
        which = roll_die(rng, 6, "which attribute")
        attribute = data.HEAD_WOUND_ATTRIBUTE[which.face - 1]
        three = roll_dice(rng, 3, 6, attribute)
        dice += [which, *three]
        total = sum(d.face for d in three)
        a = body["attributes"][attribute]
        kept = total > a["current"]
        if kept:
            a["current"] = min(ATTRIBUTE_MAX, total)
            a["base"] = max(a["base"], a["current"])
        text = (
            text.format(attribute=attribute)
            + f" Rolled {total}: {attribute} {'now' if kept else 'stays'} {a['current']}."
        )
    elif effect == "chronic":
        body["stamina_max"] = max(1, body["stamina_max"] - 2)
        body["stamina"] = min(body["stamina"], body["stamina_max"])
        _lower(body, "STR", 2, permanent=permanent)
    elif effect == "doomed":
        body["doomed"] = True
    scar = {"roll": roll.face, "name": row["name"], "text": text}
    body["scars"].append(scar)
    words.append(f"Scar ({roll.face}): {row['name']}. {text}")
    return scar


def _stress_death(fx: _Effects) -> None:
    """Seed 002, Inventory & Stress: if every inventory slot holds stress, you die (spec §002.13.10)."""
    st = fx.state
    if st["stress"] > _slots_max(st):
        st["stress"] = _slots_max(st)  # no more stress than slots: the slots lost were full of it
    if st["status"] != "dead" and st["stress"] >= _slots_max(st):
        st["status"] = "dead"
        fx.say("Stress fills every slot: dead.")


def _add_stress(fx: _Effects, amount: int, drop: Sequence[str], rng: RandomSource, why: str) -> None:
    """Seed 002, Inventory & Stress: stress fills empty slots. With none left the player drops items
    (``drop``, in order) or takes d6 damage for each stress that does not fit (spec §002.7 [REC])."""
    st = fx.state
    if amount <= 0 or st["status"] == "dead":
        return
    keyed = _item_keys(fx.sheet0)
    for key in drop:
        item = keyed.get(key)
        if item is None:
            raise RulesError("An item chosen to drop is not on this sheet.")
        while _free_slots(fx.sheet(), st) < amount:
            now = fx.current(item)
            if now is None or now.slots <= 0:
                break
            fx.use_one(item)
            fx.say(f"Dropped {now.name} to make room.")
    fit = min(amount, _free_slots(fx.sheet(), st))
    st["stress"] += fit
    if fit:
        fx.say(f"{why}: {fit} stress.")
    over = amount - fit
    if over:
        d6s = roll_dice(rng, over, 6, "stress with no slot")
        fx.dice += d6s
        hurt = sum(d.face for d in d6s)
        fx.say(f"{why}: no slot for {over} stress, so {over}d6 = {hurt} damage.")
        _hurt(st, hurt, rng, fx.dice, fx.words)
    _stress_death(fx)


class _Tally:
    """A random source for working out odds: every die shows its lowest face, and the dice are counted.

    Stress that finds no slot costs d6 damage each; run with this, a roll's effects show how many such
    dice it needs, and whether even the least damage already kills.
    """

    def __init__(self) -> None:
        self.calls = 0

    def randint(self, a: int, b: int) -> int:
        self.calls += 1
        return a


def _at_least(count: int, sides: int, total: int) -> Fraction:
    """P(count dice of ``sides`` sum to ``total`` or more)."""
    return sum((p for v, p in sum_dist((sides,) * count).items() if v >= total), Fraction(0))


def _stress_fates(sheet: Sheet, amount: int, drop: Sequence[str]) -> dict[str, Fraction]:
    """What taking ``amount`` stress does, exactly: "fine", "dying" or "dead" (seed 002, Inventory &
    Stress: all slots full of stress is death; stress with no slot is d6 damage each, and damage to 0
    or less is Death's door)."""
    state = _st(sheet)
    if amount <= 0 or state["status"] == "dead":  # as _add_stress: nothing is added
        return {"fine": Fraction(1)}
    fx, tally = _Effects(sheet), _Tally()
    _add_stress(fx, amount, drop, tally, "")
    after = fx.state
    if after["stress"] >= _slots_max(after):
        return {"dead": Fraction(1)}
    if not tally.calls:
        return {"fine": Fraction(1)}
    door = deaths_door_death_chance(bool(state["doomed"]))
    # When even the least damage (1 a die) reaches Death's door, every roll does; otherwise the dice decide.
    hit = _at_least(tally.calls, 6, state["stamina"]) if after["stamina"] > 0 else Fraction(1)
    return {"fine": 1 - hit, "dying": hit * (1 - door), "dead": hit * door}


DEATH = Odds((("dies", Fraction(1)),), success_keys=())


def _able(state: Mapping[str, Any]) -> None:
    if state["status"] == "dead":
        raise Settled("The dead make no rolls.")
    if state["status"] == "deaths_door":
        raise RulesError("You are on Death's door: roll the d6 first.")
    if state["status"] == "dying":
        raise RulesError("You are unconscious and dying until someone treats your wounds.")


def _drop_param(sheet: Sheet) -> Param:
    options = tuple((k, f"{it.name} ({_item_slots(it)} slots)") for k, it in _item_keys(sheet).items() if it.slots)
    return Param(
        "drop",
        "If stress finds no empty slot, drop",
        "multichoice",
        (),
        choices=options,
        help="In this order, until the stress fits. Otherwise each stress that does not fit deals d6 damage.",
    )


def damage_odds(state: Mapping[str, Any], damage: int) -> Odds:
    """Seed 002, Stamina & Death: what ``damage`` (after armour) does to a PC or retainer, exactly."""
    if damage <= 0:
        return Odds((("unhurt", Fraction(1)),), success_keys=("unhurt",))
    if state["status"] in ("dying", "deaths_door"):
        return Odds((("dies", Fraction(1)),), success_keys=())
    if state["stamina"] - damage > 0:
        return Odds((("hurt", Fraction(1)),), success_keys=("hurt",))
    dies = deaths_door_death_chance(bool(state["doomed"]))
    return Odds((("dying", 1 - dies), ("dies", dies)), success_keys=("dying",))


def _settle_crits(fx: _Effects) -> None:
    """Spec §002.13.9 [REC]: a critical's AV loss lands at the end of the round, the aura first."""
    st = fx.state
    for _ in range(st["av_crit_pending"]):
        if st["aura"] and not st["aura_lost"]:
            st["aura_lost"] = True
            fx.say("A critical broke your magic aura.")
            continue
        have = armour_value(fx.sheet(), {**st, "av_lost": 0, "aura": False})
        if st["av_lost"] < have:
            st["av_lost"] += 1
            fx.say("A critical cracked your armour: AV -1 until mended.")
    st["av_crit_pending"] = 0
