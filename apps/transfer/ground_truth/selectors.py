"""Reads of the ground-truth stage: what a review run still has to do, the corrections and reviews an admin
or an expert must look at, and the per-subset report (the paper's Appendix Table 2)."""

from django.db.models import Count, Q

from apps.sources.models import SourceBenchmark, SourceSample
from apps.transfer.models import (
    Correction,
    CorrectionKind,
    CorrectionStatus,
    GroundTruthReview,
    ReviewOutcome,
    ReviewRun,
)


def review_scope(run: ReviewRun):
    """The run's samples: deterministic ones of its benchmark (and subset), the first `limit` by import order."""
    qs = SourceSample.objects.deterministic().filter(benchmark=run.benchmark)
    if run.subset:
        qs = qs.filter(subset=run.subset)
    qs = qs.order_by("pk")
    if run.limit:
        qs = SourceSample.objects.filter(pk__in=list(qs.values_list("pk", flat=True)[: run.limit]))
    return qs


def pending_in(sample_ids: list[int]) -> list[int]:
    """Samples not done: never reviewed, or with a proposal the meta-reviewer has not judged yet."""
    reviewed = set(GroundTruthReview.objects.filter(sample_id__in=sample_ids).values_list("sample_id", flat=True))
    waiting = set(Correction.objects.filter(sample_id__in=sample_ids, status=CorrectionStatus.PROPOSED)
                  .values_list("sample_id", flat=True))
    return [pk for pk in sample_ids if pk not in reviewed or pk in waiting]


def reviews_needing_attention(benchmark: SourceBenchmark | None = None):
    """Samples whose reviewer answer stayed invalid or whose provider kept failing (no correction exists)."""
    qs = GroundTruthReview.objects.filter(outcome=ReviewOutcome.NEEDS_ATTENTION).select_related(
        "sample", "sample__benchmark", "reviewer_call")
    if benchmark is not None:
        qs = qs.filter(sample__benchmark=benchmark)
    return qs.order_by("sample_id")


def corrections(*, benchmark: SourceBenchmark | None = None, subset: str | None = None, status: str | None = None):
    qs = Correction.objects.select_related("sample", "sample__benchmark", "review", "meta_call", "review__reviewer_call")
    if benchmark is not None:
        qs = qs.filter(sample__benchmark=benchmark)
    if subset:
        qs = qs.filter(sample__subset=subset)
    if status:
        qs = qs.filter(status=status)
    return qs.prefetch_related("decisions__decided_by")


def correction_report(benchmark: SourceBenchmark, *, subset: str | None = None) -> list[dict]:
    """Per subset, as in the paper's Appendix Table 2: total deterministic samples, reviewed, errors found
    (reviewer proposals), confirmed, rejected (rejected or unresolved by the meta-reviewer), excluded (samples
    left out: rejected, unresolved, or confirmed unanswerable), and the error rate = confirmed / total (the
    paper counts only corrections both agents agreed on). A last row sums them."""
    samples = SourceSample.objects.deterministic().filter(benchmark=benchmark)
    if subset:
        samples = samples.filter(subset=subset)
    excluded_q = Q(correction__status__in=[CorrectionStatus.REJECTED, CorrectionStatus.UNRESOLVED]) | Q(
        correction__status=CorrectionStatus.CONFIRMED, correction__kind=CorrectionKind.UNANSWERABLE)
    rows = list(
        samples.values("subset").annotate(
            total=Count("id"),
            reviewed=Count("review"),
            errors_found=Count("correction"),
            confirmed=Count("correction", filter=Q(correction__status=CorrectionStatus.CONFIRMED)),
            rejected=Count("correction", filter=Q(correction__status__in=[CorrectionStatus.REJECTED, CorrectionStatus.UNRESOLVED])),
            excluded=Count("id", filter=excluded_q),
            needs_expert=Count("correction", filter=Q(correction__status=CorrectionStatus.NEEDS_EXPERT)),
            needs_attention=Count("id", filter=Q(review__outcome=ReviewOutcome.NEEDS_ATTENTION)
                                  | Q(correction__status=CorrectionStatus.NEEDS_ATTENTION)),
        ).order_by("subset")
    )
    if rows:
        total = {"subset": "Total"} | {k: sum(r[k] for r in rows) for k in rows[0] if k != "subset"}
        rows.append(total)
    for row in rows:
        row["error_rate"] = round(100 * row["confirmed"] / row["total"], 1) if row["total"] else 0.0
    return rows
