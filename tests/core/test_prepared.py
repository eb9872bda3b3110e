"""The workers' hot-path statements are prepared once per PostgreSQL connection (apps/core/prepared.py); the
rest of the project keeps client-side binding, which takes an IN list of any length."""

import pytest
from django.db import connection
from django.test import override_settings

from apps.audio.models import AudioAsset
from apps.core.prepared import prepared_cursor

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def _prepared_here() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return {row[0] for row in cursor.fetchall()}


def test_a_statement_through_the_prepared_cursor_is_prepared_once_on_its_connection():
    sql = "SELECT COUNT(*) FROM audio_audioasset WHERE duration_seconds > %s"
    for _ in range(3):
        with prepared_cursor() as cursor:
            cursor.execute(sql, [1.5])
            assert cursor.fetchone() == (0,)
    assert sum("audio_audioasset WHERE duration_seconds > $1" in s for s in _prepared_here()) == 1
    with override_settings(PREPARED_STATEMENTS=False), prepared_cursor() as cursor:
        cursor.execute(sql.replace("> %s", ">= %s"), [1.5])
    assert not any(">= $1" in s or ">= 1.5" in s for s in _prepared_here())


def test_the_ordinary_cursor_still_takes_more_parameters_than_a_server_bound_statement_can():
    # Server-side binding stops at 65,535 parameters; an import looks up one digest per audio file.
    digests = [f"{n:064x}" for n in range(70_000)]
    assert AudioAsset.objects.in_bulk(digests, field_name="sha256") == {}
