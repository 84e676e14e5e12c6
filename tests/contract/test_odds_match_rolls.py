"""The odds shown are the roll's own (issue 35 item 7), over every system in the registry and Coin Flip.

For every procedure at its default inputs, on characters the system's own creation makes and on states play
reaches from them (each track at its least and one above it, the sheet after heavy harm: dying, out cold, dead),
the odds a person reads before a roll must equal the tally of ``roll()`` over every sequence of dice faces, each
weighted by its exact chance. A scripted source walks the faces depth first (``FaceTree``): no sampling, and a roll
that reads a die only on some branches (a critical harm test) is counted on exactly those. A roll refused whatever
the dice say must be refused by its odds with the same sentence; the odds of a roll must never be shown for a roll
that is then refused. The GM's rolls with no character (``table_procedures``) and the NPC rolls aimed at each of
these sheets (``npc_roll_at``: their odds ride on the roll) keep the same promise.

The work is bounded: at most ``CAP`` face sequences a case, and ``BUDGET`` for one procedure over the whole spread
(the states come most telling first: as made, after harm, then each track). A case past ``CAP`` is too large to
enumerate (a Fell (late) blast at several targets rolls a die per target); ``TOO_LARGE`` names each, so a new one
fails here. A case past its procedure's budget (a 2d20 contest rolls 400 sequences, each working out its odds again)
and a case too large are still played once, on the lowest faces: a refusal must match the odds' and the outcome must
be one the odds show; ``test_a_roll_lands_only_on_an_outcome_whose_odds_are_above_zero`` rolls them on seeded dice.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction

import pytest

import rules
from rules.base import HARM_PROCEDURES, GameSystem, RollResult, RulesError, Sheet, check_params, check_sheet
from tests.contract.coin_flip import SYSTEM as COIN_FLIP

CAP = 500  # face sequences enumerated for one case (2d20 is 400)
BUDGET = 1600  # face sequences enumerated for one procedure over the whole spread
# (system, procedure) whose rolls pass CAP at some state of the spread: enumerated where they fit, and covered
# by the seeded-roll test where they do not (see the module docstring).
TOO_LARGE = {
    ("fell-late", "blast"),  # a die per target, then critical harm tests: enumerated on the states where it fits
    ("chaos-conquest", "treat"),  # treating the dying: 13,110 sequences; enumerated on every other state
    ("grit-flesh", "incoming"),  # a hit that calls for a save vs death: up to 5,410; enumerated unhurt (337)
}


class FaceTree:
    """A random source that plays one branch of the tree of face sequences: the faces given, then each new die's
    lowest face. ``following`` names the next branch in depth-first order, so every sequence is played once."""

    def __init__(self, prefix: list[int]):
        self.faces = list(prefix)
        self.ranges: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        if len(self.ranges) == len(self.faces):
            self.faces.append(a)
        self.ranges.append((a, b))
        return self.faces[len(self.ranges) - 1]

    @property
    def chance(self) -> Fraction:
        chance = Fraction(1)
        for a, b in self.ranges:
            chance /= b - a + 1
        return chance

    def following(self) -> list[int] | None:
        faces, ranges = self.faces[: len(self.ranges)], list(self.ranges)
        while faces and faces[-1] == ranges[-1][1]:
            faces.pop()
            ranges.pop()
        if not faces:
            return None
        faces[-1] += 1
        return faces


@dataclass
class Tally:
    """Each outcome's (or refusal's) exact chance over every face sequence, and the odds each roll carried."""

    outcomes: dict[str, Fraction]
    refusals: dict[str, Fraction]
    carried: list[object]
    sequences: int


def tally(roll: Callable[[FaceTree], RollResult], cap: int = CAP) -> Tally | None:
    """Play ``roll`` on every face sequence; None past ``cap`` sequences."""
    found = Tally({}, {}, [], 0)
    prefix: list[int] | None = []
    while prefix is not None:
        found.sequences += 1
        if found.sequences > cap:
            return None
        source = FaceTree(prefix)
        try:
            result = roll(source)
        except RulesError as refusal:
            found.refusals[str(refusal)] = found.refusals.get(str(refusal), Fraction(0)) + source.chance
        else:
            found.outcomes[result.outcome] = found.outcomes.get(result.outcome, Fraction(0)) + source.chance
            if result.odds not in found.carried:
                found.carried.append(result.odds)
        prefix = source.following()
    return found


def shown(odds) -> dict[str, Fraction]:
    return {key: p for key, p in odds.outcomes if p}


# --- the systems and the states -------------------------------------------------------------------------------


@pytest.fixture(params=[*rules.SYSTEMS, "coin-flip"])
def system(request) -> Iterator[GameSystem]:
    if request.param != "coin-flip":
        yield rules.system_for(request.param)
        return
    with rules.registered(COIN_FLIP):
        yield COIN_FLIP


def _made(system: GameSystem, seed: int) -> Sheet:
    """A character of the system's own creation, its items saved (with ids), as the app hands a sheet over."""
    defaults = system.settings_in_force(None)
    made = system.create({}, random.Random(seed), settings=defaults)
    items = tuple(replace(system.validate_item(item), id=n + 1) for n, item in enumerate(made.items))
    return check_sheet(system, Sheet(state=system.validate_state(made.state), items=items, settings=defaults))


def _valid(system: GameSystem, sheet: Sheet, state) -> Sheet | None:
    try:
        return check_sheet(system, sheet.with_state(state))
    except RulesError:
        return None


def _harmed(system: GameSystem, first: Sheet) -> Iterator[tuple[str, Sheet]]:
    """The sheet after 3, 8 and 30 harm by its system's harm procedure, on two sets of dice each."""
    harm = next((system.procedures()[k] for k in HARM_PROCEDURES if k in system.procedures()), None)
    if harm is None:
        return
    amount = next((p.name for p in harm.params(first) if p.kind == "int"), "")
    for hurt in (3, 8, 30):
        for seed in range(2):
            try:
                after = harm.roll(first, check_params(harm, first, {amount: hurt}), random.Random(seed))
            except RulesError:
                continue
            sheet = _valid(system, first, after.state) if after.state is not None else None
            if sheet is not None:
                yield f"after {hurt} harm ({after.outcome})", sheet


def spread(system: GameSystem) -> Iterator[tuple[str, Sheet]]:
    """The states a contract case plays at, most telling first: two new characters, the first after heavy harm by its
    own harm procedure (several dice: dying, out cold, dead), then each adjustable track of it at its least and one
    above it."""
    first = _made(system, 0)
    yield "as made", first
    yield "another as made", _made(system, 1)
    seen = {repr(first.state)}
    for words, sheet in _harmed(system, first):
        if repr(sheet.state) not in seen:
            seen.add(repr(sheet.state))
            yield words, sheet
    for track in system.tracks(first):
        if not track.adjustable:
            continue
        for words, value in (("at its least", track.minimum), ("one above its least", track.minimum + 1)):
            try:
                moved = _valid(system, first, system.adjust(first, track.key, value - track.current))
            except RulesError:
                continue
            if moved is not None and repr(moved.state) not in seen:
                seen.add(repr(moved.state))
                yield f"{track.label} {words}", moved


def _differences(where: str, odds, found: Tally) -> list[str]:
    if found.refusals:
        return [f"{where}: odds {shown(odds)} shown, and the roll refuses: {found.refusals}"]
    if shown(odds) != found.outcomes:
        return [f"{where}: odds shown {shown(odds)}, the rolls tally {found.outcomes}"]
    return []


@dataclass
class Run:
    """One system's pass over the spread: what disagreed, what was too large, each procedure's budget left."""

    wrong: list[str] = field(default_factory=list)
    large: set[tuple[str, str]] = field(default_factory=set)
    left: dict[str, int] = field(default_factory=dict)

    def check(self, system: GameSystem, key: str, procedure, sheet: Sheet | None, where: str) -> None:
        try:
            params = check_params(procedure, sheet, {})
        except RulesError:
            return  # it needs another character or a choice the sheet cannot make: other tests
        try:
            odds, refused = procedure.odds(sheet, params), ""
        except RulesError as refusal:
            odds, refused = None, str(refusal)

        def roll(source: FaceTree) -> RollResult:
            return procedure.roll(sheet, params, source)

        left = self.left.setdefault(key, BUDGET)
        found = tally(roll, cap=min(CAP, left))
        whole = found is not None
        if found is not None:
            self.left[key] = left - found.sequences
        else:  # past the budget (or too large): played once, on the lowest faces
            if left >= CAP:
                self.large.add((system.id, key))
            found = _first(roll)
        if refused:
            if found.outcomes:
                self.wrong.append(f"{where}: the odds refuse ({refused}) and the roll goes: {found.outcomes}")
            elif set(found.refusals) != {refused}:
                self.wrong.append(f"{where}: the odds refuse {refused!r}, the roll {sorted(found.refusals)}")
        elif odds is None:
            return  # it rolls no dice: test_every_procedure_that_rolls_dice_shows_odds_for_its_default_inputs
        elif whole or found.refusals:
            self.wrong += _differences(where, odds, found)
        elif not set(found.outcomes) <= set(shown(odds)):
            self.wrong.append(f"{where}: odds shown {shown(odds)}, a roll gives {found.outcomes}")


def _first(roll: Callable[[FaceTree], RollResult]) -> Tally:
    """The roll on its lowest faces only (a case past its budget): its outcome or refusal, chance unknown."""
    source = FaceTree([])
    try:
        result = roll(source)
    except RulesError as refusal:
        return Tally({}, {str(refusal): Fraction(1)}, [], 1)
    return Tally({result.outcome: Fraction(1)}, {}, [result.odds], 1)


# --- the contract ----------------------------------------------------------------------------------------------

# Disagreements another branch mends: (system, procedure) left out of the sweep, each pinned by its own test below.
ELSEWHERE = {("fortunes-favor", "take_damage")}


def test_the_odds_shown_are_the_tally_of_the_roll_over_every_face(system):
    """Seed-free: every procedure at its defaults, at every state of the spread; the failures listed together."""
    run = Run()
    for state, sheet in spread(system):
        for key, procedure in system.procedures().items():
            if (system.id, key) not in ELSEWHERE:
                run.check(system, key, procedure, sheet, f"{key} ({state})")
    for key, procedure in system.table_procedures().items():
        run.check(system, key, procedure, None, f"table roll {key}")
    assert not run.wrong, "\n".join(run.wrong)
    assert run.large <= TOO_LARGE, f"too large to enumerate, and not named in TOO_LARGE: {run.large - TOO_LARGE}"


def test_fortunes_favor_take_damage_odds_are_the_tally_of_its_roll():
    """Seed 003 (Taking Damage; Dying): at Health 0 a hit leaves the character Dying (or dead) whatever it deflects;
    the odds shown said "unhurt". Issue 35 item 1 mends it on another branch: drop this mark when they meet."""
    system = rules.system_for("fortunes-favor")
    run = Run()
    for state, sheet in spread(system):
        run.check(system, "take_damage", system.procedures()["take_damage"], sheet, f"take_damage ({state})")
    assert not run.wrong, "\n".join(run.wrong)


def test_an_npcs_roll_at_each_sheet_carries_the_tally_of_its_faces(system):
    """An NPC's roll (from the GM's tracker), at no target and at every state of the spread: the odds it carries
    (the log shows them) are one set whatever the faces, and they are the tally of its outcomes."""
    stats = {p.name: p.default for p in system.npc_fields()}
    wrong: list[str] = []
    targets: list[tuple[str, Sheet | None]] = [("no target", None), *spread(system)]
    for key in system.npc_rolls():
        for state, sheet in targets:
            found = tally(lambda source, k=key, s=sheet: system.npc_roll_at(k, stats, s, source))
            where = f"NPC {key} at {state}"
            assert found is not None, f"{where}: too large to enumerate"
            if len(found.carried) != 1 or found.carried[0] is None:
                wrong.append(f"{where}: carries {len(found.carried)} different odds")
                continue
            wrong += _differences(where, found.carried[0], found)
    assert not wrong, "\n".join(wrong)
