"""The openai SDK client and error mapping shared by the OpenAI-compatible TTS and ASR modules. The SDK's
own retries are off (max_retries=0): apps.speech.calls owns the retry policy."""

import threading

from apps.agents.providers import retry_after_seconds
from apps.speech.backends import PermanentSpeechError, TransientSpeechError

_clients: dict[tuple, object] = {}  # openai.OpenAI clients by (base URL, key, timeout)
_lock = threading.Lock()


def client(config: dict):
    import openai  # here, not at module level: the SDK takes seconds to import and most commands never call it

    key = (config.get("base_url"), config.get("api_key"), config.get("timeout"))
    with _lock:
        found = _clients.get(key)
        if found is None:
            # A self-hosted server may need no key, only its address.
            found = openai.OpenAI(
                api_key=config.get("api_key") or "not-needed-by-this-server", base_url=config.get("base_url"),
                max_retries=0, timeout=config.get("timeout") or 120,
            )
            if len(_clients) > 16:
                _clients.clear()
            _clients[key] = found
        return found


def classify(exc: Exception) -> Exception:
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return TransientSpeechError(f"timed out: {exc}")
    if isinstance(exc, openai.APIConnectionError):
        return TransientSpeechError(f"connection failed: {exc}")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status in {408, 409, 429} or status >= 500:
            return TransientSpeechError(f"HTTP {status}: {exc.message}",
                                        retry_after=retry_after_seconds(exc.response.headers))
        return PermanentSpeechError(f"HTTP {status}: {exc.message}")
    return PermanentSpeechError(f"{type(exc).__name__}: {exc}")
