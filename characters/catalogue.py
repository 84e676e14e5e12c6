"""Loading a system's equipment tables (from its rules module) into the admin-editable catalogue."""

from __future__ import annotations

from rules import SYSTEMS
from rules.validation import ITEM_KINDS

KINDS = ITEM_KINDS  # one list, kept by the rules: what a catalogue row may be


def load_catalogue(catalogue_model, system_id: str, *, overwrite: bool = False) -> int:
    """Add the system's table rows that are missing; with overwrite, reset existing rows to the book values.

    Takes the model class as an argument so data migrations can pass their historical model.
    """
    system = SYSTEMS.get(system_id)
    if system is None:
        return 0
    count = 0
    for entry in system.catalogue():
        values = {
            "kind": entry.kind if entry.kind in KINDS else "other",
            "group": entry.group[:60],
            "cost": entry.cost,
            "slots": max(0, entry.slots),
            "data": dict(entry.data),
            "note": entry.note[:300],
        }
        if overwrite:
            catalogue_model.objects.update_or_create(system=system_id, name=entry.name[:100], defaults=values)
        else:
            catalogue_model.objects.get_or_create(system=system_id, name=entry.name[:100], defaults=values)
        count += 1
    return count


def unload_catalogue(catalogue_model, system_id: str) -> None:
    """Remove the rows named in the system's tables; rows staff added by hand stay."""
    system = SYSTEMS.get(system_id)
    if system is None:
        return
    names = [entry.name[:100] for entry in system.catalogue()]
    catalogue_model.objects.filter(system=system_id, name__in=names).delete()


def catalogue_migration(system_id: str):
    """The RunPython operation a system's data migration needs: load its tables, or take them out again.

    The rows come from the rules module as it is when the migration runs; staff edit them in the admin
    afterwards, and rows that already exist are left as staff made them.
    """
    from django.db import migrations

    def load(apps, schema_editor):
        load_catalogue(apps.get_model("characters", "CatalogueItem"), system_id)

    def unload(apps, schema_editor):
        unload_catalogue(apps.get_model("characters", "CatalogueItem"), system_id)

    return migrations.RunPython(load, unload)
