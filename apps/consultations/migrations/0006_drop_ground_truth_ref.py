from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('consultations', '0005_correction_link'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='decisionquestion',
            name='one_question_per_correction',
        ),
        migrations.RemoveField(
            model_name='decisionquestion',
            name='ground_truth_ref',
        ),
    ]
