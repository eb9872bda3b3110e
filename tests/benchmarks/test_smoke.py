"""Every script under benchmarks/ still runs: each in a subprocess at its smallest size, against databases
named after this test run's own (test_<name>_bench_<script>) and free ports on 127.0.0.1, so it cannot
collide with other tests or another run. No timing is asserted: a script fails its test only by breaking (a
non-zero exit, a traceback, or not finishing within its timeout).

The scripts are mostly Django start-up and migrations, so the module migrates one template database first
(the scripts that create a database copy it: --template), then starts them all, CONCURRENT at a time, when its
first test asks; each test then waits for its own script. Deselect with -m "not benchmark_smoke"."""

import os
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
CONCURRENT = 3

pytestmark = [pytest.mark.benchmark_smoke, pytest.mark.postgres]

# script: (arguments, timeout in seconds, whether the script works in the DATABASE_URL it is given, which
# then is created for it from the template). {db} is a database name of this run, {port} a free port on
# 127.0.0.1, {template} the migrated template database.
SMOKE = {
    "listening_load.py": (["--db", "{db}", "--template", "{template}", "--port", "{port}", "--clips", "20", "--levels", "1,2", "--seconds", "1",
                           "--completion-clips", "3", "--completion-listeners", "5", "--workers", "1",
                           "--threads", "4"], 240, False),
    "verification_load.py": (["--db", "{db}", "--template", "{template}", "--port", "{port}", "--items", "20", "--seconds", "1",
                              "--levels", "1,2"], 240, False),
    "authoring_build.py": (["--db", "{db}", "--template", "{template}", "--utterances", "40", "--questions", "20", "--seconds", "1",
                            "--levels", "1,2"], 240, False),
    "dashboards.py": (["--db", "{db}", "--template", "{template}", "--sizes", "20", "--repeat", "1"], 240, False),
    "import_clips.py": (["--db", "{db}", "--template", "{template}", "--sizes", "10", "--share", "0"], 240, False),
    "listening_import_progress.py": (["--clips", "4"], 240, True),
    "claim_fresh_pool.py": (["--items", "10", "--history", "0,3", "--repeat", "2"], 240, True),
    "queues_claim.py": (["--items", "10", "--workers", "1,2", "--seconds", "1"], 240, True),
    "speech_run.py": (["--samples", "3", "--latency", "0", "--parallel", "1,2"], 240, False),
    "agents_cost.py": (["--samples", "10"], 240, False),
    "evaluation.py": (["--smoke"], 240, False),
    "normalize.py": (["--sentences", "40", "--samples", "5"], 240, False),
    "normalize_long.py": (["--smoke"], 240, False),
    "release_build.py": (["--clips", "10", "--samples", "10"], 240, False),
    "demo_start.py": (["--reuse-venv", "--port", "{port}"], 600, False),
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(url: str, workdir: Path, server: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "CELERY_BROKER_URL"}}
    env.update(DATABASE_URL=url, BENCH_PG=server, SORI_DATA_DIR=str(workdir / "data"), SORI_JOB_RUNNER="sync",
               STATIC_ROOT=str(workdir / "static"), MEDIA_ROOT=str(workdir / "media"))
    return env


def _recreate(server: str, db: str, template: str | None = None) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{db}"' + (f' TEMPLATE "{template}"' if template else ""))


def _run(script: str, server: str, db: str, template: str, workdir: Path) -> subprocess.CompletedProcess | str:
    args, timeout, given_db = SMOKE[script]
    url = f"{server}/{db}"
    if given_db:
        _recreate(server, db, template)
    argv = [a.format(db=db, port=free_port(), template=template) for a in args]
    try:
        return subprocess.run([sys.executable, str(BENCHMARKS / script), *argv], cwd=ROOT,
                              env=_env(url, workdir, server), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return f"{script} did not finish within {timeout} s\n{exc.stdout!r:.3000}\n{exc.stderr!r:.3000}"


@pytest.fixture(scope="module")
def smoke_runs(django_db_setup, tmp_path_factory):
    """Starts every script's smoke run; {script: future of its CompletedProcess}. Drops the databases after."""
    import psycopg

    settings = connection.settings_dict
    server = f"postgres://{quote(settings['USER'] or '')}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}"
    dbs = {script: f"{settings['NAME']}_bench_{Path(script).stem}"[:63] for script in SMOKE}
    template = f"{settings['NAME']}_bench_template"[:63]
    _recreate(server, template)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, check=True, timeout=240,
                   env=_env(f"{server}/{template}", tmp_path_factory.mktemp("template"), server))
    with ThreadPoolExecutor(max_workers=CONCURRENT) as pool:
        futures = {script: pool.submit(_run, script, server, dbs[script], template,
                                       tmp_path_factory.mktemp(Path(script).stem))
                   for script in SMOKE}
        yield futures
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        for db in [*dbs.values(), template]:
            conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


def test_every_benchmark_script_has_a_smoke_run():
    scripts = {p.name for p in BENCHMARKS.glob("*.py")}
    assert scripts == set(SMOKE), f"no smoke run for {sorted(scripts - set(SMOKE))}"


@pytest.mark.parametrize("script", sorted(SMOKE))
def test_the_benchmark_script_runs_at_its_smallest_size(smoke_runs, script):
    done = smoke_runs[script].result()
    assert not isinstance(done, str), done
    assert done.returncode == 0, f"{script} exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    if script == "demo_start.py":
        assert "restart (to first page)" in done.stdout
    if script == "listening_load.py":
        assert "all invariants hold" in done.stdout
