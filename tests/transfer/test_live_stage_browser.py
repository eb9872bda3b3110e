"""A stage page as an admin watches it (issue 34), in Chromium under the Content-Security-Policy: the report and
the cost update by themselves when the run's job finishes (no reload); a failed job's bar turns red and says
why; a slow action shows it is working from the moment it is pressed."""

import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from apps.transfer.models import ReviewRun
from tests.browser import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPORT = "table[aria-label='Ground-truth report for voicebench']"


def test_the_report_and_cost_update_without_a_reload_when_the_run_finishes(
    source_samples, script_agents, admin, page, login, live_server, settings
):
    settings.JOB_RUNNER = "thread"  # the job runs beside the page, as in the demo
    settings.AGENTS_TIMEOUT_SECONDS = 60.0  # the reviewer below waits for the test
    go_on = threading.Event()
    fake = script_agents()
    reviewer = fake._rules[0][1]

    def held_reviewer(body):
        go_on.wait(50)
        return reviewer(body)

    fake._rules[0] = (fake._rules[0][0], held_reviewer, fake._rules[0][2])
    login(page, admin)
    page.goto(f"{live_server.url}/transfer/ground-truth/")
    page.select_option("#id_benchmark", "voicebench")
    page.click("text=Start the review")
    page.wait_for_selector(".job-progress[data-status=running]")
    assert "not reviewed yet" in page.inner_text(REPORT)
    assert page.inner_text("[data-stat=run-cost]") == "no agent calls yet"
    assert page.locator("text=Next: translate voicebench").count() == 0
    page.evaluate("window.__samePage = true")  # gone if the page were loaded again

    go_on.set()
    page.wait_for_selector(".job-progress[data-status=succeeded]", timeout=60000)
    wait_until(page, "() => !document.querySelector(\"" + REPORT + "\").innerText.includes('not reviewed yet')")
    wait_until(page, "() => document.querySelector('[data-stat=run-cost]').innerText !== 'no agent calls yet'")
    total = page.locator(f"{REPORT} tr.row--total td").all_inner_texts()
    assert total[:3] == ["Total", "5", "5"]  # five reviewed, not "Reviewed 0"
    assert "$" in page.inner_text("[data-stat=run-cost]")
    page.wait_for_selector("a.button:has-text('Next: translate voicebench into Korean')")
    assert page.evaluate("window.__samePage") is True
    page.screenshot(path=str(settings.MEDIA_ROOT.parent / "ground-truth-finished.png"), full_page=True)


def test_a_failed_jobs_bar_turns_red_and_says_why(source_samples, admin, page, login, live_server):
    job = Job.objects.create(kind="transfer.ground_truth_review", title="Review voicebench", status=JobStatus.RUNNING,
                             total=4, done=2, created_by=admin, started_at=timezone.now(),
                             lease_expires_at=timezone.now() + timedelta(minutes=10))
    ReviewRun.objects.create(benchmark=source_samples[0].benchmark, reviewer_model="openai:gpt-4.1",
                             meta_reviewer_model="anthropic:claude-sonnet-4-5", job=job)
    login(page, admin)
    page.goto(f"{live_server.url}/transfer/ground-truth/")
    page.wait_for_selector(".job-progress[data-status=running]")
    blue = page.evaluate("getComputedStyle(document.querySelector('.job-progress progress')).accentColor")

    def fail():
        time.sleep(1.0)
        Job.objects.filter(pk=job.pk).update(
            status=JobStatus.FAILED, finished_at=timezone.now(), message="Failed: the budget of 1.00 USD would be passed",
            error="Traceback (most recent call last):\n  File ...\nBudgetExceeded: the budget of 1.00 USD would be passed")

    worker = threading.Thread(target=fail)
    worker.start()
    page.wait_for_selector(".job-progress[data-status=failed]", timeout=30000)
    worker.join()
    bar = page.locator(".job-progress[data-status=failed]")
    assert page.evaluate("getComputedStyle(document.querySelector('.job-progress progress')).accentColor") == "rgb(185, 28, 28)" != blue
    assert bar.get_by_role("alert").inner_text() == "Failed after 2 of 4: the budget of 1.00 USD would be passed"
    assert not bar.locator("pre").is_visible()  # the trace is folded under the technical details
    bar.locator("summary:has-text('Technical details')").click()
    assert "Traceback" in bar.locator("pre").inner_text()
    assert bar.get_by_role("button", name="Resume").is_visible()

    # Resume (an htmx post) shows it is working while its answer is on the way, and is itself again after.
    held = []
    page.route("**/resume/", lambda route: held.append(route))
    bar.get_by_role("button", name="Resume").click()
    wait_until(page, "() => document.querySelector('.job-progress button[aria-busy=true]')")
    busy = page.locator(".job-progress button[aria-busy=true]")
    assert busy.inner_text() == "Working…" and busy.is_disabled()
    held[0].fulfill(status=204)  # an answer that changes nothing
    wait_until(page, "() => !document.querySelector('.job-progress button[aria-busy=true]')")
    assert bar.get_by_role("button", name="Resume").is_enabled()


def test_normalize_shows_it_is_working_from_the_moment_it_is_pressed(expert, page, login, live_server):
    login(page, expert)
    page.goto(f"{live_server.url}/transfer/normalize/")
    # The page keeps the answer from coming (a listener after Sori's own stops the post), so what a person
    # sees while the server works stays on screen to be looked at.
    page.evaluate("() => window.addEventListener('submit', (event) => { window.__posted = true; event.preventDefault(); })")
    page.fill("#id_try-text", "3개")
    page.click("button:text-is('Normalize')")
    wait_until(page, "() => document.querySelector('button[aria-busy=true]')")
    assert page.evaluate("window.__posted") is True
    button = page.locator("button[aria-busy=true]")
    assert button.inner_text() == "Working…" and button.is_disabled()
    spinner = "getComputedStyle(document.querySelector('button[aria-busy=true]'), '::before').animationName"
    assert page.evaluate(spinner) == "sori-spin"
    # The other form's button (start a run) is not touched: only the pressed form is busy.
    assert page.locator("button:text-is('Start a normalization run')").count() in (0, 1)
    assert page.locator("button[aria-busy=true]").count() == 1


def test_a_busy_form_still_posts_what_was_typed_and_its_answer_is_a_usable_page(admin, page, login, live_server):
    """The busy state comes a tick after the submit, so it changes nothing of what the form sends."""
    login(page, admin)
    page.goto(f"{live_server.url}/transfer/normalize/")
    page.fill("#id_try-text", "3개")
    page.uncheck("#id_try-use_agent")
    with page.expect_request(lambda request: request.method == "POST") as posted:
        page.click("button:text-is('Normalize')")
    assert "try-text=3%EA%B0%9C" in posted.value.post_data
    page.wait_for_load_state()
    assert page.locator("button[aria-busy=true]").count() == 0  # the answer is a fresh page
