"""Reads of the transfer app: what the ground-truth stage still has to do, each sample's effective answer,
and the per-subset report (the paper's Appendix Table 2)."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Case, Count, Max, OuterRef, Q, Subquery, Sum, Value, When

from apps.agents.models import AgentCall
from apps.transfer.models import (
    Correction,
    CorrectionKind,
    CorrectionStatus,
    GroundTruthReview,
    NormalizationStatus,
    NormalizedText,
    ReviewOutcome,
    ReviewRun,
    SourceBenchmark,
    SourceSample,
    Translation,
    TranslationAction,
    TranslationRun,
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


@dataclass
class EffectiveAnswer:
    answer: str
    aliases: list[str] = field(default_factory=list)
    included: bool = True
    reason: str = ""  # why excluded or held back, or which correction applied


def effective_answer(sample: SourceSample) -> EffectiveAnswer:
    """The answer the transfer uses, derived from the imported one and a confirmed correction (never stored)."""
    original = EffectiveAnswer(answer=sample.answer, aliases=list(sample.aliases))
    review = getattr(sample, "review", None) if _has(sample, "review") else None
    if review is None:
        original.reason = "not reviewed"
        return original
    if review.outcome == ReviewOutcome.NEEDS_ATTENTION:
        return EffectiveAnswer(sample.answer, list(sample.aliases), included=False, reason="review needs attention")
    correction = getattr(sample, "correction", None) if _has(sample, "correction") else None
    if correction is None:
        original.reason = "answer confirmed by the reviewer"
        return original
    if correction.status == CorrectionStatus.CONFIRMED:
        if correction.kind == CorrectionKind.NEW_ANSWER:
            aliases = [a for a in sample.aliases if a != correction.proposed_answer]
            return EffectiveAnswer(correction.proposed_answer, aliases, reason="corrected answer")
        if correction.kind == CorrectionKind.ADD_ALIASES:
            aliases = list(sample.aliases) + [a for a in correction.proposed_aliases if a not in sample.aliases]
            return EffectiveAnswer(sample.answer, aliases, reason="aliases added")
        return EffectiveAnswer(sample.answer, list(sample.aliases), included=False, reason="unanswerable as written")
    reasons = {
        CorrectionStatus.REJECTED: "correction rejected: excluded",
        CorrectionStatus.UNRESOLVED: "correction unresolved: excluded",
        CorrectionStatus.NEEDS_EXPERT: "waiting for an expert",
        CorrectionStatus.NEEDS_ATTENTION: "meta-review needs attention",
        CorrectionStatus.PROPOSED: "waiting for the meta-reviewer",
    }
    return EffectiveAnswer(sample.answer, list(sample.aliases), included=False, reason=reasons[correction.status])


def _has(sample, relation: str) -> bool:
    try:
        getattr(sample, relation)
        return True
    except (GroundTruthReview.DoesNotExist, Correction.DoesNotExist):
        return False


def included_samples(benchmark: SourceBenchmark, subset: str | None = None):
    """Samples the next stage may use: not excluded and not waiting on anyone."""
    qs = SourceSample.objects.filter(benchmark=benchmark)
    if subset:
        qs = qs.filter(subset=subset)
    held = Q(review__outcome=ReviewOutcome.NEEDS_ATTENTION) | Q(
        correction__status__in=[CorrectionStatus.REJECTED, CorrectionStatus.UNRESOLVED, CorrectionStatus.NEEDS_EXPERT,
                                CorrectionStatus.NEEDS_ATTENTION, CorrectionStatus.PROPOSED]
    ) | Q(correction__status=CorrectionStatus.CONFIRMED, correction__kind=CorrectionKind.UNANSWERABLE)
    return qs.exclude(held)


def corrections_needing_expert(benchmark: SourceBenchmark | None = None):
    """Corrections the admin chose to send to an expert, oldest first (the expert inbox reads this)."""
    qs = Correction.objects.needing_expert().select_related("sample", "sample__benchmark", "review")
    if benchmark is not None:
        qs = qs.filter(sample__benchmark=benchmark)
    return qs.order_by("created_at", "pk")


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


def run_cost(run: ReviewRun | TranslationRun):
    if run.job_id is None:
        return 0
    return AgentCall.objects.filter(job_id=run.job_id).total_cost()


def run_spending(runs) -> dict[int, tuple[Decimal, int]]:
    """run id -> (agent cost so far, calls so far) for review or translation runs, in one query however many
    (a cost reads "no agent calls yet" before the first call)."""
    by_job = {row["job_id"]: (row["cost"] or Decimal("0"), row["calls"]) for row in
              AgentCall.objects.filter(job_id__in=[r.job_id for r in runs if r.job_id])
              .values("job_id").annotate(cost=Sum("cost_usd"), calls=Count("id")).order_by()}
    return {run.pk: by_job.get(run.job_id, (Decimal("0"), 0)) for run in runs}


def benchmark_overview() -> list[dict]:
    return list(
        SourceSample.objects.values("benchmark__name", "subset", "task_type")
        .annotate(samples=Count("id")).order_by("benchmark__name", "subset", "task_type")
    )


# --- Translations and normalized texts: the current one of each sample is its newest row ---------------

def _current_translation_pk():
    """The pk of the sample's (OuterRef) current translation: its newest usable one, or its newest one when
    none is usable. A translation that needs attention (the agent failed) is not usable, so a failed run
    never replaces good work."""
    unusable = Case(When(action=TranslationAction.NEEDS_ATTENTION, then=Value(1)), default=Value(0))
    return (Translation.objects.filter(sample=OuterRef("sample")).annotate(unusable=unusable)
            .order_by("unusable", "-pk").values("pk")[:1])


def current_translations(*, benchmark: SourceBenchmark | None = None, subset: str | None = None):
    """Each sample's current translation (append-only history; a correction or re-translation supersedes,
    except that a newer one needing attention leaves the last usable one current)."""
    qs = Translation.objects.filter(pk=Subquery(_current_translation_pk()))
    if benchmark is not None:
        qs = qs.filter(sample__benchmark=benchmark)
    if subset:
        qs = qs.filter(sample__subset=subset)
    return qs.select_related("sample", "rulebook_version", "rulebook_version__rulebook", "agent_call", "edited_by")


SPOKEN_ACTIONS = [TranslationAction.DIRECT_TRANSLATION, TranslationAction.FORMAT_CONVERSION,
                  TranslationAction.EQUIVALENT_REPLACEMENT]


def speakable_translations(*, benchmark: SourceBenchmark, subset: str | None = None):
    """Current translations that go on to normalization: settled, not deleted, of included samples."""
    return current_translations(benchmark=benchmark, subset=subset).filter(
        action__in=SPOKEN_ACTIONS, sample__in=included_samples(benchmark, subset))


def current_normalizations(*, benchmark: SourceBenchmark | None = None, subset: str | None = None):
    """Each sample's current normalized text: among those made from the sample's current translation (else
    all of them), its newest one ready for speech, or its newest one when none is (a newer one needing
    attention leaves the last usable one current)."""
    # Correlated to the normalized text being ranked (one level up: SQLite resolves no deeper reference here).
    current_translation = (Translation.objects.filter(sample=OuterRef("sample"))
                           .annotate(unusable=Case(When(action=TranslationAction.NEEDS_ATTENTION, then=Value(1)),
                                                   default=Value(0)))
                           .order_by("unusable", "-pk").values("pk")[:1])
    of_other = Case(When(translation_id=Subquery(current_translation), then=Value(0)), default=Value(1))
    unusable = Case(When(status=NormalizationStatus.NEEDS_ATTENTION, then=Value(1)), default=Value(0))
    newest = (NormalizedText.objects.filter(sample=OuterRef("sample")).annotate(of_other=of_other, unusable=unusable)
              .order_by("of_other", "unusable", "-pk").values("pk")[:1])
    qs = NormalizedText.objects.filter(pk=Subquery(newest))
    if benchmark is not None:
        qs = qs.filter(sample__benchmark=benchmark)
    if subset:
        qs = qs.filter(sample__subset=subset)
    return qs.select_related("sample", "translation", "rulebook_version", "rulebook_version__rulebook", "agent_call")


def ready_for_speech(*, benchmark: SourceBenchmark, subset: str | None = None, limit: int | None = None):
    """The current normalized texts that are ready for TTS: status ok, of samples not excluded by the
    ground-truth stage, made from the sample's current translation (a re-translation or correction makes
    the older normalization wait for a new one), ordered by sample id."""
    current_translation = _current_translation_pk()
    qs = (
        current_normalizations(benchmark=benchmark, subset=subset)
        .filter(status=NormalizationStatus.OK, sample__in=included_samples(benchmark, subset))
        .filter(Q(translation__isnull=True) | Q(translation=Subquery(current_translation)))
        .exclude(translation__action__in=[TranslationAction.DELETION, TranslationAction.UNDECIDED,
                                          TranslationAction.NEEDS_ATTENTION])
        .order_by("sample_id")
    )
    return qs[:limit] if limit else qs


# --- translation runs -----------------------------------------------------------------------------------

PAPER_FLAGGED, PAPER_TOTAL = 653, 10_083  # seed 000: deletions and replacements among all samples (6.5 %)
FLAGGED = (TranslationAction.DELETION, TranslationAction.EQUIVALENT_REPLACEMENT)


def latest_version_numbers() -> dict[int, int]:
    """Each rulebook's newest published version number, by rulebook id."""
    from apps.consultations.models import RulebookVersion  # consultations imports this app: read it lazily

    return dict(RulebookVersion.objects.values("rulebook_id").annotate(n=Max("number")).values_list("rulebook_id", "n"))


def is_stale(translation: Translation, latest: dict[int, int] | None = None) -> bool:
    """Made under an older version than the rulebook's newest published one."""
    latest = latest if latest is not None else latest_version_numbers()
    version = translation.rulebook_version
    return version.number < latest.get(version.rulebook_id, version.number)


def run_translations(run: TranslationRun):
    """The run's outputs as they stand: each sample's newest row recorded by this run (a correction of one
    of them counts as the run's)."""
    newest = Translation.objects.filter(run=run, sample=OuterRef("sample")).order_by("-pk").values("pk")[:1]
    return (Translation.objects.filter(run=run, pk=Subquery(newest))
            .select_related("sample", "rulebook_version", "rulebook_version__rulebook", "agent_call", "edited_by")
            .order_by("sample_id"))


def translation_report(run: TranslationRun) -> dict:
    """Counts per subset and action, with deletions and replacements beside the paper's 653 of 10,083."""
    rows = list(run_translations(run).values("sample__subset", "action"))
    actions = [a for a, _ in TranslationAction.choices]
    subsets: dict[str, dict[str, int]] = {}
    for row in rows:
        counts = subsets.setdefault(row["sample__subset"], dict.fromkeys(actions, 0))
        counts[row["action"]] += 1
    total = {a: sum(c[a] for c in subsets.values()) for a in actions}
    translated = len(rows)
    flagged = sum(total[a] for a in FLAGGED)
    spent, calls = run_spending([run])[run.pk]
    return {
        "subsets": [{"subset": name, **counts, "total": sum(counts.values())} for name, counts in sorted(subsets.items())],
        "total": {**total, "total": translated},
        "flagged": flagged,
        "translated": translated,
        "flagged_percent": round(100 * flagged / translated, 1) if translated else 0.0,
        "paper": {"flagged": PAPER_FLAGGED, "total": PAPER_TOTAL,
                  "percent": round(100 * PAPER_FLAGGED / PAPER_TOTAL, 1)},
        "stale": stale_count(run),
        "cost_usd": str(spent),
        "calls": calls,
    }


def stale_count(run: TranslationRun) -> int:
    """How many of the run's current outputs are the sample's current translation and are stale."""
    latest = latest_version_numbers()
    current = set(current_translations(benchmark=run.benchmark).filter(run=run).values_list("pk", flat=True))
    return sum(1 for t in run_translations(run) if t.pk in current and is_stale(t, latest))

