"""OpenAI, or any OpenAI-compatible server (a self-hosted model), through the official SDK's Chat
Completions API (OPENAI_API_KEY, OPENAI_BASE_URL)."""

import os

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
                    max_tokens: int, temperature: float | None = None, top_p: float | None = None) -> Completion:
        """One request to a named OpenAI-compatible server (not the one OPENAI_BASE_URL names): a model under
        evaluation served by vLLM, whose messages may carry `input_audio` content parts, with its decoding
        settings. `max_tokens` is sent under that name, which vLLM and other compatible servers read."""
        import openai  # imported where used, as in complete(): the SDK is slow to import

        key = api_key or "not-needed-by-this-server"
        client = self.client(timeout, lambda: openai.OpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=timeout),
                             extra=(base_url, key))
        return _create(client, model=model, max_tokens=max_tokens, messages=messages,
                       **_sampling(temperature=temperature, top_p=top_p))


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
