"""What the evaluation commands share: finding or making the run they work on, and running a job here."""

from django.core.management.base import CommandError

from apps.accounts.models import User
from apps.core.errors import ApplicationError
from apps.evaluation import references, services
from apps.evaluation.models import EvaluatedModel, EvaluationRun
from apps.jobs.services import run_here


def add_run_arguments(parser) -> None:
    parser.add_argument("--run", type=int, help="an existing run's id")
    parser.add_argument("--model", help="the model's name (made if it does not exist), with --benchmark: a new run")
    parser.add_argument("--model-version", default="", help="the model's version")
    parser.add_argument("--endpoint", default="", help="(new model) its OpenAI-compatible base URL, e.g. http://gpu-1:8000/v1")
    parser.add_argument("--served-model", default="", help="(new model) the model name the endpoint serves")
    parser.add_argument("--benchmark", help="release:NAME[@VERSION] (a built release) or source:NAME (an English source benchmark), or either by id")
    parser.add_argument("--user", help="username of the admin acting (default: the first admin)")


def acting_user(username: str | None):
    user = User.objects.filter(username=username).first() if username else _first_admin()
    if user is None:
        raise CommandError(f"no user {username!r}" if username else "no admin exists; pass --user")
    return user


def _first_admin():
    return (User.objects.filter(is_active=True, groups__name="admin").order_by("pk").first()
            or User.objects.filter(is_superuser=True, is_active=True).order_by("pk").first())


def the_run(options, user) -> EvaluationRun:
    """The run named by --run, or a new run of --model on --benchmark."""
    try:
        if options.get("run"):
            run = EvaluationRun.objects.filter(pk=options["run"]).select_related("model").first()
            if run is None:
                raise CommandError(f"no run {options['run']}")
            return run
        if not (options.get("model") and options.get("benchmark")):
            raise CommandError("give --run ID, or --model NAME and --benchmark release:NAME@VERSION|source:NAME")
        model = EvaluatedModel.objects.filter(name=options["model"], version=options.get("model_version", "")).first()
        if model is None:
            model = services.create_model(name=options["model"], version=options.get("model_version", ""),
                                          endpoint=options.get("endpoint", ""), served_model=options.get("served_model", ""),
                                          acting_user=user)
        release, source = benchmark(options["benchmark"])
        return services.create_run(model=model, release=release, source_benchmark=source, acting_user=user)
    except ApplicationError as exc:
        raise CommandError(str(exc)) from None


def benchmark(spec: str):
    """(release, source benchmark) as --benchmark names it (apps.evaluation.references)."""
    try:
        ref = references.parse_benchmark(spec)
    except ApplicationError:
        raise CommandError(f"--benchmark {spec!r}: use release:NAME@VERSION or source:NAME (or either by id)") from None
    try:
        return references.find_benchmark(ref)
    except ApplicationError as exc:
        raise CommandError(exc.message) from None


def run_inline(start):
    """Start a job through `start()` and run it here, waiting for it (whatever the server's runner is)."""
    try:
        with run_here():
            job = start()
    except ApplicationError as exc:
        raise CommandError(str(exc)) from None
    job.refresh_from_db()
    return job
