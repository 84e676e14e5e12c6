"""Indexes for the two reads that grew with the roll log: the sheet's "This character" log and the roll rate check."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0009_system_choices_callable"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name="roll",
            index=models.Index(fields=["character", "-created_at", "-id"], name="roll_log_by_character"),
        ),
        migrations.AddIndex(
            model_name="roll",
            index=models.Index(fields=["roller", "created_at"], name="roll_rate_by_roller"),
        ),
    ]
