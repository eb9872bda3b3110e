"""The interface every provider module implements, and the answer type.

A provider module holds one `Provider` subclass and registers an instance (see __init__.py). Its
`complete()` makes one HTTP request with the vendor's official SDK, SDK retries off (max_retries=0:
apps.agents.transport owns the retry policy, so it is the only one and tested), and returns a Completion or
raises one of the transport's two kinds, TransientVendorError (worth retrying: 408, 409, 429, 5xx, timeouts,
connection errors; carries the server's retry-after) or PermanentVendorError (anything else), through
transport.classify."""

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from apps.agents import transport


@dataclass
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    raw: dict = field(default_factory=dict)


class Provider:
    """One LLM vendor. `env` names the SDK's own variables (key and endpoint), read on every call so an
    operator or a test can repoint the SDK without restarting the process."""

    name: str
    env: tuple[str, ...]
    key_hint: str  # what to set, for the "no provider configured" message

    def is_configured(self) -> bool:
        raise NotImplementedError

    def complete(self, *, model: str, system: str, messages: list[dict], max_tokens: int, timeout: float) -> Completion:
        raise NotImplementedError

    def client(self, timeout: float, make: Callable[[], object], *, extra: tuple = ()):
        """The SDK client for these settings (and `extra`, e.g. an explicit endpoint), made once
        (transport.client)."""
        return transport.client((self.name, timeout, tuple(os.environ.get(name) for name in self.env), extra), make)
