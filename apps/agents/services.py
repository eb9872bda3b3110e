"""call_agent: the one door to LLMs. It renders a versioned prompt, answers from the cache when the same
input was answered before (no request, no cost), otherwise asks the role's provider through its official SDK
under our retry policy, a per-provider concurrency limit and the job's budget cap, validates the JSON answer
against a pydantic schema (one retry carrying the validation error), and logs every answer as an AgentCall.

    result = call_agent(role="reviewer", prompt="ground_truth_review", variables={...}, schema=Review, job=job)
    result.data, result.call, result.cached
"""

import json
import logging
import math
import random
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from pydantic import BaseModel, ValidationError

from apps.agents import providers, transport
from apps.agents.models import AgentCall, AgentRole, CachedResponse, CallStatus, RoleAssignment
from apps.agents.prompting import load_prompt
from apps.core.errors import Conflict
from apps.jobs.services import start_job

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)


class AgentError(Exception):
    pass


class NoProviderConfigured(AgentError):
    """The role's provider has no API key or endpoint: nothing was sent and nothing is pretended."""


class AgentNeedsAttention(AgentError):
    """The answer stayed invalid after the retry with the validation error, or the provider kept failing."""

    def __init__(self, reason: str, *, call: AgentCall | None = None):
        super().__init__(reason)
        self.reason = reason
        self.call = call


class ProviderRejected(AgentNeedsAttention):
    """The provider refused the request itself (bad key, unknown model, bad request): retrying other items
    will not help, so a job should stop rather than mark every item."""


class BudgetExceeded(AgentError):
    """The job's budget cap would be passed by the next call; nothing was sent."""


@dataclass
class AgentResult(Generic[T]):
    data: T
    call: AgentCall
    cached: bool


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
            f"the {AgentRole(role_a).label} and the {AgentRole(role_b).label} both use {a[0]}:{a[1]}; "
            "they must be different models (assign one of them another model in the admin)"
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
        raise AgentNeedsAttention(f"the model answered, but echoed {result.data.echo!r} instead of {word!r}",
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
) -> AgentResult[T]:
    """`variant` makes otherwise identical inputs distinct (it joins the input hash, not the prompt): the
    cache answers a repeated input with its stored answer, so independent samples of one prompt (the
    evaluation judge asks three) pass variant=0, 1, 2 to get three answers, each cached on its own."""
    role = AgentRole(role)
    provider, model = agent_config(role)
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
    })
    base = {"role": role, "provider": provider, "model": model, "prompt_name": loaded.name,
            "prompt_version": loaded.version, "input_hash": digest, "job": job if job is not None and job.pk else None}

    if use_cache:
        hit = _from_cache(digest, schema, base)
        if hit is not None:
            return hit

    if not providers.is_configured(provider):
        raise NoProviderConfigured(_not_configured_message(role, provider))

    for attempt in (1, 2):
        prompt_text = system + "".join(m["content"] for m in messages)
        with _budget_reservation(job, provider, model, prompt_text, max_tokens):
            outcome = _attempt(base, attempt, provider, model, system, messages, max_tokens, schema, digest)
        if isinstance(outcome, AgentResult):
            return outcome
        messages = outcome  # the answer was invalid: one more try, with the validation error
    raise AssertionError("unreachable")  # pragma: no cover


def _attempt(base, attempt, provider, model, system, messages, max_tokens, schema, digest):
    """One answer: an AgentResult, or (first attempt, invalid answer) the messages for the retry."""
    request = {"system": system, "messages": list(messages), "max_tokens": max_tokens}
    started = time.monotonic()
    try:
        completion, http_attempts = _complete_with_retries(provider, model, system, messages, max_tokens)
    except transport.VendorError as exc:
        call = AgentCall.objects.create(
            **base, attempt=attempt, http_attempts=exc.http_attempts, status=CallStatus.FAILED,
            latency_ms=_ms(started), request=request, error=str(exc),
        )
        if isinstance(exc, transport.PermanentVendorError):
            raise ProviderRejected(f"{provider} refused the request: {exc}", call=call) from exc
        raise AgentNeedsAttention(f"{provider} kept failing after retries: {exc}", call=call) from exc

    cost, priced = cost_of(provider, model, completion.input_tokens, completion.output_tokens)
    fields = dict(
        base, attempt=attempt, http_attempts=http_attempts, input_tokens=completion.input_tokens,
        output_tokens=completion.output_tokens, cost_usd=cost, priced=priced, latency_ms=_ms(started),
        request=request, response_text=completion.text, raw_response=completion.raw,
    )
    try:
        data = parse_answer(completion.text, schema)
    except ValueError as exc:
        call = AgentCall.objects.create(**fields, status=CallStatus.INVALID, error=str(exc))
        if attempt == 1:
            # Tell the model exactly what was wrong.
            return messages + [
                {"role": "assistant", "content": completion.text or "(empty)"},
                {"role": "user", "content": f"Your answer was rejected: {exc}\n"
                                            "Reply again with only the corrected JSON object."},
            ]
        raise AgentNeedsAttention(f"the answer stayed invalid after a retry: {exc}", call=call) from None
    call = AgentCall.objects.create(**fields, status=CallStatus.OK)
    _store_cache(digest, base, completion.text, data, call)
    return AgentResult(data=data, call=call, cached=False)


def _from_cache(digest: str, schema: type[T], base: dict) -> AgentResult[T] | None:
    entry = CachedResponse.objects.filter(input_hash=digest).first()
    if entry is None:
        return None
    try:
        data = schema.model_validate(entry.data)
    except ValidationError:
        return None  # the caller's schema changed since; ask again
    CachedResponse.objects.filter(pk=entry.pk).update(hits=F("hits") + 1)
    call = AgentCall.objects.create(
        **base, status=CallStatus.CACHED, response_text=entry.response_text, raw_response={"cached_from": entry.source_call_id},
    )
    return AgentResult(data=data, call=call, cached=True)


def _store_cache(digest: str, base: dict, text: str, data: BaseModel, call: AgentCall) -> None:
    try:
        with transaction.atomic():
            CachedResponse.objects.create(
                input_hash=digest, provider=base["provider"], model=base["model"], prompt_name=base["prompt_name"],
                prompt_version=base["prompt_version"], response_text=text, data=data.model_dump(mode="json"),
                source_call=call,
            )
    except IntegrityError:
        pass  # another worker cached the same input first; either answer is valid


def _complete_with_retries(provider, model, system, messages, max_tokens) -> tuple[providers.Completion, int]:
    return transport.send_with_retries(
        lambda: providers.complete(provider, model=model, system=system, messages=messages, max_tokens=max_tokens,
                                   timeout=settings.AGENTS_TIMEOUT_SECONDS),
        slot=provider, policy=transport.model_policy(),
    )


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
