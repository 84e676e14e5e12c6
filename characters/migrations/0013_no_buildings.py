"""Chaos & Conquest's buildings leave the equipment picker (issue 26): nothing a character carries or hires, and
buying one took the money and added nothing. Rows are kept, unavailable; staff may offer one again in the admin."""

from django.db import migrations


def hide(apps, schema_editor):
    catalogue = apps.get_model("characters", "CatalogueItem")
    catalogue.objects.filter(system="chaos-conquest", group="Buildings").update(available=False)


def show(apps, schema_editor):
    catalogue = apps.get_model("characters", "CatalogueItem")
    catalogue.objects.filter(system="chaos-conquest", group="Buildings").update(available=True)


class Migration(migrations.Migration):
    dependencies = [("characters", "0012_handrolls")]

    operations = [migrations.RunPython(hide, show)]
