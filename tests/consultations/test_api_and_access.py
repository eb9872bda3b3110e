"""The API contract for automated clients, and that an expert sees only expert pages."""

import pytest

from apps.consultations.models import QuestionStatus

pytestmark = pytest.mark.django_db


def test_the_open_questions_of_an_expert_and_answering_them_through_the_api(make_question, expert, make_user, api_client):
    question = make_question()
    api_client.force_authenticate(expert)
    listed = api_client.get("/api/consultations/questions/?status=open").json()
    assert [q["id"] for q in listed["results"]] == [question.pk]
    item = listed["results"][0]
    assert [o["key"] for o in item["options"]] == ["A", "B", "C"] and item["recommendation"] == "B"
    assert len(item["affected_sample_ids"]) == 2 and item["examples"][0]["transcription"]
    assert item["rules_touched"] == ["ht-aliases"] and item["required_experts"] == 1

    url = f"/api/consultations/questions/{question.pk}/answers/"
    bad = api_client.post(url, {"option": "Z"}, format="json")
    assert bad.status_code == 409 and bad.json()["code"] == "no_such_option"  # options are the question's state
    both = api_client.post(url, {"option": "A", "text": "mine"}, format="json")
    assert both.status_code == 400
    option_b = question.options.get(key="B")
    created = api_client.post(url, {"option": option_b.pk, "comment": "year", "confidence": 5}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["option"] == "B" and created.json()["question_status"] == QuestionStatus.DECIDED
    # Answered: it no longer waits for this expert; a different second answer conflicts.
    assert api_client.get("/api/consultations/questions/?status=open").json()["results"] == []
    conflict = api_client.post(url, {"text": "delete them"}, format="json")
    assert conflict.status_code == 409 and conflict.json()["detail"]
    decided = api_client.get("/api/consultations/questions/?status=decided").json()["results"]
    assert [q["id"] for q in decided] == [question.pk]


def test_own_text_answers_and_confidence_bounds(make_question, expert, api_client):
    question = make_question()
    api_client.force_authenticate(expert)
    url = f"/api/consultations/questions/{question.pk}/answers/"
    assert api_client.post(url, {"text": "Keep", "confidence": 6}, format="json").status_code == 400
    ok = api_client.post(url, {"text": "Keep the sample and add the year as an alias", "confidence": 2}, format="json")
    assert ok.status_code == 201 and ok.json()["option"] is None
    question.refresh_from_db()
    assert question.decision_label == "Keep the sample and add the year as an alias"


def test_only_experts_use_the_questions_api(make_question, listener, api_client):
    question = make_question()
    assert api_client.get("/api/consultations/questions/?status=open").status_code in (401, 403)
    api_client.force_authenticate(listener)
    assert api_client.get("/api/consultations/questions/?status=open").status_code == 403
    assert api_client.post(f"/api/consultations/questions/{question.pk}/answers/", {"option": "A"}, format="json").status_code == 403


def test_an_expert_sees_only_expert_pages(make_question, expert, client_for):
    question = make_question()
    client = client_for(expert)
    for url in ["/consultations/", "/consultations/inbox/", f"/consultations/questions/{question.pk}/",
                "/consultations/rulebooks/", "/consultations/rulebooks/ko-hypertranslation/v1/",
                "/consultations/rulebooks/ko-hypertranslation/diff/?from=1&to=1", "/"]:
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
    for url in ["/consultations/rounds/", f"/consultations/rounds/{question.round_id}/", "/jobs/", "/admin/",
                "/transfer/", "/agents/"]:
        response = client.get(url)
        assert response.status_code in (302, 403), url
        if response.status_code == 302:
            assert "/login/" in response["Location"], url
    for action in ["analyse", "close", "publish"]:
        assert client.post(f"/consultations/rounds/{question.round_id}/{action}/").status_code == 403
    # The navigation offers the expert only their own pages.
    nav = client.get("/").content.decode()
    assert "/consultations/inbox/" in nav and "/consultations/rounds/" not in nav


def test_the_expert_home_panel_counts_the_questions_waiting(make_question, expert, client_for):
    first = make_question()
    make_question(round=first.round)
    panels = client_for(expert).get("/").context["panels"]
    panel = next(p for p in panels if p.title == "Decision questions")
    assert panel.count == 2


def test_a_listener_cannot_open_the_inbox_or_a_question(make_question, listener, client_for):
    question = make_question()
    client = client_for(listener)
    assert client.get("/consultations/inbox/").status_code == 403
    assert client.get(f"/consultations/questions/{question.pk}/").status_code == 403
    assert client.post(f"/consultations/questions/{question.pk}/submit/", {"option": "A"}).status_code == 403


def test_an_overlong_answer_or_comment_is_refused_naming_the_field(make_question, expert, api_client):
    question = make_question()
    api_client.force_authenticate(expert)
    url = f"/api/consultations/questions/{question.pk}/answers/"
    long_text = api_client.post(url, {"text": "x" * 200_000}, format="json")
    assert long_text.status_code == 400 and "text" in long_text.json()["fields"]
    # Past the request limit the body is refused unread, naming the limit (apps.core.uploads).
    huge = api_client.post(url, {"text": "x" * 2_000_000}, format="json")
    assert huge.status_code == 413 and "SORI_REQUEST_MAX_BYTES" in huge.json()["detail"]
    long_comment = api_client.post(url, {"option": "A", "comment": "x" * 5001}, format="json")
    assert long_comment.status_code == 400 and "comment" in long_comment.json()["fields"]
    assert not question.answers.exists()
