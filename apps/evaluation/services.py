"""What writes evaluations: models under evaluation, runs and their items, imported responses, the starts
of the collection and evaluation jobs, and the evaluation itself (rule-based scores, the LLM judge, subset
scores). Reads live in apps.evaluation.selectors (runs, items) and the leaderboard's own selectors.

    model = create_model(name="Qwen2.5-Omni", version="7B", acting_user=admin)
    run = create_run(model=model, release=kvoicebench, acting_user=admin)       # or source_benchmark=voicebench
    import_responses(run=run, source=path_or_bytes, name="qwen.jsonl", acting_user=admin)
    start_evaluation(run=run, acting_user=admin)                                  # a job: rules, judge, subsets
"""

import json
import logging
import re
from collections import defaultdict
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from pydantic import field_validator

from apps.agents.services import AgentNeedsAttention, ProviderRejected, agent_config
from apps.core.errors import ApplicationError, Conflict, FileProblem, InvalidInput
from apps.core.tabular import RowModel, parse_table, refuse
from apps.evaluation import judge
from apps.evaluation.models import (
    DEFAULT_DECODING,
    AnswerSource,
    EvalItem,
    EvaluatedModel,
    EvaluationRun,
    ItemScore,
    Language,
    RunStatus,
    ScoreMethod,
    SubsetScore,
)
from apps.evaluation.scoring import metric_for, score_response
from apps.jobs.services import results_in_parallel, start_job
from apps.releases.models import ReleaseKind, ReleaseStatus
from apps.transfer.models import SourceSample
from apps.transfer.selectors import effective_answer

log = logging.getLogger(__name__)

COLLECT_JOB = "evaluation.collect"
EVALUATE_JOB = "evaluation.evaluate"
KMMAU = "kmmau"
JUDGED_METRICS = ("open", "qa")  # the LLM judge scores these (open: only the judge; qa: judge beside the match)

ENDPOINT_PATTERN = r"^https?://[A-Za-z0-9._~:/?#@!$&'()*+,;=%\[\]-]+$"  # an http(s) URL in URL characters
_DECODING_LIMITS = {"max_tokens": (1, 131072), "temperature": (0.0, 2.0), "top_p": (0.0, 1.0)}


# --- models under evaluation -------------------------------------------------------------------------------
def clean_decoding(decoding: dict | None) -> dict:
    """The paper's decoding settings (Appendix E) overlaid with the given ones, each checked."""
    merged = dict(DEFAULT_DECODING)
    for key, value in (decoding or {}).items():
        if key not in _DECODING_LIMITS:
            raise InvalidInput(f"unknown decoding setting {key!r} (known: {', '.join(_DECODING_LIMITS)})", field="decoding")
        low, high = _DECODING_LIMITS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise InvalidInput(f"decoding {key} must be a number from {low} to {high}", field="decoding")
        merged[key] = int(value) if key == "max_tokens" else float(value)
    return merged


def create_model(*, name: str, version: str = "", answer_source: str | None = None, endpoint: str = "",
                 served_model: str = "", decoding: dict | None = None, description: str = "",
                 acting_user=None) -> EvaluatedModel:
    """A model under evaluation. Its answers are collected from `endpoint` (serving `served_model`) when one
    is given, else imported; the demo's scripted model says so with answer_source="demo"."""
    name, version = name.strip(), version.strip()
    if not name:
        raise InvalidInput("a model needs a name", field="name")
    answer_source = answer_source or (AnswerSource.ENDPOINT if endpoint else AnswerSource.IMPORTED)
    if answer_source not in AnswerSource.values:
        raise InvalidInput(f"answer source must be one of {', '.join(AnswerSource.values)}", field="answer_source")
    if endpoint and not re.match(ENDPOINT_PATTERN, endpoint):
        raise InvalidInput("the endpoint must be an http(s) URL, e.g. http://gpu-1:8000/v1", field="endpoint")
    if EvaluatedModel.objects.filter(name=name, version=version).exists():
        raise Conflict(f"a model {name} {version} exists already".replace("  ", " "), code="model_exists")
    return EvaluatedModel.objects.create(
        name=name, version=version, answer_source=answer_source, endpoint=endpoint, served_model=served_model,
        decoding=clean_decoding(decoding), description=description, created_by=acting_user,
    )


# --- runs and their items ----------------------------------------------------------------------------------
def item_id_of(subset: str, source_id: str) -> str:
    """The id a spoken-QA item has in a release and in a run on its source benchmark (so pairs line up)."""
    return f"{subset}/{source_id}"


def create_run(*, model: EvaluatedModel, release=None, source_benchmark=None, decoding: dict | None = None,
               acting_user=None) -> EvaluationRun:
    """One model on one benchmark, with a copy of the benchmark's items. A release (built or published) is
    read from its items: a spoken-QA release with audio is Korean (the transferred benchmark), one without
    is the English source after ground-truth correction; a KMMAU release is Korean. A source benchmark is
    English: its samples the ground-truth stage includes, with their effective answers."""
    if (release is None) == (source_benchmark is None):
        raise InvalidInput("choose one benchmark: a release or a source benchmark", field="release")
    if release is not None:
        if release.status not in (ReleaseStatus.BUILT, ReleaseStatus.PUBLISHED):
            raise Conflict(f"release {release} is {release.get_status_display().lower()}; evaluate a built release",
                           code="release_not_built")
        if release.kind not in (ReleaseKind.SPOKEN_QA, ReleaseKind.KMMAU):
            raise InvalidInput(f"a {release.get_kind_display()} release has no questions to answer", field="release")
        items, language, family = _release_items(release)
        name = release.name
    else:
        items, language, family = _source_items(source_benchmark), Language.ENGLISH, "spoken-qa"
        name = source_benchmark.name
    if not items:
        raise Conflict(f"{release or source_benchmark} has no items to evaluate", code="no_items")
    with transaction.atomic():
        run = EvaluationRun.objects.create(
            model=model, release=release, source_benchmark=source_benchmark, benchmark_name=name, family=family,
            language=language, answer_source=model.answer_source,
            decoding=clean_decoding(decoding if decoding is not None else model.decoding),
            item_count=len(items), created_by=acting_user,
        )
        for item in items:
            item.run = run
        EvalItem.objects.bulk_create(items, batch_size=2000)
    return run


def _release_items(release) -> tuple[list[EvalItem], str, str]:
    rows = list(release.items.order_by("item_id"))
    if release.kind == ReleaseKind.KMMAU:
        return [EvalItem(
            item_id=r.item_id, subset=r.row.get("capability") or r.config, metric=KMMAU,
            question=r.row.get("question", ""), answer=r.row.get("answer", ""), aliases=[],
            extra={"choices": list(r.row.get("choices") or [])}, audio=r.row.get("audio") or "",
            audio_sha256=_audio_sha(r), release_item=r,
        ) for r in rows], Language.KOREAN, "kmmau"
    # The Korean release carries audio; a release built before any translation is the English source, text only.
    korean = any(r.row.get("audio") for r in rows)
    # Each item's source sample (its raw record holds IFEval's kwargs, BBH's task): the benchmark the release
    # was built from, as its selection records.
    wanted = {(r.provenance.get("source") or {}).get("source_id") for r in rows}
    sources = {(s.subset, s.source_id): s for s in SourceSample.objects.filter(
        benchmark_id=release.selection.get("id") or 0, source_id__in=wanted)}
    items = []
    for r in rows:
        origin = r.provenance.get("source") or {}
        sample = sources.get((origin.get("subset"), origin.get("source_id")))
        subset = r.row.get("subset") or r.config
        items.append(EvalItem(
            item_id=r.item_id, subset=subset, metric=metric_for(subset), question=r.row.get("transcription", ""),
            answer=r.row.get("answer") or "", aliases=list(r.row.get("aliases") or []),
            extra=_checker_kwargs(sample.raw if sample else {}), audio=r.row.get("audio") or "",
            audio_sha256=_audio_sha(r), release_item=r, source_sample=sample,
        ))
    return items, (Language.KOREAN if korean else Language.ENGLISH), "spoken-qa"


def _audio_sha(release_item) -> str:
    audio = (release_item.provenance or {}).get("audio") or {}
    return audio.get("sha256", "") if isinstance(audio, dict) else ""


def _source_items(benchmark) -> list[EvalItem]:
    items = []
    for s in SourceSample.objects.filter(benchmark=benchmark).select_related("review", "correction").order_by("subset", "source_id"):
        effective = effective_answer(s)
        if not effective.included:
            continue
        items.append(EvalItem(
            item_id=item_id_of(s.subset, s.source_id), subset=s.subset, metric=metric_for(s.subset),
            question=s.transcription, answer=effective.answer, aliases=list(effective.aliases),
            extra=_checker_kwargs(s.raw), audio=s.audio_filename, source_sample=s,
        ))
    return items


def _checker_kwargs(raw: dict) -> dict:
    """What a checker reads from the source record besides the answer: IFEval's instruction_id_list and
    kwargs (the Korean item is checked with the same ones, read the Korean way by the scorer), and BBH's id
    or task (VoiceBench's id names the task, e.g. navigate_12, which decides how the answer is read)."""
    extra = {}
    for key in ("instruction_id_list", "kwargs", "id", "task"):
        if isinstance(raw, dict) and key in raw:
            extra[key] = raw[key]
    return extra


# --- importing responses -----------------------------------------------------------------------------------
class ResponseRow(RowModel):
    id: str
    response: str

    @field_validator("id")
    @classmethod
    def _id_not_blank(cls, value: str) -> str:
        if not value:
            raise ValueError("an id is required")
        return value

    @field_validator("response", mode="before")
    @classmethod
    def _response_is_text(cls, value):
        # A model answers in text: a JSON or Parquet number is a broken export, not the answer "42". (A CSV
        # cell is always text, kept as written.)
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            raise ValueError(f"a response is text, not {json.dumps(value)}")
        if isinstance(value, int | float):
            raise ValueError(f"a response is text, not the number {value}")
        kind = {dict: "an object", list: "a list"}.get(type(value), f"a {type(value).__name__} value")
        raise ValueError(f"a response is text, not {kind}")


def import_responses(*, run: EvaluationRun, source: Path | str | bytes, name: str | None = None,
                     acting_user=None) -> int:
    """Store a model's responses from a CSV, JSONL or Parquet file with `id` and `response` columns. The file
    is checked against the run's items first: an unknown id, a repeated id and every item left without a
    response are each named, and the whole file is refused (nothing written). An empty response is a real
    answer (the model said nothing) and is kept. Importing again replaces the responses and their scores."""
    run = _current_if_free(run)
    rows, problems = parse_table(source, ResponseRow, name=name, unique="id", blank_is_missing=False)
    file = name or (Path(source).name if not isinstance(source, bytes) else "upload")
    known = dict(EvalItem.objects.filter(run=run).values_list("item_id", "pk"))
    answered: dict[int, tuple[int, str]] = {}
    for line, row in rows:
        pk = known.get(row.id)
        if pk is None:
            unit = "row" if file.lower().endswith(".parquet") else "line"
            problems.append(FileProblem(file=file, line=line, unit=unit, field="id",
                                        reason=f"{row.id!r} is not an item of {run.benchmark_name}"))
            continue
        answered[pk] = (line, row.response)
    if not any(p.line is None for p in problems):  # the file was read: name every item it leaves unanswered
        missing = [item_id for item_id, pk in known.items() if pk not in answered]
        problems += [FileProblem(file=file, field="id", reason=f"no response for item {item_id!r}") for item_id in sorted(missing)]
    refuse(problems)
    now = timezone.now()
    with transaction.atomic():
        locked = EvaluationRun.objects.select_for_update().get(pk=run.pk)
        _refuse_busy(locked)
        ItemScore.objects.filter(item__run=run).delete()
        SubsetScore.objects.filter(run=run).delete()
        items = list(EvalItem.objects.filter(run=run))
        for item in items:
            line, text = answered[item.pk]
            item.response, item.response_hash = text, ""
            item.response_meta = {"imported_from": file, "line": line}
            item.responded_at = now
        EvalItem.objects.bulk_update(items, ["response", "response_hash", "response_meta", "responded_at"], batch_size=2000)
        EvaluationRun.objects.filter(pk=run.pk).update(
            status=RunStatus.READY, answer_source=AnswerSource.IMPORTED if locked.answer_source != AnswerSource.DEMO
            else AnswerSource.DEMO, attention_reason="", evaluated_at=None)
    return len(items)


def _current_if_free(run: EvaluationRun) -> EvaluationRun:
    run = EvaluationRun.objects.get(pk=run.pk)
    _refuse_busy(run)
    return run


def _refuse_busy(run: EvaluationRun) -> None:
    for job, doing in ((run.collect_job, "collecting responses"), (run.evaluate_job, "evaluating")):
        if job is not None and not job.is_finished:
            raise Conflict(f"the run is {doing} (job {job.pk}); wait for it or cancel it first", code="run_busy")


# --- jobs --------------------------------------------------------------------------------------------------
def _start(run: EvaluationRun, check, start_kind: str, title: str, params: dict, acting_user, **run_fields):
    """Start a job on the run under a row lock, so two starts at once cannot both pass the busy check. Durable:
    the job starts when this commits, so a caller's transaction must not hold the lock and the job back."""
    with transaction.atomic(durable=True):
        locked = EvaluationRun.objects.select_for_update(of=("self",)).select_related("model", "collect_job", "evaluate_job").get(pk=run.pk)
        _refuse_busy(locked)
        check(locked)
        job = start_job(kind=start_kind, title=title, params=params, acting_user=acting_user)
        job_field = "collect_job" if start_kind == COLLECT_JOB else "evaluate_job"
        EvaluationRun.objects.filter(pk=run.pk).update(**{job_field: job}, **run_fields)
    return job


def start_collection(*, run: EvaluationRun, acting_user=None, audio_dir: str = "", limit: int | None = None):
    """Send each item's audio to the model's endpoint (apps.evaluation.collection) as a job."""
    def check(locked):
        if not (locked.model.endpoint and locked.model.served_model):
            raise Conflict(f"{locked.model} has no endpoint to collect from; import its responses instead", code="no_endpoint")

    return _start(run, check, COLLECT_JOB, f"Collect {run.model}'s responses to {run.benchmark_name}",
                  {"run": run.pk, "audio_dir": audio_dir, "limit": limit}, acting_user,
                  status=RunStatus.COLLECTING, answer_source=AnswerSource.ENDPOINT)


def start_evaluation(*, run: EvaluationRun, acting_user=None, budget_usd: float | None = None):
    """Score the run's responses as a job: rules first, then the judge (every call through apps.agents)."""
    def check(locked):
        if not EvalItem.objects.filter(run=locked, response__isnull=False).exists():
            raise Conflict("the run has no responses yet; import or collect them first", code="no_responses")

    params = {"run": run.pk, **({"budget_usd": budget_usd} if budget_usd is not None else {})}
    return _start(run, check, EVALUATE_JOB, f"Evaluate {run.model} on {run.benchmark_name}", params, acting_user,
                  status=RunStatus.EVALUATING)


# --- the evaluation ----------------------------------------------------------------------------------------
def item_input(item: EvalItem) -> dict:
    """What eval-scorers' score_response reads from an item."""
    return {"question": item.question, "answer": item.answer, "aliases": list(item.aliases or []), **(item.extra or {})}


def rule_score(item: EvalItem) -> tuple[float | None, dict, str, str]:
    """(score 0..1 or None, detail, evaluator, version) by the item's rule-based evaluator (KMMAU's MMAU
    matching included: apps.evaluation.scoring.kmmau)."""
    scored = score_response(item.metric, item_input(item), item.response or "", language=item.run.language)
    return scored.score, dict(scored.detail), scored.evaluator, str(scored.version)


def run_evaluation(job, progress) -> dict:
    """The evaluation job's body. Rules cost nothing and go first, every time (so a new version of an
    evaluator applies to a run evaluated again); then the judge, in parallel within
    settings.EVALUATION_JUDGE_WORKERS (the provider's slots still cap requests in flight), only for the items
    without a judge score: a resumed or repeated evaluation asks nothing twice (the judge's answers are
    cached by input too)."""
    run = EvaluationRun.objects.select_related("model").get(pk=job.params["run"])
    items = list(EvalItem.objects.filter(run=run, response__isnull=False).select_related("run"))
    done_judge = set(ItemScore.objects.filter(item__run=run, method=ScoreMethod.JUDGE).values_list("item_id", flat=True))
    to_judge = [i for i in items if i.metric in JUDGED_METRICS and i.pk not in done_judge]
    rules = [i for i in items if i.metric != "open"]
    progress.set_total(len(rules) + len(to_judge) + 1, message=f"Scoring {len(rules)} responses by rule")
    done, rule_failed = 0, []
    for item in rules:
        try:
            score, detail, evaluator, version = rule_score(item)
        except ApplicationError as exc:  # the scorer says the item cannot be scored (e.g. no instruction left)
            score, detail, evaluator, version = None, {"unscorable": exc.message}, item.metric, "-"
        except Exception as exc:  # one item's checker failing (odd kwargs) must not stop the run: shown on the item
            log.exception("rule-based scoring of %s failed", item.item_id)
            score, detail, evaluator, version = None, {"error": f"{type(exc).__name__}: {exc}"}, item.metric, "failed"
            rule_failed.append(item.item_id)
        ItemScore.objects.update_or_create(item=item, method=ScoreMethod.RULE, defaults={
            "score": score, "detail": json.loads(json.dumps(detail, default=str)), "evaluator": evaluator,
            "version": version})
        done += 1
        if done % 200 == 0:
            progress.set_done(done)
    progress.set_done(done, message=f"Judging {len(to_judge)} responses ({', '.join(JUDGED_METRICS)})")
    provider, model = agent_config("judge")
    EvaluationRun.objects.filter(pk=run.pk).update(judge_model=f"{provider}:{model}")
    failed = 0
    for _item, outcome in results_in_parallel(to_judge, lambda i: _judge_safely(i, job), workers=settings.EVALUATION_JUDGE_WORKERS,
                                             name="judge"):
        if isinstance(outcome, AgentNeedsAttention):
            failed += 1
        done += 1
        progress.set_done(done, message=f"Judged {done - len(rules)} of {len(to_judge)}"
                          + (f"; {failed} left unscored (needs attention)" if failed else ""))
    subsets = compute_subset_scores(run)
    progress.set_done(done + 1, message=f"Scored {len(subsets)} subsets")
    reasons = []
    if rule_failed:
        reasons.append(f"the rule-based evaluator failed on {len(rule_failed)} items ({', '.join(rule_failed[:5])}"
                       f"{', ...' if len(rule_failed) > 5 else ''}); their error is on each item's page")
    if failed:
        reasons.append(f"{failed} judge scores could not be read; evaluate again to retry them")
    EvaluationRun.objects.filter(pk=run.pk).update(
        status=RunStatus.NEEDS_ATTENTION if reasons else RunStatus.EVALUATED, evaluated_at=timezone.now(),
        attention_reason="; ".join(reasons))
    return {"run": run.pk, "rule_scored": len(rules) - len(rule_failed), "rule_failed": rule_failed,
            "judged": len(to_judge) - failed, "judge_failed": failed,
            "subsets": {s.subset + ":" + s.method: round(s.score, 2) for s in subsets}}


def _judge_safely(item: EvalItem, job):
    """One item's judge score, stored. When the judge could not give an answer (invalid twice, or the
    provider kept failing) the item is left without a judge score, so evaluating again retries it; the error
    is returned and counted, and the other items go on. Budget, missing provider and a rejected request stop
    the job."""
    try:
        judge.judge_item(item, job=job)
    except ProviderRejected:
        raise
    except AgentNeedsAttention as exc:
        return exc
    return None


def _subset_value(metric: str, method: str, scored: list[ItemScore]) -> tuple[float, dict]:
    """(0-100 score, detail) of one subset by one method, by apps.evaluation.aggregate.subset_score: the
    open-ended judge's every 1-5 rating (VoiceBench averages every sample of every item, x 20); IFEval's
    instruction- and prompt-level results read from the items' details; the items' 0/1 scores otherwise."""
    from apps.evaluation.aggregate import subset_score  # on first use: it loads scipy (seconds)

    if metric == "open" and method == ScoreMethod.JUDGE:
        ratings = [r for s in scored for r in s.detail.get("scores", [])]
        return subset_score("open", ratings), {"ratings": len(ratings)}
    if metric == "ifeval":
        # On first use: IFEval's checkers load datasets and nltk (seconds).
        from apps.evaluation.scoring import ifeval

        instruction, prompt = ifeval.levels([s.detail for s in scored])
        return (subset_score("ifeval", instruction, prompt_level=prompt),
                {"prompt_level": round(100 * sum(prompt) / len(prompt), 2),
                 "instruction_level": round(100 * sum(instruction) / len(instruction), 2)})
    return subset_score(metric, [s.score for s in scored]), {}


def compute_subset_scores(run: EvaluationRun) -> list[SubsetScore]:
    """Each subset's score per method (0-100) from the stored item scores, replacing earlier ones. The judge
    is primary for open-ended and short-answer subsets, the rule otherwise."""
    cells: dict[tuple[str, str, str], list[ItemScore]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    for subset in EvalItem.objects.filter(run=run).values_list("subset", flat=True):
        counts[subset] += 1
    for score in ItemScore.objects.filter(item__run=run).select_related("item"):
        cells[(score.item.subset, score.item.metric, score.method)].append(score)
    rows = []
    for (subset, metric, method), scores in sorted(cells.items()):
        scored = [s for s in scores if s.score is not None]
        if not scored:
            continue
        value, detail = _subset_value(metric, method, scored)
        primary = method == (ScoreMethod.JUDGE if metric in JUDGED_METRICS else ScoreMethod.RULE)
        rows.append(SubsetScore(run=run, subset=subset, metric=metric, method=method, score=value, n=len(scored),
                                unscored=counts[subset] - len(scored), primary=primary, detail=detail))
    with transaction.atomic():
        SubsetScore.objects.filter(run=run).delete()
        SubsetScore.objects.bulk_create(rows)
    return rows
