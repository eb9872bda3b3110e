"""Stage 2, hypertranslation at scale (seed 000, section 3.1.2): translation runs under a pinned, published
hypertranslation rulebook version. The translator agent gives the action, the Korean transcription, answer
and aliases, the rule ids it applied and (for a deletion or replacement) why; multiple-choice labels become
ㄱ/ㄴ/ㄷ/ㄹ, Korean aliases are deduplicated. For an IFEval or BBH sample it also gives the Korean item's
checker data (apps.transfer.checker_data), validated against the checkers that will score it: an answer
whose checker data cannot be checked as written is sent back once with the problems, then the sample needs
attention. Outputs are never overwritten: a re-translation or a person's correction is a new Translation
row, and the current one is derived (apps.transfer.selectors)."""

import re
import unicodedata
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext
from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from apps.agents.services import (
    AgentNeedsAttention,
    ProviderRejected,
    agent_config,
    call_agent,
    require_configured,
)
from apps.consultations import services as consultations
from apps.consultations.models import AnalysisResult, RoundStatus, RulebookKind, RulebookVersion
from apps.consultations.selectors import scope_samples
from apps.core.actors import actor
from apps.core.errors import Conflict, InvalidInput
from apps.jobs.models import ATTENTION_KEY
from apps.jobs.services import needing_attention, results_in_parallel, start_stage_run
from apps.sources.catalogue import TaskType
from apps.sources.models import SourceSample
from apps.transfer import checker_data, selectors
from apps.transfer.hypertranslation import selectors as stage_selectors
from apps.transfer.models import (
    Translation,
    TranslationAction,
    TranslationRun,
)
from apps.transfer.normalization.services import published_version

TRANSLATOR_ROLE = "translator"
AGENT_ACTIONS = ("direct_translation", "format_conversion", "equivalent_replacement", "deletion", "undecided")
NEEDS_REASON = {"deletion", "equivalent_replacement", "undecided"}
MC_LABELS = {"A": "ㄱ", "B": "ㄴ", "C": "ㄷ", "D": "ㄹ", "E": "ㅁ"}
MC_RULE = "ht-mc-labels"
# An option label as benchmarks write it: "A.", "A)", "(A)" (not the article in "A cat").
_LABEL_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])(?:\(([A-E])\)|([A-E])(?=[.)]\s|[.)]$|:\s))")
_LABEL_ANSWER = re.compile(r"^\(?([A-E])\)?\.?$")


class RemovedInstruction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    instruction_id: str = Field(description="the English item's instruction a rule removes, e.g. change_case:english_lowercase")
    rule: str = Field(description="the id of the rule that removes it, e.g. ht-case-removal")


def korean_checker_problems(instruction_id_list: list, kwargs: list) -> list[str]:
    """The Korean item's instructions checked against the checkers that will score it."""
    # apps.evaluation.scoring is a pure module (no models, no database): validating with the scorer's own
    # registry is the one way to know the item can be checked as written. Imported on first use: IFEval's
    # checkers load nltk and langdetect (seconds).
    from apps.evaluation.scoring.ifeval import problems

    return problems(instruction_id_list, kwargs, language="ko")


def checker_of(sample: SourceSample, answer, version_rule_ids: set[str]) -> tuple[dict, list[str]]:
    """(the Korean item's checker data, its problems) from a translator's answer (or a person's edit)."""
    return checker_data.korean_checker(
        sample, instruction_id_list=answer.instruction_id_list, kwargs=answer.kwargs,
        removed_instructions=[r.model_dump() if isinstance(r, BaseModel) else r for r in answer.removed_instructions],
        choices=answer.choices_ko, answer=answer.answer_ko, rule_ids=version_rule_ids, validate=korean_checker_problems)


def translator_schema(version: RulebookVersion, sample: SourceSample | None = None, *,
                      rule_ids: frozenset[str] | None = None) -> type[BaseModel]:
    """What the translator must answer; rule ids must exist in the pinned version (an invented id fails
    validation, so call_agent sends the answer back once with the reason, then it needs attention). Given the
    sample, the answer's checker data is validated for it too (apps.transfer.checker_data)."""
    if rule_ids is None:
        rule_ids = frozenset(version.rules.values_list("rule_id", flat=True))

    def _check(self):
        invented = [r for r in self.rule_ids if r not in rule_ids]
        if invented:
            raise ValueError(f"rule id(s) {', '.join(invented)} do not exist in {version}; cite only ids of its rules")
        if self.action in NEEDS_REASON and not self.reason.strip():
            raise ValueError(f"action {self.action} needs a short reason")
        if self.action not in ("deletion", "undecided") and not self.transcription_ko.strip():
            raise ValueError(f"action {self.action} needs the Korean transcription")
        if sample is not None and self.action not in ("deletion", "undecided"):
            _checker, problems = checker_of(sample, self, set(rule_ids))
            if problems:
                raise ValueError("the Korean item's checker data cannot be checked as written: " + "; ".join(problems))
        return self

    return create_model(
        "TranslatorAnswer",
        __config__=ConfigDict(extra="forbid"),
        __validators__={"check": model_validator(mode="after")(_check)},
        action=(str, Field(pattern="^(" + "|".join(AGENT_ACTIONS) + ")$",
                           description="direct_translation, format_conversion, equivalent_replacement, deletion, or undecided")),
        transcription_ko=(str, Field("", description="the Korean transcription (empty for a deletion)")),
        answer_ko=(str, Field("", description="the Korean answer (ㄱ/ㄴ/ㄷ/ㄹ for multiple choice)")),
        aliases_ko=(list[str], Field(default_factory=list, description="other accepted Korean answers, reconstructed")),
        rule_ids=(list[str], Field(default_factory=list, description="ids of the rules applied")),
        kept_terms=(list[str], Field(default_factory=list, description="English terms kept verbatim")),
        reason=(str, Field("", description="why deleted or replaced; for undecided, what the rulebook does not settle")),
        instruction_id_list=(list[str], Field(default_factory=list, description=(
            "instruction-following (IFEval) samples only: the Korean item's instructions, the English ones in their "
            "order without those a rule removes"))),
        kwargs=(list[dict[str, Any]], Field(default_factory=list, description=(
            "IFEval only: one object per instruction of instruction_id_list, its arguments for the Korean item "
            "(keywords, forbidden words, end phrases, postscript markers and section splitters translated; a "
            "letter mapped to a Korean jamo)"))),
        removed_instructions=(list[RemovedInstruction], Field(default_factory=list, description=(
            "IFEval only: the English instructions a rule removes from the Korean item, each with that rule's id"))),
        choices_ko=(list[str], Field(default_factory=list, description=(
            "a BBH item redesigned as a Korean grammar judgment only: its options in label order (ㄱ, ㄴ)"))),
    )


def map_mc_labels(text: str) -> str:
    """A/B/C/D option labels to ㄱ/ㄴ/ㄷ/ㄹ (the translator is asked to; this makes sure)."""
    def repl(m):
        if m.group(1):
            return f"({MC_LABELS[m.group(1)]})"
        return MC_LABELS[m.group(2)]
    return _LABEL_IN_TEXT.sub(repl, text)


def map_mc_answer(answer: str) -> str:
    m = _LABEL_ANSWER.match(answer.strip())
    return MC_LABELS[m.group(1)] if m else answer.strip()


def _alias_key(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFC", text)).casefold()


def dedupe_aliases(answer: str, aliases: list[str]) -> list[str]:
    """Korean aliases without repeats: several English aliases often collapse to one Korean form."""
    seen = {_alias_key(answer)}
    kept = []
    for alias in aliases:
        key = _alias_key(alias)
        if key and key not in seen:
            seen.add(key)
            kept.append(unicodedata.normalize("NFC", alias.strip()))
    return kept


# --- runs -----------------------------------------------------------------------------------------------

def start_translation_run(*, benchmark: str, subset: str = "", limit: int | None = None,
                          version_number: int | None = None, budget_usd: float | None = None,
                          acting_user=None) -> TranslationRun:
    """A run of the whole (or a subset, or the first N included samples) under a published version."""
    bench = selectors.benchmark_named(benchmark)
    if limit is not None and limit < 1:
        raise InvalidInput(gettext("limit must be at least 1"), field="limit")
    version = published_version(RulebookKind.HYPERTRANSLATION, number=version_number)
    run = TranslationRun(benchmark=bench, subset=subset or "", limit=limit, rulebook_version=version)
    if not translation_scope(run):
        raise InvalidInput(gettext(
            "%(benchmark)s%(subset)s has no included samples to translate"
        ) % {"benchmark": benchmark, "subset": '/' + subset if subset else ''},
                           field="subset")
    return _launch(run, budget_usd=budget_usd, acting_user=acting_user)


def continue_translation_run(*, run: TranslationRun, version_number: int | None = None,
                             budget_usd: float | None = None, acting_user=None) -> TranslationRun:
    """A new run over the same samples under a newer published version (or the same one, to retry what is
    left): only the samples whose current translation is stale (an older version) or undecided (or needs
    attention) are translated again."""
    version = published_version(RulebookKind.HYPERTRANSLATION, number=version_number)
    if version.rulebook_id != run.rulebook_version.rulebook_id or version.number < run.rulebook_version.number:
        raise InvalidInput(gettext(
            "continue under a version no older than %(rulebook_version)s"
        ) % {"rulebook_version": run.rulebook_version}, field="version")
    follow = TranslationRun(benchmark=run.benchmark, subset=run.subset, limit=run.limit, rulebook_version=version,
                            continues=run)
    return _launch(follow, budget_usd=budget_usd, acting_user=acting_user)


def _launch(run: TranslationRun, *, budget_usd, acting_user) -> TranslationRun:
    require_configured(TRANSLATOR_ROLE)
    user = actor(acting_user)

    def create() -> TranslationRun:
        run.translator_model = ":".join(agent_config(TRANSLATOR_ROLE))
        run.created_by = user
        run.save()
        return run

    return start_stage_run(lock=run.benchmark, runs=TranslationRun.objects.filter(benchmark=run.benchmark),
                           stage="translation run", create=create, kind="transfer.translate",
                           params={} if budget_usd is None else {"budget_usd": budget_usd}, acting_user=user)


def translation_scope(run: TranslationRun) -> list[int]:
    """Sample ids the run translates, in import order. A first run: included samples (excluded ones from
    the ground-truth stage are skipped), the first `limit`. A continued run: those of the first run's scope
    whose current translation is not under this version and is stale, undecided or needs attention."""
    root = run
    while root.continues_id:
        root = root.continues
    ids = list(selectors.included_samples(root.benchmark, root.subset or None).order_by("pk")
               .values_list("pk", flat=True))
    if root.limit:
        ids = ids[: root.limit]
    if run.continues_id is None:
        return ids
    current = {t.sample_id: t for t in selectors.current_translations(benchmark=run.benchmark).filter(sample_id__in=ids)}
    redo = []
    for pk in ids:
        t = current.get(pk)
        if t is None or t.action in (TranslationAction.UNDECIDED, TranslationAction.NEEDS_ATTENTION):
            redo.append(pk)
        elif t.rulebook_version.number < run.rulebook_version.number:
            redo.append(pk)  # stale
    return redo


def run_translation(job, progress) -> dict:
    """The job. Resuming skips samples this run already translated (a needs-attention one is tried again)."""
    run = TranslationRun.objects.select_related("benchmark", "rulebook_version__rulebook").get(pk=job.params["run_id"])
    require_configured(TRANSLATOR_ROLE)
    scope = translation_scope(run)
    done = set(Translation.objects.filter(run=run).exclude(action=TranslationAction.NEEDS_ATTENTION)
               .values_list("sample_id", flat=True))
    todo = [pk for pk in scope if pk not in done]
    total = len(scope) + len(done - set(scope))
    progress.set_total(total, message=f"{total - len(todo)} of {total} samples already translated")
    progress.set_done(total - len(todo))
    rule_ids = frozenset(run.rulebook_version.rules.values_list("rule_id", flat=True))
    rules = [{k: v for k, v in r.content().items() if k not in ("provenance", "data")}
             for r in run.rulebook_version.rules.all()]
    samples = list(SourceSample.objects.filter(pk__in=todo).select_related("benchmark", "review", "correction")
                   .order_by("pk"))
    results = results_in_parallel(samples, lambda s: translate_sample(run, s, rule_ids=rule_ids, rules=rules, job=job),
                                  workers=settings.TRANSFER_TRANSLATE_WORKERS, name="translate")
    for sample, translation in results:
        progress.advance(message=f"{sample.subset}/{sample.source_id}: {translation.get_action_display()}")
    result = {"report": stage_selectors.translation_report(run)}
    # Those whose current translation is this run's failure (a sample that kept a usable one does not count).
    failed = selectors.current_translations(benchmark=run.benchmark).filter(
        run=run, action=TranslationAction.NEEDS_ATTENTION).count()
    if failed:
        url = reverse("transfer:translation_run", args=[run.pk]) + f"?action={TranslationAction.NEEDS_ATTENTION}"
        result[ATTENTION_KEY] = needing_attention(failed, url)
    return result


def translate_sample(run: TranslationRun, sample: SourceSample, *, rule_ids: frozenset[str], rules,
                     job=None) -> Translation:
    """One sample under the run's version; a failed or invalid answer (its checker data included) is
    recorded as needing attention. Budget and provider refusals propagate so the job stops cleanly."""
    effective = selectors.effective_answer(sample)
    version = run.rulebook_version
    schema = translator_schema(version, sample, rule_ids=rule_ids)
    base = dict(sample=sample, run=run, rulebook_version=version, source_transcription=sample.transcription,
                source_answer=effective.answer, source_aliases=effective.aliases)
    english_checker = checker_data.source_checker(sample)
    variables = {
        "rulebook": {"slug": version.rulebook.slug, "version": version.number}, "rules": rules,
        "sample": {"benchmark": sample.benchmark.name, "subset": sample.subset, "task_type": sample.task_type,
                   "transcription": sample.transcription, "answer": effective.answer, "aliases": effective.aliases,
                   **({"checker": english_checker} if english_checker else {})},
    }
    # Asked again under the same version (a continued run retrying an undecided sample): a fresh answer,
    # not the cached one.
    again = Translation.objects.filter(sample=sample, rulebook_version=version).exists()
    try:
        result = call_agent(role=TRANSLATOR_ROLE, prompt="translator", variables=variables, schema=schema, job=job,
                            use_cache=not again)
    except ProviderRejected:
        raise
    except AgentNeedsAttention as exc:
        return Translation.objects.create(**base, action=TranslationAction.NEEDS_ATTENTION,
                                          attention_reason=exc.reason, agent_call=exc.call)
    answer = result.data
    cited = list(dict.fromkeys(answer.rule_ids))
    transcription, answer_ko = answer.transcription_ko.strip(), answer.answer_ko.strip()
    kept = answer.action not in ("deletion", "undecided")
    if sample.task_type == TaskType.MULTIPLE_CHOICE and kept:
        mapped_text, mapped_answer = map_mc_labels(transcription), map_mc_answer(answer_ko or effective.answer)
        if (mapped_text, mapped_answer) != (transcription, answer_ko) and MC_RULE in rule_ids:
            cited.append(MC_RULE)
        transcription, answer_ko = mapped_text, mapped_answer
    checker = checker_of(sample, answer, set(rule_ids))[0] if kept else {}
    cited += checker_data.rules_applied(checker, english_checker, rule_ids)
    translation = Translation.objects.create(
        **base, action=answer.action, transcription_ko=transcription, answer_ko=answer_ko,
        aliases_ko=dedupe_aliases(answer_ko, answer.aliases_ko), rule_ids=list(dict.fromkeys(cited)),
        kept_terms=[t for t in answer.kept_terms if t.strip()], reason=answer.reason.strip(), agent_call=result.call,
        checker=checker,
    )
    if translation.action == TranslationAction.UNDECIDED:
        feed_undecided(translation)
    return translation


def feed_undecided(translation: Translation) -> int:
    """An undecided sample goes to the consultation loop: each open round of the rulebook whose base
    version is the translation's and whose scope holds the sample records it as undecided, so the round's
    question writer picks it up. Returns how many rounds took it."""
    rounds = translation.rulebook_version.rounds.filter(status__in=[RoundStatus.DRAFT, RoundStatus.ANALYSING])
    fed = 0
    for round in rounds:
        if AnalysisResult.objects.filter(sample=translation.sample, version=translation.rulebook_version).exists():
            break
        if not scope_samples(round.scope).filter(pk=translation.sample_id).exists():
            continue
        consultations.record_analysis(
            round=round, sample=translation.sample, version=translation.rulebook_version, action="undecided",
            cited_rule_ids=translation.rule_ids, agent_call_id=translation.agent_call_id,
            reason=f"translation run #{translation.run_id}: {translation.reason}",
        )
        fed += 1
    return fed


# --- corrections by a person ----------------------------------------------------------------------------

def correct_translation(*, translation: Translation, acting_user, transcription_ko: str, answer_ko: str,
                        aliases_ko: list[str], note: str = "", checker: dict | None = None) -> Translation:
    """A person's edit: a new row naming the editor and the row it corrects (the agent's stays readable).
    The Korean item's checker data (`checker`, as Translation.checker holds it; None keeps the corrected
    row's) is validated as the translator's is: problems are refused, each named."""
    if acting_user is None or not acting_user.pk:
        raise InvalidInput(gettext("a correction names its editor"), field="acting_user")
    current = selectors.current_translations().filter(sample_id=translation.sample_id).first()
    if current is None or current.pk != translation.pk:
        raise Conflict(gettext("this is not the sample's current translation any more; open the current one and edit that"))
    if not transcription_ko.strip():
        raise InvalidInput(gettext("write the Korean transcription"), field="transcription_ko")
    action = translation.action
    if action in (TranslationAction.UNDECIDED, TranslationAction.NEEDS_ATTENTION, TranslationAction.DELETION):
        action = TranslationAction.DIRECT_TRANSLATION  # a person wrote the Korean: the sample is kept
    answer_ko = answer_ko.strip()
    if translation.sample.task_type == TaskType.MULTIPLE_CHOICE:
        answer_ko = map_mc_answer(answer_ko)
        transcription_ko = map_mc_labels(transcription_ko)
    rule_ids = set(translation.rulebook_version.rules.values_list("rule_id", flat=True))
    edited = _edited_checker(translation.checker if checker is None else checker, answer_ko)
    checker, problems = checker_of(translation.sample, edited, rule_ids)
    if problems:
        raise InvalidInput("the Korean item's checker data cannot be checked as written: " + "; ".join(problems),
                           field="checker")
    return Translation.objects.create(
        sample_id=translation.sample_id, run=translation.run, rulebook_version=translation.rulebook_version,
        action=action, source_transcription=translation.source_transcription,
        source_answer=translation.source_answer, source_aliases=translation.source_aliases,
        transcription_ko=transcription_ko.strip(), answer_ko=answer_ko,
        aliases_ko=dedupe_aliases(answer_ko, aliases_ko),
        rule_ids=list(dict.fromkeys(translation.rule_ids + checker_data.rules_applied(
            checker, checker_data.source_checker(translation.sample), rule_ids))),
        kept_terms=translation.kept_terms, reason=translation.reason, corrects=translation,
        edited_by=acting_user, edit_note=note.strip(), checker=checker,
    )


def _edited_checker(given: dict, answer_ko: str) -> SimpleNamespace:
    """A person's checker data in the shape of a translator's answer, refused when it has another shape."""
    def strings(value) -> bool:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)

    ids, kwargs = given.get("instruction_id_list", []), given.get("kwargs", [])
    removed, choices = given.get("removed_instructions", []), given.get("choices", [])
    if not strings(ids) or not strings(choices) or not isinstance(kwargs, list):
        raise InvalidInput(gettext("instruction_id_list and choices are lists of strings, kwargs a list of objects"), field="checker")
    if not isinstance(removed, list) or not all(
            isinstance(r, dict) and set(r) == {"instruction_id", "rule"} and strings(list(r.values())) for r in removed):
        raise InvalidInput(gettext('removed_instructions: each entry is {"instruction_id": ..., "rule": ...}'), field="checker")
    return SimpleNamespace(instruction_id_list=ids, kwargs=kwargs, removed_instructions=removed, choices_ko=choices,
                           answer_ko=answer_ko)
