"""Fell (draft): pools. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb

from rules.base import (
    RulesError,
)
from rules.dice import (
    DieRoll,
    RandomSource,
    check_pool,
    max_dist,
    roll_pool,
    shift,
)
from rules.systems.fell_draft.state import CONTEST_WORK, OVERFLOW


@dataclass(frozen=True)
class PoolDie:
    sides: int
    label: str
    role: str  # ability, steel, skill, spell, helper, npc, bonus
    owner: str = ""  # whose die: "" the roller, "helper" the helping character, "h:<key>" a hireling


@dataclass(frozen=True)
class Pool:
    """The dice a test or contest rolls, after the net ladder shift (seed 000, Advantage/Dice Ladder)."""

    dice: tuple[PoolDie, ...]
    net: int = 0
    notes: tuple[str, ...] = ()

    @property
    def sides(self) -> tuple[int, ...]:
        return tuple(d.sides for d in self.dice)

    def index(self, role: str) -> int | None:
        return next((i for i, d in enumerate(self.dice) if d.role == role), None)


def shift_dice(base: Sequence[PoolDie], net: int, notes: Sequence[str] = ()) -> Pool:
    """Move every die ``net`` rungs (spec §000.4 [REC]); dice below d4 go, past d12 add bonus dice."""
    out: list[PoolDie] = []
    for die in base:
        for k, sides in enumerate(shift(die.sides, net, OVERFLOW).dice):
            if k == 0:
                out.append(PoolDie(sides, die.label, die.role, die.owner))
            else:
                out.append(PoolDie(sides, f"{die.label} bonus", "bonus"))
    return Pool(tuple(out), net, tuple(notes))


def _net(advantage: int, disadvantage: int, decline: bool, notes: list[str]) -> tuple[int, list[str]]:
    net = advantage - disadvantage
    if decline and net > 0:
        notes.append("advantage declined")
        net = 0
    return net, notes


def _roll_pool(rng: RandomSource, pool: Pool) -> tuple[tuple[DieRoll, ...], int]:
    return roll_pool(rng, pool.sides, "highest", [d.label for d in pool.dice])


def pass_chance(sides: Sequence[int], dn: int) -> Fraction:
    """Seed 000 (Tasks and Tests): the highest single die meets the DN; an empty pool fails."""
    if not sides:
        return Fraction(0)
    fail = Fraction(1)
    for s in sides:
        fail *= Fraction(min(dn - 1, s), s)
    return 1 - fail


def _result_key(dice: Sequence[DieRoll]) -> list[tuple[int, int]]:
    return sorted(((d.face, d.sides) for d in dice), reverse=True)


def contest_winner(a: Sequence[DieRoll], b: Sequence[DieRoll], tiebreak: str = "ladder") -> int:
    """1 if side a wins, -1 if b wins, 0 for a standing tie (seed 000, Contests; spec §000.5.4 [REC]).

    Highest face wins; on equal faces the die higher up the ladder wins; still level, the next
    highest dice are compared the same way, then the side with more dice wins. With the table's
    ``contest_tiebreak`` setting at "stands", equal highest faces are a tie.
    """
    if tiebreak == "stands":
        fa, fb = max((d.face for d in a), default=0), max((d.face for d in b), default=0)
        return (fa > fb) - (fa < fb)
    ka, kb = _result_key(a), _result_key(b)
    return (ka > kb) - (ka < kb)


def contest_chances(
    a: Sequence[int], b: Sequence[int], tiebreak: str = "ladder"
) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (P a wins, P b wins, P tie) under ``contest_winner``, without enumerating every roll.

    Results are ranked (face, sides) from the best down. At each rank only dice of that size can
    show it, and the dice not yet placed are uniform below it, so the count showing it on each side
    is binomial. Unequal counts settle the contest; equal counts remove those dice and go on.
    """
    if tiebreak == "stands":
        return _highest_face_chances(a, b)
    sizes = tuple(sorted(set(a) | set(b)))
    if not sizes:
        return Fraction(0), Fraction(0), Fraction(1)
    start = (tuple(a.count(s) for s in sizes), tuple(b.count(s) for s in sizes))
    states: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction] = {start: Fraction(1)}
    win = lose = Fraction(0)
    ranks = sorted(((f, s) for s in sizes for f in range(1, s + 1)), reverse=True)
    check_pool((*a, *b))
    work = 0  # the states multiply with mixed dice sizes, so the work is counted as it goes
    for face, sides in ranks:
        i = sizes.index(sides)
        nxt: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction] = {}
        work += len(states)
        for (ca, cb), p in states.items():
            na, nb = ca[i], cb[i]
            if na == 0 and nb == 0:
                nxt[(ca, cb)] = nxt.get((ca, cb), Fraction(0)) + p
                continue
            work += (na + 1) * (nb + 1)
            if work > CONTEST_WORK:
                raise RulesError(
                    f"A contest of {len(a)} dice against {len(b)} has too many ways to fall to work out its odds."
                )
            for ka, pa in _binomial(na, face).items():
                for kb, pb in _binomial(nb, face).items():
                    q = p * pa * pb
                    if ka > kb:
                        win += q
                    elif kb > ka:
                        lose += q
                    else:
                        key = (_minus(ca, i, ka), _minus(cb, i, kb))
                        nxt[key] = nxt.get(key, Fraction(0)) + q
        states = nxt
    return win, lose, sum(states.values(), Fraction(0))


def _highest_face_chances(a: Sequence[int], b: Sequence[int]) -> tuple[Fraction, Fraction, Fraction]:
    """Highest faces compared, nothing more: the "tie stands" reading."""
    da, db = max_dist(a), max_dist(b)
    win = sum((pa * pb for fa, pa in da.items() for fb, pb in db.items() if fa > fb), Fraction(0))
    tie = sum((pa * db.get(fa, Fraction(0)) for fa, pa in da.items()), Fraction(0))
    return win, 1 - win - tie, tie


@lru_cache(maxsize=1024)
def _binomial(n: int, faces: int) -> dict[int, Fraction]:
    p = Fraction(1, faces)
    return {k: comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1) if p**k * (1 - p) ** (n - k)}


def _minus(counts: tuple[int, ...], i: int, k: int) -> tuple[int, ...]:
    return counts[:i] + (counts[i] - k,) + counts[i + 1 :]
