"""A separate process that imports audio, for the tests that race two imports or kill one
(tests/audio/test_storage.py). Run: `python -m tests.fakes.audio_import MODE SIGNALS PATH...`
with DATABASE_URL and MEDIA_ROOT set to the test's. SIGNALS is a folder the process and the test talk
through with empty files:

- `rollback`: store PATH in an import, touch SIGNALS/stored, wait for SIGNALS/go, then fail (roll back);
- `commit`: store PATH in an import and commit, then touch SIGNALS/committed;
- `stall`: import the folder PATH and, after the first block of its STALL_AT-th file (env, default 3), touch
  SIGNALS/stalled and wait to be killed (mid-write)."""

import os
import sys
import time
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from apps.audio import services, store  # noqa: E402


def wait_for(path: Path) -> None:
    while not path.exists():
        time.sleep(0.05)


def main(mode: str, signals: Path, path: Path) -> None:
    if mode == "rollback":
        try:
            with store.atomic_import():
                services.import_audio_file(path)
                (signals / "stored").touch()
                wait_for(signals / "go")
                raise RuntimeError("a later row of this import was bad")
        except RuntimeError:
            sys.exit(3)  # rolled back, as intended
    elif mode == "commit":
        with store.atomic_import():
            services.import_audio_file(path)
        (signals / "committed").touch()
    elif mode == "stall":
        stall_at, started = int(os.environ.get("STALL_AT", "3")), [0]
        real = store._write_block

        def write_block(out, block):
            real(out, block)
            if out.tell() == len(block):  # the first block of a file
                started[0] += 1
                if started[0] == stall_at:
                    out.flush()
                    (signals / "stalled").touch()
                    while True:
                        time.sleep(1)

        store._write_block = write_block
        services.import_folder(path)
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))
