"""Stored states that follow a rule change: a schema version per system and the steps that reshape old states.

A character's state is stored for years; the rules that read it change (a field renamed, a list made a mapping,
a field dropped). Each system declares ``state_version`` (the shape its ``validate_state`` reads today) and
``state_upgrades``, one pure function per version: the step at index ``n - 1`` takes a state stored at version
``n`` to version ``n + 1``. Loading a character, an exported file or a campaign backup runs the missing steps
before the rules read the state, as Foundry's dnd5e ``_migrateData`` upgrades stored data per version.

An item's ``data`` and a hireling's ``state`` are stored shapes too, versioned alike: ``item_version`` with
``item_upgrades``, ``hireling_version`` with ``hireling_upgrades`` (the rows' ``data_version``, ``state_version``).

A state stored before versions existed is version 1. Those rows hold whatever shape their day's rules wrote, so a
step must also take a state that is already in its target shape (it only renames or drops what is there).
docs/adding-a-system.md, "Reshaping a system's state", says how to add one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rules.errors import RulesError

# One step: a state stored at version n, in the shape of version n + 1. Pure: it copies rather than changes its input.
StateUpgrade = Callable[[dict[str, Any]], dict[str, Any]]

UNVERSIONED = 1  # every state stored before a system declared versions


def stored_version(value: Any, *, current: int, name: str, what: str = "sheet") -> int:
    """The version a stored state says it has (None: unversioned), or RulesError with a sentence for a person:
    a version from a newer Lantern is refused rather than read as nonsense. ``what``: the sheet, an item, a
    hireling."""
    if value is None:
        return UNVERSIONED
    if isinstance(value, bool) or not isinstance(value, int) or value < UNVERSIONED:
        raise RulesError(f"This {name} {what}'s version must be a whole number from {UNVERSIONED}, not {value!r}.")
    if value > current:
        raise RulesError(
            f"This {name} {what} was saved by a newer Lantern ({what} version {value}; this one reads up to "
            f"{current}). Open it where it was saved, or update Lantern."
        )
    return value


def upgrade(
    state: Mapping[str, Any],
    version: Any,
    *,
    current: int,
    steps: Sequence[StateUpgrade],
    name: str,
    what: str = "sheet",
) -> dict[str, Any]:
    """``state`` stored at ``version``, reshaped to ``current`` by the missing ``steps`` (none when it is current).

    Bounded: at most ``current - 1`` steps, each run once. Idempotent: an upgraded state is at ``current`` and
    passes through unchanged. The result still goes through ``validate_state``, which keeps every bound."""
    start = stored_version(version, current=current, name=name, what=what)
    if not isinstance(state, Mapping):
        raise RulesError(f"A {name} {what} must be a set of named fields.")
    out = dict(state)
    for step in steps[start - 1 : current - 1]:
        out = step(out)
    return out


def dropping(*path: str) -> StateUpgrade:
    """A step that removes one field, nested along ``path`` (a state without it is left as it is)."""

    def drop(state: dict[str, Any]) -> dict[str, Any]:
        return _dropped(state, path)

    drop.__name__ = f"drop_{'_'.join(path)}"
    drop.__doc__ = f"Remove the field {'.'.join(path)}, which the rules no longer keep."
    return drop


def _dropped(node: Mapping[str, Any], path: Sequence[str]) -> dict[str, Any]:
    out = dict(node)
    head, rest = path[0], path[1:]
    if not rest:
        out.pop(head, None)
    elif isinstance(out.get(head), Mapping):
        out[head] = _dropped(out[head], rest)
    return out
