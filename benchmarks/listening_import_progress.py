"""Measure how an import job's progress moves (not a test; run it by hand):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sori_imports SORI_JOB_RUNNER=thread \
    SORI_DATA_DIR=$(mktemp -d) .venv/bin/python benchmarks/listening_import_progress.py --clips 240

It builds a bundle of N distinct WAVs (3 s, 16 kHz), starts the "listening.import" job in a thread, reads the
job row every 50 ms and prints how long the bar sat at 0 %, the distinct values it showed, the longest
stretch without a change and the number of UPDATEs of the job row while storing. --cancel-at P cancels once
the bar reaches P %, resumes, and checks the clips at the end."""

import argparse
import io
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.files.base import ContentFile  # noqa: E402
from django.core.files.storage import default_storage  # noqa: E402
from django.core.management import call_command  # noqa: E402

from tests.conftest import write_wav  # noqa: E402


def bundle(n: int) -> bytes:
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(buffer, "w") as zf:
        lines = ["clip_id,audio,text,speaker,source_type,style,category,system,gold_min,gold_max"]
        for i in range(n):
            write_wav(Path(tmp) / f"c{i:04d}.wav", seconds=3.0, freq=200 + i)
            zf.write(Path(tmp) / f"c{i:04d}.wav", f"b/c{i:04d}.wav")
            lines.append(f"c{i:04d},c{i:04d}.wav,text {i},spk{i % 9},{('real', 'tts', 'degraded')[i % 3]},read,C,s{i % 2},,")
        zf.writestr("b/manifest.csv", "\n".join(lines) + "\n")
    return buffer.getvalue()


def watch(job, *, cancel_at=None):
    from apps.jobs.models import Job
    from apps.jobs.services import request_cancel

    samples, start, asked = [], time.monotonic(), None
    while True:
        row = Job.objects.get(pk=job.pk)
        samples.append((time.monotonic() - start, row.percent, row.done, row.total, row.message))
        if cancel_at is not None and row.percent >= cancel_at and not row.cancel_requested:
            asked = time.monotonic()
            request_cancel(job=row)
            samples.append((time.monotonic() - start, row.percent, row.done, row.total, f"cancel asked ({time.monotonic() - asked:.3f} s)"))
            cancel_at = None
        if row.is_finished:
            if asked is not None:
                samples.append((time.monotonic() - start, row.percent, row.done, row.total,
                                f"stopped {time.monotonic() - asked:.2f} s after the cancel was asked"))
            return row, samples
        time.sleep(0.05)


def report(label, row, samples):
    at_zero = max((t for t, p, *_ in samples if p == 0), default=0.0)
    values = []
    for _, p, *_ in samples:
        if not values or values[-1] != p:
            values.append(p)
    changes = [t for i, (t, p, *_) in enumerate(samples) if i and p != samples[i - 1][1]]
    gaps = [b - a for a, b in zip([0.0, *changes], [*changes, samples[-1][0]], strict=True)]
    print(f"{label}: {row.status} after {samples[-1][0]:.1f} s; last sample at 0 %: {at_zero:.1f} s; "
          f"{len(values)} distinct percent values; longest stretch without a change {max(gaps):.1f} s")
    print("  percent values:", values)
    for message in dict.fromkeys(m for *_, m in samples):
        print("  message:", message)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clips", type=int, default=240)
    parser.add_argument("--cancel-at", type=int, default=None, help="cancel at this percent, then resume")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    from apps.accounts.models import User
    from apps.jobs.services import resume_job, start_job
    from apps.listening.models import ListeningTest

    admin, _ = User.objects.get_or_create(username="measure-admin")
    name = f"measured {time.time():.0f}"
    stored = default_storage.save("listening-imports/measure.zip", ContentFile(bundle(args.clips)))
    job = start_job(kind="listening.import", title=f"Import {name}", acting_user=admin,
                    params={"bundle": stored, "name": name, "label": "measure.zip"})
    row, samples = watch(job, cancel_at=args.cancel_at)
    report("run 1", row, samples)
    if args.cancel_at is not None:
        test = ListeningTest.objects.filter(name=name).first()
        print(f"  after the cancel: {test.clips.count() if test else 0} clips stored, test status {test and test.status}")
        resume_job(job=row)
        row, samples = watch(row)
        report("resumed", row, samples)
    test = ListeningTest.objects.get(name=name)
    ids = list(test.clips.values_list("clip_id", flat=True))
    print(f"  stored {len(ids)} clips ({len(set(ids))} distinct), test status {test.status}, "
          f"bundle kept: {default_storage.exists(stored)}")


if __name__ == "__main__":
    main()
