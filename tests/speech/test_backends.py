"""One backend base for TTS and ASR: each vendor module is a SpeechBackend of its kind, chosen by settings."""

import pytest

from apps.speech.backends import (
    ASR_BACKENDS,
    TTS_BACKENDS,
    ASRBackend,
    BackendNotConfigured,
    SpeechBackend,
    TTSBackend,
    asr_backend,
    tts_backend,
)


@pytest.mark.parametrize(("make", "names", "base", "kind"), [(tts_backend, TTS_BACKENDS, TTSBackend, "TTS"),
                                                              (asr_backend, ASR_BACKENDS, ASRBackend, "ASR")])
def test_every_backend_settings_can_name_is_a_speech_backend_of_its_kind(make, names, base, kind):
    for name in names:
        backend = make({"backend": name, "model": "m"})
        assert isinstance(backend, base) and isinstance(backend, SpeechBackend)
        assert (backend.kind, backend.name) == (kind, name)


@pytest.mark.parametrize(("make", "message"), [
    (tts_backend, "unknown TTS backend 'festival' (SORI_TTS_BACKEND: espeak or openai)"),
    (asr_backend, "unknown ASR backend 'festival' (SORI_ASR_BACKEND: openai or demo)"),
])
def test_an_unknown_backend_is_refused_naming_the_setting_and_the_choices(make, message):
    with pytest.raises(BackendNotConfigured) as refused:
        make({"backend": "festival"})
    assert str(refused.value) == message


@pytest.mark.parametrize(("make", "kind"), [(tts_backend, "TTS"), (asr_backend, "ASR")])
def test_an_openai_compatible_backend_names_the_setting_it_lacks(make, kind):
    assert make({"backend": "openai"}).missing() == f"no {kind} model is configured: set SORI_{kind}_MODEL"
    assert make({"backend": "openai", "model": "m"}).missing() == (
        f"no {kind} server is configured: set SORI_{kind}_BASE_URL (self-hosted) or SORI_{kind}_API_KEY")
    assert make({"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}).missing() is None
