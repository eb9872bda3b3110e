"""What the server prints: each line once, a refusal as one line (no traceback), no 404 for the favicon."""

import os
import subprocess
import sys
from pathlib import Path

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
