from django.core.management.base import BaseCommand, CommandError

from apps.consultations.models import RulebookKind
from apps.core.errors import ApplicationError
from apps.transfer.normalization.services import normalize_text, published_version


class Command(BaseCommand):
    help = ("Print the speech-friendly reading of a Korean text on the first line, then the rules that fired, "
            "each number's reading, and what needs attention (the published normalization rulebook drives it).")

    def add_arguments(self, parser):
        parser.add_argument("text")
        parser.add_argument("--rulebook-version", type=int, help="normalization rulebook version (default: the latest)")
        parser.add_argument("--preserve", action="append", default=[], help="an English term to keep as written")
        parser.add_argument("--no-agent", action="store_true",
                            help="do not call the normalizer agent for context-dependent spans")

    def handle(self, *args, **opts):
        try:
            version = published_version(RulebookKind.NORMALIZATION, number=opts["rulebook_version"])
            outcome = normalize_text(opts["text"], version=version, preserve=opts["preserve"],
                                     use_agent=not opts["no_agent"])
        except ApplicationError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(outcome.text)
        self.stdout.write(f"rulebook: {version}")
        self.stdout.write("rules fired: " + (", ".join(outcome.rules_fired) or "none"))
        for reading in outcome.readings:
            self.stdout.write(f"  {reading['span']} -> {reading['reading']} ({', '.join(reading['rules'])})")
        if outcome.used_agent and outcome.agent_call is not None:
            self.stdout.write(f"normalizer agent: call #{outcome.agent_call.pk}")
        if outcome.status != "ok":
            self.stdout.write(f"needs attention: {outcome.attention_reason}")
