"""Stage 1 of the transfer, ground-truth correction: a reviewer agent audits each deterministic sample's
answer, a meta-reviewer agent judges each proposed correction, and an admin (or, through apps.consultations'
inbox, an expert) decides what the agents left open. The effective answer is derived, never stored
(apps.transfer.selectors.effective_answer)."""

import logging

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from apps.agents.services import (
    AgentNeedsAttention,
    ProviderRejected,
    agent_config,
    call_agent,
    require_configured,
    require_distinct_models,
)
from apps.consultations import services as consultations
from apps.core import limits
from apps.core.actors import actor
from apps.core.errors import Conflict, InvalidInput
from apps.core.limits import bounded
from apps.jobs.services import results_in_parallel, start_stage_run
from apps.sources.models import SourceBenchmark, SourceSample
from apps.transfer import selectors as transfer_selectors
from apps.transfer.ground_truth import selectors
from apps.transfer.ground_truth.schemas import MetaReviewerAnswer, ReviewerAnswer
from apps.transfer.models import (
    Correction,
    CorrectionDecision,
    CorrectionKind,
    CorrectionStatus,
    GroundTruthReview,
    MetaVerdict,
    ReviewOutcome,
    ReviewRun,
    UnresolvedPolicy,
)

log = logging.getLogger(__name__)


# --- ground-truth correction -------------------------------------------------------------------------------
REVIEWER, META_REVIEWER = "reviewer", "meta_reviewer"


def check_ground_truth_ready() -> None:
    """Raise NoProviderConfigured or Conflict (same model twice) when the stage must not start."""
    require_configured(REVIEWER)
    require_configured(META_REVIEWER)
    require_distinct_models(REVIEWER, META_REVIEWER)


def start_ground_truth_review(
    *, benchmark: str, subset: str = "", limit: int | None = None, on_unresolved: str = UnresolvedPolicy.EXCLUDE,
    budget_usd: float | None = None, acting_user=None,
) -> ReviewRun:
    check_ground_truth_ready()
    bench = transfer_selectors.benchmark_named(benchmark)
    run = ReviewRun(benchmark=bench, subset=subset or "", limit=limit, on_unresolved=UnresolvedPolicy(on_unresolved))
    if not selectors.review_scope(run).exists():
        raise InvalidInput(gettext(
            "%(benchmark)s%(subset)s has no multiple-choice or short-answer samples"
        ) % {"benchmark": benchmark, "subset": '/' + subset if subset else ''},
                           field="subset")

    def create() -> ReviewRun:
        run.reviewer_model = ":".join(agent_config(REVIEWER))
        run.meta_reviewer_model = ":".join(agent_config(META_REVIEWER))
        run.created_by = actor(acting_user)
        run.save()
        return run

    return start_stage_run(lock=bench, runs=ReviewRun.objects.filter(benchmark=bench), stage="ground-truth review",
                           create=create, kind="transfer.ground_truth_review",
                           params={} if budget_usd is None else {"budget_usd": budget_usd}, acting_user=acting_user)


def run_ground_truth_review(job, progress) -> dict:
    """The job: review every sample in the run's scope that is not done yet (so a resumed or repeated run
    skips finished samples; their answers are in the agent cache anyway)."""
    run = ReviewRun.objects.select_related("benchmark").get(pk=job.params["run_id"])
    check_ground_truth_ready()  # the roles may have changed since the run was started
    scope = list(selectors.review_scope(run).values_list("pk", flat=True))
    pending = set(selectors.pending_in(scope))
    progress.set_total(len(scope), message=f"{len(scope) - len(pending)} of {len(scope)} samples already reviewed")
    progress.set_done(len(scope) - len(pending))
    samples = list(SourceSample.objects.filter(pk__in=pending).select_related("benchmark").order_by("pk"))
    reviewed = results_in_parallel(
        samples, lambda sample: review_sample(run, sample, job=job), workers=settings.TRANSFER_REVIEW_WORKERS,
        name="ground-truth",
    )
    for sample, outcome in reviewed:
        progress.advance(message=f"{sample.subset}/{sample.source_id}: {outcome}")
    return {"report": selectors.correction_report(run.benchmark, subset=run.subset or None)}


def _variables(sample: SourceSample) -> dict:
    return {
        "benchmark": sample.benchmark.name, "subset": sample.subset, "task_type": sample.get_task_type_display(),
        "transcription": sample.transcription, "answer": sample.answer, "aliases": sample.aliases,
    }


def describe_change(correction: Correction) -> str:
    if correction.kind == CorrectionKind.NEW_ANSWER:
        return f"replace the answer with {correction.proposed_answer!r}"
    if correction.kind == CorrectionKind.ADD_ALIASES:
        return "also accept " + ", ".join(repr(a) for a in correction.proposed_aliases)
    return "mark the question unanswerable as written (exclude the sample)"


def review_sample(run: ReviewRun, sample: SourceSample, *, job=None) -> str:
    """Reviewer then (for a proposal) meta-reviewer on one sample. Returns a short outcome. Budget and
    provider-refusal errors propagate so the job stops cleanly; an answer that needs attention is recorded."""
    review = GroundTruthReview.objects.filter(sample=sample).first()
    if review is None:
        try:
            result = call_agent(role=REVIEWER, prompt="ground_truth_review", variables=_variables(sample),
                                schema=ReviewerAnswer, job=job)
        except ProviderRejected:
            raise
        except AgentNeedsAttention as exc:
            recorded = _record_review(run, sample, outcome=ReviewOutcome.NEEDS_ATTENTION,
                                      attention_reason=exc.reason, reviewer_call=exc.call)
            return "reviewer needs attention" if recorded else "already reviewed by another run"
        answer = result.data
        review = _record_review(
            run, sample, answer=answer, reviewer_output=answer.model_dump(mode="json"), reviewer_call=result.call,
            outcome=ReviewOutcome.ANSWER_CONFIRMED if answer.verdict == "correct" else ReviewOutcome.CORRECTION_PROPOSED,
        )
        if review is None:
            return "already reviewed by another run"
    if review.outcome != ReviewOutcome.CORRECTION_PROPOSED:
        return "answer confirmed" if review.outcome == ReviewOutcome.ANSWER_CONFIRMED else "already reviewed"
    correction = Correction.objects.filter(review=review).first()
    if correction is None or correction.status not in (CorrectionStatus.PROPOSED, CorrectionStatus.NEEDS_ATTENTION):
        return "already reviewed"
    return _meta_review(run, correction, job=job)


def _record_review(run, sample, *, answer: ReviewerAnswer | None = None, **fields) -> GroundTruthReview | None:
    """The reviewer's verdict and (for an error) the proposal, together; None when a concurrent run got there
    first (one review per sample is a database constraint)."""
    try:
        with transaction.atomic():
            review = GroundTruthReview.objects.create(sample=sample, run=run, **fields)
            if answer is not None and answer.verdict == "error":
                Correction.objects.create(
                    review=review, sample=sample, kind=answer.correction_kind,
                    proposed_answer=(answer.new_answer or "").strip() if answer.correction_kind == "new_answer" else "",
                    proposed_aliases=[a.strip() for a in answer.added_aliases if a.strip()]
                    if answer.correction_kind == "add_aliases" else [],
                    reviewer_rationale=answer.rationale,
                )
    except IntegrityError:
        return None
    return review


def _meta_review(run: ReviewRun, correction: Correction, *, job=None) -> str:
    sample = correction.sample
    variables = _variables(sample) | {"change": describe_change(correction)}
    try:
        result = call_agent(role=META_REVIEWER, prompt="ground_truth_meta_review", variables=variables,
                            schema=MetaReviewerAnswer, job=job)
    except ProviderRejected:
        raise
    except AgentNeedsAttention as exc:
        Correction.objects.filter(pk=correction.pk).update(
            status=CorrectionStatus.NEEDS_ATTENTION, attention_reason=exc.reason, meta_call=exc.call,
            updated_at=timezone.now(),
        )
        return "meta-reviewer needs attention"
    verdict = result.data.verdict
    if verdict == MetaVerdict.CONFIRM:
        status = CorrectionStatus.CONFIRMED
    elif run.on_unresolved == UnresolvedPolicy.EXPERT:
        status = CorrectionStatus.NEEDS_EXPERT
    else:
        status = CorrectionStatus.REJECTED if verdict == MetaVerdict.REJECT else CorrectionStatus.UNRESOLVED
    record_meta_verdict(
        correction=correction, status=status, meta_verdict=verdict, meta_rationale=result.data.rationale,
        meta_output=result.data.model_dump(mode="json"), meta_call=result.call,
    )
    return f"correction {status}"


def record_meta_verdict(*, correction: Correction, status: str, **verdict) -> None:
    """The meta-reviewer's judgement and the status it leads to. A correction sent to an expert is pushed into
    the expert inbox (apps.consultations) in the same transaction, so it is never in one without the other."""
    with transaction.atomic():
        Correction.objects.filter(pk=correction.pk).update(
            status=status, attention_reason="", updated_at=timezone.now(), **verdict
        )
        correction.refresh_from_db()
        if status == CorrectionStatus.NEEDS_EXPERT:
            consultations.raise_ground_truth_question(correction=correction, change=describe_change(correction))


def retry_needing_attention(*, benchmark: SourceBenchmark) -> int:
    """Forget reviews whose agent answer needed attention so the next run asks again. Returns how many."""
    with transaction.atomic():
        reviews = GroundTruthReview.objects.filter(sample__benchmark=benchmark, outcome=ReviewOutcome.NEEDS_ATTENTION)
        count = reviews.count()
        reviews.delete()
        count += Correction.objects.filter(
            sample__benchmark=benchmark, status=CorrectionStatus.NEEDS_ATTENTION
        ).update(status=CorrectionStatus.PROPOSED, attention_reason="")
    return count



def overturn_correction(*, correction: Correction, acting_user, to_status: str, note: str) -> CorrectionDecision:
    """An admin's decision over the agents' (confirm a rejected correction, or reject a confirmed one).
    Recorded with the admin's name; the agents' outputs stay as they were."""
    bounded(note, field="note", limit=limits.NOTE)
    if to_status not in (CorrectionStatus.CONFIRMED, CorrectionStatus.REJECTED):
        raise InvalidInput(gettext("an admin can set a correction to confirmed or rejected"), field="to_status")
    to_status = CorrectionStatus(to_status)
    if not note.strip():
        raise InvalidInput(gettext("say why you overturn the agents' decision"), field="note")
    return _decide(correction, user=acting_user, decided_as="admin", to_status=to_status, note=note)


def resolve_correction_by_expert(*, correction: Correction, acting_user, accept: bool, note: str = "") -> CorrectionDecision:
    """An expert's answer to a correction sent to them: accept applies it, otherwise the sample is excluded.
    (A decided inbox question reaches it through apps.consultations.hooks.ground_truth_decided.)"""
    bounded(note, field="note", limit=limits.NOTE)
    if correction.status != CorrectionStatus.NEEDS_EXPERT:
        raise Conflict(gettext(
            "this correction is %(status)s, not waiting for an expert"
        ) % {"status": correction.get_status_display().lower()})
    to_status = CorrectionStatus.CONFIRMED if accept else CorrectionStatus.REJECTED
    return _decide(correction, user=acting_user, decided_as="expert", to_status=to_status, note=note)


def on_ground_truth_decided(sender, *, correction, acting_user, accept: bool, note: str, **_) -> None:
    """Receiver of apps.consultations.hooks.ground_truth_decided (connected in TransferConfig.ready)."""
    resolve_correction_by_expert(correction=correction, acting_user=acting_user, accept=accept, note=note)


def _decide(correction: Correction, *, user, decided_as: str, to_status: str, note: str) -> CorrectionDecision:
    with transaction.atomic():
        locked = Correction.objects.select_for_update().get(pk=correction.pk)
        if locked.status == to_status:
            raise Conflict(gettext(
                "the correction is already %(status)s"
            ) % {"status": locked.get_status_display().lower()})
        if locked.status in (CorrectionStatus.PROPOSED, CorrectionStatus.NEEDS_ATTENTION) and decided_as == "admin":
            raise Conflict(gettext("the meta-reviewer has not judged this correction yet"))
        decision = CorrectionDecision.objects.create(
            correction=locked, decided_by=user, decided_as=decided_as, from_status=locked.status,
            to_status=to_status, note=note.strip(),
        )
        locked.status = to_status
        locked.save(update_fields=["status", "updated_at"])
    correction.refresh_from_db()
    return decision
