"""The scripted demo ASR (demo answers, not a real model): what ./scripts/demo uses when no ASR is
configured, so a speech run completes in the demo. It does not listen. It "hears" a clip the speech stage
synthesized as the text that was synthesized for it: the attempt whose stored audio has the same SHA-256
(apps.speech.services stores the joined audio on the attempt before asking the ASR). Audio Sori did not
synthesize is refused. The pages say it is scripted, like the demo LLM provider."""

import hashlib

from apps.speech.backends import ASRBackend, PermanentSpeechError

DEMO_LABEL = "demo answers, not a real model"


class DemoASR(ASRBackend):
    name = "demo"
    scripted = True  # the pages say "demo answers, not a real model"

    @property
    def model(self) -> str:
        return "demo-asr"

    def transcribe(self, audio: bytes, *, filename: str) -> str:
        from apps.speech.models import SynthesisAttempt  # a backend module loads before the app's models

        digest = hashlib.sha256(audio).hexdigest()
        attempt = SynthesisAttempt.objects.filter(asset__sha256=digest).order_by("-pk").first()
        if attempt is None:
            raise PermanentSpeechError(f"the demo ASR ({DEMO_LABEL}) knows only audio the speech stage synthesized; "
                                       "set SORI_ASR_BACKEND=openai and SORI_ASR_MODEL for a real ASR")
        return attempt.text
