"""Human review of agent-written questions on the shared engine: K reviewers (default 2), kept only if
all approve; an edit is recorded beside the original and needs one more approval; rejections need reasons."""

import pytest

from apps.authoring.models import Question, Review
from apps.authoring.services import next_review, submit_review
from apps.core.errors import Conflict, Forbidden, InvalidInput
from tests.authoring.conftest import heard, listened, make_agent_question


def review_via_api(api_client, user, question_set, body, *, expect=201):
    api_client.force_authenticate(user)
    given = api_client.post(f"/api/authoring/sets/{question_set.pk}/next-review/")
    assert given.status_code == 200, given.content
    heard_and_reported(api_client, user, given.json()["clip"])
    response = api_client.post(f"/api/authoring/questions/{given.json()['id']}/reviews/", body, format="json")
    assert response.status_code == expect, response.content
    return response.json()


def heard_and_reported(api_client, user, clip_id):
    """The reviewer's page played the clip to its end and reported it, as the page does."""
    from apps.authoring.models import Clip

    heard(Clip.objects.get(pk=clip_id), user)
    assert api_client.post(f"/api/authoring/clips/{clip_id}/playback/").status_code == 200


def test_two_approvals_accept_a_question(api_client, annotators, question_set, agent_question):
    first = review_via_api(api_client, annotators[0], question_set, {"decision": "approve"})
    assert first["status"] == "in_review"
    second = review_via_api(api_client, annotators[1], question_set, {"decision": "approve"})
    assert second["status"] == "accepted"


def test_an_edit_is_recorded_beside_the_original_and_needs_one_more_approval(api_client, annotators, question_set,
                                                                             agent_question):
    edit = {"text": "화자는 친구를 어디에서 만났나요?", "options": ["학교", "시장", "도서관", "병원 앞"], "correct_index": 0}
    review_via_api(api_client, annotators[0], question_set, {"decision": "approve"})
    edited = review_via_api(api_client, annotators[1], question_set, {"decision": "edit", "edit": edit})
    assert edited["status"] == "in_review" and edited["version"] == 2  # two reviews in, but one more is needed
    question = Question.objects.get(pk=agent_question.pk)
    assert question.text == edit["text"] and question.options[3] == "병원 앞"
    assert question.original["text"] == "화자는 어디에서 친구를 만났나요?"
    review = Review.objects.get(question=question, decision="edit")
    assert review.before["options"][3] == "병원" and review.after == edit
    final = review_via_api(api_client, annotators[2], question_set, {"decision": "approve", "version": 2})
    assert final["status"] == "accepted"
    assert question.reviews.count() == 3


def test_a_rejection_needs_a_known_reason_and_rejects_the_question(api_client, annotators, question_set, agent_question):
    api_client.force_authenticate(annotators[0])
    api_client.post(f"/api/authoring/sets/{question_set.pk}/next-review/")
    listened(agent_question.clip, annotators[0])
    url = f"/api/authoring/questions/{agent_question.pk}/reviews/"
    no_reason = api_client.post(url, {"decision": "reject"}, format="json")
    assert no_reason.status_code == 400 and "reasons" in no_reason.json()["fields"]
    unknown = api_client.post(url, {"decision": "reject", "reasons": ["boring"]}, format="json")
    assert unknown.status_code == 400
    done = api_client.post(url, {"decision": "reject", "reasons": ["hallucinated", "unnatural_korean"]}, format="json")
    assert done.status_code == 201
    review_via_api(api_client, annotators[1], question_set, {"decision": "approve"})
    assert Question.objects.get(pk=agent_question.pk).status == "rejected"


def test_the_same_review_twice_stores_one_and_a_different_one_is_refused(annotators, question_set, agent_question):
    annotator = annotators[0]
    question = next_review(question_set=question_set, acting_user=annotator)
    listened(question.clip, annotator)
    first, created = submit_review(question=question, acting_user=annotator, decision="approve")
    again, created_again = submit_review(question=question, acting_user=annotator, decision="approve")
    assert created and not created_again and first.pk == again.pk
    with pytest.raises(Conflict):
        submit_review(question=question, acting_user=annotator, decision="reject", reasons=["hallucinated"])


def test_a_reviewer_cannot_review_a_question_not_given_to_them(annotators, question_set, agent_question):
    with pytest.raises(Forbidden):
        submit_review(question=agent_question, acting_user=annotators[0], decision="approve")


def test_a_stale_version_is_refused(annotators, question_set, agent_question):
    edit = {"text": "다른 질문인가요?", "options": ["학교", "시장", "도서관", "공원"], "correct_index": 0}
    q0 = next_review(question_set=question_set, acting_user=annotators[0])
    q1 = next_review(question_set=question_set, acting_user=annotators[1])
    for annotator in annotators[:2]:
        listened(agent_question.clip, annotator)
    submit_review(question=q0, acting_user=annotators[0], decision="edit", edit=edit, version=1)
    with pytest.raises(Conflict, match="edited since"):
        submit_review(question=q1, acting_user=annotators[1], decision="approve", version=1)


def test_an_edit_must_keep_the_option_count_and_distinct_options(annotators, question_set, agent_question):
    question = next_review(question_set=question_set, acting_user=annotators[0])
    listened(question.clip, annotators[0])
    with pytest.raises(InvalidInput, match="4 options"):
        submit_review(question=question, acting_user=annotators[0], decision="edit",
                      edit={"text": "질문", "options": ["학교", "시장"], "correct_index": 0})
    with pytest.raises(InvalidInput, match="same after normalising spaces"):
        submit_review(question=question, acting_user=annotators[0], decision="edit",
                      edit={"text": "질문", "options": ["학교  앞", "학교 앞", "시장", "공원"], "correct_index": 0})


def test_an_edit_that_changes_nothing_is_a_conflict_and_an_edit_body_only_comes_with_an_edit(
        api_client, annotators, question_set, agent_question):
    # The question as it stands is stored state: repeating it is a 409 (as the README's API rules ask), while
    # a body whose shape breaks the decision's rules is a 400 naming the field.
    same = {"text": agent_question.text, "options": agent_question.options, "correct_index": agent_question.correct_index}
    unchanged = review_via_api(api_client, annotators[0], question_set, {"decision": "edit", "edit": same}, expect=409)
    assert unchanged["code"] == "unchanged_edit"
    url = f"/api/authoring/questions/{agent_question.pk}/reviews/"
    stray = api_client.post(url, {"decision": "approve", "edit": same}, format="json")
    assert stray.status_code == 400 and "edit" in stray.json()["fields"]
    missing = api_client.post(url, {"decision": "edit"}, format="json")
    assert missing.status_code == 400 and "edit" in missing.json()["fields"]
    assert api_client.post(url, {"decision": "approve", "edit": None}, format="json").status_code == 201  # no edit


def test_the_number_of_reviewers_is_configurable(db, admin, annotators, kss_corpus):
    from apps.authoring.services import create_question_set

    three = create_question_set(name="three reviewers", reviewers_per_question=3, acting_user=admin)
    question = make_agent_question(three, kss_corpus.clips.first())
    for annotator in annotators:
        given = next_review(question_set=three, acting_user=annotator)
        listened(given.clip, annotator)
        submit_review(question=given, acting_user=annotator, decision="approve")
        question.refresh_from_db()
    assert question.status == "accepted" and question.reviews.count() == 3


def test_summary_is_for_admins(api_client, admin, annotators, question_set, agent_question):
    api_client.force_authenticate(annotators[0])
    assert api_client.get(f"/api/authoring/sets/{question_set.pk}/summary/").status_code == 403
    api_client.force_authenticate(admin)
    body = api_client.get(f"/api/authoring/sets/{question_set.pk}/summary/").json()
    fact = next(r for r in body["capabilities"] if r["capability"] == "fact_extraction")
    assert fact["in_review"] == 1 and fact["target"] == 260
    assert body["totals"]["target"] == 2204


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_reviewers_never_exceed_the_count_or_review_twice(make_user, kss_corpus):
    from apps.authoring.services import create_question_set
    from tests.race import run_threads

    question_set = create_question_set(name="race")
    clips = list(kss_corpus.clips.all())
    questions = [make_agent_question(question_set, clip, dedup_key=f"fact:{i}") for i, clip in enumerate(clips)]
    reviewers = [make_user(f"racer{i}", "annotator") for i in range(8)]
    for reviewer in reviewers:
        for clip in clips:
            listened(clip, reviewer)

    def work(user):
        def loop():
            while (q := next_review(question_set=question_set, acting_user=user)) is not None:
                submit_review(question=q, acting_user=user, decision="approve")
        return loop

    errors = run_threads([work(u) for u in reviewers])
    assert errors == []
    for q in questions:
        q.refresh_from_db()
        assert q.reviews.count() == 2 and q.status == "accepted"
        assert q.reviews.values("reviewer").distinct().count() == 2
