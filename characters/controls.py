"""The roll panel's inputs as plain markup, written here rather than through Django's form rendering.

A sheet shows every procedure of its system (16 for Fell, about 100 inputs); rendering them as Django form
fields (a template per field, per widget and per option) cost two thirds of the sheet's time (issue 12).
This writes the same elements Django's default templates write for an unbound ``procedure_form``: the same
names, ids, labels (with Django's ``:`` suffix), help text tied by ``aria-describedby``, initial values
from ``Param.default``, fieldsets for multiple choices, and ``data-resets`` on options that cost something.
Validation stays with ``raw_params`` and ``rules_base.check_params``: this only draws the controls.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from rules import base as rules_base


def procedure_fields(procedure, sheet, *, table_characters=(), gm: bool = True, id_prefix: str = "") -> SafeString:
    """The inputs of one roll form, named ``<procedure>-<param>`` with ids ``id_<procedure>-<param>``
    (as ``procedure_form(..., prefixed=True)`` names them, so ``raw_params(prefixed=True)`` reads them);
    with ``id_prefix``, named ``<param>`` with ids ``id_<id_prefix>_<param>`` (``procedure_form(id_prefix=)``)."""
    table = [(str(c.pk), c.name) for c in table_characters]
    parts = [
        _field(param, param.name if id_prefix else f"{procedure.key}-{param.name}", table, id_prefix)
        for param in procedure.params(sheet)
        if gm or not param.gm_only
    ]
    return mark_safe("".join(parts))  # noqa: S308 - every value below is escaped


def escape(value: Any) -> str:
    """Django's escape without its lazy-string wrapper (a tenth of this module's time): same characters."""
    return html.escape(str(value))


def _label_text(label: str) -> str:
    return escape(label if label[-1:] in ":?.!" else f"{label}:")


def _field(param: rules_base.Param, name: str, table: list[tuple[str, str]], id_prefix: str) -> str:
    field_id = f"id_{id_prefix}_{name}" if id_prefix else f"id_{name}"
    help_id = f"{field_id}_helptext"
    helptext = f'<div class="helptext" id="{help_id}">{escape(param.help)}</div>' if param.help else ""
    described = f' aria-describedby="{help_id}"' if param.help else ""
    if param.kind == "multichoice":
        chosen = {str(v) for v in (param.default or ())}
        options = "".join(
            f'<div><label for="{field_id}_{n}"><input type="checkbox" name="{name}" value="{escape(value)}" '
            f'id="{field_id}_{n}"{" checked" if str(value) in chosen else ""}> {escape(words)}</label></div>'
            for n, (value, words) in enumerate(param.choices)
        )
        return (
            f'<div class="field"><fieldset{described}><legend>{_label_text(param.label)}</legend>{helptext}'
            f'<div id="{field_id}">{options}</div></fieldset></div>'
        )
    if param.kind == "bool":
        resets = ' data-resets="true"' if param.resets else ""
        checked = " checked" if param.default else ""
        widget = f'<input type="checkbox" name="{name}"{resets}{described} id="{field_id}"{checked}>'
    elif param.kind in ("choice", "character"):
        choices = [("", "— none —"), *table] if param.kind == "character" else list(param.choices)
        widget = f'<select name="{name}"{described} id="{field_id}">{_options(choices, param.default)}</select>'
    else:
        value = "" if param.default in (None, "") else f' value="{escape(param.default)}"'
        if param.kind == "int":
            bounds = "".join(
                f' {attr}="{bound}"'
                for attr, bound in (("min", param.minimum), ("max", param.maximum))
                if bound is not None
            )
            widget = f'<input type="number" name="{name}"{value}{bounds}{described} id="{field_id}">'
        else:
            # A text the rules need is required, as characters.forms._field makes it.
            needed = f' minlength="{param.minimum}" required' if param.minimum else ""
            widget = f'<input type="text" name="{name}"{value} maxlength="200"{needed}{described} id="{field_id}">'
    label = f'<label for="{field_id}">{_label_text(param.label)}</label>'
    return f'<div class="field"{_when(param, name)}>{label}{helptext}{widget}</div>'


def _when(param: rules_base.Param, name: str) -> str:
    """``Param.when`` as attributes static/js/lantern.js reads: the other input's name (with this one's prefix) and
    the values, one a line, that show this field; without JavaScript it always shows."""
    if not param.when:
        return ""
    other, values = param.when
    field = name[: len(name) - len(param.name)] + other
    return f' data-when-field="{escape(field)}" data-when-values="{escape(chr(10).join(values))}"'


def _options(choices: Iterable[tuple[str, str]], default) -> str:
    """Options with the first one matching ``default`` selected (None selects the empty value), as Django does."""
    wanted = "" if default is None else str(default)
    out, selected = [], False
    for value, words in choices:
        mark = ""
        if not selected and str(value) == wanted:
            mark, selected = " selected", True
        out.append(f'<option value="{escape(value)}"{mark}>{escape(words)}</option>')
    return "".join(out)
