"""Per-campaign rule settings: the readings a group may choose where a rules text is ambiguous or silent.

A system declares its settings (``GameSystem.rule_settings``), each with a default, a one-line explanation and
the values it allows. A campaign stores only what its GM changed; ``settings_in_force`` fills in the rest, and
the app hands the result to every rules call in ``Sheet.settings``, so odds and rolls always follow the
settings the table plays by (rules-spec §5.1).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rules.errors import RulesError

SETTING_TEXT_MAX = 100  # one entry of a list setting (a spell's name)
SETTING_LIST_MAX = 100  # entries in one list setting (an XP table, a spell list)


@dataclass(frozen=True)
class Setting:
    """One rule a campaign may set its own way."""

    key: str  # stable, stored in the campaign: "help_stacking"
    label: str  # "Helpers' advantage"
    default: Any
    help: str  # one line: what it changes, in Lantern's words
    kind: Literal["int", "bool", "choice", "list"] = "choice"
    choices: tuple[tuple[str, str], ...] = ()  # (value, label) for "choice"
    minimum: int | None = None  # "int", and each entry of an int "list"
    maximum: int | None = None
    item_kind: Literal["int", "text"] = "text"  # entries of a "list"
    min_items: int = 0
    max_items: int = SETTING_LIST_MAX
    # The rules text gives no number here: the default is Lantern's placeholder, and pages must say so.
    house_default: bool = False
    # "play": rolls and odds use it at once. "creation": it shapes characters made afterwards; existing ones
    # keep their numbers unless the GM applies it to them (GameSystem.apply_settings).
    scope: Literal["play", "creation"] = "play"

    def coerce(self, raw: Any) -> Any:
        """The value as stored, from a form's text or stored JSON; RulesError with a sentence otherwise."""
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.lower() in {"1", "true", "on", "yes", "0", "false", "off", "no", ""}:
                return raw.lower() in {"1", "true", "on", "yes"}
            raise RulesError(f"{self.label} is yes or no.")
        if self.kind == "int":
            return self._number(raw, self.label)
        if self.kind == "choice":
            allowed = {value for value, _ in self.choices}
            if str(raw) not in allowed:
                options = ", ".join(label for _, label in self.choices)
                raise RulesError(f"{self.label}: choose one of {options}.")
            return str(raw)
        entries = _entries(raw)
        if len(entries) > self.max_items:
            raise RulesError(f"{self.label} holds at most {self.max_items} entries, not {len(entries)}.")
        if len(entries) < self.min_items:
            raise RulesError(f"{self.label} needs at least {self.min_items} {_plural(self.min_items, 'entry')}.")
        if self.item_kind == "int":
            return [self._number(entry, f"Each entry of {self.label}") for entry in entries]
        texts = [_text(entry, self.label) for entry in entries]
        if len(set(texts)) != len(texts):
            raise RulesError(f"{self.label} lists an entry twice.")
        return texts

    def shown(self, value: Any) -> str:
        """The value as a person reads it on the settings page and in the log."""
        if self.kind == "bool":
            return "yes" if value else "no"
        if self.kind == "choice":
            return dict(self.choices).get(str(value), str(value))
        if self.kind == "list":
            return ", ".join(str(entry) for entry in value) or "none"
        return str(value)

    def _number(self, raw: Any, label: str) -> int:
        if isinstance(raw, bool):
            raise RulesError(f"{label} must be a whole number.")
        if isinstance(raw, str):
            raw = raw.strip()
            if not raw.lstrip("-").isdigit() or len(raw) > 12:
                raise RulesError(f"{label} must be a whole number.")
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise RulesError(f"{label} must be a whole number.") from None
        if self.minimum is not None and value < self.minimum:
            raise RulesError(f"{label} must be at least {self.minimum}.")
        if self.maximum is not None and value > self.maximum:
            raise RulesError(f"{label} must be at most {self.maximum}.")
        return value


def _entries(raw: Any) -> list[Any]:
    """A list setting's entries: a stored list, or a form's text with one entry a line."""
    if isinstance(raw, str):
        if len(raw) > SETTING_LIST_MAX * (SETTING_TEXT_MAX + 2):
            raise RulesError("That list is too long.")
        return [line.strip() for line in raw.splitlines() if line.strip()]
    if isinstance(raw, list | tuple):
        return list(raw[: SETTING_LIST_MAX + 1])
    raise RulesError("A list setting takes one entry a line.")


def _text(raw: Any, label: str) -> str:
    if not isinstance(raw, str | int) or isinstance(raw, bool):
        raise RulesError(f"Each entry of {label} is a short text.")
    text = str(raw).strip()
    if not text or len(text) > SETTING_TEXT_MAX:
        raise RulesError(f"Each entry of {label} has 1 to {SETTING_TEXT_MAX} characters.")
    if any(ord(ch) < 32 for ch in text):
        raise RulesError(f"{label} cannot hold control characters.")
    return text


def _plural(n: int, word: str) -> str:
    return word if n == 1 else ("entries" if word == "entry" else f"{word}s")


def defaults(settings: Sequence[Setting]) -> dict[str, Any]:
    return {s.key: s.default for s in settings}


def in_force(settings: Sequence[Setting], stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every setting's value for a campaign: what it stored where still valid, the default elsewhere.

    A stored value that no longer fits (a setting whose allowed values changed since) falls back to the
    default rather than breaking every roll at the table; the settings page shows the value in force.
    """
    values = defaults(settings)
    for setting in settings:
        if stored and setting.key in stored:
            with contextlib.suppress(RulesError):
                values[setting.key] = setting.coerce(stored[setting.key])
    return values


def validated(settings: Sequence[Setting], changes: Mapping[str, Any], system_name: str) -> dict[str, Any]:
    """The given values checked one by one; unknown keys refused by name."""
    known = {s.key: s for s in settings}
    unknown = sorted(set(changes) - set(known))
    if unknown:
        raise RulesError(f"{system_name} has no rule setting called {', '.join(unknown)}.")
    return {key: known[key].coerce(raw) for key, raw in changes.items()}
