"""Demo audio made on the spot with espeak-ng, stored like any imported asset."""

import tempfile
from pathlib import Path

from apps.audio.espeak import synthesize_wav
from apps.audio.models import AudioAsset
from apps.audio.services import import_audio_file


def demo_asset(text: str, *, name: str, words_per_minute: int = 160, pitch: int = 50) -> AudioAsset:
    wav = synthesize_wav(text, words_per_minute=words_per_minute, pitch=pitch)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(wav)
        asset, _ = import_audio_file(path, name=name)
    return asset
