"""Dice: rolling with an injected random source, and exact odds as Fractions.

A distribution (``Dist``) maps each possible value to its exact probability. Every procedure that
rolls can also build its distribution from these helpers, so the odds shown before a roll are exact.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal, Protocol

from rules.errors import RulesError

Dist = dict[int, Fraction]

LADDER: tuple[int, ...] = (4, 6, 8, 10, 12)

# Bounds on the work one roll or one set of odds may take: every rules text here rolls a handful of
# dice of at most 20 faces (a d100 at most), so these refuse only numbers a sheet should never hold,
# before any work is done. Exact odds cost time in the size of their table, and one request must not
# hold a server (and a database connection) for seconds.
MAX_SIDES = 100  # faces on one die
MAX_DICE = 100  # dice in one pool
MAX_WORK = 200_000  # cells of one exact distribution's table (about 0.1 s of Fractions)


def check_sides(sides: int) -> None:
    """RulesError for a die no rules text rolls (checked before any work)."""
    if sides > MAX_SIDES:
        raise RulesError(f"A d{_count(sides)} is not a die Lantern rolls: the largest is a d{MAX_SIDES}.")


def check_pool(sides: Sequence[int]) -> None:
    if len(sides) > MAX_DICE:
        raise RulesError(f"{len(sides)} dice are too many to roll at once: at most {MAX_DICE}.")
    for s in sides:
        check_sides(s)


def check_work(cells: int, what: str = "these odds") -> None:
    if cells > MAX_WORK:
        raise RulesError(f"Working out {what} would take too long ({cells:,} steps; at most {MAX_WORK:,}).")


def _count(n: int) -> str:
    # Python refuses str() past 4,300 digits, and a message has no use for them.
    return str(n) if abs(n) < 10**12 else "huge"


class RandomSource(Protocol):
    """What a roll needs from randomness: ``random.Random`` and ``secrets.SystemRandom`` both fit."""

    def randint(self, a: int, b: int) -> int: ...


def system_random() -> RandomSource:
    """The production source: the operating system's CSPRNG."""
    return secrets.SystemRandom()


class ScriptedRandom:
    """A source that returns the given faces in order, for exact tests; it refuses impossible faces."""

    def __init__(self, faces: Iterable[int]):
        self._faces = list(faces)
        self._index = 0

    def randint(self, a: int, b: int) -> int:
        if self._index >= len(self._faces):
            raise AssertionError("ScriptedRandom ran out of faces")
        face = self._faces[self._index]
        self._index += 1
        if not a <= face <= b:
            raise AssertionError(f"scripted face {face} is not on a d{b}")
        return face

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._index


@dataclass(frozen=True)
class DieRoll:
    """One die on the table: its size, the face it shows, and whether the procedure kept it."""

    sides: int
    face: int
    kept: bool = True
    label: str = ""  # what the die stands for: "BOD", "steel", "bonus", "helper: Ana"

    def as_dict(self) -> dict:
        return {"sides": self.sides, "face": self.face, "kept": self.kept, "label": self.label}


def roll_die(rng: RandomSource, sides: int, label: str = "") -> DieRoll:
    if sides < 1:
        raise ValueError(f"a die needs at least one side, not {sides}")
    check_sides(sides)
    return DieRoll(sides=sides, face=rng.randint(1, sides), label=label)


def roll_dice(rng: RandomSource, count: int, sides: int, label: str = "") -> tuple[DieRoll, ...]:
    if count > MAX_DICE:
        raise RulesError(f"{_count(count)} dice are too many to roll at once: at most {MAX_DICE}.")
    return tuple(roll_die(rng, sides, label) for _ in range(count))


# --- exact distributions ---------------------------------------------------------------------


@lru_cache(maxsize=256)
def _die(sides: int) -> tuple[tuple[int, Fraction], ...]:
    check_sides(sides)
    p = Fraction(1, sides)
    return tuple((face, p) for face in range(1, sides + 1))


def die_dist(sides: int) -> Dist:
    """A single die: each face 1..sides equally likely."""
    return dict(_die(sides))


def constant(value: int) -> Dist:
    return {value: Fraction(1)}


def combine(a: Dist, b: Dist, op) -> Dist:
    """Distribution of op(x, y) for independent x ~ a and y ~ b."""
    check_work(len(a) * len(b))
    out: Dist = {}
    for x, px in a.items():
        for y, py in b.items():
            v = op(x, y)
            out[v] = out.get(v, Fraction(0)) + px * py
    return out


def convolve(a: Dist, b: Dist) -> Dist:
    return combine(a, b, lambda x, y: x + y)


def map_dist(d: Dist, fn) -> Dist:
    out: Dist = {}
    for x, p in d.items():
        v = fn(x)
        out[v] = out.get(v, Fraction(0)) + p
    return out


def sum_dist(sides: Sequence[int]) -> Dist:
    """Sum of several dice, e.g. 3d6 -> sum_dist((6, 6, 6))."""
    check_pool(sides)
    check_work(_sum_work(sides))
    out = constant(0)
    for s in sides:
        out = convolve(out, die_dist(s))
    return out


def _sum_work(sides: Sequence[int]) -> int:
    """Cells a sum's table passes through: each die meets every total reached so far."""
    work, span = 0, 1
    for s in sides:
        work += span * s
        span += s - 1
    return work


def max_dist(sides: Sequence[int]) -> Dist:
    """Highest single die of a pool (keep-highest-1). An empty pool is 0."""
    if not sides:
        return constant(0)
    check_pool(sides)
    check_work(max(sides) * len(sides))
    top = max(sides)
    out: Dist = {}
    previous = Fraction(0)
    for v in range(1, top + 1):
        at_most = Fraction(1)
        for s in sides:
            at_most *= Fraction(min(v, s), s)
        out[v] = at_most - previous
        previous = at_most
    return {v: p for v, p in out.items() if p}


def min_dist(sides: Sequence[int]) -> Dist:
    """Lowest single die of a pool (keep-lowest-1). An empty pool is 0."""
    if not sides:
        return constant(0)
    check_pool(sides)
    check_work(max(sides) * len(sides))
    out: Dist = {}
    for v in range(1, max(sides) + 1):
        at_least_v = Fraction(1)
        at_least_next = Fraction(1)
        for s in sides:
            at_least_v *= Fraction(max(0, s - v + 1), s)
            at_least_next *= Fraction(max(0, s - v), s)
        p = at_least_v - at_least_next
        if p:
            out[v] = p
    return out


def prob(d: Dist, predicate) -> Fraction:
    return sum((p for v, p in d.items() if predicate(v)), Fraction(0))


def keep(rolls: Sequence[DieRoll], how: Literal["highest", "lowest"], count: int = 1) -> tuple[DieRoll, ...]:
    """Mark the ``count`` highest (or lowest) dice as kept, the rest as not kept, order preserved."""
    order = sorted(range(len(rolls)), key=lambda i: rolls[i].face, reverse=(how == "highest"))
    chosen = set(order[:count])
    return tuple(DieRoll(r.sides, r.face, i in chosen, r.label) for i, r in enumerate(rolls))


# --- the d4..d12 ladder ----------------------------------------------------------------------


def ladder_index(sides: int) -> int:
    try:
        return LADDER.index(sides)
    except ValueError:
        raise ValueError(f"d{sides} is not on the ladder d4-d12") from None


# --- shifting a die along the ladder (Fell) --------------------------------------------------

Overflow = Literal["bonus_die", "advantage"]


@dataclass(frozen=True)
class Shifted:
    """A die after a ladder shift: the dice to roll now, plus any advantage the overflow became."""

    dice: tuple[int, ...]  # () when the die was lowered below d4 and cannot be rolled
    advantage: int = 0  # only "advantage" overflow (seed 001) produces this


def shift(sides: int, steps: int, overflow: Overflow) -> Shifted:
    """Move one die ``steps`` rungs along d4..d12 (seeds 000 and 001, "Dice Ladder").

    Below d4 the die is gone (both seeds: "you cannot roll it"). Above d12:
    - ``"bonus_die"`` (seed 000, spec §000.4 [REC]): keep the d12 and add a bonus die at rung n
      (1 step past d12 -> d4 ... 5 -> d12); once that bonus die is a d12 the next step starts
      another bonus die at d4, so d12 +6 steps is (12, 12, 4).
    - ``"advantage"`` (seed 001, spec §001.4 [REC]): each step past d12 is one advantage.
    """
    if overflow not in ("bonus_die", "advantage"):
        raise ValueError(f"unknown ladder overflow {overflow!r}")
    rung = ladder_index(sides) + steps
    if rung < 0:
        return Shifted(dice=())
    top = len(LADDER) - 1
    if rung <= top:
        return Shifted(dice=(LADDER[rung],))
    excess = rung - top
    if overflow == "advantage":
        return Shifted(dice=(LADDER[-1],), advantage=excess)
    # Every len(LADDER) extra steps fill one bonus die up to d12; the remainder is a partial one.
    full, partial = divmod(excess, len(LADDER))
    dice = (LADDER[-1],) * (1 + full) + ((LADDER[partial - 1],) if partial else ())
    return Shifted(dice=dice)


def shift_pool(sides: Sequence[int], steps: int, overflow: Overflow) -> Shifted:
    """Shift every die of a pool independently (spec §000.4 [REC]); dice concatenate, advantage adds up."""
    dice: list[int] = []
    advantage = 0
    for s in sides:
        shifted = shift(s, steps, overflow)
        dice.extend(shifted.dice)
        advantage += shifted.advantage
    return Shifted(dice=tuple(dice), advantage=advantage)


def adv_dis_pool(sides: int, net: int) -> tuple[tuple[int, ...], Literal["highest", "lowest"]]:
    """Seed 001 ADV/DIS (spec §001.4 [REC]): net k > 0 rolls 1+k dice keep highest, k < 0 keeps lowest."""
    how: Literal["highest", "lowest"] = "lowest" if net < 0 else "highest"
    return (sides,) * (1 + abs(net)), how


# --- writing and reading dice ----------------------------------------------------------------


def dice_label(dice: Sequence[int], explicit_one: bool = False) -> str:
    """Readable dice: (6, 6) -> "2d6", (8, 4) -> "d8+d4" ("1d8" with ``explicit_one``); () -> "no dice"."""
    if not dice:
        return "no dice"
    counts: dict[int, int] = {}
    for s in dice:  # dicts keep insertion order, so the label follows the pool's order
        counts[s] = counts.get(s, 0) + 1
    return "+".join(f"{n if n > 1 or explicit_one else ''}d{s}" for s, n in counts.items())


def parse_dice(text: str) -> tuple[int, ...]:
    """The inverse of ``dice_label``: "2d6" -> (6, 6), "d8+d4" -> (8, 4). Flat modifiers are refused."""
    dice: list[int] = []
    for part in text.replace(" ", "").lower().split("+"):
        count, sep, sides = part.partition("d")
        if not sep or not sides.isdigit() or not (count == "" or count.isdigit()):
            raise ValueError(f"{text!r} is not a dice expression like 2d6 or d8+d4")
        n, s = int(count or 1), int(sides)
        if n < 1 or s < 1:
            raise ValueError(f"{text!r} has no dice in {part!r}")
        dice.extend([s] * n)
    return tuple(dice)


# --- Fortune's Favor damage ladder (seed 003, "Damage Dice") ---------------------------------

# Seed 003: "1d4 - 1d6 - 1d8 - 1d10 - 1d12 - 2d6 - 2d8 - etc." Past 1d12 the source's
# upgradeDice goes Nd12 -> (N+1)d6 and otherwise grows the size by 2 (spec §003.6), so the ladder
# is endless; these are its first rungs, and ``ff_damage_rung`` gives any rung.
_FF_SINGLE = LADDER  # 1d4 .. 1d12
_FF_MULTI = (6, 8, 10, 12)  # Nd6 .. Nd12 for N >= 2


def ff_damage_rung(index: int) -> tuple[int, ...]:
    """Rung ``index`` (0 = 1d4) of the Fortune's Favor damage ladder, as dice: 5 -> (6, 6) for 2d6."""
    if index < 0:
        raise ValueError("the damage ladder starts at 1d4 (rung 0)")
    if index < len(_FF_SINGLE):
        return (_FF_SINGLE[index],)
    count, size = divmod(index - len(_FF_SINGLE), len(_FF_MULTI))
    return (_FF_MULTI[size],) * (count + 2)


def ff_damage_index(dice: tuple[int, ...] | str) -> int:
    """Where dice sit on the Fortune's Favor damage ladder; ValueError for dice that are not a rung."""
    pool = parse_dice(dice) if isinstance(dice, str) else tuple(dice)
    off_ladder = f"{dice_label(pool, True)} is not on Fortune's Favor's damage ladder (1d4..1d12, 2d6..)"
    if not pool or len(set(pool)) != 1:
        raise ValueError(off_ladder)
    count, size = len(pool), pool[0]
    if count == 1 and size in _FF_SINGLE:
        return _FF_SINGLE.index(size)
    if count >= 2 and size in _FF_MULTI:
        return len(_FF_SINGLE) + (count - 2) * len(_FF_MULTI) + _FF_MULTI.index(size)
    raise ValueError(off_ladder)


def ff_damage_step(dice: tuple[int, ...] | str, steps: int) -> tuple[int, ...]:
    """Base Damage moved ``steps`` rungs (seed 003 "Damage Dice"; spec §003.6): 1d12 +1 -> (6, 6).

    Dice are a tuple of sides, ``(6, 6)`` for 2d6, or a string like "2d6". Going down stops at 1d4,
    the source's minimum (downgradeDice); so 2d6 -1 is 1d12 and 1d4 -1 stays 1d4.
    """
    return ff_damage_rung(max(0, ff_damage_index(dice) + steps))


FF_DAMAGE_LADDER: tuple[tuple[int, ...], ...] = tuple(ff_damage_rung(i) for i in range(17))  # 1d4 .. 4d12


# --- pools: keep highest, keep lowest, or sum ------------------------------------------------

PoolHow = Literal["highest", "lowest", "sum"]


def roll_pool(
    rng: RandomSource, sides: Sequence[int], how: PoolHow, labels: Sequence[str] | None = None
) -> tuple[tuple[DieRoll, ...], int]:
    """Roll a pool and keep the highest die, the lowest die, or all of them summed (spec §5.2 pool roller).

    Every die is returned, kept or not, since crits, backlash and tie-breaks read single dice.
    Among tied faces the larger die is kept: in Fell a die higher up the ladder wins a tie
    (seeds 000/001, Contests). An empty pool is worth 0.
    """
    if how not in ("highest", "lowest", "sum"):
        raise ValueError(f"unknown pool rule {how!r}")
    if labels is not None and len(labels) != len(sides):
        raise ValueError("give one label per die")
    check_pool(sides)
    rolls = [roll_die(rng, s, labels[i] if labels is not None else "") for i, s in enumerate(sides)]
    if how == "sum" or not rolls:
        return tuple(rolls), sum(r.face for r in rolls)
    if how == "highest":
        best = max(range(len(rolls)), key=lambda i: (rolls[i].face, rolls[i].sides, -i))
    else:
        best = min(range(len(rolls)), key=lambda i: (rolls[i].face, -rolls[i].sides, i))
    dice = tuple(DieRoll(r.sides, r.face, i == best, r.label) for i, r in enumerate(rolls))
    return dice, rolls[best].face


def _pool_counts(sides: tuple[int, ...], how: PoolHow) -> dict[int, int]:
    """How many of the prod(sides) equally likely outcomes give each value (integers: Fractions are slow)."""
    if any(s < 1 for s in sides):
        raise ValueError(f"a die needs at least one side, not {min(sides)}")
    if not sides:
        return {0: 1}
    check_pool(sides)
    check_work(_sum_work(sides) if how == "sum" else max(sides) * len(sides))
    if how == "sum":
        counts = {0: 1}
        for s in sides:
            nxt: dict[int, int] = {}
            for total, n in counts.items():
                for face in range(1, s + 1):
                    nxt[total + face] = nxt.get(total + face, 0) + n
            counts = nxt
        return counts
    out: dict[int, int] = {}
    if how == "highest":
        previous = 0
        for v in range(1, max(sides) + 1):
            at_most = math.prod(min(v, s) for s in sides)
            if at_most > previous:
                out[v] = at_most - previous
            previous = at_most
        return out
    if how == "lowest":
        for v in range(1, min(sides) + 1):
            at_least = math.prod(s - v + 1 for s in sides)
            above = math.prod(s - v for s in sides)
            if at_least > above:
                out[v] = at_least - above
        return out
    raise ValueError(f"unknown pool rule {how!r}")


@lru_cache(maxsize=1024)
def _pool_dist(sides: tuple[int, ...], how: PoolHow) -> tuple[tuple[int, Fraction], ...]:
    total = math.prod(sides)
    return tuple((v, Fraction(n, total)) for v, n in sorted(_pool_counts(sides, how).items()))


def pool_dist(sides: Sequence[int], how: PoolHow) -> Dist:
    """Exact distribution of ``roll_pool``'s value; cached, since odds are redrawn on every form change."""
    # Order does not matter for any of the three rules, so sorting shares cache entries.
    return dict(_pool_dist(tuple(sorted(sides)), how))


# --- d20 roll-under (Chaos & Conquest saves; seed 004 checks) --------------------------------

UnderMode = Literal["plain", "advantage", "disadvantage"]


def roll_under_succeeds(face: int, target: int, auto_success: int | None = 1, auto_fail: int | None = 20) -> bool:
    """Seed 002 (Saves): success on face <= target; a natural 1 always succeeds, a natural 20 always fails."""
    if face == auto_success:
        return True
    if face == auto_fail:
        return False
    return face <= target


def _under_rank(face: int, target: int, auto_success: int | None, auto_fail: int | None) -> tuple[int, int]:
    # Spec §5.3 item 7 / §002.4.3 [REC]: a success beats a failure; among successes the higher face is
    # better (opposed saves: "highest successful roll"); among failures the lower face is kept.
    if roll_under_succeeds(face, target, auto_success, auto_fail):
        return (1, face)
    return (0, -face)


def _check_under(mode: str, auto_success: int | None, auto_fail: int | None, sides: int) -> None:
    if mode not in ("plain", "advantage", "disadvantage"):
        raise ValueError(f"unknown roll-under mode {mode!r}")
    if sides < 1:
        raise ValueError(f"a die needs at least one side, not {sides}")
    check_sides(sides)
    for name, face in (("auto_success", auto_success), ("auto_fail", auto_fail)):
        if face is not None and not 1 <= face <= sides:
            raise ValueError(f"{name}={face} is not a face of a d{sides}")
    if auto_success is not None and auto_success == auto_fail:
        raise ValueError("one face cannot both always succeed and always fail")


@lru_cache(maxsize=4096)
def _under_kept(
    target: int, mode: UnderMode, auto_success: int | None, auto_fail: int | None, sides: int
) -> tuple[tuple[int, Fraction], ...]:
    _check_under(mode, auto_success, auto_fail, sides)
    if mode == "plain":
        return _die(sides)
    # 2 dice: enumerate the sides**2 equally likely pairs (400 for a d20), counting in integers.
    rank = {f: _under_rank(f, target, auto_success, auto_fail) for f in range(1, sides + 1)}
    advantage = mode == "advantage"
    counts: dict[int, int] = {}
    for a in range(1, sides + 1):
        for b in range(1, sides + 1):
            keep_a = rank[a] >= rank[b] if advantage else rank[a] <= rank[b]  # a tie keeps the first die
            kept = a if keep_a else b
            counts[kept] = counts.get(kept, 0) + 1
    return tuple((f, Fraction(n, sides * sides)) for f, n in sorted(counts.items()))


def roll_under_kept_dist(
    target: int,
    mode: UnderMode = "plain",
    auto_success: int | None = 1,
    auto_fail: int | None = 20,
    sides: int = 20,
) -> Dist:
    """Exact distribution of the kept face of a roll-under save (seed 002, Opposed saves and ADV/DIS)."""
    return dict(_under_kept(target, mode, auto_success, auto_fail, sides))


@lru_cache(maxsize=4096)
def roll_under_chance(
    target: int,
    mode: UnderMode = "plain",
    auto_success: int | None = 1,
    auto_fail: int | None = 20,
    sides: int = 20,
) -> Fraction:
    """P(success) of d20 <= target with natural 1/20 overrides and ADV/DIS (seed 002 Saves; spec §002.4).

    Pass ``auto_success=None, auto_fail=None`` for seed 004's saves (no natural rules, spec §004.3),
    and ``sides=6`` for the arbiter's x-in-6.
    """
    _check_under(mode, auto_success, auto_fail, sides)
    wins = sum(1 for f in range(1, sides + 1) if roll_under_succeeds(f, target, auto_success, auto_fail))
    p = Fraction(wins, sides)
    # Success outranks failure, so advantage succeeds if either die does, disadvantage only if both do.
    if mode == "advantage":
        return 1 - (1 - p) ** 2
    if mode == "disadvantage":
        return p * p
    return p


def roll_under(
    rng: RandomSource,
    target: int,
    mode: UnderMode = "plain",
    auto_success: int | None = 1,
    auto_fail: int | None = 20,
    sides: int = 20,
    label: str = "",
) -> tuple[tuple[DieRoll, ...], bool, int]:
    """Roll a save (seed 002, Saves): returns every die (kept flag set), success, and the kept face."""
    _check_under(mode, auto_success, auto_fail, sides)
    if mode == "plain":
        die = roll_die(rng, sides, label)
        return (die,), roll_under_succeeds(die.face, target, auto_success, auto_fail), die.face
    first, second = roll_die(rng, sides, label), roll_die(rng, sides, label)
    ranks = [_under_rank(d.face, target, auto_success, auto_fail) for d in (first, second)]
    # Ties (same face) keep the first die, so exactly one die is marked kept.
    keep_first = ranks[0] >= ranks[1] if mode == "advantage" else ranks[0] <= ranks[1]
    kept = first if keep_first else second
    dice = (
        DieRoll(first.sides, first.face, keep_first, label),
        DieRoll(second.sides, second.face, not keep_first, label),
    )
    return dice, roll_under_succeeds(kept.face, target, auto_success, auto_fail), kept.face


# --- band check (seed 004 attacks and quick casting) -----------------------------------------


def in_band(face: int, low: int, high: int) -> bool:
    """Seed 004 (Melee attacks; Spellcasting): a roll hits when low < roll <= high, e.g. AC < d20 <= AV."""
    return low < face <= high


def band_chance(low: int, high: int, sides: int = 20) -> Fraction:
    """P(low < d<sides> <= high), exactly (seed 004; spec §004.4). Empty when high <= low."""
    if sides < 1:
        raise ValueError(f"a die needs at least one side, not {sides}")
    check_sides(sides)
    hits = max(0, min(high, sides) - max(low, 0))
    return Fraction(hits, sides)


# --- three-outcome d20 test (Fortune's Favor) ------------------------------------------------

FavorMode = Literal["plain", "favor", "misfortune"]
THREE_OUTCOMES: tuple[str, ...] = ("pass", "mixed", "fail")


def three_outcome_of(face: int, total: int, success_at: int, fail_at: int, naturals: bool = True) -> str:
    """Seed 003 (Tests; 1s and 20s): total >= S passes, F <= total < S is mixed, below F fails.

    A natural 1 always fails and a natural 20 always passes; with Fortune's Favor or Misfortune
    "natural" is the kept d20 (spec §003.4 [REC]).
    """
    if naturals and face == 1:
        return "fail"
    if naturals and face == 20:
        return "pass"
    if total >= success_at:
        return "pass"
    if total >= fail_at:
        return "mixed"
    return "fail"


def _check_three(success_at: int, fail_at: int, mode: str) -> None:
    if mode not in ("plain", "favor", "misfortune"):
        raise ValueError(f"unknown Fortune's Favor mode {mode!r}")
    if fail_at > success_at:
        raise ValueError(f"the Failure point ({fail_at}) cannot be above the Success point ({success_at})")


@lru_cache(maxsize=4096)
def _three_odds(
    bonus: int, success_at: int, fail_at: int, mode: FavorMode, extra_dice: tuple[int, ...], naturals: bool
) -> tuple[tuple[str, Fraction], ...]:
    _check_three(success_at, fail_at, mode)
    # Fortune's Favor keeps the higher of 2d20, Misfortune the lower (seed 003; spec §003.4).
    how: PoolHow = "sum" if mode == "plain" else "highest" if mode == "favor" else "lowest"
    d20s = (20,) if mode == "plain" else (20, 20)
    kept = _pool_counts(d20s, how)
    extra = _pool_counts(extra_dice, "sum")
    check_work(len(kept) * len(extra))
    counts = dict.fromkeys(THREE_OUTCOMES, 0)
    for face, nf in kept.items():
        for add, ne in extra.items():
            counts[three_outcome_of(face, face + bonus + add, success_at, fail_at, naturals)] += nf * ne
    total = math.prod(d20s) * math.prod(extra_dice)
    return tuple((k, Fraction(n, total)) for k, n in counts.items())


def three_outcome_odds(
    bonus: int,
    success_at: int,
    fail_at: int,
    mode: FavorMode = "plain",
    extra_dice: Sequence[int] = (),
    naturals: bool = True,
) -> dict[str, Fraction]:
    """Exact P(pass/mixed/fail) of d20 + bonus (+ extra dice) against S and F (seed 003 Tests; spec §003.4).

    ``mode``: "favor" rolls a second d20 and keeps the higher (Fortune's Favor), "misfortune"
    keeps the lower. ``extra_dice`` are added to the total, e.g. (6,) for Pushing Your Limits.
    """
    return dict(_three_odds(bonus, success_at, fail_at, mode, tuple(sorted(extra_dice)), naturals))


def three_outcome(
    rng: RandomSource,
    bonus: int,
    success_at: int,
    fail_at: int,
    mode: FavorMode = "plain",
    extra_dice: Sequence[int] = (),
    naturals: bool = True,
) -> tuple[tuple[DieRoll, ...], str, int]:
    """Roll a Fortune's Favor test (seed 003, Tests): every die, "pass"/"mixed"/"fail", and the total."""
    _check_three(success_at, fail_at, mode)
    if mode == "plain":
        d20s: tuple[DieRoll, ...] = (roll_die(rng, 20, "d20"),)
    else:
        second = "Fortune's Favor" if mode == "favor" else "Misfortune"
        pair = (roll_die(rng, 20, "d20"), roll_die(rng, 20, second))
        d20s = keep(pair, "highest" if mode == "favor" else "lowest")
    face = next(d.face for d in d20s if d.kept)
    extra = roll_pool(rng, extra_dice, "sum", ["extra"] * len(extra_dice))[0]
    total = face + bonus + sum(d.face for d in extra)
    return d20s + extra, three_outcome_of(face, total, success_at, fail_at, naturals), total
