"""Load Grit & Flesh's equipment lists (seed 004: weapons, armour and shield; prices in gp) into the catalogue."""

from django.db import migrations

from characters.catalogue import catalogue_migration


class Migration(migrations.Migration):
    dependencies = [("characters", "0006_fortunes_favor_catalogue")]
    operations = [catalogue_migration("grit-flesh")]
