"""Evaluation pages: the runs (with forms for a model and a run), one run (its jobs' progress, its subset
scores, its items with response and scores, forms to import, collect and evaluate), and one item (response,
each score with what produced it, and the judge calls with their raw answers). No page waits on a judge or a
model: collecting and evaluating are jobs whose progress the run's page shows. Every signed-in user sees the
runs and their scores; the items, responses, judge calls, endpoint, attention reason and jobs are for those
who may inspect runs (apps.evaluation.rules: admins)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from apps.accounts.permissions import can, require
from apps.core import posted
from apps.core.errors import ApplicationError, InvalidInput, NotFound
from apps.core.uploads import upload_limit
from apps.evaluation import references, responses, selectors, services
from apps.evaluation.judge import INJECTION_REASONS
from apps.evaluation.models import AnswerSource, EvalItem, EvaluatedModel, EvaluationRun, Profile, ScoreMethod
from apps.releases.models import Release, ReleaseKind, ReleaseStatus
from apps.sources.models import SourceBenchmark


def _run_or_404(pk: int) -> EvaluationRun:
    try:
        return selectors.run(pk)
    except EvaluationRun.DoesNotExist:
        raise NotFound(gettext("No evaluation run with id %(pk)s.") % {"pk": pk}) from None


def _benchmarks():
    releases = Release.objects.filter(kind__in=[ReleaseKind.SPOKEN_QA, ReleaseKind.KMMAU],
                                      status__in=[ReleaseStatus.BUILT, ReleaseStatus.PUBLISHED]).order_by("name", "-created_at")
    return ([(f"release:{r.pk}", f"{r.name} {r.version} ({r.get_kind_display()})") for r in releases],
            [(f"source:{b.pk}", f"{b.name} (English source)") for b in SourceBenchmark.objects.order_by("name")])


@login_required
def run_list(request):
    require(request.user, "evaluation.view")
    releases, sources = _benchmarks()
    # A release's "Next" link chooses the benchmark (?benchmark=release:7); only one of the form's own choices.
    chosen = request.GET.get("benchmark", "")
    return render(request, "evaluation/runs.html", {
        "runs": selectors.runs(), "models": selectors.models(), "releases": releases, "sources": sources,
        "chosen": chosen if any(chosen == value for value, _ in releases + sources) else "",
        "can_manage": can(request.user, "evaluation.manage"), "answer_sources": [AnswerSource.IMPORTED, AnswerSource.ENDPOINT],
    })


@login_required
@require_POST
def create_model(request):
    require(request.user, "evaluation.manage")
    form = request.POST
    try:
        decoding = {k: v for k, v in {
            "max_tokens": posted.number(form, "max_tokens", whole=True),
            "temperature": posted.number(form, "temperature"),
            "top_p": posted.number(form, "top_p"),
        }.items() if v is not None}
        model = services.create_model(
            name=form.get("name", ""), version=form.get("version", ""),
            answer_source=form.get("answer_source") or AnswerSource.IMPORTED, endpoint=form.get("endpoint", "").strip(),
            served_model=form.get("served_model", "").strip(), api_key_env=form.get("api_key_env", "").strip(),
            decoding=decoding,
            description=form.get("description", ""), acting_user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, gettext("Added %(model)s.") % {"model": model})
    return redirect("evaluation:runs")


@login_required
@require_POST
def create_run(request):
    require(request.user, "evaluation.manage")
    model_pk = request.POST.get("model", "")
    model = EvaluatedModel.objects.filter(pk=int(model_pk)).first() if model_pk.isdigit() and len(model_pk) < 19 else None
    try:
        if model is None:
            raise InvalidInput(gettext("choose a model"), field="model")
        try:
            release, source = references.find_benchmark(references.parse_benchmark(request.POST.get("benchmark", "")))
        except InvalidInput:
            raise InvalidInput(gettext("choose a benchmark"), field="benchmark") from None
        except NotFound:
            raise InvalidInput(gettext("that benchmark does not exist any more"), field="benchmark") from None
        run = services.create_run(model=model, release=release, source_benchmark=source, acting_user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("evaluation:runs")
    return redirect("evaluation:run", pk=run.pk)


@login_required
def run_detail(request, pk):
    require(request.user, "evaluation.view")
    run = _run_or_404(pk)
    context = {"run": run, "subset_scores": selectors.subset_scores(run), "can_manage": can(request.user, "evaluation.manage"),
               "can_inspect": can(request.user, "evaluation.inspect"),
               "replaced_scores": selectors.subset_scores(run, current=False), "profiles": Profile.choices}
    if context["can_inspect"]:  # the rest is what lies behind the scores
        subset = request.GET.get("subset", "")
        context.update(subset=subset, subsets=selectors.subsets_of(run),
                       page=Paginator(selectors.items(run, subset=subset), 50).get_page(request.GET.get("page")),
                       jobs=[j for j in (run.collect_job, run.evaluate_job) if j is not None])
        review = selectors.needs_review(run)
        context.update(review=[_with_review_reasons(i) for i in review[:REVIEW_SHOWN]], review_count=review.count())
    return render(request, "evaluation/run.html", context)


REVIEW_SHOWN = 100  # the first of the run's items to review; the count says how many there are


def _with_review_reasons(item):
    """`item.review_reasons`: why the run page lists it under "Needs review", in words."""
    item.review_reasons = [INJECTION_REASONS.get(r, r) for r in item.injection or []]
    if item.metric == "qa" and item.rule_score in (0, 1) and item.judge_score in (0, 1) and item.rule_score != item.judge_score:
        item.review_reasons.append(f"the rule (Sori's reading) says {'right' if item.rule_score else 'wrong'}, "
                                   f"the judge {'right' if item.judge_score else 'wrong'}")
    return item


@upload_limit("responses")
@login_required
@require_POST
def import_responses(request, pk):
    require(request.user, "evaluation.manage")
    run = _run_or_404(pk)
    upload = request.FILES.get("responses")
    try:
        if upload is None:
            raise InvalidInput(gettext("choose a CSV, JSONL or Parquet file with id and response"), field="responses")
        count = responses.import_responses(run=run, source=upload.read(), name=upload.name, acting_user=request.user)
    except ApplicationError as exc:
        for line in exc.lines():
            messages.error(request, line)
    else:
        messages.success(request, gettext(
            "Imported %(count)s responses from %(name)s."
        ) % {"count": count, "name": upload.name})
    return redirect("evaluation:run", pk=run.pk)


@login_required
@require_POST
def collect(request, pk):
    return _start_job(request, pk, services.start_collection)


@login_required
@require_POST
def evaluate(request, pk):
    return _start_job(request, pk, services.start_evaluation)


@login_required
@require_POST
def rescore(request, pk):
    profile = request.POST.get("profile", "")
    return _start_job(request, pk, lambda **kw: services.start_rescoring(profile=profile, **kw))


def _start_job(request, pk, start):
    """Start a run's collection, evaluation or re-scoring job; a refusal is shown on the run's page."""
    require(request.user, "evaluation.manage")
    run = _run_or_404(pk)
    try:
        start(run=run, acting_user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect("evaluation:run", pk=run.pk)


@login_required
def item_detail(request, pk, item_pk):
    require(request.user, "evaluation.inspect")
    run = _run_or_404(pk)
    try:
        item = selectors.item(run, item_pk)
    except EvalItem.DoesNotExist:
        raise NotFound(gettext("The run has no item with id %(item_pk)s.") % {"item_pk": item_pk}) from None
    judged = next((s for s in item.scores.all() if s.method == ScoreMethod.JUDGE and s.current), None)
    flags = [INJECTION_REASONS.get(r, r) for r in (judged.detail.get("injection_suspected") or [])] if judged else []
    return render(request, "evaluation/item.html", {"run": run, "item": item, "injection_flags": flags,
                                                    "injection_prompt": judged.judge_prompt_version if judged else ""})
