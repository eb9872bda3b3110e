"""The job task's Celery policy, and the seams that keep apps and workers apart."""

import ast
from pathlib import Path

from django.conf import settings

from workers.celery import app
from workers.jobs import run_job_task

ROOT = Path(settings.BASE_DIR)


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def test_the_job_task_acknowledges_late_and_is_given_back_when_its_worker_dies():
    assert run_job_task.acks_late and run_job_task.reject_on_worker_lost
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.broker_transport_options["visibility_timeout"] > app.conf.task_time_limit
    assert app.conf.beat_schedule["reclaim-lost-jobs"]["task"] == "sori.jobs.reclaim_lost"


def test_apps_never_import_the_workers_package():
    for path in (ROOT / "apps").rglob("*.py"):
        assert not any(m == "workers" or m.startswith("workers.") for m in imported_modules(path)), path


def test_consultation_services_do_not_import_the_agent_steps_that_import_them():
    assert not any("agent_steps" in m for m in imported_modules(ROOT / "apps/consultations/services.py"))
    assert not any(m.startswith("apps.consultations") for m in imported_modules(ROOT / "apps/sources/services.py"))


def test_no_production_code_switches_the_job_runner():
    """A command or the demo that waits for its job says `with run_here():`; assigning settings.JOB_RUNNER
    (or overriding it) switched the runner for every thread of the process."""
    for folder in ("apps", "workers", "config"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                targets = node.targets if isinstance(node, ast.Assign) else []
                assert not any(isinstance(t, ast.Attribute) and t.attr == "JOB_RUNNER" for t in targets), path
                keywords = node.keywords if isinstance(node, ast.Call) else []
                assert not any(k.arg == "JOB_RUNNER" for k in keywords), path
