"""Load Chaos & Conquest's equipment tables (equipment.md, 2023-12-20; prices in pennies) into the catalogue."""

from django.db import migrations

from characters.catalogue import catalogue_migration


class Migration(migrations.Migration):
    dependencies = [("characters", "0002_fell_draft_catalogue")]
    operations = [catalogue_migration("chaos-conquest")]
