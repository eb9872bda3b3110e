"""The three agent steps of a round, each through apps.agents (the only door to LLMs):

1. analysis (role analyst, prompt consultation_analysis): one call per sample; the answer must name an
   action of the rulebook kind and cite rule ids of the version, or say undecided and why;
2. questions (role question_writer, prompt consultation_questions): group the undecided samples by what
   would settle them and write at most the round's remaining number of questions;
3. codification (role analyst, prompt rule_codification): one rule drafted per decided question.

Each step runs as a job (progress, cancel, resume: finished items are skipped). The answer
schemas are built per call so that an invented action, rule id or sample id fails validation and is sent back
to the model with the error (call_agent retries once, then raises AgentNeedsAttention)."""

from typing import Literal

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext
from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from apps.agents.services import AgentNeedsAttention, ProviderRejected, call_agent
from apps.consultations import services
from apps.consultations.models import (
    ANALYSIS_JOB,
    CODIFY_JOB,
    NEEDS_ATTENTION,
    QUESTIONS_JOB,
    UNDECIDED,
    AnalysisResult,
    QuestionStatus,
    Round,
    RoundStatus,
    RulebookVersion,
    RuleDraft,
)
from apps.consultations.selectors import (
    actions_for,
    latest_results,
    sample_fields,
    scope_samples,
    undecided_results,
)
from apps.core.errors import Conflict
from apps.jobs.services import results_in_parallel, start_job
from apps.sources.models import SourceSample

QUESTIONS_SAMPLE_LIMIT = 200  # undecided samples shown to the question writer in one call


def _call_agent(**kwargs):
    """call_agent, with a refusal by the provider itself (bad key, unknown model) turned into a stop: retrying
    other items would not help, so the job fails visibly and can be resumed once the admin fixed it."""
    try:
        return call_agent(**kwargs)
    except ProviderRejected as exc:
        raise ProviderStopped(exc.reason) from exc


class ProviderStopped(Exception):
    pass


def _rules_payload(version: RulebookVersion) -> list[dict]:
    return [
        {k: v for k, v in rule.content().items() if k != "provenance"} for rule in version.rules.all()
    ]


# --- 1. Analysis -----------------------------------------------------------------------------------------


def analysis_schema(version: RulebookVersion) -> type[BaseModel]:
    actions = tuple(a for a, _ in actions_for(version.rulebook.kind, version)) + (UNDECIDED,)
    rule_ids = tuple(version.rules.values_list("rule_id", flat=True))

    def _check(self):
        if self.action == UNDECIDED and not self.reason.strip():
            raise ValueError("an undecided sample needs the reason the rulebook does not settle it")
        if self.action != UNDECIDED and not self.cited_rule_ids and self.action != "direct_translation":
            raise ValueError("cite the rule ids the action relies on")
        return self

    return create_model(
        "ConsultationAnalysis",
        __config__=ConfigDict(extra="forbid"),
        __validators__={"check": model_validator(mode="after")(_check)},
        action=(Literal[actions], ...),
        cited_rule_ids=(list[Literal[rule_ids]], Field(default_factory=list)) if rule_ids else (list[str], Field(default_factory=list, max_length=0)),
        reason=(str, ""),
    )


def samples_to_analyse(round: Round, version: RulebookVersion, *, only_ids=None):
    """Samples in scope with no analysis under `version` yet, and whose current analysis (if any, under an
    older version) is undecided: a decided result stays valid until a question touches it."""
    qs = scope_samples(round.scope)
    if only_ids is not None:
        qs = qs.filter(pk__in=only_ids)
    done = set(
        AnalysisResult.objects.filter(version=version).exclude(action=NEEDS_ATTENTION).values_list("sample_id", flat=True)
    )
    ids = [pk for pk in qs.values_list("pk", flat=True) if pk not in done]
    if only_ids is None:
        current = latest_results(ids, rulebook=round.rulebook)
        ids = [pk for pk in ids if pk not in current or current[pk].action in (UNDECIDED, NEEDS_ATTENTION)]
    return ids


def start_analysis(*, round: Round, acting_user=None):
    """Analyse the round's scope under its base version, as a job."""
    with transaction.atomic():
        round = Round.objects.select_for_update().get(pk=round.pk)
        if round.status not in (RoundStatus.DRAFT, RoundStatus.ANALYSING):
            raise Conflict(gettext("%(round)s is past its analysis") % {"round": round})
        services.set_round_status(round=round, status=RoundStatus.ANALYSING, acting_user=acting_user, message=f"Analysis started under {round.base_version}")
        return start_job(
            kind=ANALYSIS_JOB, title=f"Analyse {round} under {round.base_version}",
            params={"round": round.pk, "version": round.base_version_id, "raise_questions": True}, acting_user=acting_user,
        )


def run_analysis(job, progress) -> dict:
    """The analysis job: every sample not analysed under this version yet (so a resumed job skips what is
    done), by up to CONSULTATION_ANALYSIS_WORKERS analysts at once (the paper ran six sub-agents)."""
    round = Round.objects.select_related("rulebook").get(pk=job.params["round"])
    version = RulebookVersion.objects.select_related("rulebook").get(pk=job.params["version"])
    ids = samples_to_analyse(round, version, only_ids=job.params.get("sample_ids"))
    already = AnalysisResult.objects.filter(version=version, job=job).exclude(action=NEEDS_ATTENTION).count()
    progress.set_total(already + len(ids), message=f"{len(ids)} samples to analyse under {version}")
    progress.set_done(already)
    context = {
        "schema": analysis_schema(version),
        "variables": {
            "rulebook": {"slug": version.rulebook.slug, "kind": version.rulebook.kind,
                         "language": version.rulebook.language, "version": version.number},
            "rules": _rules_payload(version),
            "actions": [{"key": k, "label": v} for k, v in actions_for(version.rulebook.kind, version)],
        },
    }
    samples = list(SourceSample.objects.filter(pk__in=ids).order_by("pk"))
    outcomes: list[str] = []

    def analyse(sample) -> str:
        return analyse_sample(round, version, sample, job=job, **context)

    # Several analysts at once (the paper ran six sub-agents); the provider limit still caps calls in flight.
    analysed = results_in_parallel(
        samples, analyse, workers=settings.CONSULTATION_ANALYSIS_WORKERS, name="consultation-analysis"
    )
    for sample, action in analysed:
        outcomes.append(action)
        progress.advance(message=f"sample {sample.pk}: {action}")
    outcome = {"analysed": len(outcomes), "needs_attention": outcomes.count(NEEDS_ATTENTION), "version": version.number}
    if job.params.get("raise_questions"):
        outcome["questions"] = raise_questions(round=round, job=job)
    return outcome


def analyse_sample(round: Round, version: RulebookVersion, sample, *, job, schema, variables) -> str:
    """One analyst call for one sample, stored as its result under `version`. Returns the action."""
    try:
        result = _call_agent(
            role="analyst", prompt="consultation_analysis", schema=schema, job=job,
            variables={**variables, "sample": sample_fields(sample)},
        )
    except AgentNeedsAttention as exc:
        call = getattr(exc, "call", None)
        services.record_analysis(round=round, sample=sample, version=version, action=NEEDS_ATTENTION,
                                 reason=str(getattr(exc, "reason", exc)), job=job, agent_call_id=call.pk if call else None)
        return NEEDS_ATTENTION
    data = result.data
    services.record_analysis(
        round=round, sample=sample, version=version, action=data.action, cited_rule_ids=list(data.cited_rule_ids),
        reason=data.reason, agent_call_id=result.call.pk, job=job,
    )
    return data.action


# --- 2. Questions ----------------------------------------------------------------------------------------


class OptionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: Literal["A", "B", "C", "D"]
    label: str = Field(min_length=1, max_length=300)
    effect: str = Field(min_length=1)


def questions_schema(allowed_ids: set[int], rule_ids: set[str], remaining: int) -> type[BaseModel]:
    class QuestionSpec(BaseModel):
        model_config = ConfigDict(extra="forbid")
        title: str = Field(min_length=1, max_length=300)
        decision_needed: str = Field(min_length=1)
        options: list[OptionSpec] = Field(min_length=2, max_length=4)
        recommendation: str
        recommendation_why: str = Field(min_length=1)
        sample_ids: list[int] = Field(min_length=1)
        example_sample_ids: list[int] = Field(default_factory=list, max_length=5)
        rules_touched: list[str] = Field(default_factory=list)

        @model_validator(mode="after")
        def _consistent(self):
            keys = [o.key for o in self.options]
            if len(set(keys)) != len(keys):
                raise ValueError("option keys must be distinct")
            if self.recommendation not in keys:
                raise ValueError(f"recommendation must be one of the option keys {keys}")
            unknown = set(self.sample_ids) - allowed_ids
            if unknown:
                raise ValueError(f"sample ids {sorted(unknown)} are not among the undecided samples given")
            if not set(self.example_sample_ids) <= set(self.sample_ids):
                raise ValueError("example_sample_ids must be among the question's sample_ids")
            bad_rules = set(self.rules_touched) - rule_ids
            if bad_rules:
                raise ValueError(f"rules_touched {sorted(bad_rules)} are not rule ids of this version")
            return self

    class QuestionsAnswer(BaseModel):
        model_config = ConfigDict(extra="forbid")
        questions: list[QuestionSpec] = Field(max_length=remaining)

        @model_validator(mode="after")
        def _disjoint(self):
            seen: set[int] = set()
            for q in self.questions:
                if seen & set(q.sample_ids):
                    raise ValueError("each sample belongs to one question only")
                seen |= set(q.sample_ids)
            return self

    return QuestionsAnswer


def start_question_writing(*, round: Round, acting_user=None):
    """Raise (more) questions from the undecided samples, as a job: an agent call never runs in a request."""
    if round.status not in (RoundStatus.ANALYSING, RoundStatus.ANSWERING):
        raise Conflict(gettext("%(round)s takes no new questions now") % {"round": round})
    return start_job(kind=QUESTIONS_JOB, title=f"Raise questions for {round}", params={"round": round.pk}, acting_user=acting_user)


def run_question_writing(job, progress) -> dict:
    round = Round.objects.get(pk=job.params["round"])
    progress.set_total(1, message="Writing questions from the undecided samples")
    raised = raise_questions(round=round, job=job, acting_user=job.created_by)
    progress.advance(message=f"{raised} question(s) raised")
    return {"questions": raised}


def raise_questions(*, round: Round, job=None, acting_user=None) -> int:
    """Group the round's undecided samples into decision questions (agent role question_writer)."""
    round = Round.objects.select_related("rulebook", "base_version").get(pk=round.pk)
    remaining = round.max_questions - round.questions.count()
    undecided = undecided_results(round)[:QUESTIONS_SAMPLE_LIMIT]
    if remaining <= 0 or not undecided:
        services.set_round_status(round=round, status=RoundStatus.ANSWERING, acting_user=acting_user,
                                  message="No undecided samples left to ask about" if not undecided else "Question limit reached")
        return 0
    version = round.base_version
    samples = {s.pk: s for s in SourceSample.objects.filter(pk__in=[r.sample_id for r in undecided])}
    schema = questions_schema(set(samples), set(version.rules.values_list("rule_id", flat=True)), remaining)
    try:
        result = _call_agent(
            role="question_writer", prompt="consultation_questions", schema=schema, job=job,
            variables={
                "rulebook": {"slug": round.rulebook.slug, "kind": round.rulebook.kind, "version": version.number},
                "rules": _rules_payload(version), "max_questions": remaining,
                "actions": [{"key": k, "label": v} for k, v in actions_for(round.rulebook.kind, version)],
                "undecided": [{**sample_fields(samples[r.sample_id]), "reason": r.reason} for r in undecided],
            },
        )
    except AgentNeedsAttention as exc:
        services.record_event(round=round, kind="needs_attention", message=f"Question writing needs attention: {getattr(exc, 'reason', exc)}")
        services.set_round_status(round=round, status=RoundStatus.ANSWERING, acting_user=acting_user)
        return 0
    for spec in result.data.questions:
        services.create_question(
            round=round, title=spec.title, decision_needed=spec.decision_needed,
            options=[o.model_dump() for o in spec.options], recommendation=spec.recommendation,
            recommendation_why=spec.recommendation_why, samples=[samples[i] for i in spec.sample_ids],
            examples=[samples[i] for i in spec.example_sample_ids], rules_touched=spec.rules_touched,
            agent_call_id=result.call.pk,
        )
    services.set_round_status(round=round, status=RoundStatus.ANSWERING, acting_user=acting_user,
                              message=f"{len(result.data.questions)} question(s) raised; open for experts")
    return len(result.data.questions)


# --- 3. Codification -------------------------------------------------------------------------------------


class ExampleSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input: str
    output: str


class ScopeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task_types: list[str] = Field(default_factory=list)
    subsets: list[str] = Field(default_factory=list)


def codification_schema(existing_ids: set[str]) -> type[BaseModel]:
    class DraftedRule(BaseModel):
        model_config = ConfigDict(extra="forbid")
        change: Literal["add", "amend", "retire"]
        rule_id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80)
        category: str = Field(min_length=1, max_length=80)
        statement: str = Field(min_length=1)
        examples: list[ExampleSpec] = Field(default_factory=list)
        scope: ScopeSpec = Field(default_factory=ScopeSpec)

        @model_validator(mode="after")
        def _ids(self):
            if self.change == "add" and self.rule_id in existing_ids:
                raise ValueError(f"rule id {self.rule_id!r} exists already; use change=amend or a new id")
            if self.change in ("amend", "retire") and self.rule_id not in existing_ids:
                raise ValueError(f"cannot {self.change} {self.rule_id!r}: no such rule in the current version")
            return self

    return DraftedRule


def start_codification(*, round: Round, acting_user=None):
    return start_job(kind=CODIFY_JOB, title=f"Codify the decisions of {round}", params={"round": round.pk}, acting_user=acting_user)


def run_codification(job, progress) -> dict:
    round = Round.objects.select_related("rulebook", "base_version").get(pk=job.params["round"])
    version = round.base_version
    questions = list(
        round.questions.filter(status=QuestionStatus.DECIDED).select_related("decided_option").prefetch_related("options")
    )
    drafted = set(RuleDraft.objects.filter(question__round=round).exclude(status="needs_attention").values_list("question_id", flat=True))
    progress.set_total(len(questions), message=f"{len(questions)} decisions to codify")
    progress.set_done(len(drafted & {q.pk for q in questions}))
    schema = codification_schema(set(version.rules.values_list("rule_id", flat=True)))
    rules = _rules_payload(version)
    problems = 0
    for question in questions:
        if question.pk in drafted:
            continue
        examples = [sample_fields(s) for s in question.example_samples.all()]
        answers = [
            {"expert": a.expert.username, "option": a.option.key if a.option else None, "text": a.text,
             "comment": a.comment, "confidence": a.confidence}
            for a in question.answers.filter(submitted_at__isnull=False).select_related("expert", "option")
        ]
        try:
            result = _call_agent(
                role="analyst", prompt="rule_codification", schema=schema, job=job,
                variables={
                    "rulebook": {"slug": round.rulebook.slug, "kind": round.rulebook.kind, "version": version.number},
                    "rules": rules,
                    "question": {"title": question.title, "decision_needed": question.decision_needed,
                                 "options": [{"key": o.key, "label": o.label, "effect": o.effect} for o in question.options.all()],
                                 "rules_touched": question.rules_touched},
                    "decision": question.decision_label, "settlement_note": question.settlement_note,
                    "answers": answers, "examples": examples,
                },
            )
        except AgentNeedsAttention as exc:
            problems += 1
            services.mark_draft_needs_attention(question=question, reason=str(getattr(exc, "reason", exc)))
        else:
            d = result.data
            services.store_rule_draft(
                question=question, change=d.change, rule_id=d.rule_id, category=d.category, statement=d.statement,
                examples=[e.model_dump() for e in d.examples], scope=d.scope.model_dump(), agent_call_id=result.call.pk,
            )
        progress.advance(message=f"Q{question.number} codified")
    return {"drafted": len(questions) - problems, "needs_attention": problems}


def close_round_and_codify(*, round: Round, acting_user):
    with transaction.atomic():
        services.close_round(round=round, acting_user=acting_user)
        return start_codification(round=round, acting_user=acting_user)
