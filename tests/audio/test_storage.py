"""Stored audio is never lost or corrupted: two real processes importing the same audio on PostgreSQL, one
rolling back; an import killed (SIGKILL) in the middle of writing a file; the audit that finds orphan files
and damaged assets."""

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from apps.audio import services, store
from apps.audio.audit import ORPHAN_MIN_AGE_SECONDS, audit_audio_storage
from apps.audio.models import AudioAsset
from tests.speech import test_s3_storage

s3 = test_s3_storage.s3  # the moto S3 server fixture


def stored_files(settings) -> list[Path]:
    root = Path(settings.MEDIA_ROOT)
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def assert_every_asset_holds_its_bytes() -> None:
    assert AudioAsset.objects.exists()
    for asset in AudioAsset.objects.all():
        with asset.file.open("rb") as fh:
            data = fh.read()
        assert (len(data), sha256(data)) == (asset.size_bytes, asset.sha256), asset.file.name


def import_process(mode: str, signals: Path, path: Path, log: Path, **env) -> subprocess.Popen:
    """tests/fakes/audio_import.py in a process of its own, on the test's database and media folder."""
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    env = {
        **os.environ, **env, "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "DATABASE_URL": f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.audio_import", mode, str(signals), str(path)],
        cwd=settings.BASE_DIR, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )


def wait_for(condition, *, what: str, processes=(), logs=(), seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        if any(p.poll() is not None for p in processes):
            break
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}\n" + "\n".join(p.read_text(errors="replace") for p in logs))


def sessions_waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_import_that_rolls_back_keeps_the_file_another_import_committed_an_asset_for(
    settings, tmp_path, make_wav, client_for, admin
):
    clip = make_wav("same.wav", seconds=2.0, freq=330)
    signals, logs = tmp_path / "signals", [tmp_path / "first.log", tmp_path / "second.log"]
    signals.mkdir()
    first = second = None
    try:
        # The first import has written the file and holds its asset row, not committed yet.
        first = import_process("rollback", signals, clip, logs[0])
        wait_for(lambda: (signals / "stored").exists(), what="the first import to store the file", processes=[first], logs=logs)
        # The second finds the file and waits on the first (for the content, or the row's unique key).
        second = import_process("commit", signals, clip, logs[1])
        wait_for(lambda: sessions_waiting_on_a_lock() >= 1, what="the second import to wait for the first",
                 processes=[second], logs=logs)
        (signals / "go").touch()  # the first rolls back and discards what it wrote
        assert first.wait(60) == 3, logs[0].read_text()
        assert second.wait(60) == 0, logs[1].read_text()
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(10)

    asset = AudioAsset.objects.get()
    assert asset.sha256 == sha256(clip.read_bytes())
    assert_every_asset_holds_its_bytes()
    response = client_for(admin).get(f"/audio/{asset.public_id}/")
    assert response.status_code == 200 and sha256(b"".join(response.streaming_content)) == asset.sha256
    assert audit_audio_storage(min_age_seconds=0).lines() == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_import_killed_mid_write_leaves_no_partial_file_under_a_final_name_and_the_next_import_stores_whole_files(
    settings, tmp_path, make_wav
):
    folder = tmp_path / "clips"
    for n in range(4):  # each over one write block (1 MiB), so the kill lands inside a file
        make_wav(f"clips/{n}.wav", seconds=40.0, freq=200 + 50 * n)
    signals, log = tmp_path / "signals", tmp_path / "import.log"
    signals.mkdir()
    process = import_process("stall", signals, folder, log, STALL_AT="3")
    try:
        wait_for(lambda: (signals / "stalled").exists(), what="the import to be halfway through its third file",
                 processes=[process], logs=[log])
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    left = stored_files(settings)
    assert AudioAsset.objects.count() == 0  # its transaction died with it
    partial = [p for p in left if p.name.endswith(".part")]
    whole = [p for p in left if not p.name.endswith(".part")]
    assert len(partial) == 1 and 0 < partial[0].stat().st_size < (folder / "2.wav").stat().st_size
    assert len(whole) == 2 and all(sha256(p.read_bytes()) == p.name.split(".")[0] for p in whole)

    services.import_folder(folder)  # reuses the two whole files (their hash matches), writes the rest
    assert AudioAsset.objects.count() == 4
    assert_every_asset_holds_its_bytes()

    audit = audit_audio_storage(remove_orphans=True, min_age_seconds=0)
    orphan = partial[0].relative_to(settings.MEDIA_ROOT).as_posix()
    assert (audit.orphans, audit.removed, audit.problems) == ([orphan], [orphan], [])
    assert not partial[0].exists() and len(stored_files(settings)) == 4


def test_a_truncated_file_left_under_its_final_name_is_replaced_not_reused(db, settings, make_wav):
    clip = make_wav("long.wav", seconds=3.0)
    data = clip.read_bytes()
    # What an import killed by an older Sori left: the first part of the file under its final name.
    left = Path(settings.MEDIA_ROOT) / "audio" / sha256(data)[:2] / f"{sha256(data)}.wav"
    left.parent.mkdir(parents=True)
    left.write_bytes(data[: len(data) // 8])
    asset, created = services.import_audio_file(clip)
    assert created and asset.file.name == left.relative_to(settings.MEDIA_ROOT).as_posix()
    assert left.read_bytes() == data
    assert_every_asset_holds_its_bytes()


def test_a_rolled_back_import_does_not_delete_a_file_that_a_stored_asset_names(db, settings, make_wav):
    asset, _ = services.import_audio_file(make_wav("kept.wav"))
    assert store.discard_unnamed_files([(asset.file.name, asset.sha256)]) == []
    assert_every_asset_holds_its_bytes()


def test_the_audit_lists_and_removes_orphans_and_reports_missing_and_corrupted_files(db, settings, make_wav):
    whole, _ = services.import_audio_file(make_wav("whole.wav", freq=300))
    gone, _ = services.import_audio_file(make_wav("gone.wav", freq=400))
    bent, _ = services.import_audio_file(make_wav("bent.wav", freq=500))
    media = Path(settings.MEDIA_ROOT)
    (media / gone.file.name).unlink()
    data = bytearray((media / bent.file.name).read_bytes())
    data[100] ^= 0xFF  # same size, other bytes
    (media / bent.file.name).write_bytes(bytes(data))
    stray = media / "audio" / "ab" / ("ab" + "0" * 62 + ".wav")
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_bytes(b"left by a killed import")

    with pytest.raises(CommandError, match=r"2 asset\(s\) have a missing or wrong file"):
        call_command("audit_audio", "--min-age", "0", stdout=(out := _Text()))
    assert out.lines == [
        f"orphan: audio/ab/{stray.name}",
        f"asset {gone.public_id} (gone.wav, {gone.file.name}): the file is missing",
        f"asset {bent.public_id} (bent.wav, {bent.file.name}): its bytes do not match its sha256",
        "1 orphan file(s), 0 removed; 2 damaged asset(s)",
    ]
    assert stray.exists()  # listed, not removed without --remove-orphans

    with pytest.raises(CommandError):
        call_command("audit_audio", "--remove-orphans", stdout=_Text())
    assert stray.exists()  # younger than the default --min-age: an import may still be writing it

    with pytest.raises(CommandError):
        call_command("audit_audio", "--remove-orphans", "--min-age", "0", stdout=(out := _Text()))
    assert not stray.exists() and out.lines[0] == f"orphan (removed): audio/ab/{stray.name}"
    assert (media / whole.file.name).exists()

    (media / bent.file.name).write_bytes(bytes(data[:-10]))  # a quick audit compares sizes only
    with pytest.raises(CommandError, match=r"2 asset\(s\)"):
        call_command("audit_audio", "--quick", stdout=(out := _Text()))
    assert out.lines[1] == f"asset {bent.public_id} (bent.wav, {bent.file.name}): the file has 32,034 bytes, not 32,044"


def test_beat_runs_the_audio_audit_and_it_removes_old_orphans(db, settings, make_wav):
    from workers.audio import audit_audio_storage_task
    from workers.celery import app

    assert app.conf.beat_schedule["audit-audio-storage"]["task"] == audit_audio_storage_task.name
    services.import_audio_file(make_wav("kept.wav"))
    stray = Path(settings.MEDIA_ROOT) / "audio" / "cd" / ("cd" + "1" * 62 + ".wav.0123.part")
    stray.parent.mkdir(parents=True)
    stray.write_bytes(b"partial")
    os.utime(stray, (time.time() - 2 * ORPHAN_MIN_AGE_SECONDS,) * 2)
    assert audit_audio_storage_task() == {"orphans": 1, "removed": 1, "damaged": 0}
    assert not stray.exists()


class _Text:
    """A stdout for call_command that keeps its lines."""

    def __init__(self):
        self.lines = []

    def write(self, text):
        self.lines += [line for line in text.splitlines() if line]

    def flush(self):
        pass


def test_on_s3_a_wrong_object_is_replaced_a_rolled_back_one_deleted_and_orphans_found(s3, db, settings, make_wav):
    clip = make_wav("s3.wav", seconds=1.0, freq=260)
    data = clip.read_bytes()
    key = f"audio/{sha256(data)[:2]}/{sha256(data)}.wav"
    s3.put_object(Bucket="sori-audio", Key=f"sori/{key}", Body=data[:1000])  # a truncated leftover
    asset, created = services.import_audio_file(clip)
    assert created and asset.file.name == key
    assert s3.get_object(Bucket="sori-audio", Key=f"sori/{key}")["Body"].read() == data

    other = make_wav("rolled-back.wav", freq=270)
    with pytest.raises(RuntimeError), store.atomic_import():
        services.import_audio_file(other)
        raise RuntimeError("a later row was bad")
    s3.put_object(Bucket="sori-audio", Key="sori/audio/ef/" + "ef" * 32 + ".wav", Body=b"stray")
    audit = audit_audio_storage(remove_orphans=True, min_age_seconds=0)
    assert (audit.orphans, audit.removed, audit.problems) == (["audio/ef/" + "ef" * 32 + ".wav"],) * 2 + ([],)
    assert {o["Key"] for o in s3.list_objects_v2(Bucket="sori-audio")["Contents"]} == {f"sori/{key}"}
    assert_every_asset_holds_its_bytes()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("many", [False, True])
def test_a_store_holds_its_contents_against_a_discard_and_a_large_one_holds_buckets_not_a_lock_per_file(
    monkeypatch, many
):
    """Issue 23: an import of 100,000 clips held a lock per file until its commit, past PostgreSQL's lock
    table ("out of shared memory"). Past CONTENT_LOCKS_MAX contents a store locks buckets of contents; a
    discard of any of them (another session) still waits for its commit either way."""
    import psycopg

    if connection.vendor != "postgresql":
        pytest.skip("advisory locks are PostgreSQL's")
    monkeypatch.setattr(store, "CONTENT_LOCKS_MAX", 50 if many else 1000)
    digests = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(200)]
    stored, other = digests[:100], digests[100:]
    buckets_held = {store._bucket(store._lock_key(d)) for d in stored}
    elsewhere = next(d for d in other if store._bucket(store._lock_key(d)) not in buckets_held)
    params = connection.get_connection_params()
    with psycopg.connect(**{k: v for k, v in params.items() if k in {"dbname", "user", "host", "port", "password"}},
                         autocommit=True) as other_session:

        def discard_would_go_on(digest: str) -> bool:
            key = store._lock_key(digest)
            with other_session.transaction():
                return other_session.execute(
                    "SELECT pg_try_advisory_xact_lock(%s, %s) AND pg_try_advisory_xact_lock_shared(%s, %s)",
                    [store._LOCK_CLASS, key, store._BUCKET_CLASS, store._bucket(key)]).fetchone()[0]

        with store.atomic_import():
            store._lock_contents(stored)
            held = connection.cursor()
            held.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()")
            count = held.fetchone()[0]
            assert not any(discard_would_go_on(d) for d in stored)
            assert discard_would_go_on(elsewhere)
        assert count == (len(buckets_held) if many else len(buckets_held) + len(stored))
        assert all(discard_would_go_on(d) for d in stored)  # released with the commit
