"""Load Fortune's Favor's starting kit and gear rows (seed 003 gives no prices) into the catalogue."""

from django.db import migrations

from characters.catalogue import catalogue_migration


class Migration(migrations.Migration):
    dependencies = [("characters", "0005_change_history")]
    operations = [catalogue_migration("fortunes-favor")]
