"""The openai SDK client shared by the OpenAI-compatible TTS and ASR modules, from the vendor transport's
client cache. The SDK's own retries are off (max_retries=0): apps.agents.transport owns the retry policy."""

from apps.agents import transport


def client(config: dict):
    import openai  # here, not at module level: the SDK takes seconds to import and most commands never call it

    # A self-hosted server may need no key, only its address.
    return transport.client(
        ("speech-openai", config.get("base_url"), config.get("api_key"), config.get("timeout")),
        lambda: openai.OpenAI(api_key=config.get("api_key") or "not-needed-by-this-server",
                              base_url=config.get("base_url"), max_retries=0, timeout=config.get("timeout") or 120),
    )
