"""Each refusal kind answers with its status and the one JSON error shape through the API, and with the
same status and its message on a page (a full page, or bare text for htmx)."""

import pytest

from apps.core.errors import FileProblem, FileRefused

pytestmark = pytest.mark.urls("tests.core.urls")

CASES = [
    ("not_found", 404, "not_found", {}),
    ("forbidden", 403, "forbidden", {}),
    ("conflict", 409, "already_rated", {}),
    ("invalid", 400, "invalid", {"score": ["must be between 1 and 5"]}),
    (
        "file",
        400,
        "file_refused",
        {
            "score": ["manifest.csv line 3: score: must be between 1 and 5"],
            "audio": ["manifest.csv line 9: audio: no such file in the zip"],
        },
    ),
]


@pytest.mark.parametrize("kind, status, code, fields", CASES)
def test_the_api_answers_each_refusal_with_its_status_and_the_shared_shape(api_client, listener, kind, status, code, fields):
    api_client.force_authenticate(listener)
    response = api_client.post(f"/test-refuse/api/{kind}/")
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"detail", "code", "fields"}
    assert body["code"] == code and body["fields"] == fields and body["detail"]


def test_a_file_refusal_names_file_line_and_field_and_counts_the_rest(api_client, listener):
    api_client.force_authenticate(listener)
    body = api_client.post("/test-refuse/api/file/").json()
    assert body["detail"] == (
        "manifest.csv line 3: score: must be between 1 and 5; "
        "manifest.csv line 9: audio: no such file in the zip; and 2 more problems"
    )


@pytest.mark.parametrize("kind, status, code, fields", CASES)
def test_a_page_renders_each_refusal_with_its_status_and_message(client, listener, kind, status, code, fields):
    client.force_login(listener)
    response = client.get(f"/test-refuse/page/{kind}/")
    assert response.status_code == status
    html = response.content.decode()
    assert '<html' in html and 'role="alert"' in html
    for messages in fields.values():
        for message in messages:
            assert message in html


def test_a_page_answers_htmx_with_the_bare_message(client, listener):
    client.force_login(listener)
    response = client.get("/test-refuse/page/conflict/", HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == "You already rated this clip."


def test_drf_errors_keep_the_same_shape(api_client):
    response = api_client.get("/api/me/")  # refused by DRF itself, not by the hierarchy
    assert response.status_code in (401, 403)
    assert set(response.json()) == {"detail", "code", "fields"} and response.json()["fields"] == {}


def test_a_one_line_file_refusal_reads_as_file_line_field_reason():
    refused = FileRefused("expected a number", file="ratings.jsonl", line=12, field="score")
    assert str(refused) == "ratings.jsonl line 12: score: expected a number"
    assert (refused.file, refused.line, refused.field) == ("ratings.jsonl", 12, "score")
    assert str(FileRefused("not a zip archive", file="clips.zip")) == "clips.zip: not a zip archive"
    assert str(FileProblem(file="a.csv", line=2, reason="too many columns")) == "a.csv line 2: too many columns"


def test_the_domain_refusals_are_refusals_of_the_one_hierarchy():
    """A release or rulebook refusal is caught, answered and rendered like any other: no view or command
    needs to name it beside ApplicationError."""
    from apps.consultations.models import ImmutableVersion
    from apps.consultations.rulebook_files import RulebookFileError
    from apps.consultations.rulebooks import RulebookConflict
    from apps.core.errors import Conflict, InvalidInput
    from apps.releases.licences import LicenceRefused, check
    from apps.releases.models import ImmutableRelease

    for refusal in (ImmutableVersion, ImmutableRelease, RulebookConflict):
        assert issubclass(refusal, Conflict) and refusal("x").status == 409
    assert issubclass(RulebookFileError, InvalidInput)
    with pytest.raises(InvalidInput) as refused:
        check("CC-BY-4.0", [{"name": "KSS", "license": "CC-BY-NC-SA-4.0"}])
    assert isinstance(refused.value, LicenceRefused) and refused.value.fields == {"license": [refused.value.message]}


def test_the_agent_layers_refusals_are_refusals_of_the_one_hierarchy():
    """No provider configured is a service Sori cannot reach now (503), a budget cap reached is a state that
    refuses the call (409), and an answer that stayed unusable is the model's failure (502): a view or a
    command catches them all as ApplicationError."""
    from apps.agents.services import AgentError, AgentNeedsAttention, BudgetExceeded, NoProviderConfigured
    from apps.core.errors import ApplicationError, Conflict, Unavailable

    assert issubclass(AgentError, ApplicationError)
    assert issubclass(NoProviderConfigured, Unavailable) and NoProviderConfigured("x").status == 503
    assert issubclass(BudgetExceeded, Conflict) and BudgetExceeded("x").status == 409
    assert AgentNeedsAttention("x").status == 502 and AgentNeedsAttention("x").message == "x"
