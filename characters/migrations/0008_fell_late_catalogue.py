"""Load Fell (late revision)'s price list (fell/tables.md @ 95e0caa; prices in coin) into the catalogue."""

from django.db import migrations

from characters.catalogue import catalogue_migration


class Migration(migrations.Migration):
    dependencies = [("characters", "0007_grit_flesh_catalogue")]
    operations = [catalogue_migration("fell-late")]
