"""The KMMAU review page as a reviewer meets it: the decision waits for the clip to play to its end (checked by
the server too), "n of m" with a bar, keys shown on the buttons, the capability in words, the edit form closed
until asked for, and an empty queue that says where questions come from."""

import pytest

from apps.authoring.capabilities import capability_label
from apps.authoring.models import Review
from apps.authoring.services import next_review, submit_review
from apps.core.errors import Conflict
from tests.authoring.conftest import heard, listened, make_agent_question

pytestmark = pytest.mark.django_db


def test_a_review_before_the_clip_played_to_its_end_is_refused(annotators, question_set, agent_question):
    reviewer = annotators[0]
    question = next_review(question_set=question_set, acting_user=reviewer)
    with pytest.raises(Conflict) as refused:
        submit_review(question=question, acting_user=reviewer, decision="approve")
    assert refused.value.code == "playback_not_reported" and not Review.objects.exists()
    listened(question.clip, reviewer)
    review, created = submit_review(question=question, acting_user=reviewer, decision="approve")
    assert created and review.reviewer == reviewer


def test_the_review_api_refuses_an_unplayed_clip_and_a_report_that_comes_too_early(api_client, annotators,
                                                                                  question_set, agent_question):
    api_client.force_authenticate(annotators[0])
    given = api_client.post(f"/api/authoring/sets/{question_set.pk}/next-review/").json()
    url = f"/api/authoring/questions/{given['id']}/reviews/"
    refused = api_client.post(url, {"decision": "approve"}, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "playback_not_reported"
    # The shared gate (apps.audio.playback): audio never served, so "it ended" is not believed.
    early = api_client.post(f"/api/authoring/clips/{given['clip']}/playback/")
    assert early.status_code == 409 and early.json()["code"] == "playback_too_early"
    heard(agent_question.clip, annotators[0])
    assert api_client.post(f"/api/authoring/clips/{given['clip']}/playback/").status_code == 200
    assert api_client.post(url, {"decision": "approve"}, format="json").status_code == 201


def test_the_page_shows_progress_keys_the_capability_in_words_and_a_closed_edit_form(client_for, annotators,
                                                                                    question_set, kss_corpus):
    clips = list(kss_corpus.clips.order_by("id"))
    for i, clip in enumerate(clips):
        make_agent_question(question_set, clip, dedup_key=f"fact-{i}")
    reviewer = annotators[0]
    client = client_for(reviewer)
    page = client.get(f"/authoring/sets/{question_set.pk}/review/").content.decode()
    assert "Question 1 of 3" in page and '<progress class="task-progress" max="3" value="0"' in page
    assert "fact_extraction" not in page.replace('value="fact_extraction"', "")
    assert capability_label("fact_extraction") in page  # "Fact Extraction"
    for key in ("A", "E", "R"):
        assert f"<kbd>{key}</kbd>" in page
    assert '<fieldset id="edit-fields" hidden>' in page
    assert '<fieldset class="review-decision" disabled>' in page  # locked until the clip has played

    first = next_review(question_set=question_set, acting_user=reviewer)
    listened(first.clip, reviewer)
    reply = client.post(f"/authoring/sets/{question_set.pk}/review/",
                        {"question": first.pk, "version": 1, "decision": "approve"}, follow=True)
    page = reply.content.decode()
    assert "Review saved." in page and "Question 2 of 3" in page and 'max="3" value="1"' in page


def test_an_edit_posted_from_the_page_is_kept_and_a_missing_correct_option_is_a_message(client_for, annotators,
                                                                                         question_set, agent_question):
    reviewer = annotators[0]
    client = client_for(reviewer)
    client.get(f"/authoring/sets/{question_set.pk}/review/")
    listened(agent_question.clip, reviewer)
    form = {"question": agent_question.pk, "version": 1, "decision": "edit", "text": "화자는 친구를 어디에서 만났나요?",
            "option0": "학교", "option1": "시장", "option2": "도서관", "option3": "병원 앞"}
    page = client.post(f"/authoring/sets/{question_set.pk}/review/", form, follow=True).content.decode()
    assert "choose the correct option" in page and not Review.objects.exists()  # a message, not a server error
    client.post(f"/authoring/sets/{question_set.pk}/review/", {**form, "correct_index": "0"})
    agent_question.refresh_from_db()
    assert agent_question.options[3] == "병원 앞" and agent_question.version == 2


def test_an_empty_queue_links_an_admin_to_making_questions_and_tells_a_reviewer_who_does(client_for, admin, annotator,
                                                                                       question_set):
    for_admin = client_for(admin).get(f"/authoring/sets/{question_set.pk}/review/").content.decode()
    assert f'href="/authoring/sets/{question_set.pk}/#make"' in for_admin
    for_annotator = client_for(annotator).get(f"/authoring/sets/{question_set.pk}/review/").content.decode()
    assert "an admin has agents write them" in for_annotator and "#make" not in for_annotator
    assert "Fact Extraction, Topic Summary" in for_annotator


def test_an_agent_question_job_names_its_capability_in_words(client_for, admin, question_set, kss_corpus):
    from apps.jobs.models import Job

    client_for(admin).post(f"/authoring/sets/{question_set.pk}/generate/",
                           {"corpus": kss_corpus.pk, "capability": "topic_summary", "limit": "2"})
    assert Job.objects.get().title == "Topic Summary questions for KMMAU test"
