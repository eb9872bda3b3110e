"""The source samples moved to apps.sources (state only: same tables, same columns)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('consultations', '0007_rule_data'),
        ('sources', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='analysisresult',
                name='sample',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='consultation_analyses', to='sources.sourcesample'),
            ),
            migrations.AlterField(
                model_name='decisionquestion',
                name='affected_samples',
                field=models.ManyToManyField(blank=True, related_name='decision_questions', to='sources.sourcesample'),
            ),
            migrations.AlterField(
                model_name='decisionquestion',
                name='example_samples',
                field=models.ManyToManyField(blank=True, related_name='+', to='sources.sourcesample'),
            ),
        ]),
    ]
