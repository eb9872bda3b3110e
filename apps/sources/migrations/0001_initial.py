"""SourceBenchmark and SourceSample move here from apps.transfer, state only: their tables keep the names
transfer's migrations gave them (transfer_sourcebenchmark, transfer_sourcesample), so no data moves. The content
types move with them, so the admin's history and permissions follow."""

import django.db.models.deletion
from django.db import migrations, models

MODELS = ("sourcebenchmark", "sourcesample")


def _relabel(apps, old: str, new: str):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label=old, model__in=MODELS).update(app_label=new)


def move_content_types(apps, schema_editor):
    _relabel(apps, "transfer", "sources")


def move_content_types_back(apps, schema_editor):
    _relabel(apps, "sources", "transfer")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('audio', '0002_audio_serving'),
        ('contenttypes', '0002_remove_content_type_name'),
        # The tables exist once transfer's migrations made them; this app takes them over as they are.
        ('transfer', '0005_source_sample_audio'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='SourceBenchmark',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.SlugField(help_text='e.g. voicebench, openaudiobench', max_length=100, unique=True)),
                    ('format', models.CharField(choices=[('voicebench', 'VoiceBench (JSONL or Parquet)'), ('openaudiobench', 'OpenAudioBench (CSV)')], max_length=20)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                ],
                options={
                    'db_table': 'transfer_sourcebenchmark',
                    'ordering': ['name'],
                },
            ),
            migrations.CreateModel(
                name='SourceSample',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('subset', models.CharField(db_index=True, max_length=100)),
                    ('task_type', models.CharField(choices=[('multiple_choice', 'Multiple-choice'), ('binary', 'Binary'), ('short_answer', 'Short answer'), ('open_ended', 'Open-ended'), ('instruction_following', 'Instruction-following'), ('safety', 'Safety')], db_index=True, max_length=30)),
                    ('source_id', models.CharField(help_text="the source's id, key or audio file name", max_length=300)),
                    ('transcription', models.TextField(help_text='what the spoken question says')),
                    ('answer', models.TextField(blank=True, help_text="the source's answer, as imported (never changed)")),
                    ('aliases', models.JSONField(blank=True, default=list, help_text='other accepted answers, as imported')),
                    ('audio_filename', models.CharField(blank=True, max_length=300)),
                    ('raw', models.JSONField(help_text='the source record as imported')),
                    ('line_number', models.PositiveIntegerField(help_text='line (JSONL, CSV) or row (Parquet) in the imported file')),
                    ('imported_at', models.DateTimeField(auto_now_add=True)),
                    ('audio', models.ForeignKey(blank=True, help_text='the English audio, checked and stored (apps.sources.source_audio)', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='audio.audioasset')),
                    ('benchmark', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='samples', to='sources.sourcebenchmark')),
                ],
                options={
                    'db_table': 'transfer_sourcesample',
                    'ordering': ['benchmark', 'subset', 'id'],
                    'constraints': [models.UniqueConstraint(fields=('benchmark', 'subset', 'source_id'), name='source_sample_unique_id')],
                },
            ),
        ]),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
