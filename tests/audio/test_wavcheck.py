"""The checker process (apps.audio.wavcheck) that shares a big import's short WAVs with the importing
thread: it accepts exactly what inspect_audio stores as it is, and leaves everything else (and every
message) to the importing thread."""

import hashlib
import logging
import os
import pickle
import queue
import resource
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path
from types import SimpleNamespace

import pytest

from apps.audio import inspection, store, wavcheck
from apps.audio.info import AudioInfo, AudioRejected
from tests.audio.test_audio import with_wav_tags
from tests.audio_looks import share_with_checker, use_checker


@pytest.fixture
def assorted(make_wav, tmp_path) -> dict[str, Path]:
    """Files named .wav of every kind an import meets: bare WAVs (which the checker accepts) and the rest."""
    files = {
        "mono.wav": make_wav("a/mono.wav", seconds=0.4),
        "stereo.wav": make_wav("a/stereo.wav", seconds=0.3, rate=22050, channels=2, freq=300),
        "long.wav": make_wav("a/long.wav", seconds=1.2, rate=8000, freq=500),
        "tagged.wav": with_wav_tags(make_wav("a/tagged.wav", seconds=0.2, freq=700)),
    }
    truncated = make_wav("a/truncated.wav", seconds=1.0, freq=900)
    truncated.write_bytes(truncated.read_bytes()[:8000])
    files["truncated.wav"] = truncated
    files["empty.wav"] = tmp_path / "a" / "empty.wav"
    files["empty.wav"].write_bytes(b"")
    files["text.wav"] = tmp_path / "a" / "text.wav"
    files["text.wav"].write_text("not audio")
    files["missing.wav"] = tmp_path / "a" / "missing.wav"
    files["fifo.wav"] = tmp_path / "a" / "fifo.wav"
    os.mkfifo(files["fifo.wav"])  # a checker opening it for reading must not hang
    return files


BARE = {"mono.wav", "stereo.wav", "long.wav"}


def one_by_one(files: dict[str, Path]) -> dict[Path, object]:
    """What inspect_audio says of each file, checked alone in this process."""
    found = {}
    for name, path in files.items():
        try:
            found[path] = inspection.inspect_audio(path, name=name)
        except AudioRejected as exc:
            found[path] = exc
    return found


def feed(files: dict[str, Path], *, stage=None, max_bytes=1 << 20) -> dict[str, tuple | None]:
    """The checker's answers, every slice given to it (nothing taken by an importing thread)."""
    items = list(files.items())
    slices = deque([[(path, name) for name, path in items[:4]], [(path, name) for name, path in items[4:]]])
    answered: queue.SimpleQueue = queue.SimpleQueue()
    inspection._feed_checker(slices, answered, stage, max_bytes)
    assert not slices
    answers = {}
    while not answered.empty():
        batch, batch_answers = answered.get()
        answers.update({name: answer for (_, name), answer in zip(batch, batch_answers, strict=True)})
    return answers


def test_the_checker_accepts_exactly_the_wavs_stored_as_they_are_and_describes_them_as_inspect_audio_does(db, assorted):
    answers = feed(assorted)
    assert set(answers) == set(assorted)
    assert {name for name, answer in answers.items() if answer is not None} == BARE
    alone = one_by_one(assorted)
    for name in BARE:
        info = inspection._checker_info(answers[name])
        assert info == alone[assorted[name]] and info.stored_as_is
        assert answers[name][5] is None  # no staging asked for


def test_the_checker_leaves_a_file_over_its_size_bound_to_the_importing_thread(db, make_wav):
    path = make_wav("big.wav", seconds=1.0)
    assert feed({"big.wav": path}, max_bytes=path.stat().st_size - 1) == {"big.wav": None}
    assert feed({"big.wav": path}, max_bytes=path.stat().st_size)["big.wav"] is not None


def test_the_checker_stages_what_it_accepted_and_the_staging_discards_it_unless_stored(db, assorted, settings):
    with store.Staging() as staging:
        answers = feed(assorted, stage=staging)
        for name in BARE:
            sha256, part = answers[name][0], answers[name][5]
            assert Path(part).read_bytes() == assorted[name].read_bytes()
            assert Path(part).parent == Path(settings.MEDIA_ROOT) / "audio" / sha256[:2]
        taken = staging.take(answers["mono.wav"][0])
        assert taken == answers["mono.wav"][5]
        os.unlink(taken)  # what storing would rename
    assert list(Path(settings.MEDIA_ROOT).rglob("*.part")) == []


def test_a_content_staged_already_keeps_one_copy(db, make_wav, settings):
    path = make_wav("one.wav")
    with store.Staging() as staging:
        inspection.inspect_audio(path, stage=staging)  # staged by this process first
        answer = feed({"one.wav": path}, stage=staging)["one.wav"]
        assert answer[5] is not None and not Path(answer[5]).exists()  # the checker's copy, adopted as a duplicate
        assert len(list(Path(settings.MEDIA_ROOT).rglob("*.part"))) == 1
    assert list(Path(settings.MEDIA_ROOT).rglob("*.part")) == []


@pytest.fixture
def shared(monkeypatch):
    return share_with_checker(monkeypatch)


def test_files_shared_with_the_checker_are_found_as_one_process_finds_them(db, assorted, shared):
    alone = one_by_one(assorted)
    shared.clear()
    found = inspection.inspect_many([(path, name) for name, path in assorted.items()])
    assert set(shared) < set(assorted)  # the checker took some
    assert set(assorted) - BARE <= set(shared)  # and every refusal's message comes from this process
    for path in assorted.values():
        got, expected = found[path.resolve()], alone[path]
        assert type(got) is type(expected) and str(got) == str(expected)
        if isinstance(got, AudioInfo):
            assert got == expected and got.stored_as_is == expected.stored_as_is


def test_a_checker_that_cannot_run_leaves_every_file_to_the_importing_thread(db, assorted, shared, monkeypatch, caplog):
    monkeypatch.setattr(inspection.sys, "executable", "/bin/false")  # starts, and exits at once
    alone = one_by_one(assorted)
    with caplog.at_level(logging.WARNING, logger="apps.audio.inspection"):
        found = inspection.inspect_many([(path, name) for name, path in assorted.items()])
    assert {str(outcome) for outcome in found.values()} == {str(outcome) for outcome in alone.values()}
    assert "the audio checker process stopped" in caplog.text


def feeder_alive() -> bool:
    return any(t.name == "audio-checker-feeder" and t.is_alive() for t in threading.enumerate())


def test_a_cancel_while_the_checker_is_busy_stops_it_and_leaves_nothing_staged(db, make_wav, monkeypatch, settings):
    use_checker(monkeypatch, slice_size=4)
    load = pickle.load

    def slow_answer(stream):  # the checker still working on its slice when the job is cancelled
        time.sleep(0.2)
        return load(stream)

    monkeypatch.setattr(inspection, "pickle", SimpleNamespace(dump=pickle.dump, load=slow_answer))
    files = [(make_wav(f"c/{k}.wav", seconds=0.2, freq=200 + 50 * k), f"{k}.wav") for k in range(40)]
    busy_at_cancel = []

    def cancel():
        busy_at_cancel.append(feeder_alive())
        raise RuntimeError("cancelled")

    with pytest.raises(RuntimeError), store.Staging() as staging:
        inspection.inspect_many(files, stage=staging, on_checked=cancel)
    assert busy_at_cancel == [True] and not feeder_alive()  # stopped before inspect_many gave up
    assert list(Path(settings.MEDIA_ROOT).rglob("*.part")) == []


def test_the_slice_a_dying_checker_leaves_is_checked_here_and_its_copies_removed(db, make_wav, monkeypatch,
                                                                                tmp_path, settings, caplog):
    """A checker that dies after writing a copy of its slice, once this process has run out of slices:
    the slice is checked here all the same, and the copy it never handed over is removed."""
    share_with_checker(monkeypatch)  # this process slow at its share: the checker surely gets a slice
    monkeypatch.setattr(inspection, "_CHECKER_SLICE", 2)
    # Run as `dying -I -S wavcheck.py max_bytes root suffix mode`: on its first request it writes a copy
    # and dies later, when this process (5 slices of 2 files at 50 ms a file) has run out of slices.
    dying = tmp_path / "dying-checker"
    dying.write_text('#!/bin/sh\n[ -n "$(head -c 1)" ] || exit 0\n'
                     'mkdir -p "$5/audio/ab" && touch "$5/audio/ab/stray$6"\nsleep 1\nexit 3\n')
    dying.chmod(0o755)
    monkeypatch.setattr(inspection.sys, "executable", str(dying))
    files = {f"{k}.wav": make_wav(f"d/{k}.wav", seconds=0.2, freq=200 + 50 * k) for k in range(10)}
    alone = one_by_one(files)
    with caplog.at_level(logging.WARNING, logger="apps.audio.inspection"), store.Staging() as staging:
        found = inspection.inspect_many([(path, name) for name, path in files.items()], stage=staging)
        assert list(Path(settings.MEDIA_ROOT).rglob("stray*")) == []
    assert {path: found[path.resolve()] for path in files.values()} == alone
    assert "the audio checker process stopped" in caplog.text


def test_a_copy_the_checker_cannot_write_whole_is_not_left_behind(make_wav, tmp_path):
    """A full disk (here a limit on file size): the file is accepted, not staged, and no piece of it stays."""
    path = make_wav("big.wav", seconds=1.0)
    root = tmp_path / "storage"
    root.mkdir()

    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, 10_000))

    checker = subprocess.run(
        [sys.executable, "-I", "-S", wavcheck.__file__, str(1 << 20), str(root), ".x.part", "-"],
        input=pickle.dumps([os.fsencode(path)]), capture_output=True, preexec_fn=limit_file_size, check=True,
    )
    (answer,) = pickle.loads(checker.stdout)
    assert answer[0] == hashlib.sha256(path.read_bytes()).hexdigest() and answer[5] is None
    assert [p for p in root.rglob("*") if p.is_file()] == []


def test_a_copy_arriving_after_the_staging_was_discarded_is_removed(db, tmp_path, settings):
    with store.Staging() as staging:
        pass
    late = Path(settings.MEDIA_ROOT) / "audio" / "ab" / "late.part"
    late.parent.mkdir(parents=True)
    late.write_bytes(b"x")
    staging.adopt("ab" * 32, str(late))
    assert not late.exists()


def test_once_the_checks_are_done_the_staged_copies_start_for_the_disk(db, make_wav, monkeypatch, settings):
    """So the flush before their renames (_make_durable) finds them written (issue 23)."""
    flushed = []
    done = threading.Event()

    def syncfs(fd):
        flushed.append(os.readlink(f"/proc/self/fd/{fd}"))
        done.set()
        return 0

    monkeypatch.setattr(store, "_syncfs", lambda: syncfs)
    files = [(make_wav(f"w/{k}.wav", seconds=0.2, freq=300 + 10 * k), f"{k}.wav") for k in range(3)]
    with store.Staging() as staging:
        inspection.inspect_many(files, stage=staging)
        assert done.wait(5)
    assert flushed == [str(Path(settings.MEDIA_ROOT).resolve())]
