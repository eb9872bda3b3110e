"""/api/schema/ describes the API it serves. Schemathesis generates requests from the schema, valid and
invalid ones, and sends them to the app in-process (its WSGI application, the same code gunicorn serves) as
an admin and as a listener. Every response must be no server error, have a documented status, content
type and body, and valid requests must be accepted and invalid ones refused (all built-in checks).

Examples are bounded (EXAMPLES per operation and generation mode) so the test stays well under two minutes;
raise SORI_SCHEMA_EXAMPLES to fuzz harder."""

import os
import re

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import ignored_auth

# The fixtures that build a listening test, a verification project and a consultation question.
from tests.consultations.conftest import make_question, rulebooks, samples  # noqa: F401
from tests.listening.conftest import make_test, write_manifest  # noqa: F401
from tests.verification.conftest import hpsu, make_project  # noqa: F401

EXAMPLES = int(os.environ.get("SORI_SCHEMA_EXAMPLES", "8"))


@pytest.fixture
def world(request, admin, listener):
    """Objects for the path parameters to name, so requests reach the endpoints' logic, not only 404s."""
    test = request.getfixturevalue("make_test")(2)
    project = request.getfixturevalue("make_project")(2)
    question = request.getfixturevalue("make_question")()
    version = question.round.rulebook.versions.order_by("number").first()
    ids = {
        "/api/listening/tests/": test.pk,
        "/api/listening/clips/": test.clips.first().pk,
        "/api/verification/projects/": project.pk,
        "/api/verification/items/": project.items.first().pk,
        "/api/consultations/questions/": question.pk,
    }
    return {"ids": ids, "slug": version.rulebook.slug, "number": version.number}


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """The WSGI handler closes the database connection when a request finishes, which would end the test's
    transaction; Django's test client disconnects that handler the same way."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _aim(case, world) -> None:
    """Point a valid path parameter at an object that exists (an invalid one is left for the refusal)."""
    params = case.path_parameters or {}
    if isinstance(params.get("id"), int) and params["id"] >= 0:
        prefix = re.sub(r"\{id\}.*", "", case.operation.path)
        if prefix in world["ids"]:
            params["id"] = world["ids"][prefix]
    if isinstance(params.get("slug"), str) and isinstance(params.get("number"), int) and params["number"] >= 0:
        params["slug"], params["number"] = world["slug"], world["number"]


def _fuzz(user, world) -> list[str]:
    """Run every operation's generated cases; return the failures (empty when the API keeps its schema)."""
    token, _ = Token.objects.get_or_create(user=user)
    schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
    failures = []
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck))
            def run(case):
                _aim(case, world)
                # ignored_auth sends a case with mangled credentials, but this test adds a valid token to every
                # request, so a 200 there is the token working, not the API ignoring authentication.
                case.call_and_validate(headers={"Authorization": f"Token {token.key}"}, excluded_checks=[ignored_auth])

            try:
                run()
            except Unsatisfiable:
                assert mode == GenerationMode.NEGATIVE  # an operation with no inputs has no invalid request
            except Exception as exc:  # noqa: BLE001 (each operation's failure is collected and reported below)
                failures.append(f"{mode.value} {operation.label}: {exc}")
    return failures


@pytest.mark.django_db
def test_the_api_keeps_its_schema_for_an_admin(world, admin):
    failures = _fuzz(admin, world)
    assert not failures, "\n\n".join(failures)


@pytest.mark.django_db
def test_the_api_keeps_its_schema_for_a_listener(world, listener):
    failures = _fuzz(listener, world)
    assert not failures, "\n\n".join(failures)
