"""Settings come from the environment and refuse bad values loudly. Each case starts a fresh interpreter,
since settings are read once per process."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_float

ROOT = Path(__file__).resolve().parents[2]


def run_django(env_overrides: dict, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "manage.py", *(args or ("check",))], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"DEBUG": "maybe"}, "DEBUG='maybe' is not a boolean"),
        ({"DATABASE_URL": "mysql://root@localhost/sori"}, "DATABASE_URL='mysql://root@localhost/sori': the scheme"),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL='localhost:6379': the scheme"),
        ({"AUDIO_MAX_BYTES": "lots"}, "AUDIO_MAX_BYTES='lots' is not an integer"),
        ({"LOGIN_FAILURE_LIMIT": "0"}, "LOGIN_FAILURE_LIMIT=0 must be at least 1"),
        ({"DEBUG": "0", "ALLOWED_HOSTS": "sori.example.org"}, "SECRET_KEY must be set when DEBUG is off"),
        ({"DEBUG": "0", "SECRET_KEY": "x" * 60}, "ALLOWED_HOSTS must be set when DEBUG is off"),
        ({"SORI_JOB_RUNNER": "cron"}, "SORI_JOB_RUNNER='cron' must be celery, thread or sync"),
        ({"SORI_SPEECH_CER_THRESHOLD": "0,1"}, "SORI_SPEECH_CER_THRESHOLD='0,1' is not a number"),
        ({"SORI_AGENT_JOB_BUDGET_USD": "inf"}, "SORI_AGENT_JOB_BUDGET_USD='inf' is not a finite number"),
    ],
)
def test_it_refuses_a_bad_value_and_names_it(overrides, message, tmp_path):
    result = run_django({"SORI_DATA_DIR": str(tmp_path), **overrides})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


@pytest.mark.parametrize("empty", [{}, {"DATABASE_URL": "", "REDIS_URL": ""}], ids=["unset", "set but empty"])
def test_the_embedded_default_needs_no_variables(tmp_path, empty):
    result = run_django({"SORI_DATA_DIR": str(tmp_path), **empty}, "shell", "-v", "0", "-c",
                        "from django.conf import settings as s; print(s.DATABASES['default']['ENGINE'], s.JOB_RUNNER, s.MEDIA_ROOT)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["django.db.backends.sqlite3", "thread", str(tmp_path / "media")]


def test_a_production_configuration_passes_check_deploy_without_warnings(tmp_path):
    result = run_django(
        {
            "SORI_DATA_DIR": str(tmp_path),
            "DEBUG": "0",
            "SECRET_KEY": "k3y-" + "a1b2c3d4e5f6g7h8i9j0" * 3,
            "ALLOWED_HOSTS": "sori.example.org",
            "DATABASE_URL": "postgres://sori:secret@db.internal:5432/sori",
            "REDIS_URL": "redis://cache.internal:6379/0",
            "MEDIA_ROOT": str(tmp_path / "media"),
        },
        "check", "--deploy", "--fail-level", "WARNING",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_a_production_server_refuses_to_start_before_collectstatic_and_starts_after(tmp_path):
    # Issue 20: a bare-metal DEBUG=0 start answered 500 on /login/ until collectstatic had run.
    production = {"DEBUG": "0", "SECRET_KEY": "x" * 60, "ALLOWED_HOSTS": "sori.example.org",
                  "SORI_DATA_DIR": str(tmp_path), "STATIC_ROOT": str(tmp_path / "static")}
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}}
    start = [sys.executable, "-c", "import config.wsgi"]
    refused = subprocess.run(start, cwd=ROOT, env={**env, **production}, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "collectstatic --noinput" in refused.stderr
    assert run_django(production, "collectstatic", "--noinput", "-v", "0").returncode == 0
    started = subprocess.run(start, cwd=ROOT, env={**env, **production}, capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr


def _settings_without_the_s3_extra(env_overrides: dict, tmp_path) -> subprocess.CompletedProcess:
    """Load the settings in a fresh interpreter where django-storages and boto3 cannot be imported (an install
    without the `s3` extra); print which of them got imported."""
    code = ("import sys; sys.modules['storages'] = sys.modules['boto3'] = None\n"
            "import django; django.setup()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('storages', 'boto3', 'botocore') and sys.modules[m]))")
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}}
    env.update({"SORI_DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings", **env_overrides})
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_the_embedded_install_runs_without_the_s3_extra_and_never_imports_it(tmp_path):
    result = _settings_without_the_s3_extra({}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_s3_configured_without_the_s3_extra_names_the_variable_and_the_extra(tmp_path):
    result = _settings_without_the_s3_extra({"SORI_S3_BUCKET": "sori-audio"}, tmp_path)
    assert result.returncode != 0
    assert "ImproperlyConfigured: SORI_S3_BUCKET is set, but django-storages and boto3 are not installed" in result.stderr
    assert "pip install '.[s3]'" in result.stderr
@pytest.mark.parametrize(("raw", "expected"), [(None, 0.5), ("", 0.5), ("0.25", 0.25), ("-23", -23.0), ("1e-3", 0.001)])
def test_a_float_setting_reads_a_number_and_takes_the_default_when_unset_or_empty(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv("SORI_TEST_FLOAT", raising=False)
    else:
        monkeypatch.setenv("SORI_TEST_FLOAT", raw)
    assert env_float("SORI_TEST_FLOAT", 0.5) == expected


@pytest.mark.parametrize("raw", ["cheap", "nan", "-inf", "0,5"])
def test_a_float_setting_refuses_what_is_not_a_finite_number_and_names_the_variable(monkeypatch, raw):
    monkeypatch.setenv("SORI_TEST_FLOAT", raw)
    with pytest.raises(ImproperlyConfigured, match=f"SORI_TEST_FLOAT={raw!r} is not a"):
        env_float("SORI_TEST_FLOAT", None)
