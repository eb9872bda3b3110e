import argparse
import logging
from contextlib import contextmanager

from django.core.management.base import BaseCommand, CommandError

from apps.evaluation import services
from apps.evaluation.management.commands._common import acting_user, add_run_arguments, run_inline, the_run


class Command(BaseCommand):
    help = ("Collect a model's responses from its OpenAI-compatible endpoint (each item's stored audio as input_audio, "
            "the run's decoding settings), waiting for the job. Running it again resumes with the items left.")

    def add_arguments(self, parser):
        add_run_arguments(parser)
        parser.add_argument("--limit", type=_positive, help="ask for at most this many items")

    def handle(self, *args, **options):
        """Whatever fails ends the command in one line (CommandError), never a traceback: the job's own
        traceback stays on its row (Job.error) for the admin page."""
        try:
            with _tracebacks_as_one_line():
                self._collect(*args, **options)
        except CommandError as exc:
            raise CommandError(_one_line(str(exc))) from None
        except Exception as exc:  # the database gone, a bug: still one line
            raise CommandError(_one_line(f"collect_responses failed: {type(exc).__name__}: {exc}")) from None

    def _collect(self, *args, limit, **options):
        user = acting_user(options.get("user"))
        run = the_run(options, user)
        job = run_inline(lambda: services.start_collection(run=run, acting_user=user, limit=limit))
        if job.status != "succeeded":
            raise CommandError(f"run {run.pk}: {job.message} (job {job.pk})")
        result = job.result
        self.stdout.write(f"Run {run.pk} ({run}): {result['asked']} asked, {result['from_cache']} from cache, "
                          f"{result['without_response']} without a response, in {result['seconds']} s.")
        for item_id, reason in {**result["missing_audio"], **result["failed"]}.items():
            self.stderr.write(f"  {item_id}: {reason}")
        if result["failed"] and not result["asked"] and not result["from_cache"]:  # e.g. the endpoint is down
            item_id, reason = next(iter(result["failed"].items()))
            raise CommandError(f"run {run.pk}: the endpoint answered none of the {len(result['failed'])} items "
                               f"asked ({item_id}: {reason})")


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of 1 or more, not {text!r}")
    return int(text)


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "failed"


class _OneLineFormatter(logging.Formatter):
    """A log record as one line: a logged exception adds its message, not its traceback."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            message += f": {type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
        return _one_line(message)


@contextmanager
def _tracebacks_as_one_line():
    """The console handlers print every log record as one line while the job runs here (run_job logs a
    failed job with its traceback)."""
    handlers = [h for h in logging.getLogger().handlers if isinstance(h, logging.StreamHandler)]
    kept = [h.formatter for h in handlers]
    for handler in handlers:
        handler.setFormatter(_OneLineFormatter())
    try:
        yield
    finally:
        for handler, formatter in zip(handlers, kept, strict=True):
            handler.setFormatter(formatter)
