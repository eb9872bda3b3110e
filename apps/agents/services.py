"""call_agent: the one door to LLMs. It renders a versioned prompt, answers from the cache when the same
input was answered before (no request, no cost), otherwise asks the role's provider through its official SDK
under our retry policy, a per-provider concurrency limit and the job's budget cap, validates the JSON answer
against a pydantic schema (one retry carrying the validation error), and logs every answer as an AgentCall.

    result = call_agent(role="reviewer", prompt="ground_truth_review", variables={...}, schema=Review, job=job)
    result.data, result.call, result.cached

Sampling (the evaluation judge asks VoiceBench's n=3 at temperature 0.5, top-p 0.95):

    result = call_agent(..., n=3, temperature=0.5, top_p=0.95)
    result.samples, result.sample_calls, result.refused, result.served_model

n answers come in one request where the provider has `n` (OpenAI-compatible), else from n requests (Anthropic).
A setting the model refuses (OpenAI's reasoning models refuse a temperature) is dropped, the request sent
again, and the refusal reported in `result.refused`, on the AgentCall's request and in the cache entry; a
setting the vendor's API does not take at all (Anthropic's takes none) is never sent and reported the same way.
"""

import json
import logging
import math
import random
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils.translation import gettext
from pydantic import BaseModel, ValidationError

from apps.agents import providers, transport
from apps.agents.models import AgentCall, AgentRole, CachedResponse, CallStatus, RoleAssignment
from apps.agents.prompting import load_prompt
from apps.core.errors import ApplicationError, Conflict, Unavailable
from apps.jobs.services import start_job

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)


class AgentError(ApplicationError):
    """A refusal of the agent layer, caught, answered and rendered like every other refusal. By itself: the
    model behind the agent gave nothing usable (a bad gateway, as HTTP says)."""

    status = 502
    code = "agent_failed"


class NoProviderConfigured(Unavailable, AgentError):
    """The role's provider has no API key or endpoint: nothing was sent and nothing is pretended."""

    code = "no_provider"


class AgentNeedsAttention(AgentError):
    """The answer stayed invalid after the retry with the validation error, or the provider kept failing."""

    def __init__(self, reason: str, *, call: AgentCall | None = None):
        super().__init__(reason)
        self.reason = reason
        self.call = call


class ProviderRejected(AgentNeedsAttention):
    """The provider refused the request itself (bad key, unknown model, bad request): retrying other items
    will not help, so a job should stop rather than mark every item."""


class BudgetExceeded(Conflict, AgentError):
    """The job's budget cap would be passed by the next call; nothing was sent."""

    code = "budget_exceeded"


@dataclass
class AgentResult(Generic[T]):
    """`data` is the (first) answer. With n answers, `samples` holds all n, validated, and `sample_calls` the
    AgentCall behind each (the same call n times when one request answered them all); `refused` names the
    sampling settings the model refused, `served_model` the model the vendor says answered (a dated snapshot
    where the request named an alias; "" when the vendor did not say)."""

    data: T
    call: AgentCall
    cached: bool
    samples: list = field(default_factory=list)
    sample_calls: list = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    served_model: str = ""

    def __post_init__(self):
        self.samples = self.samples or [self.data]
        self.sample_calls = self.sample_calls or [self.call]
        self.texts = self.texts or [self.call.response_text]


# --- configuration -----------------------------------------------------------------------------------------
def agent_config(role: str) -> tuple[str, str]:
    """(provider, model) for a role: the admin's assignment, else the default in settings."""
    role = AgentRole(role)
    row = RoleAssignment.objects.filter(role=role).first()
    if row:
        return row.provider, row.model
    provider, model = settings.AGENTS_DEFAULT_ROLES[role]
    return provider, model


def require_distinct_models(role_a: str, role_b: str) -> None:
    a, b = agent_config(role_a), agent_config(role_b)
    if a == b:
        raise Conflict(
            gettext(
                "the %(role_a)s and the %(role_b)s both use %(provider)s:%(model)s; they must be different models "
                "(assign one of them another model in the admin)"
            ) % {
                "role_a": AgentRole(role_a).label,
                "role_b": AgentRole(role_b).label,
                "provider": a[0],
                "model": a[1],
            }
        )


def require_configured(role: str) -> tuple[str, str]:
    provider, model = agent_config(role)
    if not providers.is_configured(provider):
        raise NoProviderConfigured(_not_configured_message(role, provider))
    return provider, model


def _not_configured_message(role: str, provider: str) -> str:
    known = providers.get(provider)
    fix = f"set {known.key_hint}" if known else "assign the role a known provider"
    return f"No {provider} provider is configured for the {AgentRole(role).label} agent: {fix}."


class _ProviderCheck(BaseModel):
    ok: bool
    echo: str


CHECK_ROLE_JOB = "agents.check_role"


def start_role_check(*, role: str, acting_user=None):
    """The provider check as a job (apps.agents.jobs), so the admin's request never waits on the provider."""
    role = AgentRole(role)
    return start_job(kind=CHECK_ROLE_JOB, title=f"Check the {role.label} agent", params={"role": role.value},
                     acting_user=acting_user)


def check_role(role: str) -> AgentCall:
    """Ask the role's model for a fixed one-line JSON answer, bypassing the cache. Raises AgentError subclasses."""
    word = f"sori-{random.randint(1000, 9999)}"
    result = call_agent(role=role, prompt="provider_check", variables={"word": word}, schema=_ProviderCheck,
                        max_tokens=64, use_cache=False)
    if result.data.echo != word:
        raise AgentNeedsAttention(gettext(
            "the model answered, but echoed %(echo)r instead of %(word)r"
        ) % {"echo": result.data.echo, "word": word},
                                  call=result.call)
    return result.call


# --- cost ------------------------------------------------------------------------------------------------
def price_of(provider: str, model: str) -> dict | None:
    return settings.AGENTS_PRICES.get(f"{provider}:{model}")


def cost_of(provider: str, model: str, input_tokens: int, output_tokens: int) -> tuple[Decimal, bool]:
    """(cost in USD, whether the model is in the price table)."""
    price = price_of(provider, model)
    if price is None:
        return Decimal("0"), False
    cost = (Decimal(str(price["input"])) * input_tokens + Decimal(str(price["output"])) * output_tokens) / 1_000_000
    return cost.quantize(Decimal("0.000001")), True


def job_budget(job) -> Decimal | None:
    raw = (job.params or {}).get("budget_usd", settings.AGENTS_JOB_BUDGET_USD)
    return None if raw in (None, "") else Decimal(str(raw))


def job_spent(job) -> Decimal:
    return AgentCall.objects.filter(job=job).total_cost()


def estimate_tokens(text: str) -> int:
    """A generous token count for the budget check, so the cap errs on the safe side: 3 ASCII characters a
    token (real English runs nearer 4), and a token for every other character (Hangul, CJK, accents)."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 3) + (len(text) - ascii_chars)


# Budget held by calls in flight, per job. A job runs in one process, so a process-wide table is enough to
# stop parallel calls of one job from each seeing the same "spent" and passing the cap together.
_reserved: dict[int, Decimal] = {}
_reserved_lock = threading.Lock()


@contextmanager
def _budget_reservation(job, provider: str, model: str, prompt_text: str, max_tokens: int):
    """Reserve the next call's worst case against the job's budget until its AgentCall row is written."""
    budget = job_budget(job) if job is not None and job.pk is not None else None
    if budget is None:
        yield
        return
    # Worst case for the next call: the whole prompt plus the full output allowance.
    worst, _ = cost_of(provider, model, estimate_tokens(prompt_text), max_tokens)
    with _reserved_lock:
        spent = job_spent(job)
        held = _reserved.get(job.pk, Decimal("0"))
        if spent + held + worst > budget:
            raise BudgetExceeded(
                f"budget cap ${budget:.2f} reached: ${spent:.4f} spent"
                + (f", ${held:.4f} held by calls in flight" if held else "")
                + f", and the next call could cost up to ${worst:.4f}"
            )
        _reserved[job.pk] = held + worst
    try:
        yield
    finally:
        with _reserved_lock:
            left = _reserved.get(job.pk, Decimal("0")) - worst
            if left > 0:
                _reserved[job.pk] = left
            else:
                _reserved.pop(job.pk, None)


# --- refused settings ------------------------------------------------------------------------------------
# Settings a model refused, per (provider, model), in this process: later calls leave them out from the start
# (and still report them refused) instead of paying a refused request each time.
_refused_settings: dict[tuple[str, str], set[str]] = {}
_refused_lock = threading.Lock()


def refused_settings(provider: str, model: str) -> set[str]:
    with _refused_lock:
        return set(_refused_settings.get((provider, model), ()))


def _remember_refusal(provider: str, model: str, setting: str) -> None:
    with _refused_lock:
        _refused_settings.setdefault((provider, model), set()).add(setting)


def forget_refused_settings() -> None:
    """Forget every refusal seen (tests; or after a vendor changes a model's rules)."""
    with _refused_lock:
        _refused_settings.clear()


# --- the call --------------------------------------------------------------------------------------------
_INSTRUCTIONS = (
    "Answer with one JSON object only (no prose, no code fences) that validates against this JSON Schema:\n"
)


def parse_answer(text: str, schema: type[T]) -> T:
    """Raise ValueError (with a message for the model) unless `text` is JSON that validates against schema."""
    stripped = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", stripped, re.S)
    if fenced:  # tolerated: models add fences even when told not to
        stripped = fenced.group(1)
    try:
        value = json.loads(stripped)
    except ValueError as exc:
        raise ValueError(f"the answer is not valid JSON ({exc})") from None
    try:
        return schema.model_validate(value)
    except ValidationError as exc:
        # Field by field, without pydantic's links: the model reads it on the retry, a person on the page.
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'the answer'}: {e['msg']}{_given(e)}"
                             for e in exc.errors(include_url=False))
        raise ValueError(f"the JSON does not match the schema: {problems}") from None


def _given(error: dict) -> str:
    """What the answer gave for a field, when it is a short value worth quoting back ('ht-invented')."""
    value = error.get("input")
    if isinstance(value, str | int | float) and not isinstance(value, bool) and len(str(value)) <= 80:
        return f" (got {value!r})"
    return ""


def call_agent(
    *,
    role: str,
    prompt: str,
    variables: dict[str, Any],
    schema: type[T],
    job=None,
    prompt_version: int | None = None,
    max_tokens: int | None = None,
    use_cache: bool = True,
    variant: int | str | None = None,
    n: int = 1,
    temperature: float | None = None,
    top_p: float | None = None,
) -> AgentResult[T]:
    """`variant` makes otherwise identical inputs distinct (it joins the input hash, not the prompt): the
    cache answers a repeated input with its stored answer, so separate requests for samples of one prompt
    pass variant=0, 1, 2 to get different answers, each cached on its own.

    `n` answers, each validated against `schema`: one request where the provider has `n` (one AgentCall, one
    cache entry holding all n), else n requests (variant 0..n-1 of this call). `temperature` and `top_p` are
    sent when given. n and the sampling settings join the input hash; a call without them hashes as before."""
    role = AgentRole(role)
    provider, model = agent_config(role)
    if n < 1:
        raise ValueError("n must be at least 1")
    sampling = {k: v for k, v in (("temperature", temperature), ("top_p", top_p)) if v is not None}
    if n > 1 and not _answers_n_at_once(provider, model):
        return _one_at_a_time(n, dict(role=role, prompt=prompt, variables=variables, schema=schema, job=job,
                                      prompt_version=prompt_version, max_tokens=max_tokens, use_cache=use_cache,
                                      temperature=temperature, top_p=top_p), variant, refused_settings(provider, model))
    sampled = n > 1 or bool(sampling)
    loaded = load_prompt(prompt, prompt_version)
    system, user = loaded.render(variables)
    schema_json = schema.model_json_schema()
    system = (system + "\n\n" if system else "") + _INSTRUCTIONS + json.dumps(schema_json, ensure_ascii=False)
    max_tokens = max_tokens or settings.AGENTS_MAX_OUTPUT_TOKENS
    messages = [{"role": "user", "content": user}]
    digest = transport.input_hash({
        "provider": provider, "model": model, "prompt": loaded.name, "version": loaded.version,
        "system": system, "messages": messages, "max_tokens": max_tokens,
        **({"variant": variant} if variant is not None else {}),  # absent by default: older hashes still hit
        **({"n": n, "sampling": sampling} if sampled else {}),  # likewise
    })
    base = {"role": role, "provider": provider, "model": model, "prompt_name": loaded.name,
            "prompt_version": loaded.version, "input_hash": digest, "job": job if job is not None and job.pk else None}
    ask = _Ask(n=n, sampling=sampling if sampled else None)

    if use_cache:
        hit = _from_cache(digest, schema, base, ask)
        if hit is not None:
            return hit

    if not providers.is_configured(provider):
        raise NoProviderConfigured(_not_configured_message(role, provider))

    for attempt in (1, 2):
        prompt_text = system + "".join(m["content"] for m in messages)
        with _budget_reservation(job, provider, model, prompt_text, max_tokens * n):
            outcome = _attempt(base, attempt, provider, model, system, messages, max_tokens, schema, digest, ask)
        if isinstance(outcome, AgentResult):
            return outcome
        if outcome is _ONE_AT_A_TIME:
            return call_agent(role=role, prompt=prompt, variables=variables, schema=schema, job=job,
                              prompt_version=prompt_version, max_tokens=max_tokens, use_cache=use_cache,
                              variant=variant, n=n, temperature=temperature, top_p=top_p)
        messages = outcome  # an answer was invalid: one more try, with the validation error
    raise AssertionError("unreachable")  # pragma: no cover


@dataclass(frozen=True)
class _Ask:
    """How many answers one request asks for, and the sampling settings asked (None: a call without sampling,
    whose request, cache entry and log keep the shape they always had)."""

    n: int = 1
    sampling: dict | None = None


_ONE_AT_A_TIME = object()  # the server ignored `n`: ask for the answers one request each


def _answers_n_at_once(provider: str, model: str) -> bool:
    known = providers.get(provider)
    return bool(known and known.supports_n) and "n" not in refused_settings(provider, model)


def _one_at_a_time(n: int, call: dict, variant, refused: set[str]) -> AgentResult:
    """n answers from n requests (a provider without `n`, as Anthropic's Messages API): variant 0..n-1 of the
    call, each its own AgentCall and cache entry."""
    results = [call_agent(**call, variant=k if variant is None else f"{variant}/{k}") for k in range(n)]
    first = results[0]
    return AgentResult(
        data=first.data, call=first.call, cached=all(r.cached for r in results), samples=[r.data for r in results],
        sample_calls=[r.call for r in results], texts=[r.texts[0] for r in results],
        refused=sorted(set().union(*(r.refused for r in results)) | (refused & {"n"})), served_model=first.served_model)


def _attempt(base, attempt, provider, model, system, messages, max_tokens, schema, digest, ask: _Ask):
    """One request's answers: an AgentResult, or (first attempt, an invalid answer) the messages for the retry,
    or _ONE_AT_A_TIME when the server answered fewer than the n asked."""
    request = {"system": system, "messages": list(messages), "max_tokens": max_tokens}
    started = time.monotonic()
    try:
        completion, http_attempts, sent, refused = _complete_with_retries(
            provider, model, system, messages, max_tokens, ask.n, ask.sampling)
    except transport.VendorError as exc:
        if ask.sampling is not None:
            request.update(n=ask.n, sampling=ask.sampling)
        call = AgentCall.objects.create(
            **base, attempt=attempt, http_attempts=exc.http_attempts, status=CallStatus.FAILED,
            latency_ms=_ms(started), request=request, error=str(exc),
        )
        if isinstance(exc, transport.PermanentVendorError):
            raise ProviderRejected(gettext(
                "%(provider)s refused the request: %(exc)s"
            ) % {"provider": provider, "exc": exc}, call=call) from exc
        raise AgentNeedsAttention(gettext(
            "%(provider)s kept failing after retries: %(exc)s"
        ) % {"provider": provider, "exc": exc}, call=call) from exc

    if ask.sampling is not None:
        request.update(n=ask.n, sampling=sent, refused=refused)
    texts = completion.texts[: ask.n]
    text = texts[0] if ask.n == 1 else json.dumps(texts, ensure_ascii=False)
    cost, priced = cost_of(provider, model, completion.input_tokens, completion.output_tokens)
    fields = dict(
        base, attempt=attempt, http_attempts=http_attempts, input_tokens=completion.input_tokens,
        output_tokens=completion.output_tokens, cost_usd=cost, priced=priced, latency_ms=_ms(started),
        request=request, response_text=text, raw_response=completion.raw,
    )
    if len(texts) < ask.n:
        # An OpenAI-compatible server that ignores `n` answers once: logged (it was billed), then one at a time.
        AgentCall.objects.create(**fields, status=CallStatus.INVALID,
                                 error=f"asked for {ask.n} answers, got {len(texts)}: the server ignores n")
        _remember_refusal(provider, model, "n")
        return _ONE_AT_A_TIME
    answers, problems = [], []
    for number, answer in enumerate(texts, 1):
        try:
            answers.append(parse_answer(answer, schema))
        except ValueError as exc:
            problems.append((answer, f"answer {number} of {ask.n}: {exc}" if ask.n > 1 else str(exc)))
    if problems:
        error = "; ".join(problem for _, problem in problems)
        call = AgentCall.objects.create(**fields, status=CallStatus.INVALID, error=error)
        if attempt == 1:
            # Tell the model exactly what was wrong (with n answers: the first one rejected).
            return messages + [
                {"role": "assistant", "content": problems[0][0] or "(empty)"},
                {"role": "user", "content": f"Your answer was rejected: {problems[0][1]}\n"
                                            "Reply again with only the corrected JSON object."},
            ]
        raise AgentNeedsAttention(gettext(
            "the answer stayed invalid after a retry: %(error)s"
        ) % {"error": error}, call=call) from None
    call = AgentCall.objects.create(**fields, status=CallStatus.OK)
    if ask.sampling is None:
        data = answers[0].model_dump(mode="json")
    else:
        data = {"samples": [a.model_dump(mode="json") for a in answers], "refused": refused,
                "served_model": completion.model}
    _store_cache(digest, base, text, data, call)
    return AgentResult(data=answers[0], call=call, cached=False, samples=answers, sample_calls=[call] * ask.n,
                       texts=texts, refused=refused, served_model=completion.model)


def _from_cache(digest: str, schema: type[T], base: dict, ask: _Ask = _Ask()) -> AgentResult[T] | None:
    entry = CachedResponse.objects.filter(input_hash=digest).first()
    if entry is None:
        return None
    try:
        if ask.sampling is None:
            answers, refused, served, texts = [schema.model_validate(entry.data)], [], "", [entry.response_text]
        else:
            answers = [schema.model_validate(d) for d in entry.data["samples"]]
            refused, served = list(entry.data.get("refused", [])), str(entry.data.get("served_model", ""))
            texts = [entry.response_text] if ask.n == 1 else json.loads(entry.response_text)
            if len(answers) != ask.n or len(texts) != ask.n:
                return None
    except (ValidationError, KeyError, TypeError, ValueError):
        return None  # the caller's schema changed since; ask again
    CachedResponse.objects.filter(pk=entry.pk).update(hits=F("hits") + 1)
    call = AgentCall.objects.create(
        **base, status=CallStatus.CACHED, response_text=entry.response_text, raw_response={"cached_from": entry.source_call_id},
        **({"request": {"n": ask.n, "sampling": ask.sampling, "refused": refused}} if ask.sampling is not None else {}),
    )
    return AgentResult(data=answers[0], call=call, cached=True, samples=answers, sample_calls=[call] * ask.n,
                       texts=texts, refused=refused, served_model=served)


def _store_cache(digest: str, base: dict, text: str, data: dict, call: AgentCall) -> None:
    try:
        with transaction.atomic():
            CachedResponse.objects.create(
                input_hash=digest, provider=base["provider"], model=base["model"], prompt_name=base["prompt_name"],
                prompt_version=base["prompt_version"], response_text=text, data=data, source_call=call,
            )
    except IntegrityError:
        pass  # another worker cached the same input first; either answer is valid


def _complete_with_retries(provider, model, system, messages, max_tokens, n=1, sampling=None):
    """(completion, HTTP requests made, sampling settings sent, settings refused). A setting the model refuses
    (transport.UnsupportedSetting) is dropped and the request sent again; the refusal is remembered for the
    model, so later calls leave it out from the start and still report it."""
    sending = dict(sampling or {})
    known = providers.get(provider)
    takes = set(known.sampling_settings) if known else set(sending)
    # Settings the vendor's API does not take, or this model refused before, are left out and reported.
    refused = sorted((refused_settings(provider, model) | (set(sending) - takes)) & set(sending))
    for name in refused:
        del sending[name]
    made = 0
    while True:
        try:
            completion, attempts = transport.send_with_retries(
                lambda now=dict(sending): providers.complete(
                    provider, model=model, system=system, messages=messages, max_tokens=max_tokens,
                    timeout=settings.AGENTS_TIMEOUT_SECONDS, n=n, **now),
                slot=provider, policy=transport.model_policy(),
            )
        except transport.UnsupportedSetting as exc:
            made += exc.http_attempts
            if exc.setting not in sending:
                exc.http_attempts = made
                raise
            log.info("%s:%s refused %s; asking again without it", provider, model, exc.setting)
            del sending[exc.setting]
            refused.append(exc.setting)
            _remember_refusal(provider, model, exc.setting)
        except transport.VendorError as exc:
            exc.http_attempts += made
            raise
        else:
            return completion, made + attempts, sending, refused


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
