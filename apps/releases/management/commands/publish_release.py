from django.core.management.base import BaseCommand, CommandError

from apps.accounts.models import User
from apps.core.errors import ApplicationError
from apps.releases import services
from apps.releases.management.commands.build_release import _first_admin
from apps.releases.models import Release


class Command(BaseCommand):
    help = "Publish a built release: from then on its files and items never change."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("version")
        parser.add_argument("--user", help="username of the admin publishing it (default: the first admin)")
        parser.add_argument("--hub-repo", help="also upload it to this Hugging Face dataset repository (needs HF_TOKEN)")

    def handle(self, *args, name, version, user, hub_repo, **options):
        release = Release.objects.filter(name=name, version=version).first()
        if release is None:
            raise CommandError(f"no release {name} {version}")
        acting = User.objects.filter(username=user).first() if user else _first_admin()
        if acting is None:
            raise CommandError(f"no user {user!r}" if user else "no admin exists; pass --user")
        try:
            release = services.publish_release(release=release, acting_user=acting)
            self.stdout.write(f"Published {release} (archive sha256 {release.archive_sha256})")
            if hub_repo:
                upload = services.upload_to_hub(release=release, acting_user=acting, repo_id=hub_repo)
                self.stdout.write(f"Uploaded to {upload.repo_id}: {upload.commit_url}")
        except ApplicationError as exc:
            raise CommandError(str(exc)) from None
