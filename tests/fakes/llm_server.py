"""The `fake_llm` fixture over the fake provider server in apps/agents/fake_server.py (which the scripted demo
provider uses too); see that module for how to script it. Also a guard hiding real provider keys."""

import pytest

from apps.agents.fake_server import FakeLLM, FakeLLMServer, count_tokens  # noqa: F401  (tests import them from here)

PROVIDER_ENV = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID",
)


def point_sdks_at(monkeypatch, url: str) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-anthropic-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-openai-key")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{url}/v1")


@pytest.fixture(autouse=True)
def _no_real_llm_provider(monkeypatch):
    """No test may reach a real provider: whatever keys the developer's shell holds are hidden."""
    for name in PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def fake_llm_server():
    server = FakeLLMServer().start()
    yield server
    server.stop()


@pytest.fixture
def fake_llm(fake_llm_server, monkeypatch, settings):
    """The fake provider, reset for this test, with both SDKs pointed at it and short retry backoff."""
    fake_llm_server.fake.reset()
    point_sdks_at(monkeypatch, fake_llm_server.url)
    settings.AGENTS_BACKOFF_BASE_SECONDS = 0.01
    settings.AGENTS_BACKOFF_MAX_SECONDS = 0.05
    settings.AGENTS_RETRY_AFTER_MAX_SECONDS = 2.0
    settings.AGENTS_TIMEOUT_SECONDS = 5.0
    fake_llm_server.fake.url = fake_llm_server.url
    yield fake_llm_server.fake
    fake_llm_server.fake.reset()
