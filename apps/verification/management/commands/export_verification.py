from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.verification.exports import export_project
from apps.verification.models import VerificationProject


class Command(BaseCommand):
    help = "Export a verification project: items.json (accepted, HPSU format) with media, reviews.csv, rejected.jsonl."

    def add_arguments(self, parser):
        parser.add_argument("project", help="project name or id")
        parser.add_argument("--out", required=True, type=Path)

    def handle(self, *args, project, out, **options):
        found = VerificationProject.objects.filter(name=project).first()
        if found is None and project.isdigit():
            found = VerificationProject.objects.filter(pk=int(project)).first()
        if found is None:
            raise CommandError(f"no verification project named {project!r}")
        result = export_project(found, out)
        self.stdout.write(f"Exported {result['accepted']} accepted items, {result['rejected']} rejected, "
                          f"{result['reviews']} reviews to {out}")
