"""Writes of the consultation loop. Each function is one transaction and records what it did in the round's
audit trail (RoundEvent). Agent steps (analysis, questions, codification) live in apps.consultations.agent_steps
and call back into the functions here to store what the agents answered; this module starts them only as jobs
by kind (the re-analysis after a publication), so it never imports agent_steps."""

import re

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from apps.consultations import hooks, rulebooks
from apps.consultations.models import (
    ANALYSIS_JOB,
    NEEDS_ATTENTION,
    UNDECIDED,
    AnalysisResult,
    DecisionQuestion,
    DraftStatus,
    ExpertAnswer,
    QuestionOption,
    QuestionOrigin,
    QuestionStatus,
    Round,
    RoundEvent,
    RoundStatus,
    Rulebook,
    RuleDraft,
)
from apps.consultations.selectors import latest_results, scope_samples
from apps.core import limits
from apps.core.errors import Conflict, InvalidInput
from apps.core.limits import bounded
from apps.jobs.services import start_job


def record_event(*, round: Round | None, kind: str, message: str, acting_user=None, data: dict | None = None) -> None:
    if round is not None:
        RoundEvent.objects.create(round=round, kind=kind, message=message, actor=acting_user, data=data or {})


# --- Rounds ----------------------------------------------------------------------------------------------


@transaction.atomic
def create_round(
    *, rulebook: Rulebook, acting_user=None, scope: dict | None = None, max_questions: int | None = None,
    lead_expert=None, is_demo: bool = False,
) -> Round:
    rulebook = Rulebook.objects.select_for_update().get(pk=rulebook.pk)
    base = rulebook.latest_version()
    if base is None:
        raise Conflict(gettext(
            "%(rulebook)s has no version yet; load the rulebook files first"
        ) % {"rulebook": rulebook})
    if rulebook.rounds.exclude(status=RoundStatus.CLOSED).exists():
        raise Conflict(gettext(
            "%(rulebook)s already has a round in progress; close it before starting another"
        ) % {"rulebook": rulebook})
    limit = settings.CONSULTATION_MAX_QUESTIONS
    max_questions = max_questions or limit
    if not 1 <= max_questions <= limit:
        raise InvalidInput(gettext("max_questions must be between 1 and %(limit)s") % {"limit": limit}, field="max_questions")
    round = Round.objects.create(
        rulebook=rulebook,
        number=rulebook.rounds.count() + 1,
        base_version=base,
        scope={"subsets": list((scope or {}).get("subsets") or []), "task_types": list((scope or {}).get("task_types") or [])},
        max_questions=max_questions,
        lead_expert=lead_expert,
        is_demo=is_demo,
        created_by=acting_user,
    )
    record_event(
        round=round, kind="created",
        message=f"Round {round.number} opened on {base}" + (" (demo data)" if is_demo else ""),
        acting_user=acting_user, data={"scope": round.scope, "max_questions": max_questions},
    )
    return round


def set_round_status(*, round: Round, status: str, acting_user=None, message: str = "") -> None:
    Round.objects.filter(pk=round.pk).update(status=status)
    round.status = status
    if message:
        record_event(round=round, kind=f"status:{status}", message=message, acting_user=acting_user)


# --- Analysis results ------------------------------------------------------------------------------------


@transaction.atomic
def record_analysis(
    *, round: Round, sample, version, action: str, cited_rule_ids: list[str] | None = None, reason: str = "",
    agent_call_id: int | None = None, job=None,
) -> AnalysisResult:
    """Store one sample's analysis under one version. A result is never overwritten; only a
    needs-attention placeholder (no real analysis) is replaced when the step is retried."""
    AnalysisResult.objects.filter(sample=sample, version=version, action=NEEDS_ATTENTION).delete()
    return AnalysisResult.objects.create(
        sample=sample, version=version, round=round, action=action, cited_rule_ids=list(cited_rule_ids or []),
        reason=reason, agent_call_id=agent_call_id, job=job,
    )


# --- Questions -------------------------------------------------------------------------------------------


@transaction.atomic
def create_question(
    *, round: Round | None, title: str, decision_needed: str, options: list[dict], recommendation: str = "",
    recommendation_why: str = "", samples=(), examples=(), rules_touched=(), required_experts: int = 1,
    origin: str = QuestionOrigin.ANALYSIS, agent_call_id: int | None = None, correction=None, acting_user=None,
) -> DecisionQuestion:
    """A decision question with 2-4 options. `samples` are the affected samples, `examples` the few shown in
    full (a subset of them)."""
    if not 2 <= len(options) <= 4:
        raise InvalidInput(gettext("a question needs two to four options"), field="options")
    keys = [o["key"] for o in options]
    if len(set(keys)) != len(keys):
        raise InvalidInput(gettext("option keys must be distinct"), field="options")
    if recommendation and recommendation not in keys:
        raise InvalidInput(gettext(
            "the recommendation %(recommendation)r is not one of the options %(keys)s"
        ) % {"recommendation": recommendation, "keys": keys}, field="recommendation")
    if required_experts < 1:
        raise InvalidInput(gettext("a question needs at least one expert"), field="experts")
    if round is not None:
        round = Round.objects.select_for_update().get(pk=round.pk)
        if round.questions.count() >= round.max_questions:
            raise Conflict(gettext(
                "%(round)s already has its maximum of %(max_questions)s questions"
            ) % {"round": round, "max_questions": round.max_questions})
        number = round.questions.count() + 1
    else:
        number = DecisionQuestion.objects.filter(round=None).count() + 1
    question = DecisionQuestion.objects.create(
        round=round, number=number, origin=origin, title=title[:300], decision_needed=decision_needed,
        recommendation=recommendation, recommendation_why=recommendation_why, rules_touched=list(rules_touched),
        required_experts=required_experts, agent_call_id=agent_call_id, correction=correction,
    )
    QuestionOption.objects.bulk_create(
        QuestionOption(question=question, key=o["key"], label=o["label"][:300], effect=o.get("effect", "")) for o in options
    )
    samples = list(samples)
    question.affected_samples.set(samples)
    question.example_samples.set([s for s in examples if s in samples] or samples[: settings.CONSULTATION_EXAMPLES_PER_QUESTION])
    record_event(
        round=round, kind="question_raised", message=f"Q{number} raised: {title} ({len(samples)} samples)", acting_user=acting_user,
        data={"question": question.pk, "samples": [s.pk for s in samples], "origin": origin},
    )
    return question


# --- Expert answers --------------------------------------------------------------------------------------


def _option(question: DecisionQuestion, option) -> QuestionOption | None:
    if option in (None, ""):
        return None
    if isinstance(option, QuestionOption):
        if option.question_id != question.pk:
            raise InvalidInput(gettext("that option belongs to another question"), field="option")
        return option
    found = question.options.filter(pk=option).first() if str(option).isdigit() and len(str(option)) <= 18 else None
    found = found or question.options.filter(key=str(option)).first()
    if found is None:
        # Conflict, not InvalidInput: a question's options are its state, which no request schema can list.
        raise Conflict(gettext(
            "question %(number)s has no option %(option)r"
        ) % {"number": question.number, "option": option}, code="no_such_option")
    return found


def _check_confidence(confidence) -> int | None:
    if confidence in (None, ""):
        return None
    try:
        value = int(confidence)
    except (TypeError, ValueError):
        raise InvalidInput(gettext("confidence must be a whole number from 1 to 5"), field="confidence") from None
    if not 1 <= value <= 5:
        raise InvalidInput(gettext("confidence must be from 1 to 5"), field="confidence")
    return value


@transaction.atomic
def save_answer_draft(*, question: DecisionQuestion, acting_user, option=None, text: str = "", comment: str = "", confidence=None) -> ExpertAnswer:
    """Autosave while the expert types. A submitted answer is final and is not touched: the same draft arriving
    after it (the autosave a click on Submit fires as the field loses focus) changes nothing, a different one is
    refused."""
    _bound_answer(text, comment)
    question = DecisionQuestion.objects.select_for_update().get(pk=question.pk)
    answer = ExpertAnswer.objects.filter(question=question, expert=acting_user).first()
    if answer and answer.is_submitted:
        chosen = _option(question, option)
        if answer.option_id == (chosen.pk if chosen else None) and answer.text == (text or "").strip():
            return answer
        raise Conflict(gettext("you have already submitted your answer to this question"))
    if question.status != QuestionStatus.OPEN:
        raise Conflict(gettext("this question is no longer open"))
    answer = answer or ExpertAnswer(question=question, expert=acting_user)
    answer.option = _option(question, option)
    answer.text = text or ""
    answer.comment = comment or ""
    answer.confidence = _check_confidence(confidence)
    answer.save()
    return answer


def _bound_answer(text, comment) -> None:
    bounded(text, field="text", limit=limits.COMMENT)
    bounded(comment, field="comment", limit=limits.COMMENT)


@transaction.atomic
def submit_answer(*, question: DecisionQuestion, acting_user, option=None, text: str = "", comment: str = "", confidence=None) -> ExpertAnswer:
    """Submit an expert's answer. Submitting the same answer again changes nothing (idempotent); a different
    answer after submitting is refused. When the question has the answers it needs it is decided if they
    agree, and goes to the admin or lead expert when they do not."""
    _bound_answer(text, comment)
    question = DecisionQuestion.objects.select_for_update().get(pk=question.pk)
    option_obj = _option(question, option)
    text = (text or "").strip()
    if bool(option_obj) == bool(text):
        raise InvalidInput(gettext("choose one option or write your own answer (not both)"), field="option")
    if question.origin == QuestionOrigin.GROUND_TRUTH and not option_obj:
        raise Conflict(gettext("a ground-truth question is answered with one of its options"), code="options_only")
    confidence = _check_confidence(confidence)
    existing = ExpertAnswer.objects.filter(question=question, expert=acting_user).first()
    if existing and existing.is_submitted:
        if existing.option_id == (option_obj.pk if option_obj else None) and existing.text == text:
            return existing
        raise Conflict(gettext("you have already submitted a different answer to this question"))
    if question.status != QuestionStatus.OPEN:
        raise Conflict(gettext("this question is no longer open"))
    answer = existing or ExpertAnswer(question=question, expert=acting_user)
    answer.option, answer.text, answer.comment, answer.confidence = option_obj, text, comment or "", confidence
    answer.submitted_at = timezone.now()
    answer.save()
    record_event(
        round=question.round, kind="answer_submitted",
        message=f"{acting_user} answered Q{question.number}: " + (f"option {option_obj.key}" if option_obj else f"own answer \u201c{text[:120]}\u201d"),
        acting_user=acting_user, data={"question": question.pk, "answer": answer.pk, "confidence": confidence},
    )
    submitted = list(question.answers.filter(submitted_at__isnull=False).select_related("option"))
    if len(submitted) >= question.required_experts:
        if len({a.choice_key for a in submitted}) == 1:
            _decide(question, option=submitted[0].option, text=submitted[0].text, by=None if len(submitted) > 1 else acting_user)
            if question.origin == QuestionOrigin.GROUND_TRUTH:
                _apply_ground_truth_decision(question, user=acting_user)
        else:
            question.status = QuestionStatus.DISPUTED
            question.save(update_fields=["status"])
            record_event(
                round=question.round, kind="disputed",
                message=f"Q{question.number}: the {len(submitted)} experts disagree; waiting for the admin or lead expert",
                data={"question": question.pk, "answers": [a.choice_key for a in submitted]},
            )
    return answer


def _decide(question: DecisionQuestion, *, option, text: str, by, note: str = "") -> None:
    question.status = QuestionStatus.DECIDED
    question.decided_option = option
    question.decided_text = "" if option else text
    question.decided_by = by
    question.decided_at = timezone.now()
    question.settlement_note = note
    question.save(update_fields=["status", "decided_option", "decided_text", "decided_by", "decided_at", "settlement_note"])
    who = f" by {by}" if by else " (the experts agree)"
    record_event(
        round=question.round, kind="decided", message=f"Q{question.number} decided{who}: {question.decision_label}",
        acting_user=by, data={"question": question.pk, "note": note},
    )


@transaction.atomic
def settle_question(*, question: DecisionQuestion, acting_user, option=None, text: str = "", note: str = "") -> DecisionQuestion:
    """The admin or the round's lead expert settles a disagreement."""
    bounded(text, field="text", limit=limits.COMMENT)
    bounded(note, field="note", limit=limits.NOTE)
    question = DecisionQuestion.objects.select_for_update().get(pk=question.pk)
    if question.status != QuestionStatus.DISPUTED:
        raise Conflict(gettext("only a question the experts disagree on can be settled"))
    option_obj = _option(question, option)
    text = (text or "").strip()
    if bool(option_obj) == bool(text):
        raise InvalidInput(gettext("choose one option or write the decision (not both)"), field="option")
    if question.origin == QuestionOrigin.GROUND_TRUTH and not option_obj:
        raise InvalidInput(gettext("a ground-truth question is settled with one of its options"), field="option")
    _decide(question, option=option_obj, text=text, by=acting_user, note=note)
    if question.origin == QuestionOrigin.GROUND_TRUTH:
        _apply_ground_truth_decision(question, user=acting_user)
    return question


@transaction.atomic
def withdraw_question(*, question: DecisionQuestion, acting_user, reason: str) -> DecisionQuestion:
    """An admin takes a question back (badly put, or nobody can answer it). Its samples stay undecided, so
    re-analysis and the next round see them again."""
    bounded(reason, field="reason", limit=limits.NOTE)
    question = DecisionQuestion.objects.select_for_update().get(pk=question.pk)
    if question.status not in (QuestionStatus.OPEN, QuestionStatus.DISPUTED):
        raise Conflict(gettext("only an open or disputed question can be withdrawn"))
    if not reason.strip():
        raise InvalidInput(gettext("say why the question is withdrawn"), field="reason")
    question.status = QuestionStatus.WITHDRAWN
    question.settlement_note = reason.strip()
    question.save(update_fields=["status", "settlement_note"])
    record_event(round=question.round, kind="withdrawn", message=f"Q{question.number} withdrawn by {acting_user}: {reason.strip()}", acting_user=acting_user,
                 data={"question": question.pk})
    return question


# --- Closing a round, codification, the next version -----------------------------------------------------


@transaction.atomic
def close_round(*, round: Round, acting_user) -> Round:
    """Stop taking answers; every question must be decided (or withdrawn). Codification follows."""
    round = Round.objects.select_for_update().get(pk=round.pk)
    if round.status != RoundStatus.ANSWERING:
        raise Conflict(gettext(
            "%(round)s is %(status)s, not waiting for answers"
        ) % {"round": round, "status": round.get_status_display().lower()})
    pending = round.questions.filter(status__in=[QuestionStatus.OPEN, QuestionStatus.DISPUTED])
    if pending.exists():
        numbers = ", ".join(f"Q{q.number}" for q in pending)
        raise Conflict(gettext("%(numbers)s still wait for an answer or a settlement") % {"numbers": numbers})
    set_round_status(round=round, status=RoundStatus.CODIFYING, acting_user=acting_user, message="Answers closed; codifying the decisions into rules")
    return round


@transaction.atomic
def store_rule_draft(*, question: DecisionQuestion, change: str, rule_id: str, category: str, statement: str,
                     examples: list, scope: dict, agent_call_id: int | None = None) -> RuleDraft:
    draft, _ = RuleDraft.objects.update_or_create(
        question=question,
        defaults={
            "change": change, "rule_id": rule_id, "category": category, "statement": statement,
            "drafted_statement": statement, "examples": examples, "scope": scope,
            "status": DraftStatus.DRAFTED, "reason": "", "agent_call_id": agent_call_id,
        },
    )
    record_event(round=question.round, kind="rule_drafted", message=f"Rule {rule_id} drafted ({change}) from Q{question.number}",
                 data={"question": question.pk, "draft": draft.pk})
    return draft


def mark_draft_needs_attention(*, question: DecisionQuestion, reason: str) -> RuleDraft:
    draft, _ = RuleDraft.objects.update_or_create(
        question=question, defaults={"status": DraftStatus.NEEDS_ATTENTION, "reason": reason}
    )
    record_event(round=question.round, kind="needs_attention", message=f"Q{question.number}: rule drafting needs attention: {reason}",
                 data={"question": question.pk})
    return draft


@transaction.atomic
def approve_draft(*, draft: RuleDraft, acting_user, statement: str | None = None, category: str | None = None,
                  rule_id: str | None = None, examples: list | None = None) -> RuleDraft:
    bounded(statement, field="statement", limit=limits.QUESTION)
    draft = RuleDraft.objects.select_for_update(of=("self",)).select_related("question__round").get(pk=draft.pk)
    if draft.status not in (DraftStatus.DRAFTED, DraftStatus.NEEDS_ATTENTION):
        raise Conflict(gettext(
            "this draft is already %(status)s"
        ) % {"status": draft.get_status_display().lower()})
    if draft.question.round and draft.question.round.status != RoundStatus.CODIFYING:
        raise Conflict(gettext("the round is not codifying any more"))
    edited = False
    for name, value in [("statement", statement), ("category", category), ("rule_id", rule_id), ("examples", examples)]:
        if value is not None and value != getattr(draft, name):
            setattr(draft, name, value)
            edited = True
    if not (draft.rule_id and draft.category and (draft.statement or draft.change == "retire")):
        raise InvalidInput(gettext("a rule needs an id, a category and a statement"))
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", draft.rule_id) or len(draft.rule_id) > 80:
        raise InvalidInput(gettext("a rule id uses lower-case letters, digits, dots, dashes and underscores (at most 80)"), field="rule_id")
    if any(not isinstance(e, dict) or set(e) != {"input", "output"} for e in draft.examples):
        raise InvalidInput(gettext("each example needs an input and an expected output"), field="examples")
    draft.edited = draft.edited or edited
    draft.status = DraftStatus.APPROVED
    draft.approved_by, draft.approved_at = acting_user, timezone.now()
    draft.save()
    record_event(round=draft.question.round, kind="rule_approved",
                 message=f"Rule {draft.rule_id} approved by {acting_user}" + (" after editing" if edited else ""), acting_user=acting_user,
                 data={"draft": draft.pk, "question": draft.question_id})
    return draft


@transaction.atomic
def reject_draft(*, draft: RuleDraft, acting_user, reason: str = "") -> RuleDraft:
    bounded(reason, field="reason", limit=limits.NOTE)
    draft = RuleDraft.objects.select_for_update(of=("self",)).select_related("question__round").get(pk=draft.pk)
    draft.status, draft.reason = DraftStatus.REJECTED, reason
    draft.approved_by, draft.approved_at = acting_user, timezone.now()
    draft.save()
    record_event(round=draft.question.round, kind="rule_rejected", message=f"Rule {draft.rule_id or '(draft)'} rejected by {acting_user}: {reason}",
                 acting_user=acting_user, data={"draft": draft.pk})
    return draft


def draft_rule_content(draft: RuleDraft) -> dict:
    """The rule as it goes into the next version, with its provenance: the question, the decision, the
    experts who answered, who approved it and when."""
    question = draft.question
    answers = question.answers.filter(submitted_at__isnull=False).select_related("expert", "option")
    return {
        "id": draft.rule_id,
        "category": draft.category,
        "statement": draft.statement,
        "examples": [{"input": e["input"], "output": e["output"]} for e in draft.examples],
        "scope": {"task_types": list(draft.scope.get("task_types", [])), "subsets": list(draft.scope.get("subsets", []))},
        "provenance": {
            "source": "consultation",
            "round": question.round.number if question.round else None,
            "question": question.number,
            "question_title": question.title,
            "decision": question.decision_label,
            "answered_by": [f"{a.expert.username} ({a.submitted_at:%Y-%m-%d})" for a in answers],
            "decided_by": question.decided_by.username if question.decided_by else "experts in agreement",
            "decided_at": f"{question.decided_at:%Y-%m-%d}" if question.decided_at else "",
            "approved_by": draft.approved_by.username if draft.approved_by else "",
            "approved_at": f"{draft.approved_at:%Y-%m-%d}" if draft.approved_at else "",
            "edited_on_approval": draft.edited,
        },
    }


@transaction.atomic
def publish_round_version(*, round: Round, acting_user):
    """Approved rules form the next rulebook version; the round closes and re-analysis starts on commit.
    Returns the new version, or None when no rule was approved (the round closes all the same)."""
    round = Round.objects.select_for_update().get(pk=round.pk)
    if round.status != RoundStatus.CODIFYING:
        raise Conflict(gettext("%(round)s is not codifying") % {"round": round})
    drafts = list(RuleDraft.objects.filter(question__round=round).select_related("question"))
    waiting = [d for d in drafts if d.status in (DraftStatus.DRAFTED, DraftStatus.NEEDS_ATTENTION)]
    if waiting:
        raise Conflict(gettext(
            "%(waiting_count)s drafted rule(s) still wait for approval or rejection"
        ) % {"waiting_count": len(waiting)})
    decided = round.questions.filter(status=QuestionStatus.DECIDED).count()
    if len(drafts) < decided:
        raise Conflict(gettext("some decided questions have no drafted rule yet; run codification first"))
    approved = [d for d in drafts if d.status == DraftStatus.APPROVED]
    if not approved:
        # Nothing to add: the round closes without a new version (a copy of the old one would only be noise).
        Round.objects.filter(pk=round.pk).update(status=RoundStatus.CLOSED, closed_at=timezone.now())
        record_event(round=round, kind="closed", message="Round closed without a new version: no rule was approved", acting_user=acting_user)
        return None
    version = rulebooks.publish_version(
        round.rulebook,
        additions=[draft_rule_content(d) for d in approved if d.change != "retire"],
        removals=[d.rule_id for d in approved if d.change == "retire"],
        notes=f"Round {round.number}: {len(approved)} rule(s) from {decided} decided question(s).",
        source=f"consultation round {round.number}",
        user=acting_user,
    )
    round.resulting_version = version
    round.status = RoundStatus.CLOSED
    round.closed_at = timezone.now()
    round.save(update_fields=["resulting_version", "status", "closed_at"])
    record_event(round=round, kind="version_published", message=f"{version} published with {len(approved)} new or changed rule(s)",
                 acting_user=acting_user, data={"version": version.number})
    _start_reanalysis(round, user=acting_user)
    return version


def _start_reanalysis(round: Round, *, user=None):
    """After a version is published: the samples the round's questions affected, and every sample still
    undecided, analysed again under the new version (a job, queued when the publication commits)."""
    affected = set(
        DecisionQuestion.affected_samples.through.objects.filter(decisionquestion__round=round).values_list(
            "sourcesample_id", flat=True
        )
    )
    ids = list(scope_samples(round.scope).values_list("pk", flat=True))
    undecided = {pk for pk, r in latest_results(ids, rulebook=round.rulebook).items() if r.action in (UNDECIDED, NEEDS_ATTENTION)}
    record_event(round=round, kind="reanalysis", message=f"Re-analysis of {len(affected | undecided)} samples under {round.resulting_version} started", acting_user=user)
    return start_job(
        kind=ANALYSIS_JOB, title=f"Re-analyse {round} under {round.resulting_version}",
        params={"round": round.pk, "version": round.resulting_version_id, "sample_ids": sorted(affected | undecided),
                "raise_questions": False},
        acting_user=user,
    )


# --- Ground-truth corrections that need an expert ------------------------------------------------------

GROUND_TRUTH_ACCEPT, GROUND_TRUTH_REJECT = "A", "B"


def raise_ground_truth_question(*, correction, change: str) -> DecisionQuestion:
    """The inbox question for a correction transfer sent to an expert (`change` says what it would do, in
    transfer's words); transfer calls it in the same transaction that sends the correction."""
    sample = correction.sample
    original = sample.answer + (f" (aliases: {', '.join(sample.aliases)})" if sample.aliases else "")
    return create_question(
        round=None,
        origin=QuestionOrigin.GROUND_TRUTH,
        title=f"Ground truth of {sample.benchmark}/{sample.subset} {sample.source_id}: {change}?",
        decision_needed=(
            f"The reviewer agent proposes to {change}. Its reason: {correction.reviewer_rationale}\n"
            f"The meta-reviewer ({correction.get_meta_verdict_display() or 'no verdict'}) did not confirm it: "
            f"{correction.meta_rationale or '(no reason given)'}\n"
            f"The imported answer is: {original or '(empty)'}. Does the correction follow from the question as written?"
        ),
        options=[
            {"key": GROUND_TRUTH_ACCEPT, "label": "Apply the correction",
             "effect": "The sample's effective answer becomes the corrected one (the imported answer is kept on record)."},
            {"key": GROUND_TRUTH_REJECT, "label": "Reject the correction",
             "effect": "The correction is rejected and the sample is excluded from the transfer."},
        ],
        samples=[sample],
        correction=correction,
    )


def _apply_ground_truth_decision(question: DecisionQuestion, *, user) -> None:
    """A decided ground-truth question resolves its correction in apps.transfer (recorded there with the
    expert's or settler's name), through the ground_truth_decided hook that app connects."""
    correction = question.correction
    accept = question.decided_option is not None and question.decided_option.key == GROUND_TRUTH_ACCEPT
    note = f"Decided through question G{question.number}" + (f": {question.settlement_note}" if question.settlement_note else "")
    hooks.send_ground_truth_decided(question=question, correction=correction, acting_user=user, accept=accept,
                                    note=note)  # the receiver refuses with Conflict
