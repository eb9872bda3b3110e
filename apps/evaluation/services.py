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
from django.db.models import Q
from django.utils import timezone
from pydantic import field_validator

from apps.agents import untrusted
from apps.agents.services import AgentNeedsAttention, ProviderRejected, agent_config
from apps.core.errors import ApplicationError, Conflict, FileProblem, Forbidden, InvalidInput, Unavailable
from apps.core.tabular import RowModel, parse_table, refuse
from apps.evaluation import judge
from apps.evaluation.leaderboard.selectors import kind_subsets, subset_key
from apps.evaluation.models import (
    DEFAULT_DECODING,
    AnswerSource,
    BenchmarkKind,
    EvalItem,
    EvaluatedModel,
    EvaluationRun,
    ItemScore,
    Language,
    RunStatus,
    ScoreMethod,
    SubsetScore,
)
from apps.evaluation.scoring import DEFAULT_PROFILE, PROFILES, metric_for, score_response
from apps.evaluation.status import after_work, set_status
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import SubjectBusy, results_in_parallel, start_job
from apps.releases.models import ReleaseKind, ReleaseStatus
from apps.transfer.models import SourceSample
from apps.transfer.selectors import effective_answer

log = logging.getLogger(__name__)

COLLECT_JOB = "evaluation.collect"
EVALUATE_JOB = "evaluation.evaluate"
RESCORE_JOB = "evaluation.rescore"
KMMAU = "kmmau"
JUDGED_METRICS = ("open", "qa")  # the LLM judge scores these (open: only the judge; qa: judge beside the match)

# An http(s) URL as the API's schema states it: a host name or IPv4 address (no userinfo, so no @), an optional
# port from 0 to 65535, then a path and query in URL characters. Where the host may be is policy, not syntax
# (apps.agents.untrusted.check_url): that refusal is a 403, so the schema describes exactly what is well formed.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_PORT = r"(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
ENDPOINT_PATTERN = rf"^https?://{_LABEL}(?:\.{_LABEL})*\.?(?::{_PORT})?(?:[/?#][A-Za-z0-9._~:/?#!$&'()*+,;=%-]*)?$"
# A model's key is named, never given: an environment variable under this prefix (so no one can send, say,
# SECRET_KEY or DATABASE_URL to an endpoint of their choosing).
KEY_ENV_PATTERN = r"^SORI_MODEL_KEY_[A-Z0-9_]{1,80}$"
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


def check_endpoint(endpoint: str) -> None:
    """InvalidInput unless `endpoint` is a well-formed http(s) URL without credentials; Forbidden (403) unless it
    is one Sori may send audio to (apps.agents.untrusted.check_url: no link-local or metadata address, not Sori's
    own host unless allowed, among SORI_EVALUATION_ENDPOINT_HOSTS when that is set)."""
    if "@" in endpoint:
        raise InvalidInput("the endpoint URL must not carry credentials (user:key@); name the key's environment "
                           "variable as the model's key instead", field="endpoint")
    if not re.match(ENDPOINT_PATTERN, endpoint):
        raise InvalidInput("the endpoint must be an http(s) URL, e.g. http://gpu-1:8000/v1", field="endpoint")
    try:
        untrusted.check_url(endpoint)
    except untrusted.EndpointRefused as exc:
        raise Forbidden(f"Sori may not send requests there: {exc}", code="endpoint_not_allowed") from None


def check_key_env(api_key_env: str) -> None:
    if api_key_env and not re.match(KEY_ENV_PATTERN, api_key_env):
        raise InvalidInput("the key must be named as an environment variable SORI_MODEL_KEY_<NAME> (capitals, digits, _)",
                           field="api_key_env")


def create_model(*, name: str, version: str = "", answer_source: str | None = None, endpoint: str = "",
                 served_model: str = "", decoding: dict | None = None, description: str = "",
                 api_key_env: str = "", acting_user=None) -> EvaluatedModel:
    """A model under evaluation. Its answers are collected from `endpoint` (serving `served_model`, with the
    key held by the environment variable `api_key_env`, if it needs one) when one is given, else imported;
    the demo's scripted model says so with answer_source="demo"."""
    name, version = name.strip(), version.strip()
    if not name:
        raise InvalidInput("a model needs a name", field="name")
    answer_source = answer_source or (AnswerSource.ENDPOINT if endpoint else AnswerSource.IMPORTED)
    if answer_source not in AnswerSource.values:
        raise InvalidInput(f"answer source must be one of {', '.join(AnswerSource.values)}", field="answer_source")
    if endpoint:
        check_endpoint(endpoint)
    api_key_env = api_key_env.strip()
    check_key_env(api_key_env)
    if EvaluatedModel.objects.filter(name=name, version=version).exists():
        raise Conflict(f"a model {name} {version} exists already".replace("  ", " "), code="model_exists")
    return EvaluatedModel.objects.create(
        name=name, version=version, answer_source=answer_source, endpoint=endpoint, served_model=served_model,
        api_key_env=api_key_env, decoding=clean_decoding(decoding), description=description, created_by=acting_user,
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
    english_source = source_benchmark or next(
        (i.source_sample.benchmark for i in items if i.source_sample is not None), None)
    with transaction.atomic():
        run = EvaluationRun.objects.create(
            model=model, release=release, source_benchmark=source_benchmark, english_source=english_source,
            kind=kind_of(family, english_source, [i.subset for i in items]),
            benchmark_name=name, family=family, language=language, answer_source=model.answer_source,
            decoding=clean_decoding(decoding if decoding is not None else model.decoding),
            item_count=len(items), created_by=acting_user,
        )
        for item in items:
            item.run = run
        EvalItem.objects.bulk_create(items, batch_size=2000)
    return run


def kind_of(family: str, english_source, subsets: list[str]) -> str:
    """The benchmark a run measures: KMMAU, or its English source's format; a release whose items have no
    source sample is known by its subsets (all OpenAudioBench's, or VoiceBench)."""
    if family == KMMAU:
        return BenchmarkKind.KMMAU
    if english_source is not None and english_source.format in BenchmarkKind.values:
        return english_source.format
    oab = set(kind_subsets(BenchmarkKind.OPENAUDIOBENCH))
    openaudiobench = subsets and all(subset_key(BenchmarkKind.OPENAUDIOBENCH, s) in oab for s in subsets)
    return BenchmarkKind.OPENAUDIOBENCH if openaudiobench else BenchmarkKind.VOICEBENCH


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
    # Each item's source sample: the benchmark the release was built from, as its selection records.
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
            extra=_checker_kwargs(sample.raw if sample else {}, row=r.row, korean=korean), audio=r.row.get("audio") or "",
            audio_sha256=_audio_sha(r), release_item=r, source_sample=sample,
        ))
    return items, (Language.KOREAN if korean else Language.ENGLISH), "spoken-qa"


def _audio_sha(release_item) -> str:
    audio = (release_item.provenance or {}).get("audio") or {}
    return audio.get("sha256", "") if isinstance(audio, dict) else ""


def _source_items(benchmark) -> list[EvalItem]:
    items = []
    samples = SourceSample.objects.filter(benchmark=benchmark).select_related("review", "correction", "audio")
    for s in samples.order_by("subset", "source_id"):
        effective = effective_answer(s)
        if not effective.included:
            continue
        items.append(EvalItem(
            item_id=item_id_of(s.subset, s.source_id), subset=s.subset, metric=metric_for(s.subset),
            question=s.transcription, answer=effective.answer, aliases=list(effective.aliases),
            extra=_checker_kwargs(s.raw), audio=s.audio_filename, audio_sha256=s.audio.sha256 if s.audio else "",
            source_sample=s,
        ))
    return items


def _checker_kwargs(raw: dict, *, row: dict | None = None, korean: bool = False) -> dict:
    """What a checker reads besides the answer. From the English source record `raw`: IFEval's
    instruction_id_list and kwargs, and BBH's id or task (VoiceBench's id names the task, e.g. navigate_12,
    which decides how the answer is read). Given a release `row`, from the row (apps.transfer.checker_data:
    a Korean item's own, from its translation, with the instructions a rule removed and a redesigned BBH
    item's choices). A row built before rows carried it: an English item's comes from its source record; a
    Korean item's IFEval instructions are never the English ones (they would look for "banana" and "e" in a
    Korean answer), so the item stays unscorable until the release is built again, while BBH's task, the
    same in both languages, still comes from the source."""
    source = {key: raw[key] for key in ("instruction_id_list", "kwargs", "id", "task")
              if isinstance(raw, dict) and key in raw}
    if row is None:
        return source
    carried = {key: row[key] for key in ("instruction_id_list", "kwargs", "removed_instructions", "task", "choices")
               if key in row}
    if not korean:
        return carried or source
    if "task" not in carried:
        carried.update({key: source[key] for key in ("id", "task") if key in source})
    return carried


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
                     acting_user=None, answer_source: str = AnswerSource.IMPORTED) -> int:
    """Store a model's responses from a CSV, JSONL or Parquet file with `id` and `response` columns. The file
    is checked against the run's items first: an unknown id, a repeated id and every item left without a
    response are each named, and the whole file is refused (nothing written). An empty response is a real
    answer (the model said nothing) and is kept. Importing again replaces the responses and their scores.

    The run's answer source follows the file, not the model: imported responses (a person's file), or demo
    answers only when the demo seeding says so, so a demo model given real responses no longer reads as scripted."""
    if answer_source not in (AnswerSource.IMPORTED, AnswerSource.DEMO):
        raise InvalidInput("imported responses are imported or demo answers", field="answer_source")
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
        set_status(run.pk, RunStatus.READY, answer_source=answer_source, evaluated_at=None)
    return len(items)


def _current_if_free(run: EvaluationRun) -> EvaluationRun:
    run = EvaluationRun.objects.get(pk=run.pk)
    _refuse_busy(run)
    return run


def job_subject(run_pk: int) -> str:
    """The subject (apps.jobs Job.subject) of every job on a run: the database keeps one unfinished at a time."""
    return f"evaluation.run:{run_pk}"


_DOING = {COLLECT_JOB: "collecting responses", EVALUATE_JOB: "evaluating"}


def _refuse_busy(run: EvaluationRun) -> None:
    """Refuse (409 run_busy, naming the job) while any job on the run is unfinished, whatever its kind: scoring
    responses still being collected, or importing over a run being scored, would mix two states. The jobs are
    read here, in a query of their own (a fresh snapshot under READ COMMITTED), never through a join made with
    the run: a join read before a lock was granted still shows the job the last start replaced. The run's own
    job links count too, for jobs started before jobs had a subject."""
    job = Job.objects.active().filter(
        Q(subject=job_subject(run.pk)) | Q(pk__in=[pk for pk in (run.collect_job_id, run.evaluate_job_id) if pk])
    ).order_by("created_at").first()
    if job is not None:
        doing = _DOING.get(job.kind, f"busy with {job.title}")
        raise Conflict(f"the run is already {doing} (job #{job.pk}, {job.status}); wait for it or cancel it first",
                       code="run_busy")


# --- jobs --------------------------------------------------------------------------------------------------
def _start(run: EvaluationRun, check, start_kind: str, title: str, params: dict, acting_user, starting: RunStatus,
           **run_fields):
    """Start a job on the run: every job on a run (collection, evaluation, re-scoring) starts here. The run's
    row is locked, then its unfinished jobs are read afresh (_refuse_busy), so of two starts at once the second
    waits for the first to commit and is refused naming its job; the jobs' subject constraint (one unfinished
    job per run) holds should anything skip this. When the job queue is down the start answers Unavailable
    (503) and leaves the run as it was, with no job row. Durable: the job starts when this commits, so a
    caller's transaction must not hold the lock and the job back."""
    job_field = "collect_job" if start_kind == COLLECT_JOB else "evaluate_job"
    job = None
    try:
        with transaction.atomic(durable=True):
            locked = EvaluationRun.objects.select_for_update(of=("self",)).select_related("model").get(pk=run.pk)
            _refuse_busy(locked)
            check(locked)
            before = {name: getattr(locked, name) for name in {f"{job_field}_id", *run_fields}}
            before_status, reason = locked.status, locked.attention_reason
            try:
                job = start_job(kind=start_kind, title=title, params=params, acting_user=acting_user,
                                subject=job_subject(run.pk))
            except SubjectBusy as exc:
                raise Conflict(f"the run is already busy: {exc.message}", code="run_busy") from None
            set_status(run.pk, starting, reason=reason, **{job_field: job}, **run_fields)
    except Unavailable:
        if job is not None:  # committed, then the queue refused it (apps.jobs marked it failed): undo both
            with transaction.atomic():
                set_status(run.pk, before_status, reason=reason, where={job_field: job}, **before)
                Job.objects.filter(pk=job.pk, status=JobStatus.FAILED).delete()
        raise
    return job


def start_collection(*, run: EvaluationRun, acting_user=None, limit: int | None = None):
    """Send each item's stored audio to the model's endpoint (apps.evaluation.collection) as a job."""
    def check(locked):
        if not (locked.model.endpoint and locked.model.served_model):
            raise Conflict(f"{locked.model} has no endpoint to collect from; import its responses instead", code="no_endpoint")

    return _start(run, check, COLLECT_JOB, f"Collect {run.model}'s responses to {run.benchmark_name}",
                  {"run": run.pk, "limit": limit}, acting_user,
                  RunStatus.COLLECTING, answer_source=AnswerSource.ENDPOINT)


def start_evaluation(*, run: EvaluationRun, acting_user=None, budget_usd: float | None = None):
    """Score the run's responses as a job: rules first, then the judge (every call through apps.agents)."""
    def check(locked):
        if not EvalItem.objects.filter(run=locked).answered().exists():
            raise Conflict("the run has no responses yet; import or collect them first", code="no_responses")

    params = {"run": run.pk, **({"budget_usd": budget_usd} if budget_usd is not None else {})}
    return _start(run, check, EVALUATE_JOB, f"Evaluate {run.model} on {run.benchmark_name}", params, acting_user,
                  RunStatus.EVALUATING)


# --- the evaluation ----------------------------------------------------------------------------------------
def item_input(item: EvalItem) -> dict:
    """What eval-scorers' score_response reads from an item."""
    return {"question": item.question, "answer": item.answer, "aliases": list(item.aliases or []), **(item.extra or {})}


def rule_score(item: EvalItem, profile: str = DEFAULT_PROFILE) -> tuple[float | None, dict, str, str]:
    """(score 0..1 or None, detail, evaluator, version) by the item's rule-based evaluator under a reading
    profile (KMMAU included: apps.evaluation.scoring.kmmau)."""
    scored = score_response(item.metric, item_input(item), item.response or "", language=item.run.language,
                            profile=profile)
    return scored.score, dict(scored.detail), scored.evaluator, str(scored.version)


def _score_by_rule(items: list[EvalItem], profile: str) -> tuple[list[ItemScore], list[str]]:
    """Each item's rule-based score under one profile (unsaved), and the ids of the items whose evaluator failed."""
    rows, failed = [], []
    for item in items:
        try:
            score, detail, evaluator, version = rule_score(item, profile)
        except ApplicationError as exc:  # the scorer says the item cannot be scored (e.g. no instruction left)
            score, detail, evaluator, version = None, {"unscorable": exc.message}, item.metric, "-"
        except Exception as exc:  # one item's checker failing (odd kwargs) must not stop the run: shown on the item
            log.exception("rule-based scoring of %s (%s) failed", item.item_id, profile)
            score, detail, evaluator, version = None, {"error": f"{type(exc).__name__}: {exc}"}, item.metric, "failed"
            failed.append(item.item_id)
        rows.append(ItemScore(item=item, method=ScoreMethod.RULE, profile=profile, current=True, score=score,
                              detail=json.loads(json.dumps(detail, default=str)), evaluator=evaluator, version=version))
    return rows, failed


def store_rule_scores(run: EvaluationRun, profile: str, rows: list[ItemScore]) -> None:
    """Make `rows` the current rule-based scores of their items under `profile`. A current score of the same
    version is replaced; one of another version is kept beside the new one, no longer current (so a new reader
    version never silently overwrites what an earlier one said)."""
    by_version: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        by_version[row.version].append(row.item_id)
    mine = ItemScore.objects.filter(item__run=run, method=ScoreMethod.RULE, profile=profile)
    with transaction.atomic():
        # Lock the run's row: two evaluations storing at once must not both think a score is theirs to replace.
        EvaluationRun.objects.select_for_update().filter(pk=run.pk).first()
        for version, item_ids in by_version.items():
            mine.filter(item_id__in=item_ids, version=version).delete()
            mine.filter(item_id__in=item_ids, current=True).update(current=False)
        ItemScore.objects.bulk_create(rows, batch_size=2000)


def _rescore_rules(run: EvaluationRun, items: list[EvalItem], profiles: tuple[str, ...], progress, done: int) -> tuple[int, list[str]]:
    failed: list[str] = []
    for profile in profiles:
        progress.set_done(done, message=f"Scoring {len(items)} responses by rule ({profile} reading)")
        rows, failed_here = _score_by_rule(items, profile)
        store_rule_scores(run, profile, rows)
        failed += [f for f in failed_here if f not in failed]
        done += len(items)
    return done, failed


def run_evaluation(job, progress) -> dict:
    """The evaluation job's body. Rules cost nothing and go first, every time and under every reading profile
    (so a new version of an evaluator applies to a run evaluated again, beside the old scores); then the judge,
    in parallel within settings.EVALUATION_JUDGE_WORKERS (the provider's slots still cap requests in flight),
    only for the items without a judge score: a resumed or repeated evaluation asks nothing twice (the judge's
    answers are cached by input too)."""
    run = EvaluationRun.objects.select_related("model").get(pk=job.params["run"])
    items = list(EvalItem.objects.filter(run=run).answered().select_related("run"))
    done_judge = set(ItemScore.objects.filter(item__run=run, method=ScoreMethod.JUDGE, current=True)
                     .values_list("item_id", flat=True))
    to_judge = [i for i in items if i.metric in JUDGED_METRICS and i.pk not in done_judge]
    rules = [i for i in items if i.metric != "open"]
    progress.set_total(len(PROFILES) * len(rules) + len(to_judge) + 1, message=f"Scoring {len(rules)} responses by rule")
    done, rule_failed = _rescore_rules(run, rules, PROFILES, progress, 0)
    progress.set_done(done, message=f"Judging {len(to_judge)} responses ({', '.join(JUDGED_METRICS)})")
    if to_judge:  # a run scored by rule alone (KMMAU, multiple choice) names no judge
        provider, model = agent_config("judge")
        EvaluationRun.objects.filter(pk=run.pk).update(judge_model=f"{provider}:{model}")
    failed = 0
    for _item, outcome in results_in_parallel(to_judge, lambda i: _judge_safely(i, job), workers=settings.EVALUATION_JUDGE_WORKERS,
                                             name="judge"):
        if isinstance(outcome, AgentNeedsAttention):
            failed += 1
        done += 1
        progress.set_done(done, message=f"Judged {done - len(PROFILES) * len(rules)} of {len(to_judge)}"
                          + (f"; {failed} left unscored (needs attention)" if failed else ""))
    subsets = compute_subset_scores(run)
    progress.set_done(done + 1, message=f"Scored {len({s.subset for s in subsets})} subsets")
    reasons = []
    if rule_failed:
        reasons.append(_rule_failure_reason(rule_failed))
    if failed:
        reasons.append(f"{failed} judge scores could not be read; evaluate again to retry them")
    after_work(run.pk, reasons, done=RunStatus.EVALUATED, evaluated_at=timezone.now())
    return {"run": run.pk, "rule_scored": len(rules) - len(rule_failed), "rule_failed": rule_failed,
            "profiles": list(PROFILES), "judged": len(to_judge) - failed, "judge_failed": failed,
            "subsets": {f"{s.subset}:{s.method}": round(s.score, 2) for s in subsets if s.profile == DEFAULT_PROFILE}}


def _rule_failure_reason(rule_failed: list[str]) -> str:
    return (f"the rule-based evaluator failed on {len(rule_failed)} items ({', '.join(rule_failed[:5])}"
            f"{', ...' if len(rule_failed) > 5 else ''}); their error is on each item's page")


def start_rescoring(*, run: EvaluationRun, profile: str, acting_user=None):
    """Score a run's responses again by rule under one reading profile, with the readers' current versions, as
    a job. The judge is not asked again; earlier scores of other versions stay beside the new ones."""
    if profile not in PROFILES:
        raise InvalidInput(f"profile must be one of {', '.join(PROFILES)}", field="profile")

    def check(locked):
        if not EvalItem.objects.filter(run=locked).answered().exists():
            raise Conflict("the run has no responses yet; import or collect them first", code="no_responses")

    return _start(run, check, RESCORE_JOB, f"Re-score {run.model} on {run.benchmark_name} ({profile} reading)",
                  {"run": run.pk, "profile": profile}, acting_user, RunStatus.EVALUATING)


def run_rescoring(job, progress) -> dict:
    """The re-scoring job's body: the rules of one profile, then that profile's subset scores."""
    run = EvaluationRun.objects.get(pk=job.params["run"])
    profile = job.params["profile"]
    rules = list(EvalItem.objects.filter(run=run).answered().exclude(metric="open").select_related("run"))
    progress.set_total(len(rules) + 1, message=f"Scoring {len(rules)} responses by rule ({profile} reading)")
    done, rule_failed = _rescore_rules(run, rules, (profile,), progress, 0)
    subsets = compute_subset_scores(run, profiles=(profile,))
    progress.set_done(done + 1, message=f"Scored {len({s.subset for s in subsets})} subsets ({profile} reading)")
    after_work(run.pk, [_rule_failure_reason(rule_failed)] if rule_failed else [], done=RunStatus.EVALUATED,
               evaluated_at=timezone.now())
    return {"run": run.pk, "profile": profile, "rule_scored": len(rules) - len(rule_failed), "rule_failed": rule_failed,
            "versions": sorted({s.version for s in subsets if s.method == ScoreMethod.RULE})}


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


def is_sd_qa(subset: str) -> bool:
    """SD-QA, or one of its regional splits ("sd-qa-usa")."""
    return re.fullmatch(r"sd-qa([-_].+)?", subset.lower()) is not None


def _versions(scored: list[ItemScore]) -> str:
    return " + ".join(sorted({s.version for s in scored}))[:200]


def _rule_and_judge(rule: list[ItemScore], judge: list[ItemScore]) -> tuple[float, int, dict] | None:
    """SD-QA as VoiceBench reports it, (rule + judge) / 2, over the items both scored; None if none did."""
    judged = {s.item_id: s.score for s in judge}
    pairs = [(s.score, judged[s.item_id]) for s in rule if s.item_id in judged]
    if not pairs:
        return None
    rule_mean = 100 * sum(r for r, _ in pairs) / len(pairs)
    judge_mean = 100 * sum(j for _, j in pairs) / len(pairs)
    return (rule_mean + judge_mean) / 2, len(pairs), {
        "formula": "(rule + judge) / 2, as VoiceBench reports SD-QA", "rule": round(rule_mean, 2),
        "judge": round(judge_mean, 2), "rule_reader": _versions(rule), "rule_evaluator": rule[0].evaluator}


def compute_subset_scores(run: EvaluationRun, *, profiles: tuple[str, ...] = PROFILES) -> list[SubsetScore]:
    """Each subset's score per method (0-100) under each reading profile, from the current item scores: the
    rule's of that profile, the judge's (shared by both), and for SD-QA (rule + judge) / 2. They become the
    current subset scores; earlier ones of another version stay, no longer current. Primary (what the
    leaderboard reports): the judge for open-ended and short-answer subsets, (rule + judge) / 2 for SD-QA, the
    rule otherwise."""
    counts: dict[str, int] = defaultdict(int)
    for subset in EvalItem.objects.filter(run=run).values_list("subset", flat=True):
        counts[subset] += 1
    current = list(ItemScore.objects.filter(item__run=run, current=True, profile__in=("", *profiles))
                   .select_related("item"))
    rows = []
    for profile in profiles:
        cells: dict[tuple[str, str, str], list[ItemScore]] = defaultdict(list)
        for score in current:
            if score.method == ScoreMethod.JUDGE or score.profile == profile:
                cells[(score.item.subset, score.item.metric, score.method)].append(score)
        for (subset, metric, method), scores in sorted(cells.items()):
            scored = [s for s in scores if s.score is not None]
            if not scored:
                continue
            value, detail = _subset_value(metric, method, scored)
            rows.append(SubsetScore(run=run, subset=subset, metric=metric, method=method, profile=profile,
                                    version=_versions(scored), score=value, n=len(scored),
                                    unscored=counts[subset] - len(scored), detail=detail))
            if metric == "qa" and method == ScoreMethod.RULE and is_sd_qa(subset):
                judge = [s for s in cells.get((subset, metric, ScoreMethod.JUDGE), []) if s.score is not None]
                both = _rule_and_judge(scored, judge)
                if both:
                    rows.append(SubsetScore(
                        run=run, subset=subset, metric=metric, method=ScoreMethod.RULE_AND_JUDGE, profile=profile,
                        version=f"{_versions(scored)} + {_versions(judge)}"[:200], score=both[0], n=both[1],
                        unscored=counts[subset] - both[1], detail=both[2]))
    _mark_primary(rows)
    with transaction.atomic():
        EvaluationRun.objects.select_for_update().filter(pk=run.pk).first()
        mine = SubsetScore.objects.filter(run=run, profile__in=profiles)
        fresh = {(r.subset, r.method, r.profile, r.version) for r in rows}
        for old in mine:
            if (old.subset, old.method, old.profile, old.version) in fresh:
                old.delete()  # the same version computed again: replaced
        mine.filter(current=True).update(current=False)  # another version, or a subset no longer scored: kept
        SubsetScore.objects.bulk_create(rows)
    return rows


def _mark_primary(rows: list[SubsetScore]) -> None:
    methods = {(r.profile, r.subset, r.method) for r in rows}
    for row in rows:
        if row.metric == "qa" and is_sd_qa(row.subset) and (row.profile, row.subset, ScoreMethod.RULE_AND_JUDGE) in methods:
            wanted = ScoreMethod.RULE_AND_JUDGE
        else:
            wanted = ScoreMethod.JUDGE if row.metric in JUDGED_METRICS else ScoreMethod.RULE
        row.primary = row.method == wanted
