"""Loose ends a new user met on the authoring pages (issue 20)."""

import pytest

from apps.jobs.models import Job

pytestmark = pytest.mark.django_db


def test_a_generation_job_page_links_back_to_its_question_set(client_for, admin, question_set, seoul_corpus,
                                                               django_capture_on_commit_callbacks):
    client = client_for(admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/authoring/sets/{question_set.pk}/generate/", {"corpus": seoul_corpus.pk})
    job = Job.objects.get(kind="authoring.generate")
    page = client.get(response["Location"]).content.decode()
    assert f'href="/authoring/sets/{question_set.pk}/" id="job-origin"' in page and job.params["set"] == question_set.pk


def test_the_manual_authoring_form_keeps_each_option_apart_from_its_correct_marker(client_for, annotator, question_set,
                                                                                    seoul_corpus):
    question_set.corpora.add(seoul_corpus)
    page = client_for(annotator).get(f"/authoring/sets/{question_set.pk}/author/?capability=general_counting")
    html = page.content.decode()
    assert page.status_code == 200
    assert "correctOption" not in "".join(html.split()) and html.count('class="option-row"') == 4
