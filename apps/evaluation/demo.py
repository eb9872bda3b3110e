"""Demo data: one scripted model's answers to the demo benchmarks (voicebench-demo's sd-qa and
openaudiobench-demo's web_questions, which apps.transfer's demo imports), scored by the real evaluation job, so a
new user sees a leaderboard without a key. The model is marked as demo answers (answer_source "demo"): its
responses are written here, not produced by a model. The judge is the scripted demo provider when
SORI_DEMO_PROVIDER is set (./scripts/demo without a key); with a real provider configured the demo imports the
answers and leaves the evaluation to the admin (it would spend money). Idempotent."""

import json

from django.conf import settings
from django.test.utils import override_settings

from apps.accounts.models import User
from apps.evaluation.models import AnswerSource, EvaluatedModel, EvaluationRun
from apps.evaluation.scoring import DEFAULT_PROFILE
from apps.evaluation.services import create_model, create_run, import_responses, start_evaluation
from apps.jobs.services import run_job
from apps.transfer.models import SourceBenchmark

DEMO_MODEL = "Sori demo model"
DEMO_VERSION = "scripted"
DEMO_NOTE = "demo answers, not a real model: responses written by hand for seed_demo"

# Scripted responses by question (one wrong on purpose, so the scores are not all 100).
RESPONSES = {
    "voicebench-demo": {
        "What is the capital city of Australia?": "The capital of Australia is Canberra.",
        "How many legs does a spider have?": "A spider has six legs.",
        "Who wrote the novel Pride and Prejudice?": "Pride and Prejudice was written by Jane Austen.",
        "What is the chemical symbol for gold?": "The chemical symbol for gold is Au.",
    },
    "openaudiobench-demo": {
        "what language do they speak in switzerland?": "In Switzerland people speak German, French, Italian and Romansh.",
        "what currency does japan use?": "Japan uses the Japanese yen.",
        "who is the author of the hobbit?": "The Hobbit was written by J. R. R. Tolkien.",
    },
}


def seed(stdout=None) -> list:
    admin = User.objects.filter(username="admin").first()
    model = EvaluatedModel.objects.filter(name=DEMO_MODEL, version=DEMO_VERSION).first()
    if model is None:
        model = create_model(name=DEMO_MODEL, version=DEMO_VERSION, answer_source=AnswerSource.DEMO,
                             description=DEMO_NOTE, acting_user=admin)
    runs = [run for name in RESPONSES if (run := _seed_run(model, name, admin, stdout)) is not None]
    return runs


def _seed_run(model, name, admin, stdout):
    benchmark = SourceBenchmark.objects.filter(name=name).first()
    if benchmark is None:
        return None
    run = EvaluationRun.objects.filter(model=model, source_benchmark=benchmark).first()
    if run is None:
        run = create_run(model=model, source_benchmark=benchmark, acting_user=admin)
    if not run.items.filter(response__isnull=False).exists():
        by_question = dict(run.items.values_list("question", "item_id"))
        rows = [{"id": item_id, "response": RESPONSES[name].get(question, "I do not know.")}
                for question, item_id in by_question.items()]
        data = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode()
        import_responses(run=run, source=data, name=f"{name}-demo-answers.jsonl", acting_user=admin,
                         answer_source=AnswerSource.DEMO)
    run.refresh_from_db()
    if not run.subset_scores.exists():
        if settings.SORI_DEMO_PROVIDER:
            _evaluate(run, admin)
        elif stdout:
            stdout.write(f"  evaluation: {run} has its demo answers; evaluate it from its run page (the judge "
                         "uses your configured provider)")
            return run
    if stdout:
        reported = run.subset_scores.filter(primary=True, current=True, profile=DEFAULT_PROFILE)
        scores = ", ".join(f"{s.subset} {s.score:.1f} (n={s.n})" for s in reported)
        stdout.write(f"  evaluation: {run} ({DEMO_NOTE.split(':')[0]}): {scores or 'not scored'}")
    return run


def _evaluate(run, admin) -> None:
    """The real evaluation job, inline: rules, then the judge (the demo provider) for the short answers."""
    with override_settings(JOB_RUNNER="sync"):
        job = start_evaluation(run=run, acting_user=admin)
    run_job(job.pk)  # inside an outer transaction on-commit has not fired yet; never runs twice
