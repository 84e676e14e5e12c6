"""Load Chaos & Conquest's equipment tables (equipment.md, 2023-12-20; prices in pennies) into the catalogue.

The rows come from the rules module as it is when the migration runs; staff edit them in the admin
afterwards. Rows that already exist are left as staff made them. Reversing removes only the rows named
in the tables, so items staff added by hand stay.
"""

from django.db import migrations

SYSTEM_ID = "chaos-conquest"


def load(apps, schema_editor):
    from characters.catalogue import load_catalogue

    load_catalogue(apps.get_model("characters", "CatalogueItem"), SYSTEM_ID)


def unload(apps, schema_editor):
    from rules import SYSTEMS

    system = SYSTEMS.get(SYSTEM_ID)
    if system is None:
        return
    names = [entry.name[:100] for entry in system.catalogue()]
    apps.get_model("characters", "CatalogueItem").objects.filter(system=SYSTEM_ID, name__in=names).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0002_fell_draft_catalogue"),
    ]

    operations = [
        migrations.RunPython(load, unload),
    ]
