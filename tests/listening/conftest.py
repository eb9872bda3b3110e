"""Fixtures for listening tests: a manifest of real WAV files and a helper that imports it."""

import csv
from pathlib import Path

import pytest

HEADER = ["clip_id", "audio", "text", "speaker", "source_type", "style", "category", "system", "gold_min", "gold_max"]
SECRET_TEXT = "비밀 문장 TRANSCRIPT-SHOULD-NOT-LEAK"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    # The cast has eleven users; PBKDF2 at full strength makes each test's setup take seconds.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def write_manifest(make_wav, tmp_path):
    """write_manifest(rows, name=...) -> Path. rows: dicts over HEADER; audio files named in `audio` that do
    not exist yet are created as short real WAVs (distinct tones) unless `make_audio=False`."""

    def write(rows, *, name="manifest.csv", make_audio=True, seconds=0.3):
        folder = tmp_path / "bundle"
        folder.mkdir(exist_ok=True)
        for i, row in enumerate(rows):
            audio = row.get("audio")
            if make_audio and audio and not (folder / audio).exists():
                make_wav(f"bundle/{audio}", seconds=seconds, freq=220 + 7 * i)
        path = folder / name
        if name.endswith(".jsonl"):
            import json

            path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
        else:
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=HEADER)
                writer.writeheader()
                for row in rows:
                    writer.writerow({k: row.get(k, "") for k in HEADER})
        return path

    return write


def clip_rows(n, *, gold=0, prefix="c"):
    rows = [
        {"clip_id": f"{prefix}{i:03d}", "audio": f"{prefix}{i:03d}.wav", "text": f"{SECRET_TEXT} {i % 7}",
         "speaker": f"spk{i % 4}", "source_type": ("real", "tts", "degraded")[i % 3],
         "style": ("read", "spontaneous")[i % 2], "category": "CFQEPS"[i % 6], "system": f"sys{i % 2}"}
        for i in range(n)
    ]
    rows += [
        {"clip_id": f"gold{i}", "audio": f"gold{i}.wav", "text": f"{SECRET_TEXT} gold", "speaker": "g",
         "source_type": "tts", "style": "read", "category": "gold", "gold_min": 4, "gold_max": 5}
        for i in range(gold)
    ]
    return rows


@pytest.fixture
def make_test(write_manifest, db):
    from apps.listening.services import import_listening_test

    counter = {"n": 0}

    def make(n=6, *, gold=0, name=None, lease_seconds=None, publish=True, seconds=0.3):
        counter["n"] += 1
        path = write_manifest(clip_rows(n, gold=gold, prefix=f"t{counter['n']}c"), name=f"m{counter['n']}.csv",
                              seconds=seconds)
        test = import_listening_test(name=name or f"test {counter['n']}", manifest=path)
        if publish:
            from apps.listening.services import publish_test

            publish_test(test=test, acting_user=None)
        if lease_seconds is not None:
            test.pool.lease_seconds = lease_seconds
            test.pool.save(update_fields=["lease_seconds"])
        return test

    return make


def rate_via_services(test, user, score_for=lambda clip: 3, now=None):
    """Claim, report playback and rate until nothing is left; returns the number of ratings."""
    from apps.listening import services

    n = 0
    while (assignment := services.next_assignment(test=test, acting_user=user, now=now)) is not None:
        clip = test.clips.get(work_item_id=assignment.item_id)
        services.report_playback(clip=clip, acting_user=user, now=now)
        services.rate_clip(clip=clip, acting_user=user, score=score_for(clip), now=now)
        n += 1
    return n


@pytest.fixture
def bundle_dir(tmp_path) -> Path:
    return tmp_path / "bundle"
