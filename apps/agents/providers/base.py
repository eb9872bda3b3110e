"""The interface every provider module implements, and the answer type.

A provider module holds one `Provider` subclass and registers an instance (see __init__.py). Its
`complete()` makes one HTTP request with the vendor's official SDK, SDK retries off (max_retries=0:
apps.agents.transport owns the retry policy, so it is the only one and tested), and returns a Completion or
raises one of the transport's two kinds, TransientVendorError (worth retrying: 408, 409, 429, 5xx, timeouts,
connection errors; carries the server's retry-after) or PermanentVendorError (anything else), through
transport.classify.

Sampling: `temperature` and `top_p` are sent only when given (None leaves the model's default), and only those
the vendor's API still takes (`sampling_settings`; Anthropic's API of 2026-10-21 and its SDK 2.x take none). `n`
asks for several answers in one request where the vendor has it (`supports_n`: OpenAI's Chat Completions `n`);
a provider without it is only ever asked for n=1, and apps.agents.services makes n calls instead."""

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from apps.agents import transport


@dataclass
class Completion:
    """One request's answer: `text` is the first answer, `texts` every answer (n of them when n was asked),
    `model` the model the vendor says answered (a dated snapshot such as gpt-4o-mini-2024-07-18, where the
    request named an alias); usage counts every answer."""

    text: str
    input_tokens: int
    output_tokens: int
    raw: dict = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    model: str = ""

    def __post_init__(self):
        if not self.texts:
            self.texts = [self.text]


class Provider:
    """One LLM vendor. `env` names the SDK's own variables (key and endpoint), read on every call so an
    operator or a test can repoint the SDK without restarting the process."""

    name: str
    env: tuple[str, ...]
    key_hint: str  # what to set, for the "no provider configured" message
    supports_n = False  # several answers in one request (Chat Completions' `n`)
    sampling_settings: tuple[str, ...] = ()  # the sampling settings its API takes

    def is_configured(self) -> bool:
        raise NotImplementedError

    def complete(self, *, model: str, system: str, messages: list[dict], max_tokens: int, timeout: float, n: int = 1,
                 temperature: float | None = None, top_p: float | None = None) -> Completion:
        raise NotImplementedError

    def client(self, timeout: float, make: Callable[[], object], *, extra: tuple = ()):
        """The SDK client for these settings (and `extra`, e.g. an explicit endpoint), made once
        (transport.client)."""
        return transport.client((self.name, timeout, tuple(os.environ.get(name) for name in self.env), extra), make)
