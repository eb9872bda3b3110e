"""Anthropic, through the official SDK's Messages API (ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN,
ANTHROPIC_BASE_URL for a gateway). The API has no `n`, and since its version 2026-10-21 (the SDK's 2.x, which
sends it) it takes no sampling settings: temperature and top_p are refused, so none are sent."""

import os

from apps.agents.providers.base import Completion, Provider
from apps.agents.transport import classify


class AnthropicProvider(Provider):
    name = "anthropic"
    env = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
    key_hint = "ANTHROPIC_API_KEY"

    def is_configured(self) -> bool:
        return bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))

    def complete(self, *, model, system, messages, max_tokens, timeout, n=1, temperature=None, top_p=None) -> Completion:
        import anthropic  # imported where used: the SDK takes seconds to import, and most commands never call it

        if n != 1 or temperature is not None or top_p is not None:  # services never asks: see sampling_settings
            raise ValueError("the Anthropic Messages API answers one sample a request, with no sampling settings")
        client = self.client(timeout, lambda: anthropic.Anthropic(max_retries=0, timeout=timeout))
        try:
            kwargs = {"system": system} if system else {}
            message = client.messages.create(model=model, max_tokens=max_tokens, messages=messages, **kwargs)
        except anthropic.AnthropicError as exc:
            raise classify(exc, anthropic) from exc
        text = "".join(block.text for block in message.content if getattr(block, "type", "") == "text")
        return Completion(
            text=text, input_tokens=message.usage.input_tokens or 0, output_tokens=message.usage.output_tokens or 0,
            raw=message.model_dump(mode="json"), model=message.model or "",
        )
