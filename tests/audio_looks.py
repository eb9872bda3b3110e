"""Counting how often an import looks at each audio file (issue 23: once is enough)."""

import time
from collections import Counter
from pathlib import Path

from pydub import AudioSegment

from apps.audio import services


def count_looks(monkeypatch) -> tuple[Counter, Counter]:
    """(looks, decodes) by file name, filled in as the code under test runs: a look is inspect_audio
    checking the file (in this process: a run below CHECKER_MIN_FILES), a decode is pydub's from_file."""
    looks, decodes = Counter(), Counter()

    def counted(reader):
        def counting(file, *args, **kwargs):
            looks[Path(file).name] += 1
            return reader(file, *args, **kwargs)
        return counting
    monkeypatch.setattr(services, "inspect_audio", counted(services.inspect_audio))
    from_file = AudioSegment.from_file

    def decoding(cls, file, *args, **kwargs):
        decodes[Path(file).name] += 1
        return from_file(file, *args, **kwargs)
    monkeypatch.setattr(AudioSegment, "from_file", classmethod(decoding))
    return looks, decodes


def share_with_checker(monkeypatch) -> list[str]:
    """Have inspect_many share even a few files with its checker process, this process slow at its share
    (so the checker surely takes some). Returns the names this process looked at, filled in as it runs."""
    use_checker(monkeypatch, slice_size=1)
    looked: list[str] = []
    inspect = services.inspect_audio

    def slowly(path, *, name=None, stage=None):
        looked.append(name)
        time.sleep(0.05)
        return inspect(path, name=name, stage=stage)

    monkeypatch.setattr(services, "inspect_audio", slowly)
    return looked


def use_checker(monkeypatch, *, slice_size: int) -> None:
    """Have inspect_many start its checker process for even a few files, on any machine."""
    monkeypatch.setattr(services, "CHECKER_MIN_FILES", 1)
    monkeypatch.setattr(services, "_CHECKER_SLICE", slice_size)
    monkeypatch.setattr(services, "_usable_cores", lambda: 2)
