"""What reads evaluations for the run pages and the API: models, runs with their counts, a run's items with
their scores, one item with its judge calls. (The leaderboard's tables have selectors of their own.)"""

from django.db.models import Case, Count, Exists, JSONField, OuterRef, Prefetch, Q, Subquery, Value, When
from django.db.models.functions import Coalesce

from apps.evaluation.models import (
    EvalItem,
    EvaluatedModel,
    EvaluationRun,
    ItemScore,
    JudgeCall,
    Profile,
    RunStatus,
    ScoreMethod,
    SubsetScore,
    showing,
)


def models():
    return EvaluatedModel.objects.annotate(run_count=Count("runs")).order_by("name", "version")


def runs(*, model: EvaluatedModel | None = None):
    """Runs, newest first, each with `answered` (items with a response), `scored` (items with a score) and
    `judged` (whether any current score is the judge's: a run scored by rule alone names no judge)."""
    qs = EvaluationRun.objects.select_related("model", "release", "source_benchmark", "collect_job", "evaluate_job")
    if model is not None:
        qs = qs.filter(model=model)
    return qs.annotate(
        answered=Coalesce(Subquery(EvalItem.objects.answered().filter(run=OuterRef("pk")).order_by().values("run")
                                   .annotate(n=Count("pk")).values("n")), 0),
        scored=Count("items", filter=Q(items__scores__isnull=False), distinct=True),
        judged=Exists(ItemScore.objects.filter(item__run=OuterRef("pk"), method=ScoreMethod.JUDGE, current=True)),
    ).order_by("-created_at", "-id")


def run(pk: int) -> EvaluationRun:
    return runs().get(pk=pk)


# An item's scores: the judge, then Sori's reading, then VoiceBench's; the current one before those it replaced.
_ITEM_SCORE_ORDER = ("method", Case(When(profile=Profile.VOICEBENCH, then=Value(1)), default=Value(0)), "-current",
                     "-created_at")


def subset_scores(run: EvaluationRun, *, current: bool = True) -> list[SubsetScore]:
    """The run's current subset scores by profile (sori first), or with current=False those a re-scoring with
    another version replaced (kept for comparison)."""
    default_first = Case(When(profile=Profile.SORI, then=Value(0)), default=Value(1))
    return list(SubsetScore.objects.filter(run=run, current=current).order_by(
        default_first, "profile", "subset", "-primary", "method", "-computed_at"))


def items(run: EvaluationRun, *, subset: str = "", scored: str = ""):
    """The run's items with their scores and judge calls (prefetched), optionally of one subset; `scored` "yes"/"no" filters."""
    calls = Prefetch("judge_calls", queryset=JudgeCall.objects.order_by("sample"))
    scores = Prefetch("scores", queryset=ItemScore.objects.prefetch_related(calls).order_by(*_ITEM_SCORE_ORDER))
    qs = EvalItem.objects.filter(run=run).prefetch_related(scores)
    if subset:
        qs = qs.filter(subset=subset)
    if scored == "yes":
        qs = qs.filter(scores__isnull=False).distinct()
    elif scored == "no":
        qs = qs.filter(scores__isnull=True)
    return qs.order_by("subset", "item_id")


def subsets_of(run: EvaluationRun) -> list[tuple[str, int]]:
    return list(EvalItem.objects.filter(run=run).values_list("subset").annotate(n=Count("id")).order_by("subset"))


def item(run: EvaluationRun, item_pk: int) -> EvalItem:
    """One item with its scores and each score's judge calls (with their AgentCall rows)."""
    calls = Prefetch("judge_calls", queryset=JudgeCall.objects.select_related("agent_call").order_by("sample"))
    scores = Prefetch("scores", queryset=ItemScore.objects.prefetch_related(calls).order_by(*_ITEM_SCORE_ORDER))
    return EvalItem.objects.select_related("run__model").prefetch_related(scores).get(run=run, pk=item_pk)


def needs_review(run: EvaluationRun):
    """The run's items a person should look at, by subset and id: those whose response the judge score flagged
    as possibly talking to the judge (apps.evaluation.judge.injection_suspected), and the short-answer items
    where Sori's rule reading and the judge disagree (rule 1 and judge 0, or rule 0 and judge 1: one of them
    was misled, and SD-QA reports their mean). Each carries `rule_score`, `judge_score` and `injection` (the
    flag's reasons, or None)."""
    judge = ItemScore.objects.filter(item=OuterRef("pk"), method=ScoreMethod.JUDGE, current=True)
    return _needing_review(EvalItem.objects.filter(run=run)).annotate(
        injection=Subquery(judge.values("detail__injection_suspected")[:1], output_field=JSONField()),
    ).only("pk", "run_id", "item_id", "subset", "metric", "response").order_by("subset", "item_id")


def _needing_review(items):
    """`items` narrowed to those needs_review lists (one rule for the run page and the admin's home page)."""
    judge = ItemScore.objects.filter(item=OuterRef("pk"), method=ScoreMethod.JUDGE, current=True)
    rule = ItemScore.objects.filter(item=OuterRef("pk"), method=ScoreMethod.RULE, profile=Profile.SORI, current=True)
    disagree = Q(metric="qa") & (Q(rule_score=1, judge_score=0) | Q(rule_score=0, judge_score=1))
    return items.annotate(
        rule_score=Subquery(rule.values("score")[:1]), judge_score=Subquery(judge.values("score")[:1]),
        flagged=Exists(judge.filter(detail__has_key="injection_suspected")),
    ).filter(Q(flagged=True) | disagree)


def run_counts_by_family() -> dict[str, dict[str, int]]:
    """{family: {"total": runs, "evaluated": runs evaluated}} in one query, for the admin's home page."""
    rows = EvaluationRun.objects.order_by().values("family").annotate(
        total=Count("id"), evaluated=Count("id", filter=showing(RunStatus.EVALUATED)))
    return {row["family"]: {"total": row["total"], "evaluated": row["evaluated"]} for row in rows}


def runs_to_look_at() -> dict:
    """For the admin's to-do list, in two queries whatever the number of runs: `attention`, the runs needing
    attention, newest first; `review`, [(run, items)] for evaluated runs with items needs_review would list."""
    review = dict(_needing_review(EvalItem.objects.filter(run__in=EvaluationRun.objects.showing(RunStatus.EVALUATED))).order_by()
                  .values_list("run").annotate(n=Count("id")))
    flagged = {run.pk: run for run in EvaluationRun.objects.select_related("model", "collect_job", "evaluate_job").filter(
        showing(RunStatus.NEEDS_ATTENTION) | Q(pk__in=list(review))).order_by("-created_at", "-id")}
    return {
        "attention": [run for run in flagged.values() if run.status == RunStatus.NEEDS_ATTENTION],
        "review": [(run, review[pk]) for pk, run in flagged.items() if pk in review],
    }
