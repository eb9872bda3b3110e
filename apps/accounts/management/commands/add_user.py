import getpass
import os

from django.core.management.base import BaseCommand, CommandError

from apps.accounts.roles import Role
from apps.accounts.services import user_upsert


class Command(BaseCommand):
    help = (
        "Create a person with one or more roles, or update an existing one. Idempotent. The password comes "
        "from --password, else from the SORI_PASSWORD environment variable, else a prompt."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", action="append", required=True, choices=Role.values, dest="roles")
        parser.add_argument("--password")
        parser.add_argument("--display-name", default="")

    def handle(self, *args, username, roles, password, display_name, **options):
        password = password or os.environ.get("SORI_PASSWORD")
        if password is None:
            if not os.isatty(0):
                raise CommandError("no password: pass --password, set SORI_PASSWORD, or run in a terminal")
            password = getpass.getpass(f"Password for {username}: ")
        if not password:
            raise CommandError("the password must not be empty")
        user, created = user_upsert(username=username, roles=roles, password=password, display_name=display_name)
        verb = "created" if created else "updated"
        self.stdout.write(f"{verb} {user.username} with roles: {', '.join(sorted(user.role_names))}")
