"""Time and light, shared by the systems that burn torches: what passing game time does to lit light sources,
and the procedure a player uses to light one or put it out.

A light source is an item of kind ``light`` whose ``data`` holds ``lit`` (burning now) and ``burned`` (game
minutes the one alight has burned). Each system says how long one burns and whether it is used up (a torch)
or only goes dark until refilled (a lantern): ``Lights``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Protocol

from rules.base import Item, Odds, Param, RollResult, Sheet, check_params, entry_key
from rules.dice import RandomSource
from rules.errors import RulesError

BURNED_MAX = 100_000  # minutes: far beyond any light source's life; bounds the stored number


@dataclass(frozen=True)
class Lights:
    """How one system's light sources burn: ``life(item)`` in game minutes (None: not a light that burns) and
    ``refills(item)`` (True: it goes dark rather than being used up, like a lantern out of oil)."""

    life: Callable[[Item], int | None]
    refills: Callable[[Item], bool]


@dataclass(frozen=True)
class Burn:
    """What passing time did to a sheet's lights."""

    changed: tuple[Item, ...] = ()
    removed: tuple[int, ...] = ()
    words: tuple[str, ...] = ()


def lit(item: Item) -> bool:
    return item.kind == "light" and bool((item.data or {}).get("lit"))


def burn(items: tuple[Item, ...], minutes: int, lights: Lights) -> Burn:
    """Each lit light burns ``minutes`` more; one that reaches its life goes out (a torch is used up: one
    fewer, unlit; a lantern goes dark until refilled). Time left over is not carried to the next one: a
    person lights it."""
    changed: list[Item] = []
    removed: list[int] = []
    words: list[str] = []
    for item in items:
        life = lights.life(item) if lit(item) else None
        if not life or item.id is None:
            continue
        burned = int((item.data or {}).get("burned", 0)) + minutes
        if burned < life:
            changed.append(replace(item, data={**item.data, "burned": burned}))
            words.append(f"{item.name}: {_span(life - burned)} of light left.")
        elif lights.refills(item):
            changed.append(replace(item, data={**item.data, "burned": 0, "lit": False}))
            words.append(f"{item.name} has gone dark: it needs refilling.")
        elif item.quantity > 1:
            changed.append(replace(item, quantity=item.quantity - 1, data={**item.data, "burned": 0, "lit": False}))
            words.append(f"{item.name} burned out; {item.quantity - 1} left, unlit.")
        else:
            removed.append(item.id)
            words.append(f"The last {item.name} burned out.")
    return Burn(tuple(changed), tuple(removed), tuple(words))


def burnt_for(sheet: Sheet, minutes: int, lights: Lights, label: str = "The fight is over") -> RollResult:
    """A sheet's lights after ``minutes`` of burning, as a RollResult the app applies (a fight's time)."""
    burnt = burn(sheet.items, minutes, lights)
    words = " ".join(burnt.words)
    return RollResult(
        "fight_over",
        label,
        "burned" if burnt.changed or burnt.removed else "nothing",
        words,
        items_changed=burnt.changed,
        items_removed=burnt.removed,
    )


class FightEnds(Protocol):
    """The signature of ``GameSystem.fight_ends``, for ``burning``."""

    def __call__(self, sheet: Sheet, minutes: int, rng: RandomSource) -> RollResult: ...


def burning(lights: Lights) -> FightEnds:
    """``fight_ends`` for a system whose only rule as a fight ends is its lights burning for the fight's minutes:
    ``fight_ends = staticmethod(burning(LIGHTS))``."""

    def fight_ends(sheet: Sheet, minutes: int, rng: RandomSource) -> RollResult:
        return burnt_for(sheet, minutes, lights)

    return fight_ends


def _span(minutes: int) -> str:
    hours, rest = divmod(minutes, 60)
    if hours and rest:
        return f"{hours} h {rest} min"
    return f"{hours} h" if hours else f"{rest} min"


@dataclass(frozen=True)
class LightProcedure:
    """Light a light source or put it out: no dice, what the player says happens (the clock burns it)."""

    lights: Lights
    key: str = "light"
    label: str = "Light or put out"
    gm_only: bool = False

    def _sources(self, sheet: Sheet) -> dict[str, Item]:
        return {
            entry_key(item, i): item
            for i, item in enumerate(sheet.items)
            if item.kind == "light" and self.lights.life(item)
        }

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        sources = self._sources(sheet)
        choices = tuple((k, i.name) for k, i in sources.items()) or (("", "no light source"),)
        return (
            Param("source", "Light source", "choice", choices[0][0], choices=choices),
            Param("lit", "Alight", "bool", True, help="Untick to put it out."),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds | None:
        """Certain (no dice): shown as what will happen; None while there is nothing to light."""
        check_params(self, sheet, params)
        return Odds((("done", Fraction(1)),), success_keys=("done",)) if self._sources(sheet) else None

    def _pick(self, sheet: Sheet, params: Mapping[str, Any]) -> tuple[Item, bool]:
        sources = self._sources(sheet)
        if not sources:
            raise RulesError("There is no torch, lantern or candle on this sheet.")
        p = check_params(self, sheet, params)
        return sources[p["source"]], p["lit"]

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        item, alight = self._pick(sheet, params)
        if item.id is None:
            raise RulesError(f"{item.name} is not saved on the sheet yet.")
        now = replace(item, data={**item.data, "lit": alight})
        words = f"{item.name} is alight." if alight else f"{item.name} is out."
        odds = Odds((("done", Fraction(1)),), success_keys=("done",))
        inputs = {"source": item.name, "lit": alight}
        return RollResult(self.key, self.label, "done", words, odds=odds, inputs=inputs, items_changed=(now,))


def boundaries(start: int, minutes: int, every: int) -> int:
    """How many multiples of ``every`` minutes the clock passes going from ``start`` to ``start + minutes``."""
    return (start + minutes) // every - start // every
