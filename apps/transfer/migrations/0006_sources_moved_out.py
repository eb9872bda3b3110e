"""SourceBenchmark and SourceSample left for apps.sources (state only: the tables stay, under their names).
Transfer's foreign keys point at the moved models; the models leave transfer's state only after every app that
referred to them points at apps.sources (hence the dependencies on consultations, evaluation and speech)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('consultations', '0008_samples_from_sources'),
        ('evaluation', '0006_samples_from_sources'),
        ('sources', '0001_initial'),
        ('speech', '0003_samples_from_sources'),
        ('transfer', '0005_source_sample_audio'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='reviewrun',
                name='benchmark',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='review_runs', to='sources.sourcebenchmark'),
            ),
            migrations.RemoveField(
                model_name='sourcesample',
                name='benchmark',
            ),
            migrations.AlterField(
                model_name='normalizationrun',
                name='benchmark',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='normalization_runs', to='sources.sourcebenchmark'),
            ),
            migrations.AlterField(
                model_name='translationrun',
                name='benchmark',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='translation_runs', to='sources.sourcebenchmark'),
            ),
            migrations.RemoveField(
                model_name='sourcesample',
                name='audio',
            ),
            migrations.AlterField(
                model_name='normalizedtext',
                name='sample',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='normalized_texts', to='sources.sourcesample'),
            ),
            migrations.AlterField(
                model_name='translation',
                name='sample',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='translations', to='sources.sourcesample'),
            ),
            migrations.AlterField(
                model_name='correction',
                name='sample',
                field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='correction', to='sources.sourcesample'),
            ),
            migrations.AlterField(
                model_name='groundtruthreview',
                name='sample',
                field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='review', to='sources.sourcesample'),
            ),
            migrations.DeleteModel(
                name='SourceBenchmark',
            ),
            migrations.DeleteModel(
                name='SourceSample',
            ),
        ]),
    ]
