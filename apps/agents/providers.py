"""Providers behind one small interface, over the official SDKs. Keys and endpoints come from the SDKs' own
environment variables (ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, OPENAI_API_KEY / OPENAI_BASE_URL), so a
gateway or a self-hosted OpenAI-compatible server works by setting them. The SDKs' built-in retries are
switched off (max_retries=0): apps.agents.services owns the retry policy, so it is the only one and tested.

`complete()` returns a Completion or raises TransientProviderError (worth retrying: 408, 409, 429, 5xx,
timeouts, connection errors; carries the server's retry-after) or PermanentProviderError (anything else)."""

import os
import threading
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

import anthropic
import openai


@dataclass
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    raw: dict = field(default_factory=dict)


class ProviderError(Exception):
    pass


class TransientProviderError(ProviderError):
    def __init__(self, message: str, *, retry_after: float | None = None, status: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class PermanentProviderError(ProviderError):
    pass


def is_configured(provider: str) -> bool:
    if provider == "anthropic":
        return bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))
    if provider == "openai":
        # An OpenAI-compatible server (a self-hosted model) may need no key, only its address.
        return bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"))
    return False


_clients: dict[tuple, object] = {}
_clients_lock = threading.Lock()


def _client(provider: str, timeout: float):
    # The env is part of the key: tests (and operators) may repoint the SDKs without restarting the process.
    env = tuple(os.environ.get(name) for name in (
        "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"))
    key = (provider, timeout, env)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            if provider == "anthropic":
                client = anthropic.Anthropic(max_retries=0, timeout=timeout)
            else:
                api_key = os.environ.get("OPENAI_API_KEY") or "not-needed-by-this-server"
                client = openai.OpenAI(api_key=api_key, max_retries=0, timeout=timeout)
            if len(_clients) > 32:
                _clients.clear()
            _clients[key] = client
        return client


def retry_after_seconds(headers) -> float | None:
    """The server's requested wait: retry-after-ms, or retry-after in seconds or as an HTTP date."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        try:
            return max(0.0, parsedate_to_datetime(raw).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


_TRANSIENT_STATUS = {408, 409, 429}


def _classify(exc: Exception, sdk) -> ProviderError:
    if isinstance(exc, sdk.APITimeoutError):
        return TransientProviderError(f"timed out: {exc}")
    if isinstance(exc, sdk.APIConnectionError):
        return TransientProviderError(f"connection failed: {exc}")
    if isinstance(exc, sdk.APIStatusError):
        status = exc.status_code
        if status in _TRANSIENT_STATUS or status >= 500:
            return TransientProviderError(
                f"HTTP {status}: {exc.message}", retry_after=retry_after_seconds(exc.response.headers), status=status
            )
        return PermanentProviderError(f"HTTP {status}: {exc.message}")
    return PermanentProviderError(f"{type(exc).__name__}: {exc}")


def complete(provider: str, *, model: str, system: str, messages: list[dict], max_tokens: int, timeout: float) -> Completion:
    """One HTTP request to the provider, no retries."""
    if provider == "anthropic":
        try:
            kwargs = {"system": system} if system else {}
            message = _client("anthropic", timeout).messages.create(
                model=model, max_tokens=max_tokens, messages=messages, **kwargs
            )
        except anthropic.AnthropicError as exc:
            raise _classify(exc, anthropic) from exc
        text = "".join(block.text for block in message.content if getattr(block, "type", "") == "text")
        return Completion(
            text=text, input_tokens=message.usage.input_tokens or 0, output_tokens=message.usage.output_tokens or 0,
            raw=message.model_dump(mode="json"),
        )
    if provider == "openai":
        chat = ([{"role": "system", "content": system}] if system else []) + messages
        try:
            response = _client("openai", timeout).chat.completions.create(
                model=model, max_completion_tokens=max_tokens, messages=chat
            )
        except openai.OpenAIError as exc:
            raise _classify(exc, openai) from exc
        if not response.choices:
            raise TransientProviderError("the provider answered with no choices")
        usage = response.usage
        return Completion(
            text=response.choices[0].message.content or "",
            input_tokens=(usage.prompt_tokens if usage else 0) or 0,
            output_tokens=(usage.completion_tokens if usage else 0) or 0,
            raw=response.model_dump(mode="json"),
        )
    raise PermanentProviderError(f"unknown provider {provider!r}")
