"""What each stage of the transfer hands to the next, and to the apps above (speech, releases, evaluation,
and consultations through its answer hook): each sample's effective answer after ground-truth correction,
the included samples, the current translation and normalized text of each sample, what is ready for speech,
and the agent spending of a run. Each stage's own reads live in its folder (ground_truth/selectors.py,
hypertranslation/selectors.py)."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Case, Count, OuterRef, Q, Subquery, Sum, Value, When
from django.utils.translation import gettext

from apps.agents.models import AgentCall
from apps.core.errors import NotFound
from apps.sources.models import SourceBenchmark, SourceSample
from apps.transfer.models import (
    Correction,
    CorrectionKind,
    CorrectionStatus,
    GroundTruthReview,
    NormalizationStatus,
    NormalizedText,
    ReviewOutcome,
    ReviewRun,
    Translation,
    TranslationAction,
    TranslationRun,
)


@dataclass
class EffectiveAnswer:
    answer: str
    aliases: list[str] = field(default_factory=list)
    included: bool = True
    reason: str = ""  # why excluded or held back, or which correction applied


def benchmark_named(name: str) -> SourceBenchmark:
    """The source benchmark a stage run is started on, or a NotFound naming it."""
    bench = SourceBenchmark.objects.filter(name=name).first()
    if bench is None:
        raise NotFound(gettext(
            "no source benchmark named %(name)r; import one with import_benchmark"
        ) % {"name": name})
    return bench


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
        .annotate(samples=Count("id"), with_audio=Count("audio_id")).order_by("benchmark__name", "subset", "task_type")
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


# --- The admin's home page --------------------------------------------------------------------------------

def pipeline_counts() -> dict:
    """The spoken-QA transfer's stages for the admin's home page, in three aggregate queries whatever the data's
    size: samples imported and reviewed by the ground-truth stage, each sample's current translation by action
    (translated, or undecided under the rulebook) and current normalized texts ready for speech."""
    counts = SourceSample.objects.aggregate(samples=Count("id"), reviewed=Count("review"))
    actions = dict(current_translations().order_by().values_list("action").annotate(n=Count("id")))
    counts["translated"] = sum(actions.get(action, 0) for action in [*SPOKEN_ACTIONS, TranslationAction.DELETION])
    counts["undecided"] = actions.get(TranslationAction.UNDECIDED, 0)
    counts["normalized"] = current_normalizations().filter(status=NormalizationStatus.OK).count()
    return counts


def attention_counts() -> dict:
    """What of the transfer waits for the admin: ground-truth reviews and corrections needing attention, and
    samples whose current translation or normalized text needs attention (four counts)."""
    return {
        "review": (Correction.objects.filter(status=CorrectionStatus.NEEDS_ATTENTION).count()
                   + GroundTruthReview.objects.filter(outcome=ReviewOutcome.NEEDS_ATTENTION).count()),
        "translation": current_translations().filter(action=TranslationAction.NEEDS_ATTENTION).count(),
        "normalization": current_normalizations().filter(status=NormalizationStatus.NEEDS_ATTENTION).count(),
    }
