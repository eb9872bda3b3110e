"""An evaluation run's page while its jobs work (issue 34): the status, facts, next actions and scores are live
regions that update when a job of the run finishes, and scored runs lead on to the leaderboard."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_run_page_updates_its_outcome_when_a_job_finishes(english_run, admin, client_for):
    page = client_for(admin).get(f"/evaluation/runs/{english_run.pk}/").content.decode()
    for region in ("run-status", "run-facts", "run-next-actions", "run-scores"):
        assert f'id="{region}" data-live-region' in page and f'hx-select="#{region}"' in page
    assert "See it on the leaderboard" not in page  # nothing scored yet
