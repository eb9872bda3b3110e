"""The scripted demo provider: `manage.py demo_provider` (what ./scripts/demo starts without an API key) runs
the project's fake provider server with recorded answers; an admin runs the ground-truth stage of the demo
data against it through the real SDKs, and the pages say the answers are demo answers, not a real model."""

import pytest
from django.conf import settings

from apps.transfer.ground_truth.selectors import review_scope
from apps.transfer.models import Correction, CorrectionStatus, ReviewRun

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_demo_provider_runs_the_ground_truth_stage_on_the_demo_data(demo_provider, admin, page, login, live_server):
    import io

    from apps.transfer.demo import seed

    seed(io.StringIO())
    assert settings.SORI_DEMO_PROVIDER
    login(page, admin)
    page.goto(f"{live_server.url}/transfer/ground-truth/")
    assert "demo answers, not a real model" in page.locator("#demo-provider").inner_text()
    page.select_option("#id_benchmark", "openaudiobench-demo")
    page.fill("#id_budget_usd", "1")
    page.click("text=Start the review")
    page.wait_for_selector(".job-progress[data-status=succeeded]", timeout=60000)
    # Every multiple-choice or short-answer sample (the open-ended ones have no answer to check) was reviewed.
    samples = review_scope(ReviewRun.objects.get()).count()
    assert samples and f"{samples} / {samples} (100%)" in page.inner_text(".job-progress")
    correction = Correction.objects.get()
    assert correction.status == CorrectionStatus.CONFIRMED
    assert "switzerland" in correction.sample.transcription.lower()
    assert sorted(correction.proposed_aliases) == ["French", "Italian", "Romansh"]
    page.goto(f"{live_server.url}/agents/")
    assert page.get_by_text("demo answers, not a real model").count() >= 1
