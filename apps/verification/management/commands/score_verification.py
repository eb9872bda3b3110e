import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import ApplicationError
from apps.verification.models import VerificationProject
from apps.verification.services import score_predictions_file


class Command(BaseCommand):
    help = "Score a predictions file (id, prediction[, variant]) against a project's accepted items."

    def add_arguments(self, parser):
        parser.add_argument("project", help="project name or id")
        parser.add_argument("--predictions", required=True, type=Path)
        parser.add_argument("--model", required=True, help="name shown beside the human baseline")

    def handle(self, *args, project, predictions, model, **options):
        found = VerificationProject.objects.filter(name=project).first()
        if found is None and project.isdigit():
            found = VerificationProject.objects.filter(pk=int(project)).first()
        if found is None:
            raise CommandError(f"no verification project named {project!r}")
        try:
            run = score_predictions_file(project=found, name=model, path=predictions)
        except (ApplicationError, FileNotFoundError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(run.report, ensure_ascii=False, indent=2))
