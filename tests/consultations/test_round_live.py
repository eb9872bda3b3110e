"""A round's page while its agents work (issue 34): its status, actions, cost and what the agents made are live
regions that update when the round's job finishes, and a job that failed says why on the bar."""

import re

import pytest

from apps.consultations.models import Round

pytestmark = pytest.mark.django_db


def test_the_round_page_updates_when_its_job_ends_and_a_failure_says_why(
    rulebooks, samples, admin, expert, client_for, django_capture_on_commit_callbacks
):
    client = client_for(admin)
    client.post("/consultations/rounds/", {"rulebook": rulebooks["ko-normalization"].pk, "subsets": "", "task_types": "",
                                           "max_questions": "2", "lead_expert": expert.pk})
    round = Round.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/consultations/rounds/{round.pk}/analyse/")
    page = client.get(f"/consultations/rounds/{round.pk}/").content.decode()
    for region in ("round-status", "round-actions", "round-outcome"):
        assert f'id="{region}" data-live-region' in page and f'hx-select="#{region}"' in page
    assert 'class="job-progress job-progress--failed"' in page
    assert re.search(r"Failed( after \d+ of \d+)?:</strong> No anthropic provider is configured for the Analyst agent", page)
