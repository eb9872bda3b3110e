"""The transfer and agents pages in a real browser, before anything ran (each statistic says what to do next)
and after one sample was reviewed (shares over one sample are counts marked "n too small", each model's mean
latency shows its n)."""

import pytest

from tests.pages.test_stat_states import review_one_sample

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_transfer_and_agents_pages_say_what_to_do_before_anything_ran(admin, page, login, live_server):
    login(page, admin)
    response = page.goto(f"{live_server.url}/transfer/ground-truth/")
    assert response.status == 200
    assert "choose a benchmark above and start the review" in page.inner_text("#runs-empty")
    page.click("#report-empty a:has-text('Import a subset')")
    page.wait_for_url("**/transfer/import/")
    assert page.goto(f"{live_server.url}/agents/").status == 200
    assert page.inner_text("#total-cost") == "no agent calls yet"
    assert page.locator("#summary-empty").is_visible() and "Check" in page.inner_text("#summary-empty")
    for url in ("/transfer/translations/", "/transfer/normalize/"):
        assert page.goto(f"{live_server.url}{url}").status == 200
        assert page.inner_text("#runs-empty").startswith("No runs yet: choose a benchmark")


def test_one_reviewed_sample_shows_counts_not_percentages(
    fake_llm, admin, tmp_path, django_capture_on_commit_callbacks, page, login, live_server
):
    review_one_sample(fake_llm, admin, tmp_path, django_capture_on_commit_callbacks)
    login(page, admin)
    page.goto(f"{live_server.url}/transfer/ground-truth/")
    rate = page.locator("[data-stat=error-rate]").last  # the Total row
    assert rate.inner_text() == "1 of 1 (n too small for a percentage)"
    assert rate.locator("[data-state=thin]").count() == 1
    assert "(2 calls)" in page.inner_text("[data-stat=run-cost]")
    page.goto(f"{live_server.url}/agents/")
    latencies = page.locator("[data-stat=latency]").all_inner_texts()
    assert len(latencies) == 2 and all(text.endswith("ms (n = 1)") for text in latencies), latencies
    assert page.inner_text("#total-cost").startswith("$") and page.inner_text("#total-cost").endswith("(2 calls)")
