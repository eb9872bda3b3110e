"""A row the hot paths read with a raw cursor (apps.core.prepared.load) has the types the ORM gives, on
PostgreSQL and on SQLite, the demo's database: SQLite hands back datetimes without their time zone and UUIDs as
text, and a naive lease compared with an aware clock crashed the rating page on reload (issue 34)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from apps.accounts.models import User
from apps.core.prepared import columns, load

ROOT = Path(__file__).resolve().parents[2]

# The same check, for whichever database the process has: the ORM's row and load()'s row agree.
CHECK = """
from django.db import connection
from django.utils import timezone
from apps.accounts.models import User
from apps.audio.models import AudioAsset
from apps.core.prepared import columns, load

user = User.objects.create_user("lee", password="x", last_login=timezone.now())
asset = AudioAsset.objects.create(file="audio/ab/abc.wav", sha256="ab" * 32, format="wav", duration_seconds=1.0,
                                  sample_rate=16000, channels=1, size_bytes=44)
with connection.cursor() as cursor:
    cursor.execute(f"SELECT {columns('u', User)} FROM {User._meta.db_table} u WHERE u.id = %s", [user.pk])
    loaded_user = load(User, cursor.fetchone())
    cursor.execute(f"SELECT {columns('a', AudioAsset)} FROM {AudioAsset._meta.db_table} a WHERE a.id = %s", [asset.pk])
    loaded_asset = load(AudioAsset, cursor.fetchone())
orm_user, orm_asset = User.objects.get(pk=user.pk), AudioAsset.objects.get(pk=asset.pk)
assert timezone.is_aware(loaded_user.date_joined) and timezone.is_aware(loaded_user.last_login), loaded_user.date_joined
assert (loaded_user.date_joined, loaded_user.last_login) == (orm_user.date_joined, orm_user.last_login)
assert loaded_user.date_joined < timezone.now()  # the comparison that raised TypeError on SQLite
assert loaded_asset.public_id == orm_asset.public_id and type(loaded_asset.public_id) is type(orm_asset.public_id)
assert loaded_asset.created_at == orm_asset.created_at
print("same types", connection.vendor)
"""


@pytest.mark.django_db
def test_a_raw_row_has_the_orms_types_on_postgresql():
    namespace: dict = {}
    exec(compile(CHECK, "check", "exec"), namespace)  # noqa: S102  (the same check as on SQLite, below)
    assert connection.vendor == "postgresql"


def test_a_raw_row_has_the_orms_types_on_sqlite(tmp_path):
    """The demo's embedded database, in a process of its own (the suite's database is PostgreSQL)."""
    script = tmp_path / "check.py"
    script.write_text(textwrap.dedent("""
        import django
        django.setup()
        from django.core.management import call_command
        call_command("migrate", "audio", verbosity=0)
        call_command("migrate", "accounts", verbosity=0)
    """) + CHECK, encoding="utf-8")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.sqlite3'}", "SORI_DATA_DIR": str(tmp_path),
           "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "same types sqlite" in done.stdout


@pytest.mark.django_db
def test_load_keeps_reading_a_subset_of_columns():
    user = User.objects.create_user("kim", password="x")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns('u', User, ['id', 'date_joined'])} FROM {User._meta.db_table} u WHERE u.id = %s",
                       [user.pk])
        loaded = load(User, cursor.fetchone(), ["id", "date_joined"])
    assert loaded.pk == user.pk and timezone.is_aware(loaded.date_joined)
