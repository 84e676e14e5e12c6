"""Lantern's rules engine: pure Python, no Django. One module per game system in ``rules.systems``."""

from __future__ import annotations

import importlib
import pkgutil

from rules.base import GameSystem, RulesError

# The five systems a campaign can be about, in the order of ../shared/seeds/README.md.
# A system is playable (has sheets and rolls) once a module in rules/systems/ provides it.
SYSTEM_NAMES: dict[str, str] = {
    "fell-draft": "Fell (draft, ability points)",
    "fell-late": "Fell (late revision)",
    "chaos-conquest": "Chaos & Conquest",
    "fortunes-favor": "Fortune's Favor",
    "grit-flesh": "Grit & Flesh",
}


def _discover() -> dict[str, GameSystem]:
    from rules import systems

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


__all__ = ["SYSTEMS", "SYSTEM_NAMES", "GameSystem", "RulesError", "system_for"]
