"""Lantern's rules engine: pure Python, no Django. One module per game system in ``rules.systems``."""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from collections.abc import Iterator

from rules import systems
from rules.base import GameSystem, RulesError

# The systems a campaign can be about, in the order every list of them shows (the five seeds first, in the seeds'
# own order). A system is playable (has sheets and rolls) once a package in rules/systems/ provides it; a package
# whose id is not listed here is refused (docs/adding-a-system.md, step 2).
SYSTEM_NAMES: dict[str, str] = {
    "fell-draft": "Fell (draft, ability points)",
    "fell-late": "Fell (late revision)",
    "chaos-conquest": "Chaos & Conquest",
    "fortunes-favor": "Fortune's Favor",
    "grit-flesh": "Grit & Flesh",
}


def _discover() -> dict[str, GameSystem]:
    found: dict[str, GameSystem] = {}
    for info in pkgutil.iter_modules(systems.__path__):
        module = importlib.import_module(f"rules.systems.{info.name}")
        system = getattr(module, "SYSTEM", None)
        if system is None:
            continue
        if system.id not in SYSTEM_NAMES:
            raise RuntimeError(f"rules.systems.{info.name} declares unknown system id {system.id!r}")
        found[system.id] = system
    return {key: found[key] for key in SYSTEM_NAMES if key in found}


SYSTEMS: dict[str, GameSystem] = _discover()


def system_for(system_id: str) -> GameSystem:
    try:
        return SYSTEMS[system_id]
    except KeyError:
        name = SYSTEM_NAMES.get(system_id)
        if name:
            raise RulesError(f"{name} has no character sheets in Lantern yet.") from None
        raise RulesError(f"Lantern does not know a game system called {system_id!r}.") from None


@contextlib.contextmanager
def registered(system: GameSystem, name: str | None = None) -> Iterator[GameSystem]:
    """Register a system for the length of a ``with`` block: the contract suite's test-only system.

    The registry is the one way in: the app looks systems up in ``SYSTEMS`` and names in ``SYSTEM_NAMES``,
    so a system registered here is playable everywhere until the block ends.
    """
    if system.id in SYSTEM_NAMES:
        raise ValueError(f"{system.id!r} is already a system")
    SYSTEM_NAMES[system.id] = name or system.name
    SYSTEMS[system.id] = system
    try:
        yield system
    finally:
        SYSTEMS.pop(system.id, None)
        SYSTEM_NAMES.pop(system.id, None)


__all__ = ["SYSTEMS", "SYSTEM_NAMES", "GameSystem", "RulesError", "registered", "system_for"]
