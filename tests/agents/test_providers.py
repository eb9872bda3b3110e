"""Each vendor is one module behind base.Provider, found by name in one registry: call_agent and the
configuration checks never branch on a vendor's name."""

import pytest
from pydantic import BaseModel

from apps.agents import providers, transport
from apps.agents.providers.anthropic import AnthropicProvider
from apps.agents.providers.openai import OpenAIProvider
from apps.agents.services import NoProviderConfigured, call_agent

pytestmark = pytest.mark.django_db


class Echo(BaseModel):
    ok: bool
    echo: str


class GatewayProvider(OpenAIProvider):
    """A vendor added the way a new module would add one: a subclass registered under its own name."""

    name = "gateway"
    key_hint = "OPENAI_BASE_URL (the gateway's address)"


@pytest.fixture
def gateway(monkeypatch):
    monkeypatch.setitem(providers._registry, "gateway", GatewayProvider())
    return providers.get("gateway")


def test_the_two_vendors_are_registered_each_from_its_own_module():
    assert isinstance(providers.get("anthropic"), AnthropicProvider)
    assert isinstance(providers.get("openai"), OpenAIProvider)
    assert providers.get("mistral") is None and not providers.is_configured("mistral")
    with pytest.raises(transport.PermanentVendorError, match="unknown provider 'mistral'"):
        providers.complete("mistral", model="m", system="", messages=[], max_tokens=1, timeout=1)


def test_a_registered_provider_serves_a_role_through_call_agent(fake_llm, gateway, settings):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "reviewer": ("gateway", "gpt-4.1")}
    fake_llm.reply({"ok": True, "echo": "sori"})
    result = call_agent(role="reviewer", prompt="provider_check", variables={"word": "sori"}, schema=Echo)
    assert result.data.echo == "sori" and result.call.provider == "gateway"
    assert fake_llm.requests[0]["api"] == "openai"  # the real SDK, against the fake server


def test_an_unconfigured_provider_names_its_own_setting(fake_llm, gateway, settings, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "reviewer": ("gateway", "gpt-4.1")}
    with pytest.raises(NoProviderConfigured, match=r"set OPENAI_BASE_URL \(the gateway's address\)"):
        call_agent(role="reviewer", prompt="provider_check", variables={"word": "sori"}, schema=Echo)
    assert fake_llm.requests == []
