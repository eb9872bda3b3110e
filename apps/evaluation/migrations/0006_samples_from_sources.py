"""The source benchmarks and samples moved to apps.sources (state only: same tables, same columns)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('evaluation', '0005_model_key_env'),
        ('sources', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='evalitem',
                name='source_sample',
                field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='sources.sourcesample'),
            ),
            migrations.AlterField(
                model_name='evaluationrun',
                name='source_benchmark',
                field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='sources.sourcebenchmark'),
            ),
        ]),
    ]
