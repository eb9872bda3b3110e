"""Stage 3, speech-friendly normalization: the deterministic normalizer (apps.transfer.normalizer) under a
published normalization rulebook version, the normalizer agent for the spans the rulebook marks as
context-dependent, validation, and normalization runs (jobs) over a benchmark's current translations."""

from collections import Counter
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.translation import gettext
from pydantic import BaseModel, Field

from apps.agents.models import AgentCall
from apps.agents.services import AgentNeedsAttention, NoProviderConfigured, ProviderRejected, call_agent
from apps.consultations.models import Rulebook, RulebookKind, RulebookVersion
from apps.core.actors import actor
from apps.core.errors import InvalidInput, NotFound
from apps.jobs.services import results_in_parallel, start_stage_run
from apps.transfer import normalizer, selectors
from apps.transfer.models import (
    NormalizationRun,
    NormalizationStatus,
    NormalizedText,
    Translation,
)

NORMALIZER_ROLE = "normalizer"


class SpanReading(BaseModel):
    index: int = Field(ge=1, description="the span's index as listed")
    reading: str = Field(min_length=1, description="how the span is said in this sentence, in Korean only")


class NormalizerAnswer(BaseModel):
    readings: list[SpanReading]


@dataclass
class NormalizationOutcome:
    text: str
    readings: list[dict] = field(default_factory=list)
    rules_fired: list[str] = field(default_factory=list)
    status: str = NormalizationStatus.OK
    attention_reason: str = ""
    used_agent: bool = False
    agent_call: AgentCall | None = None
    preserved: list[str] = field(default_factory=list)


def published_version(kind: str, *, language: str = "ko", number: int | None = None) -> RulebookVersion:
    """The latest published version of the language's rulebook of this kind (or the numbered one)."""
    rulebook = Rulebook.objects.filter(language=language, kind=kind).first()
    if rulebook is None:
        raise NotFound(gettext(
            "no %(language)s %(kind)s rulebook is loaded; run python manage.py load_rulebooks"
        ) % {"language": language, "kind": kind})
    version = rulebook.versions.filter(number=number).first() if number else rulebook.latest_version()
    if version is None:
        raise NotFound(f"{rulebook.slug} has no version {number}" if number else f"{rulebook.slug} has no version")
    return version


def normalize_text(text: str, *, version: RulebookVersion | None = None, preserve=(), use_agent: bool = True,
                   job=None) -> NormalizationOutcome:
    """The speech-ready reading of `text`: the deterministic normalizer, then (for context-dependent spans)
    the normalizer agent, then validation. Never raises for a bad reading: the outcome says what is wrong.
    Budget and provider refusals propagate (a job must stop on them)."""
    if len(text) > normalizer.MAX_CHARS:
        raise InvalidInput(gettext(
            "the text has %(text_count)s characters; the normalizer reads at most %(max_chars)s at once"
        ) % {"text_count": f"{len(text):,}", "max_chars": f"{normalizer.MAX_CHARS:,}"}, field="text")
    version = version or published_version(RulebookKind.NORMALIZATION)
    try:
        engine = normalizer.normalizer_for(version)
    except normalizer.MissingTables as exc:
        raise InvalidInput(gettext("%(version)s: %(exc)s") % {"version": version, "exc": exc}, field="rulebook_version") from None
    result = engine.normalize(text, preserve=tuple(preserve))
    outcome = NormalizationOutcome(text=result.text, readings=list(result.readings),
                                   rules_fired=list(result.rules_fired), preserved=list(result.preserved))
    problems = []
    if result.pending:
        if not use_agent:
            problems.append("context-dependent, left for the agent: " + ", ".join(p.span for p in result.pending))
        else:
            outcome.used_agent = True
            agent_problem = _ask_agent(result, version, outcome, job=job)
            if agent_problem:
                problems.append(agent_problem)
    problems += normalizer.validate(outcome.text, outcome.preserved)
    if problems:
        outcome.status = NormalizationStatus.NEEDS_ATTENTION
        outcome.attention_reason = "; ".join(dict.fromkeys(problems))
    return outcome


def _ask_agent(result: normalizer.Normalized, version: RulebookVersion, outcome: NormalizationOutcome, *, job) -> str:
    """Fill the pending spans with the agent's readings (only those spans change). Returns a problem or ''."""
    spans = [{"index": i, "span": p.span, "kind": p.kind} for i, p in enumerate(result.pending, start=1)]
    rules = [{"id": r.rule_id, "statement": r.statement, "examples": r.examples}
             for r in version.rules.all() if r.rule_id in set(result.rules_fired) or r.category == "context_dependent"]
    variables = {"rulebook": {"slug": version.rulebook.slug, "version": version.number}, "rules": rules,
                 "text": result.text, "spans": spans}
    try:
        answer = call_agent(role=NORMALIZER_ROLE, prompt="normalizer", variables=variables, schema=NormalizerAnswer,
                            job=job)
    except ProviderRejected:
        raise
    except AgentNeedsAttention as exc:
        outcome.agent_call = exc.call
        return f"normalizer agent: {exc.reason}"
    except NoProviderConfigured as exc:
        return f"context-dependent spans need the normalizer agent: {exc}"
    outcome.agent_call = answer.call
    by_index = {r.index: r.reading.strip() for r in answer.data.readings}
    missing = [s["span"] for s in spans if s["index"] not in by_index]
    if missing:
        return "normalizer agent left unread: " + ", ".join(missing)
    text = result.text
    for i, pending in sorted(enumerate(result.pending, start=1), key=lambda item: -item[1].start):
        reading = by_index[i]
        bad = normalizer.validate(reading)
        if bad:
            return f"normalizer agent's reading of {pending.span!r} is not speakable ({'; '.join(bad)})"
        text = text[: pending.start] + reading + text[pending.end:]
        outcome.readings.append({"span": pending.span, "reading": reading, "rules": ["agent"], "agent": True})
    outcome.text = text
    return ""


# --- normalization runs ---------------------------------------------------------------------------------

def start_normalization_run(*, benchmark: str, subset: str = "", limit: int | None = None,
                            version_number: int | None = None, budget_usd: float | None = None,
                            acting_user=None) -> NormalizationRun:
    bench = selectors.benchmark_named(benchmark)
    if limit is not None and limit < 1:
        raise InvalidInput(gettext("limit must be at least 1"), field="limit")
    version = published_version(RulebookKind.NORMALIZATION, number=version_number)
    try:
        normalizer.normalizer_for(version)
    except normalizer.MissingTables as exc:
        raise InvalidInput(gettext("%(version)s: %(exc)s") % {"version": version, "exc": exc}, field="version") from None
    user = actor(acting_user)

    def create() -> NormalizationRun:
        return NormalizationRun.objects.create(benchmark=bench, subset=subset or "", limit=limit,
                                               rulebook_version=version, created_by=user)

    return start_stage_run(lock=bench, runs=NormalizationRun.objects.filter(benchmark=bench),
                           stage="normalization run", create=create, kind="transfer.normalize",
                           params={} if budget_usd is None else {"budget_usd": budget_usd}, acting_user=user)


def normalization_scope(run: NormalizationRun) -> list[Translation]:
    """The current translations the run normalizes: spoken (not deleted, settled) and of included samples."""
    qs = selectors.speakable_translations(benchmark=run.benchmark, subset=run.subset or None).order_by("sample_id")
    return list(qs[: run.limit] if run.limit else qs)


def run_normalization(job, progress) -> dict:
    """The job: normalize each translation in scope that has no normalized text under this version yet
    (a resumed run skips what is done; a new translation or version is normalized again)."""
    run = NormalizationRun.objects.select_related("benchmark", "rulebook_version__rulebook").get(pk=job.params["run_id"])
    scope = normalization_scope(run)
    done = set(NormalizedText.objects.filter(translation__in=scope, rulebook_version=run.rulebook_version)
               .values_list("translation_id", flat=True))
    todo = [t for t in scope if t.pk not in done]
    progress.set_total(len(scope), message=f"{len(scope) - len(todo)} of {len(scope)} already normalized")
    progress.set_done(len(scope) - len(todo))
    outcomes = results_in_parallel(todo, lambda t: normalize_translation(t, run=run, job=job),
                                   workers=settings.TRANSFER_NORMALIZE_WORKERS, name="normalize")
    for translation, row in outcomes:
        progress.advance(message=f"{translation.sample.subset}/{translation.sample.source_id}: {row.status}")
    return {"report": normalization_report(run)}


def normalize_translation(translation: Translation, *, run: NormalizationRun | None = None, job=None,
                          version: RulebookVersion | None = None) -> NormalizedText:
    version = version or run.rulebook_version
    outcome = normalize_text(translation.transcription_ko, version=version, preserve=translation.kept_terms, job=job)
    return NormalizedText.objects.create(
        sample_id=translation.sample_id, translation=translation, run=run, rulebook_version=version,
        source_text=translation.transcription_ko, text=outcome.text, readings=outcome.readings,
        rules_fired=outcome.rules_fired, status=outcome.status, attention_reason=outcome.attention_reason,
        used_agent=outcome.used_agent, agent_call=outcome.agent_call,
    )


def normalization_report(run: NormalizationRun) -> dict:
    """How many were normalized, needed the agent, failed validation, and the most frequent rules."""
    rows = list(run.outputs.values("status", "used_agent", "rules_fired"))
    rules = Counter(rule for row in rows for rule in row["rules_fired"])
    return {
        "normalized": len(rows),
        "needed_agent": sum(1 for r in rows if r["used_agent"]),
        "failed_validation": sum(1 for r in rows if r["status"] == NormalizationStatus.NEEDS_ATTENTION),
        "ok": sum(1 for r in rows if r["status"] == NormalizationStatus.OK),
        "top_rules": rules.most_common(10),
    }
