"""`manage.py collect_responses` ends in one line whatever goes wrong (CommandError with a message a person can
act on), never a traceback: not for an unknown run, a bad endpoint, an endpoint that is down or answers an
error, nor for an unexpected failure; and a failed job's traceback logged meanwhile is printed as one line."""

import io
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def console():
    """What the console handler (settings.LOGGING's StreamHandler on the root logger) would print."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


@pytest.fixture
def quick(settings):
    settings.AGENTS_MAX_ATTEMPTS = 1
    settings.AGENTS_BACKOFF_BASE_SECONDS = 0


def _refusal(console, **options) -> str:
    with pytest.raises(CommandError) as refused:
        call_command("collect_responses", **options)
    message = str(refused.value)
    assert "\n" not in message and message.strip() == message and message
    assert "Traceback" not in console.getvalue()
    assert all(line.strip() for line in console.getvalue().splitlines())
    return message


@pytest.mark.django_db
def test_an_unknown_run_is_named(admin, console):
    assert _refusal(console, run=987654) == "no run 987654"


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", ["ftp://gpu-1/v1", "http://gpu 1:8000/v1", "gpu-1:8000"])
def test_a_bad_endpoint_for_a_new_model_is_refused_in_one_line(voicebench, admin, console, endpoint):
    message = _refusal(console, model="Hostile", endpoint=endpoint, served_model="m", benchmark="source:voicebench")
    assert message == "the endpoint must be an http(s) URL, e.g. http://gpu-1:8000/v1"


@pytest.mark.django_db
def test_a_model_without_an_endpoint_says_what_to_do_instead(english_run, admin, console):
    from apps.evaluation.models import EvaluatedModel

    EvaluatedModel.objects.filter(pk=english_run.model_id).update(endpoint="")
    assert "has no endpoint to collect from; import its responses instead" in _refusal(console, run=english_run.pk)


@pytest.mark.django_db
def test_an_unreachable_endpoint_ends_in_one_line_naming_the_run(english_run, audio_dir, admin, console, quick):
    import socket

    from apps.evaluation.models import EvaluatedModel

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    EvaluatedModel.objects.filter(pk=english_run.model_id).update(endpoint=f"http://127.0.0.1:{port}/v1")

    message = _refusal(console, run=english_run.pk)

    assert message.startswith(f"run {english_run.pk}: ")
    assert "connection" in message.lower()


@pytest.mark.django_db
def test_an_endpoint_answering_an_error_ends_in_one_line(english_run, fake_endpoint, audio_dir, admin, console, quick):
    fake_endpoint.fail(status=400, times=10)
    message = _refusal(console, run=english_run.pk)
    assert message.startswith(f"run {english_run.pk}: ") and "400" in message


@pytest.mark.django_db
def test_an_unexpected_failure_is_one_line_too(english_run, admin, console, monkeypatch):
    from apps.evaluation import services

    def broken(**kwargs):
        raise RuntimeError("the disk is full\n  at line 2")

    monkeypatch.setattr(services, "start_collection", broken)
    assert _refusal(console, run=english_run.pk) == "collect_responses failed: RuntimeError: the disk is full at line 2"


@pytest.mark.django_db
def test_a_limit_below_one_is_refused(english_run, admin):
    with pytest.raises(CommandError, match="expected a whole number of 1 or more, not '0'"):
        call_command("collect_responses", "--limit", "0", run=english_run.pk)


@pytest.mark.django_db(transaction=True)
def test_on_the_command_line_a_failed_job_prints_no_traceback(english_run, fake_endpoint, audio_dir, admin):
    """The real thing: manage.py in its own process, against this test's database and the fake endpoint."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        pytest.skip("another process cannot open an in-memory test database")
    fake_endpoint.fail(status=400, times=10)
    fake_endpoint.malformed(times=10)
    url = f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {**os.environ, "DATABASE_URL": url, "SORI_AGENT_MAX_ATTEMPTS": "1", "SORI_AGENT_BACKOFF_BASE_MS": "0"}

    done = subprocess.run([sys.executable, "manage.py", "collect_responses", "--run", str(english_run.pk),
                           ], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stderr.splitlines()[-1].startswith(f"CommandError: run {english_run.pk}: ")
