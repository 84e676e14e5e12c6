"""Time and light, shared by the systems that burn torches: what passing game time does to lit light sources,
and the procedure a player uses to light one or put it out.

A light source is an item of kind ``light`` whose ``data`` holds ``lit`` (burning now) and ``burned`` (game
minutes the one alight has burned). Each system says how long one burns and whether it is used up (a torch)
or only goes dark until refilled (a lantern): ``Lights``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Protocol

# Lights is defined beside the GameSystem protocol, which names it; the systems import it from here.
from rules.base import Item, Odds, Param, RollResult, Sheet, check_params, entry_key
from rules.base import Lights as Lights
from rules.dice import RandomSource
from rules.errors import RulesError
from rules.settings import Setting

BURNED_MAX = 100_000  # minutes: far beyond any light source's life; bounds the stored number


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
        changed = light_up(sheet.items, item, alight, self.lights, sheet.settings)
        words = f"{item.name} is alight." if alight else f"{item.name} is out."
        others = [other.name for other in changed[1:]]
        if others:
            words += f" {', '.join(others)} put out (one light at a time)."
        odds = Odds((("done", Fraction(1)),), success_keys=("done",))
        inputs = {"source": item.name, "lit": alight}
        return RollResult(self.key, self.label, "done", words, odds=odds, inputs=inputs, items_changed=changed)


def boundaries(start: int, minutes: int, every: int) -> int:
    """How many multiples of ``every`` minutes the clock passes going from ``start`` to ``start + minutes``."""
    return (start + minutes) // every - start // every


# --- each light's own time (issue 41) ---------------------------------------------------------------------------
# None of the five seeds says what happens when a second light is lit beside a burning one, nor whether a party
# keeps more than one alight (seeds 000-004 give only each light's life): the table chooses (rules-spec §5.1).

LIGHT_NEW_OWN, LIGHT_NEW_RIDES = "own", "ride"
WARNING_DEFAULT = 10  # minutes of light left when its holder is warned (a Lantern placeholder: no seed gives one)
LIGHT_SETTINGS: tuple[Setting, ...] = (
    Setting(
        "light_new",
        "A light lit beside another",
        LIGHT_NEW_OWN,
        "Whether a light lit while another on the same sheet burns keeps its own time, or rides along with the one "
        "already alight (it goes out when that one would).",
        choices=((LIGHT_NEW_OWN, "Burns its own time"), (LIGHT_NEW_RIDES, "Rides along with the one already lit")),
    ),
    Setting(
        "light_one_at_a_time",
        "One light at a time",
        False,
        "Lighting a light puts out the others alight on the same sheet (they keep the time they have left).",
        kind="bool",
    ),
    Setting(
        "light_warning",
        "Low-fuel warning (minutes left)",
        WARNING_DEFAULT,
        "Its holder is warned when a lit light has this many minutes or fewer left; 0: no warning.",
        kind="int",
        minimum=0,
        maximum=240,
        house_default=True,
    ),
)


def remaining(item: Item, lights: Lights) -> int | None:
    """Game minutes of light one of this item has left (lit or not: a light put out keeps what it has burned);
    None: not a light that burns."""
    life = lights.life(item) if item.kind == "light" else None
    if not life:
        return None
    return max(0, life - int((item.data or {}).get("burned", 0)))


def light_up(
    items: tuple[Item, ...], item: Item, alight: bool, lights: Lights, settings: Mapping[str, Any]
) -> tuple[Item, ...]:
    """``item`` lit or put out under the table's light settings (``LIGHT_SETTINGS``): the item first, then any
    other light the rule put out. Riding along: the new light takes the time left of the lit light with the
    least (never more than its own); one at a time: every other lit light goes out, keeping its time."""
    data = {**item.data, "lit": alight}
    others = [other for other in items if lit(other) and other.id != item.id and lights.life(other)]
    if alight and not lit(item) and others and settings.get("light_new") == LIGHT_NEW_RIDES:
        life, own = lights.life(item) or 0, remaining(item, lights) or 0
        shortest = min(remaining(other, lights) or 0 for other in others)
        data["burned"] = life - min(own, shortest)
    out = [replace(item, data=data)]
    if alight and settings.get("light_one_at_a_time"):
        out += [replace(other, data={**other.data, "lit": False}) for other in others]
    return tuple(out)


def set_remaining(item: Item, minutes: int, lights: Lights) -> Item:
    """The GM's correction: ``item`` with ``minutes`` of light left (1 to its whole life); lit or not unchanged."""
    life = lights.life(item) if item.kind == "light" else None
    if not life:
        raise RulesError(f"{item.name} is not a light that burns down.")
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= life:
        raise RulesError(f"{item.name} holds 1 to {life} minutes of light.")
    return replace(item, data={**item.data, "burned": life - minutes})


@dataclass(frozen=True)
class LowFuel:
    """A lit light whose time left crossed the table's warning line."""

    item_id: int
    name: str
    minutes: int  # left


def low_fuel(before: tuple[Item, ...], after: tuple[Item, ...], lights: Lights, warn_at: int) -> tuple[LowFuel, ...]:
    """The lights lit ``after`` time passed whose minutes left fell to ``warn_at`` or below in this step (so
    each is warned once per burn, not at every step); a light that went out is told by ``burn``'s words."""
    if warn_at <= 0:
        return ()
    was = {item.id: remaining(item, lights) for item in before if lit(item)}
    out = []
    for item in after:
        left = remaining(item, lights) if lit(item) else None
        if item.id is None or left is None or not 0 < left <= warn_at:
            continue
        if was.get(item.id) is None or (was[item.id] or 0) > warn_at:
            out.append(LowFuel(item.id, item.name, left))
    return tuple(out)


# --- real time and countdowns (issue 41) --------------------------------------------------------------------------


def realtime_due(elapsed_seconds: int, rate: int, step_seconds: int) -> tuple[int, int]:
    """Real-time play: how many whole steps of game time (the system's shortest unit of a minute or more) are due
    after ``elapsed_seconds`` on the wall clock at ``rate`` game seconds per real second, and the game seconds
    left over towards the next step."""
    if step_seconds < 1 or rate < 1:
        raise RulesError("Real time needs a step and a rate of at least one second.")
    game = max(0, elapsed_seconds) * rate
    return divmod(game, step_seconds)


COUNTDOWN_SEGMENTS_MAX = 24


def countdown_ticks(anchor: int, start: int, minutes: int, every: int | None) -> int:
    """A countdown that fills a segment every ``every`` game minutes since game minute ``anchor``: how many
    segments the clock's move from ``start`` by ``minutes`` fills (None: it is ticked by hand only)."""
    if not every or minutes <= 0:
        return 0
    return boundaries(max(0, start - anchor), minutes, every)
