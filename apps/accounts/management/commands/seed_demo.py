import logging
from contextlib import contextmanager

from django.apps import apps
from django.core.management import call_command
from django.core.management.base import BaseCommand

from apps.accounts.demo import DEMO_CAST, demo_password, seed_demo_accounts


@contextmanager
def only_warnings():
    """The seed says what it made, once per thing: the INFO lines of what it drives (the job runner's "job N is
    neither queued nor lost", httpx's request lines to the demo provider) are not for the person starting the
    demo. Warnings and errors still show."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(max(level, logging.WARNING))
    quiet = [logging.getLogger(name) for name in ("httpx", "httpcore", "openai", "anthropic")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        root.setLevel(level)
        for logger, old in zip(quiet, levels, strict=True):
            logger.setLevel(old)


class Command(BaseCommand):
    help = (
        "Create demo accounts and demo data for every workflow. Idempotent: running it again changes nothing. "
        "Each app contributes through its AppConfig.seed_demo(stdout)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--then-serve", metavar="ADDR:PORT",
                            help="then serve the demo here (runserver without the reloader) in this same process: "
                                 "./scripts/demo's restart pays for one Django start-up, not two")

    def handle(self, *args, then_serve=None, **options):
        with only_warnings():
            seed_demo_accounts()
            for config in apps.get_app_configs():
                seed = getattr(config, "seed_demo", None)
                if seed:
                    seed(self.stdout)
        self.stdout.write("\nDemo accounts (username / password):")
        for username, roles, _ in DEMO_CAST:
            self.stdout.write(f"  {username:<12} {demo_password(username):<26} {', '.join(roles)}")
        if then_serve:
            call_command("runserver", then_serve, use_reloader=False)
