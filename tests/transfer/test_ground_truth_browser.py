import pytest

from apps.transfer.models import CorrectionStatus

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_starts_the_review_watches_it_finish_and_overturns_a_correction(
    source_samples, script_agents, admin, page, login, live_server
):
    script_agents(flag={"Australia": {"correction_kind": "new_answer", "new_answer": "Canberra"}}, meta="reject")
    login(page, admin)
    page.goto(f"{live_server.url}/transfer/ground-truth/")
    page.select_option("#id_benchmark", "voicebench")
    page.fill("#id_budget_usd", "1")
    page.click("text=Start the review")

    page.wait_for_selector(".job-progress[data-status=succeeded]")
    assert "5 / 5" in page.inner_text(".job-progress")
    report = page.inner_text("table[aria-label='Ground-truth report for voicebench']")
    assert "sd-qa" in report

    page.click("text=See the corrections")
    page.click("summary:has-text('Overturn')")
    page.select_option("select[name=to_status]", "confirmed")
    page.fill("textarea[name=note]", "Canberra is the capital.")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the submit button, reached by keyboard
    page.wait_for_selector("text=alice_admin (admin) changed rejected → confirmed")
    from apps.transfer.models import Correction

    assert Correction.objects.get().status == CorrectionStatus.CONFIRMED
