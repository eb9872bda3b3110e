"""Offline Korean TTS through espeak-ng (apps.audio.espeak): demos and tests without any server. The seed
nudges pitch and rate, so a re-synthesis really sounds different."""

import random

from apps.audio import espeak
from apps.speech.backends import PermanentSpeechError, SynthesizedAudio, TTSBackend, TTSRequest


class EspeakTTS(TTSBackend):
    name = "espeak"

    @property
    def model(self) -> str:
        return "espeak-ng"

    def missing(self) -> str | None:
        import shutil  # only to answer the status question

        return None if shutil.which("espeak-ng") else "espeak-ng is not installed (apt-get install espeak-ng)"

    def _params(self, request: TTSRequest) -> tuple[int, int]:
        rng = random.Random(f"{request.voice.name}:{request.seed}")
        return 150 + rng.randint(-15, 15), 50 + rng.randint(-15, 15)

    def _voice(self, request: TTSRequest) -> str:
        # espeak-ng's Korean voice with a male or female variant; vendor voice names of other servers
        # mean nothing here.
        return "ko+f3" if request.voice.gender == "female" else "ko+m3"

    def cache_fields(self, request: TTSRequest) -> dict:
        rate, pitch = self._params(request)
        return {"text": request.text, "rate": rate, "pitch": pitch, "voice": self._voice(request)}

    def synthesize(self, request: TTSRequest) -> SynthesizedAudio:
        rate, pitch = self._params(request)
        try:
            data = espeak.synthesize_wav(request.text, voice=self._voice(request),
                                         words_per_minute=rate, pitch=pitch)
        except espeak.EspeakUnavailable as exc:
            raise PermanentSpeechError(str(exc)) from exc
        return SynthesizedAudio(data=data, format="wav")
