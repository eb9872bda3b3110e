"""Demo data: three scripted models under evaluation, a strong, a middling and a weak one, answer the demo
benchmarks in English (voicebench-demo and openaudiobench-demo, every subset seed 000 averages) and in Korean
(their Korean releases, built here from apps.transfer's hand-written translations through the real speech stage
and release build), and the real evaluation job scores every run: the rule-based readers, then the judge (the
scripted demo provider). They also answer KMMAU: the demo question set's accepted questions (apps.authoring.demo,
all nine capabilities), released as kmmau-demo and scored by the rule reading of the chosen option. So Tables 1,
5 and 6, the gap figure, the rank agreement of each spoken-QA benchmark with KMMAU and a paired comparison show
on a fresh demo.

The models are marked as demo answers (answer_source "demo"): each item's right and wrong response, in English
and Korean, are recorded in apps/pages/demo_answers.json ("ScriptedModels"); which of the two a model gives is
fixed by its quality pattern below (never random), so the three rank clearly apart and each loses more in
Korean than in English, as seed 000's models do. A KMMAU answer is the question's right option or its first wrong
one, by the model's Korean pattern over the items of each capability (so in every capability strong beats middling,
which beats weak or ties with it where the capability has two or three items). With a real provider configured the demo imports the answers
and leaves the evaluation to the admin (it would spend money). Idempotent."""

import json
from collections import Counter

from django.conf import settings

from apps.accounts.models import User
from apps.authoring.demo import DEMO_SET
from apps.authoring.models import QuestionSet
from apps.evaluation.models import AnswerSource, EvaluatedModel, EvaluationRun
from apps.evaluation.responses import import_responses
from apps.evaluation.services import create_model, create_run, start_evaluation
from apps.jobs.services import run_here
from apps.pages.demo_provider import recorded
from apps.releases.demo import build_kmmau, build_spoken_qa
from apps.sources.models import SourceBenchmark
from apps.speech.demo import synthesize_benchmark
from apps.transfer.demo import OPENAUDIOBENCH_DEMO, VOICEBENCH_DEMO

DEMO_VERSION = "scripted"
DEMO_NOTE = "demo answers, not a real model: responses recorded for seed_demo"

# name -> (description, right(index) in English, right(index) in Korean); index: the item's place in its run.
MODELS = {
    "Demo strong": ("answers five of six items right in English, two of three in Korean",
                    lambda i: i % 6 != 5, lambda i: i % 3 != 2),
    "Demo middling": ("answers every second item right in English, one of three in Korean",
                      lambda i: i % 2 == 0, lambda i: i % 3 == 0),
    "Demo weak": ("answers one of four items right in English, one of six in Korean",
                  lambda i: i % 4 == 0, lambda i: i % 6 == 0),
}
# The Korean releases of the demo benchmarks (seed 000's KVoiceBench and KOpenAudioBench, in miniature).
KOREAN = {VOICEBENCH_DEMO: "kvoicebench-demo", OPENAUDIOBENCH_DEMO: "kopenaudiobench-demo"}
KMMAU_RELEASE = "kmmau-demo"


def seed(stdout=None) -> list:
    admin = User.objects.filter(username="admin").first()
    benchmarks = list(SourceBenchmark.objects.filter(name__in=KOREAN).order_by("name"))
    if admin is None or not benchmarks:
        return []
    models = [_model(name, description, admin) for name, (description, _, _) in MODELS.items()]
    targets = [{"source_benchmark": b} for b in benchmarks]
    for benchmark in benchmarks:
        synthesize_benchmark(benchmark, admin)
        release = build_spoken_qa(benchmark, KOREAN[benchmark.name], admin,
                                  f"The Korean {benchmark.name} (demo: hand-written translations, espeak-ng audio).")
        if release is not None:
            targets.append({"release": release})
    question_set = QuestionSet.objects.filter(name=DEMO_SET).first()
    if question_set is not None:
        release = build_kmmau(question_set, KMMAU_RELEASE, admin, "The demo question set's accepted questions, all "
                              "nine capabilities (demo: espeak-ng clips, questions by rule, agent and annotators).")
        if release is not None:
            targets.append({"release": release})
    runs = []
    for model in models:
        mine = [run for target in targets if (run := _seed_run(model, target, admin)) is not None]
        runs += mine
        if stdout:
            scored = sum(r.subset_scores.exists() for r in mine)
            stdout.write(f"  evaluation: {model} ({DEMO_NOTE.split(':')[0]}): {len(mine)} runs "
                         f"({', '.join(r.benchmark_name for r in mine)}), {scored} scored")
    if stdout and not settings.SORI_DEMO_PROVIDER:
        stdout.write("  evaluation: the demo runs have their answers; evaluate them from their run pages (the judge "
                     "uses your configured provider)")
    return runs


def _model(name: str, description: str, admin) -> EvaluatedModel:
    model = EvaluatedModel.objects.filter(name=name, version=DEMO_VERSION).first()
    return model or create_model(name=name, version=DEMO_VERSION, answer_source=AnswerSource.DEMO,
                                 description=f"{DEMO_NOTE}; {description}", acting_user=admin)


def responses(model: EvaluatedModel, run: EvaluationRun) -> list[dict]:
    """The model's recorded response to each item of the run: right or wrong by its pattern for the language."""
    answers = recorded()["ScriptedModels"]["answers"]
    _, english, korean = MODELS[model.name]
    right = korean if run.language == "ko" else english
    rows = []
    in_subset: Counter = Counter()  # a KMMAU item's place within its capability
    for index, item in enumerate(run.items.select_related("source_sample").order_by("item_id")):
        if item.metric == "kmmau":  # the right option, or the first wrong one
            good = right(in_subset[item.subset])
            in_subset[item.subset] += 1
            text = item.answer if good else next(c for c in item.extra.get("choices") or [] if c != item.answer)
            rows.append({"id": item.item_id, "response": text})
            continue
        question = item.source_sample.transcription if item.source_sample else item.question
        right_en, wrong_en, right_ko, wrong_ko = answers[question]
        good = right(index)
        text = (right_ko if good else wrong_ko) if run.language == "ko" else (right_en if good else wrong_en)
        rows.append({"id": item.item_id, "response": text})
    return rows


def _seed_run(model, target: dict, admin) -> EvaluationRun | None:
    run = EvaluationRun.objects.filter(model=model, **target).first()
    if run is None:
        run = create_run(model=model, acting_user=admin, **target)
    if not run.items.answered().exists():
        data = "\n".join(json.dumps(r, ensure_ascii=False) for r in responses(model, run)).encode()
        import_responses(run=run, source=data, name=f"{run.benchmark_name}-demo-answers.jsonl", acting_user=admin,
                         answer_source=AnswerSource.DEMO)
    if not run.subset_scores.exists() and settings.SORI_DEMO_PROVIDER:
        _evaluate(run, admin)
    run.refresh_from_db()
    return run


def _evaluate(run, admin) -> None:
    """The real evaluation job, inline: rules, then the judge (the demo provider) for the short answers."""
    with run_here():
        start_evaluation(run=run, acting_user=admin)
