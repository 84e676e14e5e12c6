"""Template helpers for odds and dice."""

from __future__ import annotations

from fractions import Fraction

from django import template

register = template.Library()


@register.filter
def percent(value) -> str:
    """An exact probability as a percentage with one decimal: 13/16 → "81.3%"."""
    if value is None:
        return ""
    return f"{float(round(Fraction(value) * 100, 1)):.1f}%"


@register.filter
def fraction(value) -> str:
    """The exact reduced fraction: 13/16."""
    if value is None:
        return ""
    value = Fraction(value)
    return f"{value.numerator}/{value.denominator}"


@register.filter
def outcome_label(value: str) -> str:
    return str(value).replace("_", " ")


@register.filter
def game_time(minutes) -> str:
    """Game minutes as "day 2, 13:05"."""
    minutes = int(minutes or 0)
    days, rest = divmod(minutes, 24 * 60)
    return f"day {days + 1}, {rest // 60:02d}:{rest % 60:02d}"


@register.filter
def attr_pk(obj):
    return getattr(obj, "pk", "")


@register.filter
def item_notes(data) -> str:
    """An item's system numbers in words: {"steel_die": 6, "bulky": True} → "steel die d6 · bulky"."""
    notes = []
    if not isinstance(data, dict):  # a sheet that fails validation still lists its items
        return ""
    for key, value in data.items():
        if value in (None, False, "", 0):
            continue
        words = str(key).replace("_", " ")
        if value is True:
            notes.append(words)
        elif key.endswith("_die") or key in {"damage", "die"}:
            notes.append(f"{words} d{value}" if str(value).isdigit() else f"{words} {value}")
        else:
            notes.append(f"{words} {value}")
    return " · ".join(notes)
