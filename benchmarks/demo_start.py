"""How long a newcomer waits for the demo: a fresh clone to the first page (cold start), then a restart.

Clones this repository's committed HEAD into a temporary folder, runs `./scripts/demo --port N` there and times
until http://127.0.0.1:N/login/ answers 200 (install, migrations, the seed with its three scripted
models' English and Korean runs, the server); stops it, starts it again and times the restart the same way.

    .venv/bin/python benchmarks/demo_start.py [--port 8790] [--cold-cache | --reuse-venv] [--keep]

--cold-cache gives uv an empty cache (UV_CACHE_DIR in a temporary folder), as on a machine that never ran uv;
without it uv's cache in ~/.cache/uv is used, as on a development machine. --reuse-venv links this checkout's
.venv into the clone instead of installing (the test suite's smoke run: it times migrations, seed and server).
The clone is removed unless --keep.
The demo's own output goes to demo-start.log in the clone (kept with --keep).
"""

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def wait_for_page(url: str, proc: subprocess.Popen, limit: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if proc.poll() is not None:
            raise SystemExit(f"./scripts/demo stopped (exit {proc.returncode}) before the page answered")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 (127.0.0.1 only)
                if response.status == 200:
                    return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"no answer from {url} within {limit:.0f} s")


def start(clone: Path, port: int, env: dict, log) -> tuple[subprocess.Popen, float]:
    started = time.monotonic()
    proc = subprocess.Popen(["./scripts/demo", "--port", str(port)], cwd=clone, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    wait_for_page(f"http://127.0.0.1:{port}/login/", proc, limit=900)
    return proc, time.monotonic() - started


def stop(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)  # the demo's own process group: its server and its demo provider
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--cold-cache", action="store_true", help="give uv an empty cache")
    parser.add_argument("--reuse-venv", action="store_true", help="link this checkout's .venv instead of installing")
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sori-demo-start-"))
    clone = work / "sori"
    env = {k: v for k, v in os.environ.items() if k not in (
        "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL", "VIRTUAL_ENV", "SORI_DATA_DIR", "MEDIA_ROOT", "STATIC_ROOT")}  # the demo keeps all under data/
    if args.cold_cache:
        env["UV_CACHE_DIR"] = str(work / "uv-cache")
    try:
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        if args.reuse_venv:  # as scripts/demo leaves an install it made: the venv and its stamp
            (clone / ".venv").symlink_to(ROOT / ".venv")
            (clone / "data").mkdir()
            digest = hashlib.sha256((clone / "pyproject.toml").read_bytes()).hexdigest()
            (clone / "data" / ".pip-installed").write_text(digest + "\n")
        with open(clone / "demo-start.log", "wb") as log:
            cold_started = time.monotonic()
            proc, _ = start(clone, args.port, env, log)
            cold = time.monotonic() - cold_started
            stop(proc)
            proc, restart = start(clone, args.port, env, log)
            stop(proc)
        cache = ("no install: this checkout's .venv" if args.reuse_venv else
                 "empty uv cache" if args.cold_cache else "uv cache as it is")
        print(f"cold start (fresh clone to first page, {cache}): {cold:.1f} s")
        print(f"restart (to first page): {restart:.1f} s")
    finally:
        if args.keep:
            print(f"clone kept in {clone}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
