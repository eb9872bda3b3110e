"""What the server prints: each line once, a refusal as one line (no traceback), no 404 for the favicon."""

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from apps.core.errors import FileRefused, Unavailable
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import job_handler, start_job

ROOT = Path(__file__).resolve().parents[2]


def _stderr_of(code: str, **env: str) -> str:
    """What a Django process of the project prints on stderr running `code` after django.setup()."""
    script = "import django, logging; django.setup(); " + code
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True,
                         text=True, timeout=120, check=True)
    return run.stderr


def test_a_request_warning_is_printed_once_under_debug():
    # The demo runs with DEBUG=1: Django's own console handler on "django" and root's both printed it.
    err = _stderr_of("logging.getLogger('django.request').warning('Not Found: /marker-404')", DEBUG="1")
    assert err.count("Not Found: /marker-404") == 1, err


def test_an_app_log_line_is_printed_once():
    err = _stderr_of("logging.getLogger('apps.jobs.services').warning('marker from an app')", DEBUG="1")
    assert err.count("marker from an app") == 1, err


def test_favicon_ico_leads_to_the_shipped_icon(client):
    from django.contrib.staticfiles import finders

    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"].endswith("img/favicon.svg")
    assert finders.find("img/favicon.svg"), "the icon is a static file"


def test_every_page_names_the_icon(client):
    page = client.get("/login/").content.decode()
    assert '<link rel="icon" href="/static/img/favicon.svg" type="image/svg+xml">' in page


@job_handler("tests.logging.refuse")
def _refuse(job, progress):
    raise FileRefused("missing audio file c001.wav", file="manifest.csv", line=3, field="audio")


@job_handler("tests.logging.unavailable")
def _unavailable(job, progress):
    raise Unavailable("the cache cannot be reached")


@job_handler("tests.logging.crash")
def _crash(job, progress):
    raise ZeroDivisionError("a bug")


def _run(kind, django_capture_on_commit_callbacks) -> Job:
    with django_capture_on_commit_callbacks(execute=True):
        job = start_job(kind=kind, title=kind)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    return job


def _job_records(caplog):
    return [r for r in caplog.records if r.name == "apps.jobs.services" and r.levelno >= logging.WARNING]


def test_a_refused_upload_logs_one_line_with_its_reason_and_no_traceback(db, caplog, django_capture_on_commit_callbacks):
    job = _run("tests.logging.refuse", django_capture_on_commit_callbacks)
    [record] = _job_records(caplog)
    assert record.exc_info is None and record.levelno == logging.WARNING
    assert record.getMessage() == (f"job {job.pk} (tests.logging.refuse) refused: "
                                   "manifest.csv line 3: audio: missing audio file c001.wav")
    assert "FileRefused" in job.error  # the job's row keeps the whole story for the admin


@pytest.mark.parametrize("kind", ["tests.logging.unavailable", "tests.logging.crash"])
def test_a_server_side_failure_still_logs_its_traceback(kind, db, caplog, django_capture_on_commit_callbacks):
    _run(kind, django_capture_on_commit_callbacks)
    [record] = _job_records(caplog)
    assert record.levelno == logging.ERROR and record.exc_info is not None
