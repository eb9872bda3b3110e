"""Fixtures for the page tests: the verification, listening, consultation, transfer and KMMAU fixtures,
reused as they are, and the scripted demo provider as ./scripts/demo runs it."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.authoring.conftest import corpus_folder, kss_corpus  # noqa: F401
from tests.consultations.conftest import make_question, rulebooks, samples  # noqa: F401
from tests.listening.conftest import make_test, write_manifest  # noqa: F401
from tests.transfer.conftest import _one_sample_at_a_time  # noqa: F401  (worker threads cannot see a test's rows)
from tests.verification.conftest import hpsu, make_project  # noqa: F401


@pytest.fixture
def demo_provider(tmp_path, monkeypatch, settings):
    """`manage.py demo_provider` in its own process, the SDKs pointed at it as scripts/demo does."""
    url_file = tmp_path / "provider.url"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "demo_provider", "--url-file", str(url_file)],
        cwd=Path(settings.BASE_DIR), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not url_file.exists() or not url_file.read_text().strip():
            assert process.poll() is None, process.stderr.read().decode()
            assert time.monotonic() < deadline, "the demo provider did not start"
            time.sleep(0.1)
        url = url_file.read_text().strip()
        # What scripts/demo exports when no key is set.
        monkeypatch.setenv("ANTHROPIC_API_KEY", "demo")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "demo")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{url}/v1")
        settings.SORI_DEMO_PROVIDER = True
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
