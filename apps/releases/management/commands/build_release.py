from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import User
from apps.core.errors import ApplicationError
from apps.jobs.services import run_here
from apps.releases import licences, services
from apps.releases.models import ReleaseStatus
from apps.releases.writing import verify_folder


class Command(BaseCommand):
    help = ("Build a release (as a job, waiting for it) and write its files into --out. "
            "It stays unpublished until `publish_release NAME V`.")

    def create_parser(self, prog_name, subcommand, **kwargs):
        # `--version V` is the release's version (issue 12), so it replaces Django's own --version flag.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("--kind", required=True, choices=["mos", "spoken-qa", "kmmau", "hpsu"])
        parser.add_argument("--from", dest="source_id", required=True, type=int,
                            help="id of the listening test, benchmark, question set or verification project")
        parser.add_argument("--name", required=True)
        parser.add_argument("--version", dest="release_version", required=True)
        parser.add_argument("--out", required=True, type=Path, help="folder to write the release into (must be empty)")
        parser.add_argument("--license", help="SPDX identifier (spoken-qa defaults to Apache-2.0)")
        parser.add_argument("--source", action="append", default=[], metavar="NAME=LICENCE",
                            help="a source and its licence; repeat for several")
        parser.add_argument("--description", default="")
        parser.add_argument("--user", help="username of the admin building it (default: the first admin)")

    def handle(self, *args, kind, source_id, name, release_version, out, license, source, description, user, **options):
        acting = User.objects.filter(username=user).first() if user else _first_admin()
        if acting is None:
            raise CommandError(f"no user {user!r}" if user else "no admin exists; pass --user")
        if out.exists() and not out.is_dir():
            raise CommandError(f"--out {out} is not a folder; name an empty or new folder")
        if out.exists() and any(out.iterdir()):
            raise CommandError(f"--out {out} is not empty")
        try:  # made before the build, so a folder that cannot be written refuses before any work
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"--out {out}: cannot make the folder ({exc.strerror})") from None
        try:
            sources = [licences.parse_source(s) for s in source]
            # The command waits for its build: the job runs inline here whatever the server's runner is.
            with run_here():
                release = services.create_release(
                    acting_user=acting, kind=kind, source_id=source_id, name=name, version=release_version,
                    license=license, sources=sources, description=description)
        except ApplicationError as exc:
            raise CommandError(str(exc)) from None
        release.refresh_from_db()
        if release.status != ReleaseStatus.BUILT:
            raise CommandError(f"{release}: the build failed: {release.job.message if release.job else ''}")
        services.extract(release, out)
        problems = verify_folder(out)
        if problems:
            raise CommandError("; ".join(problems))
        self.stdout.write(f"Built {release} ({release.item_count} items, archive sha256 {release.archive_sha256}) into {out}")
        self.stdout.write(f"Publish it with: python manage.py publish_release {release.name} {release.version}")


def _first_admin():
    return User.objects.filter(is_active=True, groups__name="admin").order_by("pk").first() or \
        User.objects.filter(is_superuser=True, is_active=True).order_by("pk").first()
