"""OpenAI-compatible TTS (`POST /v1/audio/speech`) through `client.audio.speech.create`. The same module
serves OpenAI itself and self-hosted voice cloning (vLLM-Omni serving Qwen3-TTS or CosyVoice3): the extra
fields those servers read (task_type, language, ref_audio, ref_text) go through `extra_body`."""

import base64

from apps.agents.transport import classify
from apps.speech.backends import SynthesizedAudio, TTSBackend, TTSRequest
from apps.speech.backends._openai import OpenAICompatible, client


class OpenAITTS(OpenAICompatible, TTSBackend):
    name = "openai"

    def extra_body(self, request: TTSRequest) -> dict:
        body = dict(self.config.get("extra_body") or {})
        if self.config.get("send_reference") and request.voice.ref_audio:
            body["ref_audio"] = "data:audio/wav;base64," + base64.b64encode(request.voice.ref_audio).decode()
            body["ref_text"] = request.voice.ref_text
        if self.config.get("seed_field"):
            body[self.config["seed_field"]] = request.seed
        return body

    def voice_of(self, request: TTSRequest) -> str:
        return request.voice.vendor_voice or self.config.get("voice") or request.voice.name

    def cache_fields(self, request: TTSRequest) -> dict:
        body = self.extra_body(request)
        if "ref_audio" in body:  # the clip by its hash, not its bytes
            body["ref_audio"] = request.voice.ref_audio_sha256
        return {"base_url": self.config.get("base_url"), "model": self.model, "voice": self.voice_of(request),
                "input": request.text, "response_format": self.config.get("response_format"), "extra": body,
                "seed": request.seed}

    def synthesize(self, request: TTSRequest) -> SynthesizedAudio:
        fmt = self.config.get("response_format") or "wav"
        import openai  # here, not at module level: the SDK takes seconds to import and most commands never call it

        try:
            response = client(self.config).audio.speech.create(
                model=self.model, voice=self.voice_of(request), input=request.text, response_format=fmt,
                extra_body=self.extra_body(request) or None,
            )
            data = response.read()
        except openai.OpenAIError as exc:
            raise classify(exc, openai) from exc
        return SynthesizedAudio(data=data, format=fmt)
