"""Owned items remember the catalogue entry and the version they came from (issue 30), so an admin edit to an entry
can be offered to the characters holding it. Existing copies without a link are linked by name within their system
(one entry per name and system, so a match is never ambiguous); every linked copy starts at version 1."""

from django.db import migrations, models


def link_by_name(apps, schema_editor):
    item_model = apps.get_model("characters", "Item")
    catalogue_model = apps.get_model("characters", "CatalogueItem")
    entries = {(system, name): pk for pk, system, name in catalogue_model.objects.values_list("pk", "system", "name")}
    unlinked = item_model.objects.filter(catalogue_item__isnull=True).values_list("pk", "name", "character__system")
    by_entry: dict[int, list[int]] = {}
    for pk, name, system in unlinked.iterator():
        entry = entries.get((system, name))
        if entry is not None:
            by_entry.setdefault(entry, []).append(pk)
    for entry, pks in by_entry.items():
        for start in range(0, len(pks), 500):
            item_model.objects.filter(pk__in=pks[start : start + 500]).update(catalogue_item_id=entry)
    item_model.objects.filter(catalogue_item__isnull=False).update(catalogue_version=1)


class Migration(migrations.Migration):
    dependencies = [("characters", "0013_no_buildings")]

    operations = [
        migrations.AddField(
            model_name="catalogueitem",
            name="version",
            field=models.PositiveIntegerField(default=1, editable=False),
        ),
        migrations.AddField(
            model_name="catalogueitem",
            name="edits",
            field=models.JSONField(blank=True, default=list, editable=False),
        ),
        migrations.AddField(
            model_name="item",
            name="catalogue_version",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        # Going back drops the columns; the links made by name stay (they were right).
        migrations.RunPython(link_by_name, migrations.RunPython.noop),
    ]
