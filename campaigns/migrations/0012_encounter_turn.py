# Issue 36 item 6: whose turn it is in a fight.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0011_fight_hits'),
    ]

    operations = [
        migrations.AddField(
            model_name='encounter',
            name='sides',
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name='encounter',
            name='turn',
            field=models.PositiveSmallIntegerField(default=0),
        ),
    ]
