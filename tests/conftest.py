"""Shared test fixtures: Sori's cast (an admin, an expert, seven listeners, three annotators), real audio
files made on the spot, API clients, and a headless Chromium page for browser tests.

Tests marked `postgres` run only against PostgreSQL (CI and scripts/test use it); tests marked `redis` only
when REDIS_URL points at a broker.

scripts/test runs the suite on several pytest-xdist workers; each has its own test database (pytest-django
names it test_<name>_gw0, _gw1, ...), Redis database and data folder (pytest_xdist_setupnodes below)."""

import math
import os
import re
import struct
import wave
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

# Playwright's sync API runs an event loop in the test thread; Django's ORM must still be usable there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"

# The fake LLM provider server and its `fake_llm` fixture (and a guard hiding real provider keys).
pytest_plugins = ["tests.fakes.llm_server", "tests.fakes.speech_server"]


REDIS_DATABASES = 16  # redis-server's default `databases`


def worker_redis_url(url: str, offset: int) -> str:
    """redis://host:port/D -> the same URL with database D + offset (D is 0 when the URL names none)."""
    match = re.fullmatch(r"(rediss?://[^/?#]*)(?:/(\d*))?", url)
    if not match:
        raise pytest.UsageError(f"REDIS_URL={url!r}: expected redis://host:port/DB with nothing after DB")
    database = int(match.group(2) or 0) + offset
    if database >= REDIS_DATABASES:
        raise pytest.UsageError(
            f"REDIS_URL={url!r}: test worker {offset} would use Redis database {database}, and Redis has "
            f"{REDIS_DATABASES}; give REDIS_URL a lower database or run fewer workers (-n)"
        )
    return f"{match.group(1)}/{database}"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config, specs):
    """Worker N gets Redis database <REDIS_URL's> + N and SORI_DATA_DIR/workerN: else one worker's
    cache.clear() or broker clean-up would wipe another's keys mid-test. They go into the workers' environment
    (set before Django reads its settings there), so the Celery workers, manage.py runs and benchmark scripts
    a test starts inherit them too. A worker that replaces a crashed one reuses its spec, so its slot."""
    for offset, spec in enumerate(specs):
        for variable in ("REDIS_URL", "CELERY_BROKER_URL"):
            if os.environ.get(variable, "").startswith("redis"):
                spec.env[variable] = worker_redis_url(os.environ[variable], offset)
        if os.environ.get("SORI_DATA_DIR"):
            data_dir = Path(os.environ["SORI_DATA_DIR"]) / f"worker{offset}"
            data_dir.mkdir(parents=True, exist_ok=True)
            spec.env["SORI_DATA_DIR"] = str(data_dir)


def pytest_runtest_setup(item):
    if "postgres" in item.keywords and connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: set DATABASE_URL=postgres://... (scripts/test does)")
    if "redis" in item.keywords and not settings.REDIS_URL:
        pytest.skip("needs Redis: set REDIS_URL=redis://... (scripts/test does)")
    if "browser" in item.keywords and not Path(CHROMIUM).exists():
        pytest.skip(f"needs Chromium at {CHROMIUM} (Debian package chromium; .ci/run installs it)")


@pytest.fixture(autouse=True)
def _isolated(settings, tmp_path):
    """Each test gets its own media folder, inline jobs and an empty cache."""
    from django.core.cache import cache

    settings.MEDIA_ROOT = tmp_path / "media"
    settings.JOB_RUNNER = "sync"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast; tests make many users
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_user(db):
    from apps.accounts.services import user_upsert

    # The cast reads Sori in English, the source language the suite's assertions quote; a participant made
    # made with language=None keeps the account's own default (Korean for participants, as in use).
    def make(username: str, *roles: str, password: str = "pw-for-tests-1", language: str | None = "en"):
        user, _ = user_upsert(username=username, roles=list(roles), password=password)
        if language is not None and language != user.language:
            user.language = language
            user.save(update_fields=["language"])
        return user

    return make


@pytest.fixture
def admin(make_user):
    return make_user("alice_admin", "admin")


@pytest.fixture
def expert(make_user):
    return make_user("erin_expert", "expert")


@pytest.fixture
def listeners(make_user):
    return [make_user(f"listener{i}", "listener") for i in range(1, 8)]


@pytest.fixture
def listener(listeners):
    return listeners[0]


@pytest.fixture
def annotators(make_user):
    return [make_user(f"annotator{i}", "annotator") for i in range(1, 4)]


@pytest.fixture
def annotator(annotators):
    return annotators[0]


@pytest.fixture
def api_client():
    """An APIClient; `api_client.force_authenticate(user)` to act as someone."""
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def token_client_for(db):
    """An API client authenticated as the user by a real token, as an automated client is (the token's
    own query included in what a test counts): token_client_for(user).post(...)."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    def make(user):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        return client

    return make


@pytest.fixture
def client_for(db):
    """A logged-in Django test client for a user: client_for(user).get(...)."""
    from django.test import Client

    def make(user):
        client = Client()
        client.force_login(user)
        return client

    return make


def write_wav(path: Path, *, seconds: float = 1.0, rate: int = 16000, channels: int = 1, freq: float = 440.0) -> Path:
    """A real PCM WAV file: a sine tone. Different `freq` or `seconds` give different bytes (and sha256)."""
    frames = int(seconds * rate)
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(channels)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        samples = (int(12000 * math.sin(2 * math.pi * freq * n / rate)) for n in range(frames))
        wav.writeframes(b"".join(struct.pack("<h", s) * channels for s in samples))
    return path


@pytest.fixture
def make_wav(tmp_path):
    def make(name: str = "tone.wav", **kwargs) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_wav(path, **kwargs)

    return make


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        instance = pw.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--autoplay-policy=no-user-gesture-required",
            ],
        )
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


@pytest.fixture
def login(live_server):
    """login(page, user, password=...) logs in through the real login form."""

    def do_login(page, user, password: str = "pw-for-tests-1"):
        page.goto(f"{live_server.url}/login/")
        page.fill("#id_username", user.username)
        page.fill("#id_password", password)
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")

    return do_login


@pytest.fixture(scope="session", autouse=True)
def _drop_stray_connections(django_db_setup, django_db_blocker):
    """Threads of live servers and workers may keep a connection to the test database open, which would
    stop PostgreSQL from dropping it at the end of the session; end them first."""
    yield
    # pytest-django creates the test database only when a collected test uses it.
    if connection.vendor != "postgresql" or not connection.settings_dict["NAME"].startswith("test_"):
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
