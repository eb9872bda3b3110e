"""OpenAI, or any OpenAI-compatible server (a self-hosted model), through the official SDK's Chat
Completions API (OPENAI_API_KEY, OPENAI_BASE_URL)."""

import json
import os

from apps.agents import untrusted
from apps.agents.providers.base import Completion, Provider
from apps.agents.transport import TransientVendorError, classify


class OpenAIProvider(Provider):
    name = "openai"
    env = ("OPENAI_API_KEY", "OPENAI_BASE_URL")
    key_hint = "OPENAI_API_KEY (or OPENAI_BASE_URL)"
    supports_n = True
    sampling_settings = ("temperature", "top_p")

    def is_configured(self) -> bool:
        # An OpenAI-compatible server (a self-hosted model) may need no key, only its address.
        return bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"))

    def complete(self, *, model, system, messages, max_tokens, timeout, n=1, temperature=None, top_p=None) -> Completion:
        import openai  # here, not at module level: the SDK takes seconds to import and most commands never call it

        api_key = os.environ.get("OPENAI_API_KEY") or "not-needed-by-this-server"
        client = self.client(timeout, lambda: openai.OpenAI(api_key=api_key, max_retries=0, timeout=timeout))
        chat = ([{"role": "system", "content": system}] if system else []) + messages
        sampling = _sampling(temperature=temperature, top_p=top_p)
        return _create(client, model=model, max_completion_tokens=max_tokens, messages=chat,
                       **({"n": n} if n != 1 else {}), **sampling)

    def complete_at(self, *, base_url: str, api_key: str = "", model: str, messages: list[dict], timeout: float,
                    max_tokens: int, temperature: float | None = None, top_p: float | None = None,
                    cancelled=None) -> Completion:
        """One request to a named OpenAI-compatible server (not the one OPENAI_BASE_URL names): a model under
        evaluation served by vLLM, whose messages may carry `input_audio` content parts, with its decoding
        settings. `max_tokens` is sent under that name, which vLLM and other compatible servers read.

        The server is untrusted (apps.agents.untrusted): `timeout` bounds the whole request, `cancelled` (an
        Event) aborts it in flight, the answer is read under a byte cap, redirects are refused, and the answer
        must be JSON with choices. Each refusal is an EndpointFailure whose `kind` names it in a few words."""
        import openai  # imported where used, as in complete(): the SDK is slow to import

        guard = untrusted.Guard(timeout, cancelled)
        http_client = untrusted.bounded_client(guard)
        # A client per request (no pool to share: keep-alive is off, so each request has its own socket).
        client = openai.OpenAI(api_key=api_key or "not-needed-by-this-server", base_url=base_url, max_retries=0,
                               timeout=http_client.timeout, http_client=http_client)
        try:
            with guard:
                raw = client.chat.completions.with_raw_response.create(
                    model=model, max_tokens=max_tokens, messages=messages, **_sampling(temperature=temperature, top_p=top_p))
                body = raw.http_response.content
        except openai.OpenAIError as exc:
            if guard.reason is not None:  # the watchdog, a cap or a refusal ended it: say that, not "connection failed"
                raise guard.reason from exc
            if isinstance(exc.__cause__, untrusted.EndpointFailure):
                raise exc.__cause__ from exc
            error = classify(exc, openai, sent=tuple(k for k in ("temperature", "top_p") if k in _sampling(
                temperature=temperature, top_p=top_p)))
            error.kind = _kind(exc, openai)
            raise error from exc
        finally:
            http_client.close()
        return _completion_from_json(body)


def _kind(exc, sdk) -> str:
    """A short, fixed name for an SDK failure (never the endpoint's own words)."""
    if isinstance(exc, sdk.APITimeoutError):
        return "timed out"
    if isinstance(exc, sdk.APIConnectionError):
        return "connection failed"
    if isinstance(exc, sdk.APIStatusError):
        return f"HTTP {exc.status_code}"
    return "request failed"


def _completion_from_json(body: bytes) -> Completion:
    """A chat completion read strictly from an untrusted answer: a JSON object with at least one choice whose
    message content is text (or null)."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise untrusted.EndpointFailure("answer not JSON", body[:200].decode("utf-8", "replace")) from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not all(isinstance(c, dict) for c in choices):
        raise untrusted.EndpointFailure("answer without choices", body[:200].decode("utf-8", "replace"))
    texts = []
    for choice in sorted(choices, key=lambda c: c.get("index") if isinstance(c.get("index"), int) else 0):
        content = (choice.get("message") or {}).get("content") if isinstance(choice.get("message"), dict) else None
        if content is not None and not isinstance(content, str):
            raise untrusted.EndpointFailure("answer without text", body[:200].decode("utf-8", "replace"))
        texts.append(content or "")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}

    def count(name):
        value = usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

    return Completion(text=texts[0], texts=texts, model=str(data.get("model") or "")[:200],
                      input_tokens=count("prompt_tokens"), output_tokens=count("completion_tokens"),
                      raw={"choices": [{"finish_reason": str(c.get("finish_reason") or "")[:40] or None} for c in choices]})


def _sampling(**settings) -> dict:
    return {k: v for k, v in settings.items() if v is not None}


def _create(client, **request) -> Completion:
    import openai  # imported where used, as in complete(): the SDK is slow to import

    try:
        response = client.chat.completions.create(**request)
    except openai.OpenAIError as exc:
        raise classify(exc, openai, sent=tuple(k for k in ("temperature", "top_p") if k in request)) from exc
    if not response.choices:
        raise TransientVendorError("the provider answered with no choices")
    usage = response.usage
    texts = [c.message.content or "" for c in sorted(response.choices, key=lambda c: c.index)]
    return Completion(
        text=texts[0], texts=texts, model=response.model or "",
        input_tokens=(usage.prompt_tokens if usage else 0) or 0,
        output_tokens=(usage.completion_tokens if usage else 0) or 0,
        raw=response.model_dump(mode="json"),
    )
