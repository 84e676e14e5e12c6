"""Load Grit & Flesh's equipment lists (seed 004: weapons, armour and shield; prices in gp) into the catalogue."""

from django.db import migrations

from characters.catalogue import catalogue_migration


class Migration(migrations.Migration):
    dependencies = [("characters", "0005_change_history")]
    operations = [catalogue_migration("grit-flesh")]
