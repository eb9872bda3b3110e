"""Runs that need a person are on the admin's home page, linked to the run: items needing review (as the run
page's "Needs review" lists them) and a run needing attention, with its reason."""

import pytest
from django.urls import reverse

from apps.evaluation.models import EvaluationRun, RunStatus
from tests.evaluation.test_judge_injection import reviewed_run  # noqa: F401  (the fixture)


@pytest.mark.django_db
def test_a_run_with_items_needing_review_is_on_the_admins_to_do_list(reviewed_run, admin, client_for):  # noqa: F811
    html = client_for(admin).get("/").content.decode()
    link = reverse("evaluation:run", args=[reviewed_run.pk])
    assert f'<a href="{link}"><span class="todo__count">4</span> Items of the run of {reviewed_run} needing review' in html


@pytest.mark.django_db
def test_a_run_needing_attention_is_on_the_admins_to_do_list_with_its_reason(english_run, admin, client_for):
    link = f'href="{reverse("evaluation:run", args=[english_run.pk])}"'
    assert link not in client_for(admin).get("/").content.decode()
    EvaluationRun.objects.filter(pk=english_run.pk).update(state=RunStatus.NEEDS_ATTENTION,
                                                           attention_reason="1 HTTP 400 from the endpoint")
    html = client_for(admin).get("/").content.decode()
    assert link in html and "needs attention: 1 HTTP 400 from the endpoint" in html
