"""call_agent through the real anthropic and openai SDKs against the fake provider server."""

from decimal import Decimal

import pytest
from pydantic import BaseModel

from apps.agents import transport
from apps.agents.models import AgentCall, CachedResponse, CallStatus, RoleAssignment
from apps.agents.services import (
    AgentNeedsAttention,
    NoProviderConfigured,
    ProviderRejected,
    agent_config,
    call_agent,
    require_distinct_models,
)
from apps.core.errors import Conflict

pytestmark = pytest.mark.django_db


class Echo(BaseModel):
    ok: bool
    echo: str


def ask(word="sori", role="reviewer", **kwargs):
    return call_agent(role=role, prompt="provider_check", variables={"word": word}, schema=Echo, **kwargs)


def test_an_openai_role_gets_a_validated_answer_with_tokens_and_cost(fake_llm, settings):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "reviewer": ("openai", "gpt-4.1")}
    fake_llm.reply({"ok": True, "echo": "sori"}, usage=(1200, 300))

    result = ask()

    assert result.data == Echo(ok=True, echo="sori")
    assert result.cached is False
    call = result.call
    assert (call.provider, call.model, call.status) == ("openai", "gpt-4.1", CallStatus.OK)
    assert (call.prompt_name, call.prompt_version) == ("provider_check", 1)
    assert (call.input_tokens, call.output_tokens) == (1200, 300)
    # gpt-4.1: $2 per million in, $8 per million out
    assert call.cost_usd == Decimal("0.004800")
    assert len(call.input_hash) == 64 and call.latency_ms >= 0
    request = fake_llm.requests[0]
    assert request["api"] == "openai" and request["model"] == "gpt-4.1"
    assert "sori" in request["body"]["messages"][-1]["content"]
    assert request["body"]["messages"][0]["role"] == "system"  # the schema instructions


def test_an_anthropic_role_speaks_the_messages_api(fake_llm, settings):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "meta_reviewer": ("anthropic", "claude-sonnet-4-5")}
    fake_llm.reply({"ok": True, "echo": "sori"}, usage=(1000, 100))

    result = ask(role="meta_reviewer")

    assert fake_llm.requests[0]["api"] == "anthropic"
    assert "JSON Schema" in fake_llm.requests[0]["body"]["system"]
    assert result.call.cost_usd == Decimal("0.004500")  # 1000 * 3/M + 100 * 15/M
    assert result.call.raw_response["usage"]["input_tokens"] == 1000


def test_a_cache_hit_makes_no_http_request_and_costs_nothing(fake_llm):
    fake_llm.reply({"ok": True, "echo": "sori"})
    first = ask()
    assert len(fake_llm.requests) == 1

    again = ask()

    assert len(fake_llm.requests) == 1
    assert again.cached is True and again.data == first.data
    assert again.call.status == CallStatus.CACHED and again.call.cost_usd == 0
    assert again.call.input_hash == first.call.input_hash
    assert CachedResponse.objects.get().hits == 1


def test_a_different_input_is_not_served_from_the_cache(fake_llm):
    fake_llm.always(lambda body: {"ok": True, "echo": "x"})
    ask("one")
    ask("two")
    assert len(fake_llm.requests) == 2


def test_it_retries_a_429_honouring_retry_after_then_succeeds(fake_llm, monkeypatch):
    fake_llm.fail(status=429, retry_after=0.3)
    fake_llm.reply({"ok": True, "echo": "sori"})
    waits = []
    monkeypatch.setattr(transport, "pause", waits.append)  # the plan, not the clock

    result = ask()

    assert waits == [0.3]  # the server's retry-after, not our backoff
    assert result.data.ok and result.call.http_attempts == 2
    assert len(fake_llm.requests) == 2


def test_it_retries_429_without_retry_after_and_500s_with_backoff(fake_llm, monkeypatch):
    fake_llm.fail(status=429)
    fake_llm.fail(status=500, times=2)
    fake_llm.reply({"ok": True, "echo": "sori"})
    waits = []
    monkeypatch.setattr(transport, "pause", waits.append)

    result = ask()

    assert result.call.http_attempts == 4
    # Exponential from the fixture's 0.01 s base, each wait between half its ceiling and the ceiling.
    assert len(waits) == 3 and all(c / 2 <= w <= c for w, c in zip(waits, (0.01, 0.02, 0.04), strict=True))
    assert AgentCall.objects.filter(status=CallStatus.OK).count() == 1


def test_it_retries_a_timeout(fake_llm, settings):
    settings.AGENTS_TIMEOUT_SECONDS = 0.3
    fake_llm.slow(1.0)
    fake_llm.reply({"ok": False, "echo": "late"})  # consumed by the timed-out request
    fake_llm.reply({"ok": True, "echo": "sori"})

    result = ask()

    assert result.data.echo == "sori" and result.call.http_attempts == 2


def test_a_provider_that_keeps_failing_leaves_the_item_needing_attention(fake_llm, settings):
    settings.AGENTS_MAX_ATTEMPTS = 3
    fake_llm.fail(status=503, times=3)

    with pytest.raises(AgentNeedsAttention) as raised:
        ask()

    assert "503" in raised.value.reason
    assert raised.value.call.status == CallStatus.FAILED and raised.value.call.http_attempts == 3
    assert len(fake_llm.requests) == 3


def test_a_refused_request_is_not_retried(fake_llm):
    fake_llm.fail(status=401)
    with pytest.raises(ProviderRejected):
        ask()
    assert len(fake_llm.requests) == 1


def test_malformed_json_is_retried_with_the_error_then_accepted(fake_llm):
    fake_llm.malformed()
    fake_llm.reply({"ok": True, "echo": "sori"})

    result = ask()

    assert result.data.ok and result.call.attempt == 2
    retry_messages = fake_llm.requests[1]["body"]["messages"]
    assert "not valid JSON" in retry_messages[-1]["content"]
    assert retry_messages[-2]["role"] == "assistant"
    assert list(AgentCall.objects.order_by("id").values_list("status", flat=True)) == ["invalid", "ok"]


def test_an_answer_invalid_twice_needs_attention_and_is_not_cached(fake_llm):
    fake_llm.malformed()
    fake_llm.reply({"ok": "maybe"})  # valid JSON, wrong shape

    with pytest.raises(AgentNeedsAttention) as raised:
        ask()

    assert "does not match the schema" in raised.value.reason
    assert len(fake_llm.requests) == 2
    assert not CachedResponse.objects.exists()
    assert AgentCall.objects.filter(status=CallStatus.INVALID).count() == 2


def test_without_a_key_nothing_is_sent_and_the_error_says_so(fake_llm, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    with pytest.raises(NoProviderConfigured, match="OPENAI_API_KEY"):
        ask(role="reviewer")
    assert fake_llm.requests == [] and not AgentCall.objects.exists()


def test_role_assignments_override_the_settings_default(fake_llm, admin):
    # The row the admin's RoleAssignment form saves (test_limits_and_pages goes through the admin itself).
    RoleAssignment.objects.create(role="reviewer", provider="anthropic", model="claude-haiku-4-5", updated_by=admin)
    fake_llm.reply({"ok": True, "echo": "sori"})
    assert agent_config("reviewer") == ("anthropic", "claude-haiku-4-5")
    assert ask().call.model == "claude-haiku-4-5"


def test_it_refuses_two_roles_on_the_same_model(db):
    RoleAssignment.objects.create(role="reviewer", provider="openai", model="gpt-4.1")
    RoleAssignment.objects.create(role="meta_reviewer", provider="openai", model="gpt-4.1")
    with pytest.raises(Conflict, match="must be different models"):
        require_distinct_models("reviewer", "meta_reviewer")
