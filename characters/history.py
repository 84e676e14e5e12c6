"""What a write changed, field by field, and how to put it back: the data behind history and undo.

A sheet's state is nested JSON; history speaks of leaves ("abilities.BOD.points"), so undoing one
change puts back only the fields it touched and leaves the rest of a later sheet alone.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

ABSENT = object()


def flatten(value: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Each leaf of a nested mapping with its dotted path; lists and empty mappings are leaves."""
    for key, inner in value.items():
        path = f"{prefix}{key}"
        if isinstance(inner, Mapping) and inner and all("." not in str(k) for k in inner):
            yield from flatten(inner, f"{path}.")
        else:
            yield path, inner


def state_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The leaves that differ: (their values before, their values after); a missing side did not exist."""
    before, after = dict(flatten(old)), dict(flatten(new))
    changed = [p for p in dict.fromkeys([*before, *after]) if before.get(p, ABSENT) != after.get(p, ABSENT)]
    return {p: before[p] for p in changed if p in before}, {p: after[p] for p in changed if p in after}


def leaf(state: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path, or ABSENT. A path never crosses a key holding a dot (see flatten)."""
    node: Any = state
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return ABSENT
        node = node[part]
    return node


def with_leaves(state: Mapping[str, Any], values: Mapping[str, Any], removed: list[str]) -> dict[str, Any]:
    """A copy of ``state`` with these paths set and those removed."""
    out = copy.deepcopy(dict(state))
    for path, value in values.items():
        *parents, last = path.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = copy.deepcopy(value)
    for path in removed:
        *parents, last = path.split(".")
        node = out
        for part in parents:
            node = node.get(part, {})
        if isinstance(node, dict):
            node.pop(last, None)
    return out


def revert_state(
    current: Mapping[str, Any], before: Mapping[str, Any], after: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The state with one change's fields put back, and the paths that moved since (then nothing is put back)."""
    paths = list(dict.fromkeys([*before, *after]))
    moved = [p for p in paths if leaf(current, p) != after.get(p, ABSENT)]
    if moved:
        return dict(current), moved
    restore = {p: before[p] for p in paths if p in before}
    return with_leaves(current, restore, [p for p in paths if p not in before]), []


def item_snapshot(row: Any) -> dict[str, Any]:
    """An inventory row as history keeps it: enough to put it back as it was."""
    return {
        "id": row.pk,
        "name": row.name,
        "kind": row.kind,
        "slots": row.slots,
        "quantity": row.quantity,
        "worn": row.worn,
        "data": dict(row.data),
        "position": row.position,
        "catalogue_item": row.catalogue_item_id,
        "catalogue_version": row.catalogue_version,
    }


ITEM_FIELDS = ("name", "kind", "slots", "quantity", "worn", "data")


def same_item(row: Any, snapshot: Mapping[str, Any]) -> bool:
    return all(getattr(row, field) == snapshot[field] for field in ITEM_FIELDS)


def shown(value: Any) -> str:
    """A value as a person reads it in the history: yes/no, lists joined, nothing internal."""
    if value is ABSENT or value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(shown(v) for v in value) or "none"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {shown(v)}" for k, v in value.items()) or "—"
    return str(value)


def _item_words(snapshot: Mapping[str, Any]) -> str:
    words = f"×{snapshot['quantity']}, {snapshot['slots']} slot{'s' if snapshot['slots'] != 1 else ''}"
    return words + (", worn" if snapshot.get("worn") else "")


def field_changes(before: Mapping[str, Any], after: Mapping[str, Any], label, hidden=()) -> list[dict[str, str]]:
    """One change as rows a person reads: {"field", "label", "before", "after"}, private fields left out.

    ``label``: the system's name for a state path; ``hidden``: state keys this reader may not see.
    """
    rows = []
    old_state, new_state = before.get("state", {}), after.get("state", {})
    for path in dict.fromkeys([*old_state, *new_state]):
        if path.split(".")[0] in hidden:
            continue
        old, new = old_state.get(path, ABSENT), new_state.get(path, ABSENT)
        rows.append({"field": path, "label": label(path), "before": shown(old), "after": shown(new)})
    for key, title in (("name", "Name"), ("notes", "Notes")):
        if key in before or key in after:
            rows.append(
                {"field": key, "label": title, "before": shown(before.get(key)), "after": shown(after.get(key))}
            )
    old_items = {i["id"]: i for i in before.get("items", [])}
    new_items = {i["id"]: i for i in after.get("items", [])}
    for item_id in dict.fromkeys([*old_items, *new_items]):
        old, new = old_items.get(item_id), new_items.get(item_id)
        name = (new or old or {}).get("name", "item")
        rows.append(
            {
                "field": "items",
                "label": f"Item: {name}",
                "before": _item_words(old) if old else "—",
                "after": _item_words(new) if new else "—",
            }
        )
    return rows
