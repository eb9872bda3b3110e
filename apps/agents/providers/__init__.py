"""LLM providers, one module per vendor behind the small interface of base.Provider, and the registry that
apps.agents.services looks them up in by name. Keys and endpoints come from the SDKs' own environment
variables, so a gateway or a self-hosted OpenAI-compatible server works by setting them.

Adding a vendor: a module here with a Provider subclass, registered below (and its name in
apps.agents.models.Provider, so roles can be assigned to it)."""

from apps.agents.providers.anthropic import AnthropicProvider
from apps.agents.providers.base import Completion, Provider
from apps.agents.providers.openai import OpenAIProvider
from apps.agents.transport import PermanentVendorError

__all__ = ["Completion", "Provider", "complete", "get", "is_configured", "register"]

_registry: dict[str, Provider] = {}


def register(provider: Provider) -> Provider:
    _registry[provider.name] = provider
    return provider


def get(name: str) -> Provider | None:
    return _registry.get(name)


def is_configured(name: str) -> bool:
    provider = get(name)
    return provider is not None and provider.is_configured()


def complete(name: str, *, model: str, system: str, messages: list[dict], max_tokens: int, timeout: float,
             n: int = 1, temperature: float | None = None, top_p: float | None = None) -> Completion:
    """One HTTP request to the named provider, no retries (apps.agents.transport.send_with_retries adds them).
    Sampling settings left None are not sent; n > 1 only for a provider that `supports_n`."""
    provider = get(name)
    if provider is None:
        raise PermanentVendorError(f"unknown provider {name!r}")
    return provider.complete(model=model, system=system, messages=messages, max_tokens=max_tokens, timeout=timeout,
                             n=n, temperature=temperature, top_p=top_p)


register(AnthropicProvider())
register(OpenAIProvider())
