"""Load Fell (draft)'s price lists (seed 000, Equipment) into the admin-editable catalogue."""

from django.db import migrations

from characters.catalogue import catalogue_migration


class Migration(migrations.Migration):
    dependencies = [("characters", "0001_initial")]
    operations = [catalogue_migration("fell-draft")]
