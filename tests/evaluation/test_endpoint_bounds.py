"""A model's endpoint is an untrusted peer (apps.agents.untrusted): tested through the collector against a
hostile endpoint on 127.0.0.1 that answers huge, gzip-bombed, redirecting, dripping, non-JSON, 4xx and
choice-less bodies; the URL rules at creation and on connect; the key kept out of output and logs; a cancel
aborting a request in flight; slots freed when a killed collector's job is reclaimed."""

import json
import logging
import socket
import threading
import time
import tracemalloc
import zlib

import pytest

from apps.agents import untrusted
from apps.agents.providers import get
from apps.core.errors import Forbidden, InvalidInput
from apps.evaluation.models import EvalItem, EvaluatedModel, RunStatus
from apps.evaluation.services import create_model, start_collection

pytestmark = pytest.mark.django_db
MiB = 1024 * 1024


def _json_answer(text: str) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}).encode()


def _response(status: int, body: bytes, *, headers: dict | None = None, reason: str = "OK") -> bytes:
    head = {"content-type": "application/json", "content-length": str(len(body)), "connection": "close", **(headers or {})}
    return (f"HTTP/1.1 {status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n").encode() + body


def _gzip_bomb(inflated: int) -> bytes:
    """A gzip body that inflates to `inflated` bytes of a JSON answer, built in 1 MiB steps (never whole)."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    head = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
    parts, block = [squeeze.compress(head)], b"a" * MiB
    for _ in range(inflated // MiB):
        parts.append(squeeze.compress(block))
    parts.append(squeeze.compress(b'"}}]}') + squeeze.flush())
    return b"".join(parts)


class Hostile:
    """A raw HTTP endpoint on 127.0.0.1. Each connection takes the next scripted behaviour (a function of the
    socket), or `default`; every request's head and body are recorded."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.script, self.requests, self.default = [], [], self.answer("an answer")
        self.closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while not self.closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn):
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            while len(body) < int(headers.get("content-length", 0)):
                body += conn.recv(65536)
            self.requests.append({"line": lines[0], "headers": headers, "body": body})
            behaviour = self.script.pop(0) if self.script else self.default
            try:
                behaviour(conn)
            except OSError:
                pass  # the client hung up, as it should on a refused answer

    @staticmethod
    def answer(text: str):
        return lambda conn: conn.sendall(_response(200, _json_answer(text)))

    @staticmethod
    def raw(status: int, body: bytes, **headers):
        return lambda conn: conn.sendall(_response(status, body, headers={k.replace("_", "-"): v for k, v in headers.items()}))

    @staticmethod
    def drip(every: float):
        """Headers at once, then one byte of a never-ending body every `every` seconds."""
        def send(conn):
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n")
            while True:
                conn.sendall(b" ")
                time.sleep(every)
        return send

    def close(self):
        self.closed.set()
        self.sock.close()


@pytest.fixture
def hostile(settings):
    settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS = True  # it listens on 127.0.0.1
    server = Hostile()
    yield server
    server.close()


def _ask(url, *, timeout=10.0, cancelled=None, api_key=""):
    return get("openai").complete_at(base_url=url, api_key=api_key, model="m", timeout=timeout, max_tokens=16,
                                     cancelled=cancelled,
                                     messages=[{"role": "user", "content": [{"type": "text", "text": "hi"}]}])


def _failure(url, **kwargs) -> untrusted.EndpointFailure:
    with pytest.raises(untrusted.EndpointFailure) as caught:
        _ask(url, **kwargs)
    return caught.value


# --- size ------------------------------------------------------------------------------------------------------
def test_an_answer_under_the_cap_is_read(hostile):
    hostile.default = hostile.answer("오늘은 맑아요.")
    completion = _ask(hostile.url)
    assert completion.text == "오늘은 맑아요." and (completion.input_tokens, completion.output_tokens) == (3, 4)
    assert hostile.requests[0]["headers"]["accept-encoding"] == "gzip, deflate"


def test_an_answer_over_the_byte_cap_is_refused(hostile, settings):
    settings.EVALUATION_RESPONSE_MAX_BYTES = MiB
    hostile.default = hostile.answer("x" * (2 * MiB))
    assert _failure(hostile.url).kind == "answer too large"


def test_a_gzip_bomb_is_cut_at_the_cap_after_decompression_with_memory_bounded(hostile, settings):
    settings.EVALUATION_RESPONSE_MAX_BYTES = MiB
    bomb = _gzip_bomb(100 * MiB)
    assert len(bomb) < 200_000  # ~100 KB on the wire, 100 MiB inflated
    hostile.default = hostile.raw(200, bomb, content_encoding="gzip")

    tracemalloc.start()
    try:
        failure = _failure(hostile.url)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert failure.kind == "answer too large"
    assert peak < 8 * MiB, f"peak {peak / MiB:.1f} MiB"


def test_a_small_gzip_answer_is_decoded_and_deflate_too(hostile):
    body = _json_answer("압축된 대답")
    hostile.script = [hostile.raw(200, zlib.compress(body), content_encoding="deflate")]
    hostile.default = hostile.raw(200, _gzip_small(body), content_encoding="gzip")
    assert _ask(hostile.url).text == "압축된 대답"
    assert _ask(hostile.url).text == "압축된 대답"


def _gzip_small(body: bytes) -> bytes:
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return squeeze.compress(body) + squeeze.flush()


def test_an_encoding_that_cannot_be_bounded_is_refused(hostile):
    hostile.default = hostile.raw(200, b"\x1b\x00\x00", content_encoding="br")
    assert _failure(hostile.url).kind == "unsupported encoding"


# --- redirects -------------------------------------------------------------------------------------------------
def test_a_redirect_is_refused_and_the_other_host_never_reached(hostile):
    elsewhere = Hostile()
    try:
        for status in (307, 308, 302):
            hostile.script.append(hostile.raw(status, b"", location=f"{elsewhere.url}/chat/completions"))
            assert _failure(hostile.url).kind == "redirect refused"
        assert elsewhere.requests == []
    finally:
        elsewhere.close()


# --- time ------------------------------------------------------------------------------------------------------
def test_a_dripping_endpoint_is_cut_at_the_whole_request_deadline(hostile):
    hostile.default = hostile.drip(0.3)  # a byte every 0.3 s: never idle long enough for a read timeout
    started = time.monotonic()
    with pytest.raises(untrusted.RequestTimedOut):
        _ask(hostile.url, timeout=1.5)
    took = time.monotonic() - started
    assert 1.4 < took < 2.2, took


def test_a_cancel_aborts_a_request_in_flight(hostile):
    hostile.default = hostile.drip(0.3)
    cancelled = threading.Event()
    threading.Timer(0.5, cancelled.set).start()
    started = time.monotonic()
    with pytest.raises(untrusted.RequestCancelled):
        _ask(hostile.url, timeout=60, cancelled=cancelled)
    assert time.monotonic() - started < 1.0


# --- where an endpoint may point -------------------------------------------------------------------------------
@pytest.mark.parametrize("url", [
    "http://user:sk-secret@gpu-1:8000/v1", "http://sk-secret@gpu-1:8000/v1", "https://:sk-secret@models.example.org/v1",
])
def test_a_url_with_credentials_is_refused(url, admin, settings):
    settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS = True
    with pytest.raises(InvalidInput, match="credentials"):
        create_model(name="Leaky", endpoint=url, served_model="m", acting_user=admin)
    assert not EvaluatedModel.objects.exists()


@pytest.mark.parametrize("url", [
    "http://169.254.169.254/latest/meta-data", "http://169.254.10.3:8000/v1", "http://[fe80::1]:8000/v1",
    "http://[fd00:ec2::254]/v1", "http://metadata.google.internal/computeMetadata/v1", "http://[::ffff:169.254.169.254]/",
])
def test_link_local_and_metadata_addresses_are_refused_even_when_local_ones_are_allowed(url, admin, settings):
    settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS = True
    # an IPv4 address or a name by policy (403); an IPv6 literal is no endpoint at all (400: give a name)
    with pytest.raises(Forbidden if "[" not in url else InvalidInput, match="link-local|metadata|http\\(s\\) URL"):
        create_model(name="Metadata", endpoint=url, served_model="m", acting_user=admin)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/v1", "http://localhost:8000/v1",
                                 "http://0.0.0.0:8000/v1", "http://127.8.9.10/v1", "http://sori.example.org/v1"])
def test_soris_own_host_is_refused_unless_allowed(url, admin, settings):
    settings.ALLOWED_HOSTS = ["sori.example.org", "localhost"]
    settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS = False
    with pytest.raises(Forbidden, match="own host"):
        create_model(name="Self", endpoint=url, served_model="m", acting_user=admin)
    settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS = True
    assert create_model(name="Self", endpoint=url, served_model="m", acting_user=admin).endpoint == url


@pytest.mark.django_db
def test_a_private_network_host_is_allowed_and_the_host_list_restricts(admin, settings):
    settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS = False
    assert create_model(name="LAN", endpoint="http://10.0.3.7:8000/v1", served_model="m", acting_user=admin)
    settings.EVALUATION_ENDPOINT_HOSTS = ["gpu-1", "gpu-2.lab.example"]
    assert create_model(name="Listed", endpoint="http://gpu-2.lab.example:8000/v1", served_model="m", acting_user=admin)
    with pytest.raises(Forbidden, match="SORI_EVALUATION_ENDPOINT_HOSTS"):
        create_model(name="Unlisted", endpoint="http://gpu-3:8000/v1", served_model="m", acting_user=admin)


def test_a_name_that_resolves_to_a_refused_address_is_refused_on_connect(hostile, settings, monkeypatch):
    """DNS rebinding: the name passed the URL rules; the peer it connected to is checked again."""
    real = socket.getaddrinfo

    def resolve(host, *args, **kwargs):
        return real("127.0.0.1" if host == "model.rebind.example" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    url = f"http://model.rebind.example:{hostile.port}/v1"
    assert _ask(url).text == "an answer"  # local endpoints allowed: it is answered
    settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS = False
    before = len(hostile.requests)
    failure = _failure(url)
    assert failure.kind == "endpoint refused" and "127.0.0.1" in str(failure)
    time.sleep(0.1)
    assert len(hostile.requests) == before  # closed on connect: no request (nor audio) was sent


@pytest.mark.django_db
def test_the_api_refuses_a_credentialed_or_metadata_endpoint(api_client, admin, settings):
    api_client.force_authenticate(admin)
    for url, status in (("http://user:sk-abc@gpu-1:8000/v1", 400), ("http://169.254.169.254/v1", 403),
                        ("https://a:Bq[", 400), ("http://gpu-1:65536/v1", 400)):
        answer = api_client.post("/api/evaluation/models/", {"name": "Bad", "endpoint": url, "served_model": "m"},
                                 format="json")
        assert answer.status_code == status, answer.content
        assert "sk-abc" not in answer.content.decode()
    assert not EvaluatedModel.objects.exists()


# --- failures are per item, through the collection job ---------------------------------------------------------
SECRET_BODY = b'{"error": {"message": "INTERNAL-SECRET db_password=hunter2 ' + b"x" * 500 + b'"}}'


@pytest.mark.django_db
def test_each_bad_answer_fails_its_item_only_and_the_reason_carries_no_endpoint_words(
        english_run, qwen, hostile, audio_dir, inline_jobs, admin, settings):
    settings.AGENTS_MAX_ATTEMPTS = 1
    EvaluatedModel.objects.filter(pk=qwen.pk).update(endpoint=hostile.url)
    hostile.script = [
        hostile.raw(400, SECRET_BODY),
        hostile.raw(200, b"<html>INTERNAL-SECRET db_password=hunter2</html>", content_type="text/html"),
        hostile.raw(200, b'{"object": "error", "detail": "INTERNAL-SECRET"}'),
        hostile.raw(307, b"", location="http://127.0.0.1:9/"),
        hostile.answer("Canberra is the capital."),
    ]
    with inline_jobs():
        job = start_collection(run=english_run, acting_user=admin)
    job.refresh_from_db()
    english_run.refresh_from_db()

    assert job.status == "succeeded", job.error
    assert sorted(job.result["failed"].values()) == ["HTTP 400", "answer not JSON", "answer without choices", "redirect refused"]
    assert english_run.status == RunStatus.NEEDS_ATTENTION
    assert english_run.attention_reason.startswith("4 items have no response")
    for text in (english_run.attention_reason, job.message, json.dumps(job.result)):
        assert "SECRET" not in text and "hunter2" not in text
    failed = EvalItem.objects.filter(run=english_run, response__isnull=True)
    assert failed.count() == 4
    for item in failed:
        assert item.response_meta["collect_failed"] and len(item.response_meta["collect_excerpt"]) <= 200
    assert "hunter2" in failed.get(response_meta__collect_failed="HTTP 400").response_meta["collect_excerpt"]


@pytest.mark.django_db
def test_a_response_over_the_cell_limit_is_stored_truncated_and_marked(english_run, fake_endpoint, audio_dir,
                                                                      inline_jobs, admin):
    from apps.core.tabular import MAX_CELL_CHARS

    fake_endpoint.always("가" * (MAX_CELL_CHARS + 5000))
    with inline_jobs():
        start_collection(run=english_run, acting_user=admin, limit=1)
    item = EvalItem.objects.get(run=english_run, response__isnull=False)
    assert len(item.response) == MAX_CELL_CHARS
    assert item.response_meta["truncated_from_chars"] == MAX_CELL_CHARS + 5000


# --- the key ---------------------------------------------------------------------------------------------------
KEY = "sk-live-7f3c9a1e5b2d-never-shown"


@pytest.mark.django_db
def test_the_key_is_sent_to_the_endpoint_but_never_shown_or_logged(
        english_run, qwen, hostile, audio_dir, inline_jobs, admin, api_client, client, settings, monkeypatch, caplog):
    monkeypatch.setenv("SORI_MODEL_KEY_QWEN", KEY)
    api_client.force_authenticate(admin)
    made = api_client.post("/api/evaluation/models/", {
        "name": "Keyed", "endpoint": hostile.url, "served_model": "m", "api_key_env": "SORI_MODEL_KEY_QWEN"}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["has_key"] is True and "api_key_env" not in made.json()
    model = EvaluatedModel.objects.get(pk=made.json()["id"])
    EvaluatedModel.objects.filter(pk=qwen.pk).update(endpoint=hostile.url, api_key_env="SORI_MODEL_KEY_QWEN")

    caplog.set_level(logging.DEBUG)
    with inline_jobs():
        job = start_collection(run=english_run, acting_user=admin)
    job.refresh_from_db()

    assert job.status == "succeeded", job.error
    assert {r["headers"]["authorization"] for r in hostile.requests} == {f"Bearer {KEY}"}
    assert "HTTP Request: POST" in caplog.text and KEY not in caplog.text
    client.force_login(admin)
    shown = [api_client.get(f"/api/evaluation/models/{model.pk}/").content, api_client.get("/api/evaluation/models/").content,
             api_client.get(f"/api/evaluation/runs/{english_run.pk}/").content,
             client.get(f"/evaluation/runs/{english_run.pk}/").content, client.get("/evaluation/runs/").content]
    for body in shown:
        assert KEY.encode() not in body and b"SORI_MODEL_KEY_QWEN" not in body


@pytest.mark.django_db
def test_a_key_must_be_named_under_the_prefix(admin, db, settings):
    for name in ("SECRET_KEY", "DATABASE_URL", "sori_model_key_x", "SORI_MODEL_KEY_", "sk-abc"):
        with pytest.raises(InvalidInput, match="SORI_MODEL_KEY_"):
            create_model(name=f"K {name}", endpoint="http://gpu-1:8000/v1", served_model="m", api_key_env=name,
                         acting_user=admin)


def test_http_client_logs_lose_userinfo_and_key_headers(caplog):
    caplog.set_level(logging.DEBUG)
    logging.getLogger("httpx2").info("HTTP Request: %s %s", "POST", "http://bob:sk-abc123@gpu-1:8000/v1/chat")
    logging.getLogger("openai._base_client").debug("Request options: %s", {"headers": {"Authorization": "Bearer sk-abc123"}})
    assert "sk-abc123" not in caplog.text and "gpu-1:8000/v1/chat" in caplog.text


# --- slots -----------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_killed_collectors_slots_are_freed_when_its_job_is_reclaimed(settings):
    from datetime import timedelta

    from django.utils import timezone

    from apps.agents.slots import _redis, provider_slot
    from apps.jobs.models import Job, JobStatus
    from apps.jobs.services import reclaim_lost_jobs

    assert settings.REDIS_URL
    settings.AGENTS_SLOT_LEASE_SECONDS = 300
    slot = f"evaluation:http://gpu-{time.time_ns()}:8000/v1"
    job = Job.objects.create(kind="evaluation.collect", title="collect", status=JobStatus.RUNNING,
                             lease_expires_at=timezone.now() - timedelta(seconds=5))
    held = [provider_slot(slot, limit=2, owner=f"job:{job.pk}") for _ in range(2)]
    for hold in held:
        hold.__enter__()  # the worker is killed inside the request: never released
    key = f"sori:agents:slots:{slot}"
    assert _redis().zcard(key) == 2

    assert reclaim_lost_jobs() == [job.pk]

    assert _redis().zcard(key) == 0
    started = time.monotonic()
    with provider_slot(slot, limit=2):  # a new collector gets a slot at once, not after the 300 s lease
        pass
    assert time.monotonic() - started < 1


# --- a cancel of the job aborts its requests in flight ---------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_cancelling_the_collection_job_aborts_its_requests_within_seconds(english_run, qwen, hostile, audio_dir, admin,
                                                                        settings):
    from apps.jobs.models import JobStatus
    from apps.jobs.services import request_cancel

    settings.JOB_RUNNER = "thread"
    settings.EVALUATION_CANCEL_POLL_SECONDS = 0.2
    settings.EVALUATION_COLLECT_CONCURRENCY = 2
    settings.EVALUATION_COLLECT_TIMEOUT_SECONDS = 600.0  # only the cancel can end these requests
    EvaluatedModel.objects.filter(pk=qwen.pk).update(endpoint=hostile.url)
    hostile.default = hostile.drip(0.5)
    job = start_collection(run=english_run, acting_user=admin)
    deadline = time.monotonic() + 20
    while len(hostile.requests) < 2 and time.monotonic() < deadline:  # both requests in flight, dripping
        time.sleep(0.05)
    assert len(hostile.requests) == 2

    asked = time.monotonic()
    request_cancel(job=job)
    while job.status not in (JobStatus.CANCELLED, JobStatus.FAILED, JobStatus.SUCCEEDED) and time.monotonic() < deadline:
        time.sleep(0.05)
        job.refresh_from_db()
    took = time.monotonic() - asked
    print(f"time to cancel the job: {took:.2f} s")

    assert job.status == JobStatus.CANCELLED, (job.status, job.error)
    assert took < 3, took
    assert not EvalItem.objects.filter(run=english_run, response__isnull=False).exists()
    assert len(hostile.requests) == 2  # nothing more was asked after the cancel
