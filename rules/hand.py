"""Dice rolled by hand: the faces a person typed, fed to the same rules as the server's dice.

A procedure rolls through ``RandomSource.randint(1, sides)`` one die at a time, so typed faces go in as a random
source (``HandDice``) that hands them out in order, checking each against the die the rules ask for. The rules
resolve them exactly as they resolve the server's dice; the only new thing is a refusal in words when the typed
dice are not the ones the roll needs (wrong size, too few, too many, a face not on its die, text).

Later dice may depend on earlier ones (damage only on a hit, a second die only on a tie). The typed faces are
taken in the order the rules ask for them: a person types the first dice, then those the earlier results call for.
``dice_needed`` tells the form which dice the roll asks for at its inputs (the path when every die shows its highest
face, and when every die shows its lowest); if they differ, the form says the later dice are rolled only on some
results. A roll given too few or too many faces is refused naming exactly the dice those faces lead to.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rules.dice import MAX_DICE, MAX_SIDES
from rules.errors import RulesError

_DIE = re.compile(r"^(?:d(\d{1,3})\s*[:=]\s*)?(\d{1,3})$", re.IGNORECASE)


@dataclass(frozen=True)
class TypedDie:
    """One die as typed: its face, and its size when the person wrote it ("d8:5"); None when only the face."""

    face: int
    sides: int | None = None


def parse_faces(text: str) -> tuple[TypedDie, ...]:
    """ "14 5", "14, 5" or "d20:14 d8:5" → the typed dice in order; RulesError with a sentence for anything else."""
    words = [w for w in re.split(r"[\s,;]+", (text or "").strip()) if w]
    if not words:
        raise RulesError("Type the faces your dice show, in order: for example 14 5.")
    if len(words) > MAX_DICE:
        raise RulesError(f"That is {len(words)} dice: a roll takes at most {MAX_DICE}.")
    typed = []
    for n, word in enumerate(words, 1):
        match = _DIE.match(word)
        if match is None:
            raise RulesError(f"Die {n}: “{word[:20]}” is not a face. Type whole numbers, like 14 or d20:14.")
        sides = int(match.group(1)) if match.group(1) else None
        if sides is not None and not 1 <= sides <= MAX_SIDES:
            raise RulesError(f"Die {n}: a d{sides} is not a die Lantern rolls.")
        typed.append(TypedDie(int(match.group(2)), sides))
    return tuple(typed)


def dice_words(sides: Sequence[int]) -> str:
    """(20, 8) → "a d20 and a d8"; (6, 6, 6) → "a d6, a d6 and a d6"."""
    words = [f"a d{s}" for s in sides]
    if len(words) <= 1:
        return "".join(words) or "no dice"
    return f"{', '.join(words[:-1])} and {words[-1]}"


def needs_sentence(sides: Sequence[int]) -> str:
    count = len(sides)
    return f"This roll needs {count} {'die' if count == 1 else 'dice'}: {dice_words(sides)}."


class HandDice:
    """A random source that hands out typed faces in order, each checked against the die the rules ask for.

    Past the typed faces it goes on with 1s, only to learn which dice the roll would have asked for: the roll
    is then refused (``finish``) naming them, and nothing it did is kept."""

    def __init__(self, typed: Sequence[TypedDie]) -> None:
        self.typed = tuple(typed)
        self.asked: list[int] = []  # the size of every die the rules asked for, in order

    def randint(self, a: int, b: int) -> int:
        n = len(self.asked)
        self.asked.append(b)
        if a != 1:
            raise RulesError("This roll asks for something other than a die: roll it with the server's dice.")
        if n >= len(self.typed):
            return 1  # past what was typed: keep asking, so the refusal can name every die needed
        die = self.typed[n]
        if die.sides is not None and die.sides != b:
            raise RulesError(f"Die {n + 1} of this roll is a d{b}, not a d{die.sides}. {needs_sentence(self.asked)}")
        if not 1 <= die.face <= b:
            raise RulesError(f"Die {n + 1} is a d{b}: {die.face} is not one of its faces (1 to {b}).")
        return die.face

    @property
    def short(self) -> bool:
        return len(self.asked) > len(self.typed)

    def finish(self) -> None:
        """RulesError unless the roll used exactly the typed dice."""
        if len(self.asked) != len(self.typed):
            typed = len(self.typed)
            raise RulesError(f"{needs_sentence(self.asked)} You typed {typed} {'face' if typed == 1 else 'faces'}.")


def roll_by_hand(roll: Callable[[HandDice], object], text: str):
    """``roll(source)`` with the typed faces as its dice: its result, or RulesError in words when the faces do not
    fit the dice the roll asks for (too few is told before any refusal the made-up faces led the rules to)."""
    source = HandDice(parse_faces(text))
    try:
        result = roll(source)
    except RulesError:
        if source.short:
            source.finish()
        raise
    source.finish()
    return result


class _Recording:
    """A random source that shows one face on every die (the highest or the lowest) and records the sizes asked."""

    def __init__(self, highest: bool) -> None:
        self.highest = highest
        self.asked: list[int] = []

    def randint(self, a: int, b: int) -> int:
        self.asked.append(b)
        return b if self.highest else a


@dataclass(frozen=True)
class Needed:
    """The dice a roll asks for at its inputs: ``always`` first, then ``sometimes`` on some results only."""

    always: tuple[int, ...]
    sometimes: tuple[int, ...] = ()

    @property
    def words(self) -> str:
        if not self.always and not self.sometimes:
            return "no dice"
        text = dice_words(self.always) if self.always else ""
        if self.sometimes:
            later = f"on some results {dice_words(self.sometimes)} more"
            text = f"{text}, then {later}" if text else later
        return text


def dice_needed(roll: Callable[[object], object]) -> Needed:
    """Which dice ``roll(source)`` asks for: the common start of its path when every die shows its highest face and
    when every die shows its lowest, then the rest of the longer path as dice rolled only on some results."""
    paths = []
    for highest in (True, False):
        source = _Recording(highest)
        with contextlib.suppress(RulesError):
            roll(source)
        paths.append(source.asked)
    high, low = paths
    common = 0
    while common < min(len(high), len(low)) and high[common] == low[common]:
        common += 1
    longer = high if len(high) >= len(low) else low
    return Needed(tuple(longer[:common]), tuple(longer[common:]))
