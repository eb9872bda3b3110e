"""Collecting a model's responses: each item's audio sent to the model's OpenAI-compatible chat completions
endpoint as an `input_audio` content part (as vLLM serves Qwen2.5-Omni and similar models), with the run's
decoding settings (the paper's by default: max 4,096 tokens, temperature 0.7, top-p 0.95).

The transport is the one every model call uses: the official `openai` SDK (apps.agents.providers.openai.complete_at)
under apps.agents.transport.send_with_retries with the LLM retry policy, so the retry-after, the exponential
backoff with jitter and the concurrency slots (a per-endpoint limit, across processes with Redis) are the same
code that serves call_agent. Requests are cached by input hash: an item whose request (endpoint model, audio, text,
decoding) was answered before, in this run or another, takes that answer without a request. The job is
resumable: an item with a response is never sent again, and each answer is stored as it arrives.

The endpoint is untrusted (apps.agents.untrusted): each request has an overall deadline
(SORI_EVALUATION_COLLECT_TIMEOUT_SECONDS) and is aborted in flight when the job is cancelled; its answer is
read under a byte cap; redirects, credentialed URLs and link-local, metadata or (unless allowed) local
addresses are refused. A failure is the item's, never the job's: the item is left without a response, its
meta keeps the failure's kind and a short excerpt of what the endpoint said (items are admin-only), and the
run's attention reason counts the kinds only (never the endpoint's words). The key, when the endpoint needs
one, is read from the environment variable the model names (EvaluatedModel.api_key_env).

A KMMAU item's clip goes with a text part made from a versioned request template (apps/agents/prompts/
kmmau_request, or mmau_request for an English run): the question, an instruction to pick one of the choices, as
MMAU asks its test questions, and the choices. Each collected response's meta names the template and its
version, and the run page shows it."""

import base64
import hashlib
import os
import threading
import time
import zipfile
from collections import Counter
from pathlib import PurePosixPath

from django.conf import settings
from django.core.files.storage import default_storage
from django.utils import timezone

from apps.agents import providers, transport, untrusted
from apps.agents.prompting import Prompt, load_prompt
from apps.audio.models import AudioAsset
from apps.core.tabular import MAX_CELL_CHARS
from apps.evaluation.models import EvalItem, EvaluationRun, Language, RunStatus
from apps.evaluation.status import set_status
from apps.jobs.models import Job
from apps.jobs.services import results_in_parallel

AUDIO_FORMATS = {"wav": "wav", "mp3": "mp3", "flac": "flac", "ogg": "ogg", "m4a": "m4a", "webm": "webm"}
EXCERPT_CHARS = 200  # of what a failing endpoint said, kept in the item's (admin-only) meta


class MissingAudio(Exception):
    pass


class AudioSource:
    """Where a run's audio comes from: the release's archive (Korean spoken-QA and KMMAU releases), or the
    audio store, for an English source benchmark whose audio was imported (apps.sources.source_audio). Only
    stored, checked audio is ever sent: no request names a server path."""

    def __init__(self, run: EvaluationRun):
        self.run = run

    def read(self, item: EvalItem) -> tuple[bytes, str]:
        """(audio bytes, format) of the item, or MissingAudio saying what is missing."""
        release = self.run.release
        if release is None:
            return self._stored(item)
        if not item.audio:
            raise MissingAudio(f"{item.item_id}: the benchmark has no audio for this item")
        fmt = AUDIO_FORMATS.get(PurePosixPath(item.audio).suffix.lower().lstrip("."), "wav")
        member = f"{release.folder}/{item.audio}"
        with default_storage.open(release.archive, "rb") as fh, zipfile.ZipFile(fh) as archive:
            try:
                return archive.read(member), fmt
            except KeyError:
                raise MissingAudio(f"{item.item_id}: {member} is not in the release archive") from None

    def _stored(self, item: EvalItem) -> tuple[bytes, str]:
        """The source sample's stored audio (as it is now: audio imported after the run was made counts)."""
        asset = item.source_sample.audio if item.source_sample_id and item.source_sample.audio_id else None
        if asset is None and item.audio_sha256:
            asset = AudioAsset.objects.filter(sha256=item.audio_sha256).first()
        if asset is None:
            raise MissingAudio(f"{item.item_id}: no audio stored for this sample; import the benchmark's audio "
                               "(Source benchmarks, or python manage.py import_source_audio)")
        with asset.file.open("rb") as fh:
            return fh.read(), AUDIO_FORMATS.get(asset.format, "wav")


# The request template of an audio-understanding run, by its language (versioned prompt files).
REQUEST_TEMPLATES = {Language.KOREAN: "kmmau_request", Language.ENGLISH: "mmau_request"}


def request_template(language: str) -> Prompt:
    """The newest version of the request template for a KMMAU (ko) or MMAU-style (en) run."""
    return load_prompt(REQUEST_TEMPLATES[language])


def describe_request(language: str) -> dict:
    """The request template for the run page: its name, version and how an item's text reads in it."""
    template = request_template(language)
    placeholders = {Language.KOREAN: ("(질문)", "(보기 {})"), Language.ENGLISH: ("(question)", "(choice {})")}[language]
    _, example = template.render({"question": placeholders[0], "choices": [placeholders[1].format(k) for k in (1, 2, 3, 4)]})
    return {"name": template.name, "version": template.version, "example": example}


def template_meta(template: Prompt) -> dict:
    """What a collected response's meta records of the request template it was asked with."""
    return {"request_template": template.name, "request_template_version": template.version}


def messages_for(item: EvalItem, audio: bytes, fmt: str, template: Prompt | None = None) -> list[dict]:
    """The chat request for one item: the spoken question as audio; a KMMAU item (audio understanding) also
    carries a text part, its question and choices in the request template (`template`, else the newest for
    the run's language)."""
    content = [{"type": "input_audio", "input_audio": {"data": base64.b64encode(audio).decode("ascii"), "format": fmt}}]
    if item.metric == "kmmau":
        template = template or request_template(item.run.language)
        _, text = template.render({"question": item.question, "choices": list(item.extra.get("choices") or [])})
        content.append({"type": "text", "text": text})
    return [{"role": "user", "content": content}]


def request_hash(run: EvaluationRun, item: EvalItem, audio: bytes, messages: list[dict]) -> str:
    """sha256 of what the request asks: the endpoint's model, the audio's own hash (not its base64), the
    text parts, and the decoding settings."""
    model = run.model
    text = [part for m in messages for part in m["content"] if part["type"] != "input_audio"]
    return transport.input_hash({"endpoint": model.endpoint.rstrip("/"), "model": model.served_model,
                                 "decoding": run.decoding, "audio": hashlib.sha256(audio).hexdigest(), "text": text})


def endpoint_key(model) -> str:
    """The endpoint's key, read from the environment variable the model names ("" when it names none)."""
    if not model.api_key_env:
        return ""
    key = os.environ.get(model.api_key_env, "")
    if not key:
        raise MissingKey(f"the model's key variable {model.api_key_env} is not set in the workers' environment")
    return key


class MissingKey(Exception):
    pass


def collect_one(run: EvaluationRun, item: EvalItem, source: AudioSource, *, api_key: str = "",
                cancelled: threading.Event | None = None, owner: str = "") -> dict:
    """Ask the model for one item's response and store it. -> {"cached": bool} or {"missing": reason}; a
    refused or failed request raises the transport's VendorError (see run_collection)."""
    try:
        audio, fmt = source.read(item)
    except MissingAudio as exc:
        return {"missing": str(exc)}
    template = request_template(run.language) if item.metric == "kmmau" else None
    asked = template_meta(template) if template else {}
    messages = messages_for(item, audio, fmt, template)
    digest = request_hash(run, item, audio, messages)
    earlier = (EvalItem.objects.answered().filter(response_hash=digest).exclude(pk=item.pk)
               .values("response", "response_meta", "run_id").first())
    if earlier is not None:
        meta = {"cached_from_run": earlier["run_id"], **{k: v for k, v in earlier["response_meta"].items()
                                                          if k in ("input_tokens", "output_tokens", "truncated_from_chars")}, **asked}
        _store(item, earlier["response"], digest, meta)
        return {"cached": True}
    model, decoding = run.model, run.decoding
    provider = providers.get("openai")
    started = time.monotonic()
    completion, attempts = transport.send_with_retries(
        lambda: provider.complete_at(
            base_url=model.endpoint, api_key=api_key, model=model.served_model, messages=messages,
            timeout=settings.EVALUATION_COLLECT_TIMEOUT_SECONDS, max_tokens=decoding.get("max_tokens"),
            temperature=decoding.get("temperature"), top_p=decoding.get("top_p"), cancelled=cancelled,
        ),
        slot=f"evaluation:{model.endpoint.rstrip('/')}", policy=transport.model_policy(),
        limit=settings.EVALUATION_COLLECT_CONCURRENCY, owner=owner,
    )
    text, meta = completion.text, {}
    if len(text) > MAX_CELL_CHARS:  # stored as far as a cell holds, and marked
        text, meta = text[:MAX_CELL_CHARS], {"truncated_from_chars": len(text)}
    _store(item, text, digest, {
        "input_tokens": completion.input_tokens, "output_tokens": completion.output_tokens,
        "latency_ms": int((time.monotonic() - started) * 1000), "http_attempts": attempts,
        "finish_reason": ((completion.raw.get("choices") or [{}])[0] or {}).get("finish_reason"), **asked, **meta,
    })
    return {"cached": False}


def failure_kind(exc: transport.VendorError) -> str:
    """A failure's kind in a few fixed words: what the attention reason may say."""
    if exc.kind:
        return exc.kind
    return "kept failing" if isinstance(exc, transport.TransientVendorError) else "request refused"


def _store(item: EvalItem, text: str, digest: str, meta: dict) -> None:
    EvalItem.objects.filter(pk=item.pk).update(response=text, response_hash=digest, response_meta=meta,
                                               responded_at=timezone.now())


def _store_failure(item: EvalItem, kind: str, exc: Exception, attempts: int) -> None:
    """The item stays without a response; its meta says why, with at most EXCERPT_CHARS of the endpoint's
    words (items are for admins only)."""
    EvalItem.objects.unanswered().filter(pk=item.pk).update(response_meta={
        "collect_failed": kind, "collect_excerpt": str(exc)[:EXCERPT_CHARS], "http_attempts": attempts})


class _CancelWatch(threading.Thread):
    """Looks for a cancel of the job every EVALUATION_CANCEL_POLL_SECONDS and sets `cancelled`, which aborts
    the requests in flight (apps.agents.untrusted's watchdog)."""

    def __init__(self, job_pk: int):
        super().__init__(name=f"job-{job_pk}-cancel-watch", daemon=True)
        self.job_pk, self.cancelled, self.stopped = job_pk, threading.Event(), threading.Event()
        self.start()

    def run(self) -> None:
        from django.db import connection

        try:
            while not self.stopped.wait(settings.EVALUATION_CANCEL_POLL_SECONDS):
                if Job.objects.filter(pk=self.job_pk, cancel_requested=True).exists():
                    self.cancelled.set()
                    return
        except Exception:  # a failed look only delays a cancel to the job's next progress report
            pass
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join()


def run_collection(job, progress) -> dict:
    """The collection job's body (see the module's docstring). Items whose audio is missing, or whose
    requests kept failing after the retries, are left without a response and named in the result; the run
    then needs attention, and running the job again (resume) asks for those only."""
    run = EvaluationRun.objects.select_related("model", "release").get(pk=job.params["run"])
    api_key = endpoint_key(run.model)  # before any request: a key that is not set fails the job in one line
    untrusted.check_url(run.model.endpoint)
    source = AudioSource(run)
    pending = list(EvalItem.objects.filter(run=run).unanswered().select_related("run", "source_sample__audio")
                   .order_by("subset", "item_id"))
    if job.params.get("limit"):
        pending = pending[: int(job.params["limit"])]
    answered = EvalItem.objects.filter(run=run).answered().count()
    progress.set_total(answered + len(pending), message=f"Collecting {len(pending)} responses from {run.model.served_model}"
                       + (f" ({answered} already stored)" if answered else ""))
    progress.set_done(answered)
    done, cached, missing, failed = answered, 0, {}, {}
    started = time.monotonic()
    watch = _CancelWatch(job.pk)

    def work(item):
        try:
            return collect_one(run, item, source, api_key=api_key, cancelled=watch.cancelled, owner=f"job:{job.pk}")
        except untrusted.RequestCancelled:
            return {"cancelled": True}
        except transport.VendorError as exc:  # the item's failure, whatever the endpoint did: never the job's
            kind = failure_kind(exc)
            _store_failure(item, kind, exc, exc.http_attempts)
            return {"failed": kind}

    try:
        for item, outcome in results_in_parallel(pending, work, workers=settings.EVALUATION_COLLECT_CONCURRENCY,
                                                 name="collect"):
            if "cancelled" in outcome:
                progress.check_cancelled()
                continue
            if "missing" in outcome:
                missing[item.item_id] = outcome["missing"]
            elif "failed" in outcome:
                failed[item.item_id] = outcome["failed"]
            else:
                cached += outcome["cached"]
            done += 1
            elapsed = time.monotonic() - started
            left = len(pending) - (done - answered)
            eta = f", about {elapsed / (done - answered) * left:.0f} s left" if left else ""
            progress.set_done(done, message=f"{done - answered} of {len(pending)} asked in {elapsed:.0f} s{eta}"
                              + (f", {cached} from cache" if cached else "")
                              + (f", {len(missing) + len(failed)} without a response" if missing or failed else ""))
    finally:
        watch.stop()
    left = EvalItem.objects.filter(run=run).unanswered().count()
    reason = attention_reason(missing, failed)
    set_status(run.pk, RunStatus.READY if left == 0 else (RunStatus.NEEDS_ATTENTION if reason else RunStatus.WAITING),
               reason=reason)
    return {"run": run.pk, "asked": len(pending) - cached - len(missing) - len(failed), "from_cache": cached,
            "missing_audio": missing, "failed": failed, "without_response": left,
            "seconds": round(time.monotonic() - started, 1)}


def attention_reason(missing: dict, failed: dict) -> str:
    """Why the run needs attention: the missing audio in Sori's words, the failed requests as counts by kind
    (never what an endpoint said)."""
    if not missing and not failed:
        return ""
    kinds = Counter(failed.values())
    return f"{len(missing) + len(failed)} items have no response: " + "; ".join(
        list(missing.values())[:3] + [f"{count} {kind}" for kind, count in kinds.most_common()])
