"""/api/schema/ describes the API it serves. Schemathesis generates requests from the schema, valid and
invalid ones, and sends them to the app in-process (its WSGI application, the same code gunicorn serves) as
an admin and as a listener. Every response must be no server error, have a documented status, content
type and body, and valid requests must be accepted and invalid ones refused (all built-in checks).

Examples are bounded (EXAMPLES per operation and generation mode) so the test stays well under two minutes;
raise SORI_SCHEMA_EXAMPLES to fuzz harder."""

import json
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

from apps.audio import playback
from apps.authoring import services as authoring
from apps.core.errors import ApplicationError
from apps.evaluation import jobs as evaluation
from apps.evaluation.models import ItemScore
from apps.evaluation.responses import import_responses
from apps.listening.services import record_consent

# The fixtures that build a listening test, a verification project, a consultation question, a KMMAU
# question set with a corpus, a built release, and an evaluation run.
from tests.authoring.conftest import corpus_folder, heard, kss_corpus, make_agent_question, question_set  # noqa: F401
from tests.consultations.conftest import make_question, rulebooks, samples  # noqa: F401
from tests.evaluation.conftest import english_run, qwen, voicebench  # noqa: F401
from tests.listening.conftest import make_test, write_manifest  # noqa: F401
from tests.releases.conftest import build, rated_test  # noqa: F401
from tests.verification.conftest import hpsu, make_project  # noqa: F401

EXAMPLES = int(os.environ.get("SORI_SCHEMA_EXAMPLES", "8"))


@pytest.fixture
def world(request, admin, listener):
    """Objects for the path parameters to name, so requests reach the endpoints' logic, not only 404s."""
    test = request.getfixturevalue("make_test")(2)
    project = request.getfixturevalue("make_project")(2)
    question = request.getfixturevalue("make_question")()
    version = question.round.rulebook.versions.order_by("number").first()
    for who in (admin, listener):
        record_consent(test=test, acting_user=who)  # the listening API serves only those who agreed
    kmmau = request.getfixturevalue("question_set")
    clip = request.getfixturevalue("kss_corpus").clips.first()
    kmmau.corpora.add(clip.corpus)
    author = request.getfixturevalue("make_user")("world_author", "annotator")
    heard(clip, author)
    playback.report_playback(asset=clip.audio, acting_user=author)
    manual, _ = authoring.author_question(
        question_set=kmmau, clip=clip, acting_user=author, capability="general_counting",
        text="몇 명이 말하나요?", options=["한 명", "두 명", "세 명", "네 명"], correct_index=0)
    # An agent-written question in review, so next-review hands out a question and reviews reach their rules.
    in_review = make_agent_question(kmmau, clip)
    authoring.next_review(question_set=kmmau, acting_user=admin)  # the admin holds it: a review of theirs counts
    heard(clip, admin)
    playback.report_playback(asset=clip.audio, acting_user=admin)  # and has played its clip, as a review requires
    release = request.getfixturevalue("build")("mos", request.getfixturevalue("rated_test"))
    run = _scored_run(request.getfixturevalue("english_run"), admin)
    ids = {
        "/api/authoring/questions/{id}/reviews/": in_review.pk,  # an operation's own object before its prefix's
        "/api/listening/tests/": test.pk,
        "/api/listening/clips/": test.clips.first().pk,
        "/api/verification/projects/": project.pk,
        "/api/verification/items/": project.items.first().pk,
        "/api/consultations/questions/": question.pk,
        "/api/authoring/sets/": kmmau.pk,
        "/api/authoring/questions/": manual.pk,
        "/api/authoring/clips/": clip.pk,
        "/api/releases/": release.pk,
        "/api/evaluation/models/": run.model_id,
        "/api/evaluation/runs/": run.pk,
    }
    return {"ids": ids, "slug": version.rulebook.slug, "number": version.number, "release": release.pk,
            "item": run.items.order_by("pk").first().pk}


def _scored_run(run, admin):
    """The evaluation run with every item answered, scored by its rule (Sori's reading), the open-ended and
    short answers also by a judge score, and its subset scores computed, so the run, item, leaderboard and
    compare operations have scores to show."""
    answers = "\n".join(json.dumps({"id": item_id, "response": "B"}) for item_id in run.items.values_list("item_id", flat=True))
    import_responses(run=run, source=answers.encode(), name="world.jsonl", acting_user=admin)
    for item in run.items.select_related("run"):
        if item.metric != "open":
            try:
                score, detail, evaluator, version = evaluation.rule_score(item)
            except ApplicationError as exc:  # an item its checker cannot read, stored as the evaluation stores it
                score, detail, evaluator, version = None, {"unscorable": exc.message}, item.metric, "-"
            ItemScore.objects.create(item=item, method="rule", profile="sori", score=score, detail=detail,
                                     evaluator=evaluator, version=version)
        if item.metric in evaluation.JUDGED_METRICS:
            ItemScore.objects.create(item=item, method="judge", score=0.8, detail={"scores": [4, 4, 4]},
                                     evaluator="judge_open", version="1", judge_model="openai:world")
    evaluation.compute_subset_scores(run, profiles=("sori",))
    return run


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """The WSGI handler closes the database connection when a request finishes, which would end the test's
    transaction; Django's test client disconnects that handler the same way."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _valid_id(value) -> bool:
    """An id the schema allows (apps.core.converters: up to 18 digits); a larger one stays, to be refused."""
    return isinstance(value, int) and 0 <= value < 10**18


def _aim(case, world) -> None:
    """Point a valid path parameter at an object that exists (an invalid one is left for the refusal)."""
    params = case.path_parameters or {}
    if _valid_id(params.get("id")):
        prefix = re.sub(r"\{id\}.*", "", case.operation.path)
        for key in (case.operation.path, prefix):
            if key in world["ids"]:
                params["id"] = world["ids"][key]
                break
    if _valid_id(params.get("item_pk")):  # /api/evaluation/runs/{id}/items/{item_pk}/
        params["item_pk"] = world["item"]
    for name in ("old_pk", "new_pk"):  # /api/releases/diff/{old_pk}/{new_pk}/
        if isinstance(params.get(name), int) and params[name] >= 0:
            params[name] = world["release"]
    if isinstance(params.get("slug"), str) and isinstance(params.get("number"), int) and params["number"] >= 0:
        params["slug"], params["number"] = world["slug"], world["number"]


def _fuzz(user, world, seen: dict | None = None) -> list[str]:
    """Run every operation's generated cases; return the failures (empty when the API keeps its schema).
    `seen`, when given, collects the statuses each operation ("POST /api/...") answered."""
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
                response = case.call_and_validate(headers={"Authorization": f"Token {token.key}"},
                                                  excluded_checks=[ignored_auth])
                if seen is not None:
                    seen.setdefault(case.operation.label, set()).add(response.status_code)

            try:
                run()
            except Unsatisfiable:
                assert mode == GenerationMode.NEGATIVE  # an operation with no inputs has no invalid request
            except Exception as exc:  # noqa: BLE001 (each operation's failure is collected and reported below)
                failures.append(f"{mode.value} {operation.label}: {exc}")
    return failures


@pytest.mark.django_db
def test_the_api_keeps_its_schema_for_an_admin(world, admin):
    seen = {}
    failures = _fuzz(admin, world, seen)
    assert not failures, "\n\n".join(failures)
    # The world's question set, question, clip and release let every authoring and releases operation reach
    # its logic: each answered something other than 404 (not found) at least once.
    only_404 = [label for label, statuses in seen.items()
                if ("/api/authoring/" in label or "/api/releases/" in label) and statuses <= {404}]
    assert not only_404, only_404
    assert any("/api/releases/{id}/" in label and 200 in statuses for label, statuses in seen.items())
    # The world's agent question, held by the admin, lets a review be stored (201) and sent again (200).
    assert {200, 201} <= seen["POST /api/authoring/questions/{id}/reviews/"]
    # The world's scored run lets the evaluation reads answer with what lies behind a score.
    assert 200 in seen["GET /api/evaluation/runs/{id}/items/{item_pk}/"]
    assert 200 in seen["GET /api/evaluation/runs/{id}/"] and 200 in seen["GET /api/evaluation/leaderboard/"]


@pytest.mark.django_db
def test_the_api_keeps_its_schema_for_a_listener(world, listener):
    failures = _fuzz(listener, world)
    assert not failures, "\n\n".join(failures)


@pytest.mark.django_db
def test_the_schema_documents_the_authoring_conflicts(admin, client_for):
    paths = client_for(admin).get("/api/schema/", HTTP_ACCEPT="application/json").json()["paths"]
    for path in ("/api/authoring/questions/{id}/answers/", "/api/authoring/questions/{id}/reviews/",
                 "/api/authoring/clips/{id}/questions/", "/api/authoring/clips/{id}/playback/"):
        assert "409" in paths[path]["post"]["responses"], path


@pytest.mark.django_db
def test_the_schema_states_the_review_rules_and_every_authoring_refusal(admin, client_for):
    schema = client_for(admin).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    review = schema["paths"]["/api/authoring/questions/{id}/reviews/"]["post"]
    shapes = review["requestBody"]["content"]["application/json"]["schema"]["anyOf"]
    by_decision = {shape["properties"]["decision"]["enum"][0]: shape for shape in shapes}
    assert by_decision["reject"]["properties"]["reasons"]["minItems"] == 1
    assert by_decision["edit"]["required"] == ["decision", "edit"]
    assert by_decision["approve"]["properties"]["edit"]["enum"] == [None]  # only an edit carries one
    for path, operations in schema["paths"].items():
        if path.startswith("/api/authoring/"):
            for method, operation in operations.items():
                assert {"401", "403", "404"} <= set(operation["responses"]), (method, path)


@pytest.mark.django_db
def test_every_id_in_an_api_path_is_bounded_to_a_database_id(admin, client_for):
    # <id:pk> (apps.core.converters), not <int:pk>: the schema states the bound, so a client (and the
    # fuzzing) knows a 20-digit id is no id at all.
    paths = client_for(admin).get("/api/schema/", HTTP_ACCEPT="application/json").json()["paths"]
    unbounded = [(path, p["name"]) for path, operations in paths.items() for operation in operations.values()
                 for p in operation.get("parameters", [])
                 if p["in"] == "path" and p["schema"].get("type") == "integer" and "maximum" not in p["schema"]]
    assert not unbounded, unbounded
