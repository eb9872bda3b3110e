"""apps/core/prepared.py builds its cursor with two things Django does not promise to keep: the private
DatabaseWrapper._prepare_cursor(cursor) (the step Django's own cursor() takes after create_cursor: thread
check, then the debug or plain wrapper) and the PostgreSQL backend's ServerBindingCursor. A Django upgrade
may change either without notice; these tests fail first, and say what to look at."""

import inspect

import django
import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.postgresql.base import ServerBindingCursor
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from apps.core.prepared import PreparedCursor, prepared_cursor

UPGRADE = (f"Django {django.get_version()} changed what apps/core/prepared.py relies on ({{what}}); rebuild "
           "prepared_cursor() on what replaced it, then update this test")


def test_the_private_prepare_cursor_still_takes_a_raw_cursor():
    method = getattr(type(connections[DEFAULT_DB_ALIAS]), "_prepare_cursor", None)
    assert method is not None, UPGRADE.format(what="DatabaseWrapper._prepare_cursor is gone")
    parameters = list(inspect.signature(method).parameters)
    assert parameters == ["self", "cursor"], UPGRADE.format(
        what=f"DatabaseWrapper._prepare_cursor now takes ({', '.join(parameters)}), not (self, cursor)")


def test_the_server_binding_cursor_still_takes_prepare():
    parameters = inspect.signature(ServerBindingCursor.execute).parameters
    assert "prepare" in parameters, UPGRADE.format(what="ServerBindingCursor.execute takes no `prepare` any more")


@pytest.mark.postgres
@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
def test_the_cursor_it_makes_is_wrapped_and_logged_as_djangos_own(debug):
    """The behaviour prepared_cursor() needs from _prepare_cursor: Django's wrapper round our cursor (so
    database errors become Django's and CaptureQueriesContext counts the statement), the debug one when
    queries are logged."""
    with override_settings(DEBUG=debug), CaptureQueriesContext(connection) as queries, prepared_cursor() as cursor:
        assert isinstance(cursor, CursorWrapper), UPGRADE.format(what="_prepare_cursor no longer returns a CursorWrapper")
        assert isinstance(cursor.cursor, PreparedCursor), UPGRADE.format(what="_prepare_cursor no longer wraps the cursor given")
        # CaptureQueriesContext turns logging on whatever DEBUG says: the debug wrapper.
        assert isinstance(cursor, CursorDebugWrapper), UPGRADE.format(what="logged queries no longer get the debug wrapper")
        cursor.execute("SELECT %s + 1", [41])
        assert cursor.fetchone() == (42,)
    assert len(queries) == 1, UPGRADE.format(
        what="a statement through the wrapper is no longer logged as Django logs its own")
    with override_settings(DEBUG=debug), prepared_cursor() as cursor:
        assert isinstance(cursor, CursorDebugWrapper) == debug, UPGRADE.format(
            what="_prepare_cursor no longer picks the wrapper by whether queries are logged")
