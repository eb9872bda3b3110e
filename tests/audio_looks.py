"""Counting how often an import looks at each audio file (issue 23: once is enough)."""

from collections import Counter
from pathlib import Path

from pydub import AudioSegment

from apps.audio import services


def count_looks(monkeypatch) -> tuple[Counter, Counter]:
    """(looks, decodes) by file name, filled in as the code under test runs: a look is inspect_audio
    reading the file (through its WAV-header or its decoding path), a decode is pydub's from_file."""
    looks, decodes = Counter(), Counter()

    def counted(reader):
        def counting(file, *args, **kwargs):
            looks[Path(file).name] += 1
            return reader(file, *args, **kwargs)
        return counting
    for reader in ("_inspect_wav", "_inspect_by_decoding"):
        monkeypatch.setattr(services, reader, counted(getattr(services, reader)))
    from_file = AudioSegment.from_file

    def decoding(cls, file, *args, **kwargs):
        decodes[Path(file).name] += 1
        return from_file(file, *args, **kwargs)
    monkeypatch.setattr(AudioSegment, "from_file", classmethod(decoding))
    return looks, decodes
