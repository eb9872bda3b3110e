"""Counting how often an import looks at each audio file (issue 23: once is enough)."""

import time
from collections import Counter
from pathlib import Path

from apps.audio import inspection, pcm


def count_looks(monkeypatch) -> tuple[Counter, Counter]:
    """(looks, decodes) by file name, filled in as the code under test runs: a look is inspect_audio
    checking the file (in this process: a run below CHECKER_MIN_FILES), a decode is ffmpeg decoding it whole
    (apps.audio.pcm)."""
    looks, decodes = Counter(), Counter()

    def counted(reader):
        def counting(file, *args, **kwargs):
            looks[Path(file).name] += 1
            return reader(file, *args, **kwargs)
        return counting
    monkeypatch.setattr(inspection, "inspect_audio", counted(inspection.inspect_audio))

    def counted_decode(decoder):
        def decoding(file, *args, **kwargs):
            decodes[Path(file).name] += 1
            return decoder(file, *args, **kwargs)
        return decoding
    for decoder in ("decoded_shape", "decode"):
        monkeypatch.setattr(pcm, decoder, counted_decode(getattr(pcm, decoder)))
    return looks, decodes


def share_with_checker(monkeypatch) -> list[str]:
    """Have inspect_many share even a few files with its checker process, this process slow at its share
    (so the checker surely takes some). Returns the names this process looked at, filled in as it runs."""
    use_checker(monkeypatch, slice_size=1)
    looked: list[str] = []
    inspect = inspection.inspect_audio

    def slowly(path, *, name=None, stage=None):
        looked.append(name)
        time.sleep(0.05)
        return inspect(path, name=name, stage=stage)

    monkeypatch.setattr(inspection, "inspect_audio", slowly)
    return looked


def use_checker(monkeypatch, *, slice_size: int) -> None:
    """Have inspect_many start its checker process for even a few files, on any machine."""
    monkeypatch.setattr(inspection, "CHECKER_MIN_FILES", 1)
    monkeypatch.setattr(inspection, "_CHECKER_SLICE", slice_size)
    monkeypatch.setattr(inspection, "_usable_cores", lambda: 2)
