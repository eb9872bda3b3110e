"""call_agent with n answers and sampling settings (the evaluation judge asks VoiceBench's n=3 at temperature 0.5,
top-p 0.95), through the real SDKs against the fake server: one request where the provider has `n`, n requests
where it has not; every answer validated; the cache keyed by n and the settings; a refused setting dropped,
asked again and reported; cost and budget counting all n answers."""

from decimal import Decimal

import pytest
from pydantic import BaseModel, ConfigDict, StrictInt

from apps.agents import transport
from apps.agents.models import AgentCall, CachedResponse, CallStatus
from apps.agents.services import BudgetExceeded, call_agent, forget_refused_settings, refused_settings
from apps.jobs.models import Job

pytestmark = pytest.mark.django_db


class Echo(BaseModel):
    model_config = ConfigDict(strict=True)

    ok: bool
    echo: str


class Count(BaseModel):
    model_config = ConfigDict(strict=True)

    value: StrictInt


@pytest.fixture(autouse=True)
def _no_remembered_refusals():
    forget_refused_settings()
    yield
    forget_refused_settings()


def _role(settings, provider, model, role="reviewer"):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, role: (provider, model)}


def ask(word="sori", **kwargs):
    return call_agent(role="reviewer", prompt="provider_check", variables={"word": word}, schema=Echo, **kwargs)


def test_three_answers_come_from_one_openai_request_carrying_n_and_the_settings(fake_llm, settings):
    _role(settings, "openai", "gpt-4.1")
    for word in ("a", "b", "c"):
        fake_llm.reply({"ok": True, "echo": word}, usage=(1000, 10))

    result = ask(n=3, temperature=0.5, top_p=0.95)

    assert len(fake_llm.requests) == 1
    body = fake_llm.requests[0]["body"]
    assert (body["n"], body["temperature"], body["top_p"]) == (3, 0.5, 0.95)
    assert [s.echo for s in result.samples] == ["a", "b", "c"] and result.data.echo == "a"
    assert result.sample_calls == [result.call] * 3 and result.refused == [] and not result.cached
    assert result.call.output_tokens == 30  # every answer's tokens, one call's cost
    assert result.call.cost_usd == Decimal("0.002240")  # 1000 * 2/M + 30 * 8/M


def test_a_call_without_sampling_sends_none_and_hashes_as_before(fake_llm, settings):
    _role(settings, "openai", "gpt-4.1")
    fake_llm.always({"ok": True, "echo": "x"})

    plain = ask()

    assert not {"n", "temperature", "top_p"} & set(fake_llm.requests[0]["body"])
    assert plain.call.request.keys() == {"system", "messages", "max_tokens"}
    assert CachedResponse.objects.get().data == {"ok": True, "echo": "x"}  # the old entry shape


def test_the_same_input_with_other_sampling_is_not_a_cache_hit_and_the_same_is(fake_llm, settings):
    _role(settings, "openai", "gpt-4.1")
    fake_llm.always({"ok": True, "echo": "x"})

    ask(n=3, temperature=0.5, top_p=0.95)
    ask(n=3, temperature=0.5, top_p=0.9)
    ask(n=3, temperature=0.5)
    ask(n=1, temperature=0.5, top_p=0.95)
    ask()
    again = ask(n=3, temperature=0.5, top_p=0.95)

    assert len(fake_llm.requests) == 5
    assert again.cached and len(again.samples) == 3 and again.call.status == CallStatus.CACHED
    assert again.call.request == {"n": 3, "sampling": {"temperature": 0.5, "top_p": 0.95}, "refused": []}


def test_an_anthropic_role_gets_n_answers_from_n_requests_without_sampling_settings(fake_llm, settings):
    _role(settings, "anthropic", "claude-sonnet-4-5")
    for word in ("a", "b"):
        fake_llm.reply({"ok": True, "echo": word})

    result = ask(n=2, temperature=0.5, top_p=0.95)

    assert [r["api"] for r in fake_llm.requests] == ["anthropic"] * 2
    assert all(not {"n", "temperature", "top_p"} & set(r["body"]) for r in fake_llm.requests)
    assert [s.echo for s in result.samples] == ["a", "b"] and len({c.pk for c in result.sample_calls}) == 2
    assert result.refused == ["temperature", "top_p"]  # the API takes none: reported, never sent
    assert refused_settings("anthropic", "claude-sonnet-4-5") == set()  # not a refusal to remember: the API's rule


def test_every_one_of_the_n_answers_is_validated(fake_llm, settings):
    _role(settings, "openai", "gpt-4.1")
    for payload in ({"value": 1}, {"value": "2"}, {"value": 3}, {"value": 1}, {"value": 2}, {"value": 3}):
        fake_llm.reply(payload)

    result = call_agent(role="reviewer", prompt="provider_check", variables={"word": "x"}, schema=Count, n=3, temperature=0.5)

    assert [s.value for s in result.samples] == [1, 2, 3]
    invalid = AgentCall.objects.get(status=CallStatus.INVALID)
    assert invalid.error.startswith("answer 2 of 3: the JSON does not match the schema: value: ")
    assert "(got '2')" in invalid.error


def test_a_refused_temperature_is_dropped_asked_again_remembered_and_reported(fake_llm, settings):
    _role(settings, "openai", "gpt-5.4")
    fake_llm.refuse("temperature")
    fake_llm.always({"ok": True, "echo": "x"})

    first = ask("one", n=3, temperature=0.5, top_p=0.95)
    second = ask("two", n=3, temperature=0.5, top_p=0.95)

    assert [("temperature" in r["body"]) for r in fake_llm.requests] == [True, False, False]
    assert first.refused == second.refused == ["temperature"]
    assert (first.call.http_attempts, second.call.http_attempts) == (2, 1)
    assert refused_settings("openai", "gpt-5.4") == {"temperature"}
    assert refused_settings("openai", "gpt-4.1") == set()  # per model
    assert CachedResponse.objects.get(input_hash=first.call.input_hash).data["refused"] == ["temperature"]


def test_a_400_that_names_no_setting_sent_is_still_a_refused_request(fake_llm, settings):
    from apps.agents.services import ProviderRejected

    _role(settings, "openai", "gpt-5.4")
    fake_llm.fail(status=400)
    with pytest.raises(ProviderRejected):
        ask(n=3, temperature=0.5)
    assert len(fake_llm.requests) == 1 and refused_settings("openai", "gpt-5.4") == set()


def test_the_budget_holds_the_worst_case_of_all_n_answers(fake_llm, settings):
    _role(settings, "openai", "gpt-4.1")
    settings.AGENTS_MAX_OUTPUT_TOKENS = 1000
    job = Job.objects.create(kind="test.kind", title="budget", params={"budget_usd": 0.02})
    fake_llm.always({"ok": True, "echo": "x"})

    ask("one", job=job)  # one answer: at most 1000 output tokens, $0.008, fits
    with pytest.raises(BudgetExceeded):
        ask("two", job=job, n=3, temperature=0.5)  # three answers: up to $0.024 of output alone

    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize(("status", "message", "param", "sent", "expected"), [
    (400, "Unsupported value: 'temperature' does not support 0.5 with this model. Only the default (1) value is "
          "supported.", "temperature", ("temperature", "top_p"), "temperature"),
    (400, "Unsupported parameter: 'top_p' is not supported with this model.", None, ("temperature", "top_p"), "top_p"),
    (400, "`temperature` is deprecated for this model.", None, ("temperature",), "temperature"),
    (400, "temperature: Extra inputs are not permitted", None, ("temperature", "top_p"), "temperature"),
    (400, "`temperature` and `top_p` cannot both be specified for this model. Please use only one.", None,
     ("temperature", "top_p"), "top_p"),
    (400, "temperature must be at most 2", None, ("temperature",), None),
    (400, "Unsupported value: 'reasoning_effort'", "reasoning_effort", ("temperature",), None),
    (400, "Unsupported value: 'temperature'", None, (), None),
    (422, "Unsupported value: 'temperature'", "temperature", ("temperature",), None),
])
def test_a_refused_setting_is_told_from_other_bad_requests(status, message, param, sent, expected):
    assert transport.refused_setting(status, message, param, sent) == expected
