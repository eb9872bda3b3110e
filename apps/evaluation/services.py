"""What writes evaluations at a person's request: models under evaluation, runs and their items, and the starts
of the jobs on a run (collection, evaluation, re-scoring), each refused while another job on the run is unfinished.
Imported responses are apps.evaluation.responses; the jobs' bodies (rule-based scores, the LLM judge, subset
scores) are apps.evaluation.jobs. Reads live in apps.evaluation.selectors and the leaderboard's own selectors.

    model = create_model(name="Qwen2.5-Omni", version="7B", acting_user=admin)
    run = create_run(model=model, release=kvoicebench, acting_user=admin)       # or source_benchmark=voicebench
    import_responses(run=run, source=path_or_bytes, name="qwen.jsonl", acting_user=admin)  # responses.py
    start_evaluation(run=run, acting_user=admin)                                  # a job: rules, judge, subsets
"""

import re

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext

from apps.agents import untrusted
from apps.core.errors import Conflict, Forbidden, InvalidInput, Unavailable
from apps.evaluation.leaderboard.selectors import kind_subsets, subset_key
from apps.evaluation.models import (
    DEFAULT_DECODING,
    AnswerSource,
    BenchmarkKind,
    EvalItem,
    EvaluatedModel,
    EvaluationRun,
    Language,
)
from apps.evaluation.scoring import PROFILES, metric_for
from apps.evaluation.status import set_status
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import SubjectBusy, start_job
from apps.releases.models import ReleaseKind, ReleaseStatus
from apps.sources.models import SourceSample
from apps.transfer.selectors import effective_answer

COLLECT_JOB = "evaluation.collect"
EVALUATE_JOB = "evaluation.evaluate"
RESCORE_JOB = "evaluation.rescore"
KMMAU = "kmmau"

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
            raise InvalidInput(gettext(
                "unknown decoding setting %(key)r (known: %(decoding_limits)s)"
            ) % {"key": key, "decoding_limits": ', '.join(_DECODING_LIMITS)}, field="decoding")
        low, high = _DECODING_LIMITS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise InvalidInput(gettext(
                "decoding %(key)s must be a number from %(low)s to %(high)s"
            ) % {"key": key, "low": low, "high": high}, field="decoding")
        merged[key] = int(value) if key == "max_tokens" else float(value)
    return merged


def check_endpoint(endpoint: str) -> None:
    """InvalidInput unless `endpoint` is a well-formed http(s) URL without credentials; Forbidden (403) unless it
    is one Sori may send audio to (apps.agents.untrusted.check_url: no link-local or metadata address, not Sori's
    own host unless allowed, among SORI_EVALUATION_ENDPOINT_HOSTS when that is set)."""
    if "@" in endpoint:
        raise InvalidInput(gettext("the endpoint URL must not carry credentials (user:key@); name the key's environment "
                           "variable as the model's key instead"), field="endpoint")
    if not re.match(ENDPOINT_PATTERN, endpoint):
        raise InvalidInput(gettext("the endpoint must be an http(s) URL, e.g. http://gpu-1:8000/v1"), field="endpoint")
    try:
        untrusted.check_url(endpoint)
    except untrusted.EndpointRefused as exc:
        raise Forbidden(gettext("Sori may not send requests there: %(exc)s") % {"exc": exc}, code="endpoint_not_allowed") from None


def check_key_env(api_key_env: str) -> None:
    if api_key_env and not re.match(KEY_ENV_PATTERN, api_key_env):
        raise InvalidInput(gettext("the key must be named as an environment variable SORI_MODEL_KEY_<NAME> (capitals, digits, _)"),
                           field="api_key_env")


def create_model(*, name: str, version: str = "", answer_source: str | None = None, endpoint: str = "",
                 served_model: str = "", decoding: dict | None = None, description: str = "",
                 api_key_env: str = "", acting_user=None) -> EvaluatedModel:
    """A model under evaluation. Its answers are collected from `endpoint` (serving `served_model`, with the
    key held by the environment variable `api_key_env`, if it needs one) when one is given, else imported;
    the demo's scripted model says so with answer_source="demo"."""
    name, version = name.strip(), version.strip()
    if not name:
        raise InvalidInput(gettext("a model needs a name"), field="name")
    answer_source = answer_source or (AnswerSource.ENDPOINT if endpoint else AnswerSource.IMPORTED)
    if answer_source not in AnswerSource.values:
        raise InvalidInput(gettext(
            "answer source must be one of %(values)s"
        ) % {"values": ', '.join(AnswerSource.values)}, field="answer_source")
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
        raise InvalidInput(gettext("choose one benchmark: a release or a source benchmark"), field="release")
    if release is not None:
        if release.status not in (ReleaseStatus.BUILT, ReleaseStatus.PUBLISHED):
            raise Conflict(gettext(
                "release %(release)s is %(status)s; evaluate a built release"
            ) % {"release": release, "status": release.get_status_display().lower()},
                           code="release_not_built")
        if release.kind not in (ReleaseKind.SPOKEN_QA, ReleaseKind.KMMAU):
            raise InvalidInput(gettext(
                "a %(kind)s release has no questions to answer"
            ) % {"kind": release.get_kind_display()}, field="release")
        items, language, family = _release_items(release)
        name = release.name
    else:
        items, language, family = _source_items(source_benchmark), Language.ENGLISH, "spoken-qa"
        name = source_benchmark.name
    if not items:
        raise Conflict(gettext(
            "%(source_benchmark)s has no items to evaluate"
        ) % {"source_benchmark": release or source_benchmark}, code="no_items")
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


# --- busy runs ---------------------------------------------------------------------------------------------


def job_subject(run_pk: int) -> str:
    """The subject (apps.jobs Job.subject) of every job on a run: the database keeps one unfinished at a time."""
    return f"evaluation.run:{run_pk}"


_DOING = {COLLECT_JOB: "collecting responses", EVALUATE_JOB: "evaluating"}


def refuse_busy(run: EvaluationRun) -> None:
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
        raise Conflict(gettext(
            "the run is already %(doing)s (job #%(pk)s, %(status)s); wait for it or cancel it first"
        ) % {"doing": doing, "pk": job.pk, "status": job.status},
                       code="run_busy")


# --- jobs --------------------------------------------------------------------------------------------------
def _start(run: EvaluationRun, check, start_kind: str, title: str, params: dict, acting_user, **run_fields):
    """Start a job on the run: every job on a run (collection, evaluation, re-scoring) starts here. The run's
    row is locked, then its unfinished jobs are read afresh (refuse_busy), so of two starts at once the second
    waits for the first to commit and is refused naming its job; the jobs' subject constraint (one unfinished
    job per run) holds should anything skip this. When the job queue is down the start answers Unavailable
    (503) and leaves the run as it was, with no job row. Durable: the job starts when this commits, so a
    caller's transaction must not hold the lock and the job back."""
    job_field = "collect_job" if start_kind == COLLECT_JOB else "evaluate_job"
    job = None
    try:
        with transaction.atomic(durable=True):
            locked = EvaluationRun.objects.select_for_update(of=("self",)).select_related("model").get(pk=run.pk)
            refuse_busy(locked)
            check(locked)
            before = {name: getattr(locked, name) for name in {f"{job_field}_id", *run_fields}}
            before_status, reason = locked.state, locked.attention_reason
            try:
                job = start_job(kind=start_kind, title=title, params=params, acting_user=acting_user,
                                subject=job_subject(run.pk))
            except SubjectBusy as exc:
                raise Conflict(gettext("the run is already busy: %(message)s") % {"message": exc.message}, code="run_busy") from None
            # The state stays settled: linking the job is what makes the run read as collecting or evaluating.
            set_status(run.pk, before_status, reason=reason, **{job_field: job}, **run_fields)
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
            raise Conflict(gettext(
                "%(model)s has no endpoint to collect from; import its responses instead"
            ) % {"model": locked.model}, code="no_endpoint")

    return _start(run, check, COLLECT_JOB, f"Collect {run.model}'s responses to {run.benchmark_name}",
                  {"run": run.pk, "limit": limit}, acting_user, answer_source=AnswerSource.ENDPOINT)


def start_evaluation(*, run: EvaluationRun, acting_user=None, budget_usd: float | None = None):
    """Score the run's responses as a job: rules first, then the judge (every call through apps.agents)."""
    def check(locked):
        if not EvalItem.objects.filter(run=locked).answered().exists():
            raise Conflict(gettext("the run has no responses yet; import or collect them first"), code="no_responses")

    params = {"run": run.pk, **({"budget_usd": budget_usd} if budget_usd is not None else {})}
    return _start(run, check, EVALUATE_JOB, f"Evaluate {run.model} on {run.benchmark_name}", params, acting_user)


def start_rescoring(*, run: EvaluationRun, profile: str, acting_user=None):
    """Score a run's responses again by rule under one reading profile, with the readers' current versions, as
    a job. The judge is not asked again; earlier scores of other versions stay beside the new ones."""
    if profile not in PROFILES:
        raise InvalidInput(gettext("profile must be one of %(profiles)s") % {"profiles": ', '.join(PROFILES)}, field="profile")

    def check(locked):
        if not EvalItem.objects.filter(run=locked).answered().exists():
            raise Conflict(gettext("the run has no responses yet; import or collect them first"), code="no_responses")

    return _start(run, check, RESCORE_JOB, f"Re-score {run.model} on {run.benchmark_name} ({profile} reading)",
                  {"run": run.pk, "profile": profile}, acting_user)
