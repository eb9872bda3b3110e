"""The source benchmarks and samples moved to apps.sources (state only: same tables, same columns)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('sources', '0001_initial'),
        ('speech', '0002_attempt_context_readings'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='samplesynthesis',
                name='sample',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='syntheses', to='sources.sourcesample'),
            ),
            migrations.AlterField(
                model_name='synthesisrun',
                name='benchmark',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='synthesis_runs', to='sources.sourcebenchmark'),
            ),
        ]),
    ]
