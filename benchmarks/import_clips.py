#!/usr/bin/env python
"""Clips per second when importing a listening test from a manifest and its audio.

(Re)creates the PostgreSQL database `sori_import_bench`, migrates it, then for each size (1,000, 10,000
and 100,000 clips by default) writes a manifest of N rows over short WAV files (0.5-1.7 s, 16 kHz mono; every
`--share`-th row reuses the file of the row before it, as manifests with one recording rated in several
conditions do) and times `apps.listening.services.import_listening_test` on it, as the
`import_listening_test` command runs it (one transaction): reading the manifest, checking every distinct
audio file, storing the files and creating the pool, its items and the clips.

Every size's files are its own (no size reuses another's audio), so each import stores all of its distinct
files. Every bundle is written (and flushed to disk) before the first import is timed, and all of them are
deleted after the last one (100,000 clips are about 3 GB, twice: the bundle and the stored copies). Files
deleted by the thousand just before an import would time the filesystem, not Sori: ext4 without a journal
(as on the development VMs) passes over inodes freed in the last minute or more when it creates a file. For
the same reason the files go to Sori's data folder (`data/`, or --workdir), not /tmp, where test runs create
and delete files all day: 4,000 new files took 2.4 s there and 0.05 s in data/, minutes apart on one disk.

    .venv/bin/python benchmarks/import_clips.py                   # 1,000, 10,000 and 100,000 clips
    .venv/bin/python benchmarks/import_clips.py --sizes 5000 --share 0

Run it from the repository root with the project's virtualenv.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import struct
import sys
import tempfile
import time
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
TEMPLATE = None  # --template
DB_NAME = "sori_import_bench"


def recreate_database() -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DB_NAME}"' + (f' TEMPLATE "{TEMPLATE}"' if TEMPLATE else ""))


def tone_frames(seconds: float, freq: float, rate: int = 16000) -> bytes:
    """16-bit mono samples of a sine tone (numpy: writing 100,000 files sample by sample in Python takes
    longer than the import being measured)."""
    import numpy as np

    n = np.arange(int(seconds * rate))
    return (12000 * np.sin(2 * np.pi * freq * n / rate)).astype("<i2").tobytes()


def write_bundle(folder: Path, n: int, share: int, bundle: int = 0) -> tuple[Path, int]:
    """A manifest of n rows and its WAV files; returns (manifest, number of distinct files). Each file is
    a 16 kHz mono tone of 0.5 to 1.7 s whose first samples carry the bundle's number and its own, so no
    two files are alike, in one bundle or across bundles."""
    folder.mkdir(parents=True)
    header = ["clip_id", "audio", "text", "speaker", "source_type", "style", "category", "system"]
    tones = {k: tone_frames(0.5 + k / 2.5, 200 + 97 * k) for k in range(4)}
    files = 0
    with open(folder / "manifest.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        audio = ""
        for i in range(n):
            if not (share and i % share == share - 1 and audio):
                audio = f"clip{i:06d}.wav"
                frames = tones[i % 4]
                with wave.open(str(folder / audio), "wb") as wav:
                    wav.setnchannels(1)
                    wav.setsampwidth(2)
                    wav.setframerate(16000)
                    wav.writeframes(struct.pack("<ii", bundle, i) + frames[8:])
                files += 1
            writer.writerow([f"c{i:06d}", audio, f"문장 {i % 900}", f"spk{i % 120}", ("real", "tts", "degraded")[i % 3],
                             ("read", "spontaneous")[i % 2], "CFQEPS"[i % 6], f"sys{i % 8}"])
    return folder / "manifest.csv", files


def main() -> None:
    global DB_NAME, TEMPLATE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated clip counts")
    parser.add_argument("--share", type=int, default=5,
                        help="every share-th row reuses the previous row's file (0: every row has its own file)")
    parser.add_argument("--db", default=DB_NAME, help=f"the PostgreSQL database to (re)create (default {DB_NAME})")
    parser.add_argument("--workdir", default=str(ROOT / "data"),
                        help="where the bundles and the stored audio go (default: data/, Sori's own data folder)")
    parser.add_argument("--template", default=None,
                        help="create the database as a copy of this migrated one (faster; the smoke tests do)")
    args = parser.parse_args()
    DB_NAME, TEMPLATE = args.db, args.template

    recreate_database()
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="import-bench-", dir=args.workdir))
    os.environ.update({
        "DATABASE_URL": f"{PG}/{DB_NAME}", "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "0",
        "SECRET_KEY": "import-benchmark-only-key-0123456789abcdefghijklmnopqrstuvwxyz0123",
        "ALLOWED_HOSTS": "127.0.0.1", "SECURE_SSL_REDIRECT": "0", "LOG_LEVEL": "WARNING",
        "SORI_JOB_RUNNER": "sync", "SORI_DATA_DIR": str(work / "data"),
    })
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from apps.listening.services import import_listening_test

    print(f"cores: {os.cpu_count()}")
    print(f"{'clips':>7}{'files':>7}{'seconds':>9}{'clips/s':>9}")
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        bundles = [write_bundle(work / f"bundle-{k}", n, args.share, bundle=k) for k, n in enumerate(sizes)]
        os.sync()  # the bundles' own writing is not the import's
        for k, (n, (manifest, files)) in enumerate(zip(sizes, bundles, strict=True)):
            start = time.perf_counter()
            test = import_listening_test(name=f"import bench {k}: {n}", manifest=manifest)
            seconds = time.perf_counter() - start
            assert test.clips.count() == n
            print(f"{n:>7}{files:>7}{seconds:>9.2f}{n / seconds:>9.0f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
