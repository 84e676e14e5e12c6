"""The rules' bounds on stored numbers as field validators: the same on SQLite (64-bit) and PostgreSQL (32-bit)."""

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("characters", "0010_roll_log_indexes")]

    operations = [
        migrations.AlterField(
            model_name="catalogueitem",
            name="cost",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="In the system's smallest coin.",
                null=True,
                validators=[
                    django.core.validators.MaxValueValidator(
                        100000000, "No price is above %(limit_value)s of the smallest coin: no purse holds more."
                    )
                ],
            ),
        ),
        migrations.AlterField(
            model_name="catalogueitem",
            name="slots",
            field=models.PositiveSmallIntegerField(default=1, validators=[django.core.validators.MaxValueValidator(20)]),
        ),
        migrations.AlterField(
            model_name="hireling",
            name="wage",
            field=models.PositiveIntegerField(
                default=0,
                help_text="Per day, in the system's smallest coin.",
                validators=[django.core.validators.MaxValueValidator(1000000)],
            ),
        ),
        migrations.AlterField(
            model_name="item",
            name="quantity",
            field=models.PositiveIntegerField(default=1, validators=[django.core.validators.MaxValueValidator(10000)]),
        ),
        migrations.AlterField(
            model_name="item",
            name="slots",
            field=models.PositiveSmallIntegerField(default=1, validators=[django.core.validators.MaxValueValidator(20)]),
        ),
    ]
