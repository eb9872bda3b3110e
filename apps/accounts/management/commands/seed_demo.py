from django.apps import apps
from django.core.management.base import BaseCommand

from apps.accounts.demo import DEMO_CAST, demo_password, seed_demo_accounts


class Command(BaseCommand):
    help = (
        "Create demo accounts and demo data for every workflow. Idempotent: running it again changes nothing. "
        "Each app contributes through its AppConfig.seed_demo(stdout)."
    )

    def handle(self, *args, **options):
        seed_demo_accounts()
        for config in apps.get_app_configs():
            seed = getattr(config, "seed_demo", None)
            if seed:
                seed(self.stdout)
        self.stdout.write("\nDemo accounts (username / password):")
        for username, roles, _ in DEMO_CAST:
            self.stdout.write(f"  {username:<12} {demo_password(username):<26} {', '.join(roles)}")
