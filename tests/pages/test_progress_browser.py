"""Progress in a real browser: the import page's bar stays on screen through every htmx refresh and moves
with the work; a refused import offers "fix and upload again", not "resume"; the job page reads as text."""

import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.jobs.models import Job, JobStatus

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _running_import(admin, total=40):
    return Job.objects.create(
        kind="listening.import", title="Import listening test 'steady'", status=JobStatus.RUNNING, total=total,
        message="Checking every audio file", created_by=admin, started_at=timezone.now(),
        lease_expires_at=timezone.now() + timedelta(minutes=10),
    )


def test_the_import_progress_bar_stays_steady_and_moves_with_the_work(admin, page, login, live_server):
    job = _running_import(admin)
    login(page, admin)
    page.goto(f"{live_server.url}/listening/manage/import/jobs/{job.pk}/")
    # Sample the bar on every animation frame: it must never be missing or collapsed.
    page.evaluate("""() => {
        window.__bar = {frames: 0, missing: 0, values: []};
        const tick = () => {
            const bar = document.querySelector('.job-progress progress');
            window.__bar.frames += 1;
            if (!bar || bar.offsetHeight === 0) window.__bar.missing += 1;
            else if (window.__bar.values.at(-1) !== bar.value) window.__bar.values.push(bar.value);
            if (!window.__bar.stop) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
    }""")

    def work():
        for done in range(0, 41, 8):
            Job.objects.filter(pk=job.pk).update(done=done)
            time.sleep(1.0)
        Job.objects.filter(pk=job.pk).update(status=JobStatus.SUCCEEDED, finished_at=timezone.now(), result={})

    worker = threading.Thread(target=work)
    worker.start()
    page.wait_for_selector(".job-progress[data-status=succeeded]", timeout=30000)
    worker.join()
    sample = page.evaluate("window.__bar.stop = true, window.__bar")
    assert sample["frames"] > 50
    assert sample["missing"] == 0
    assert len(sample["values"]) >= 3 and sample["values"] == sorted(sample["values"])  # it moved, forwards


def test_a_refused_import_offers_fix_and_upload_again_not_resume(admin, page, login, live_server):
    job = Job.objects.create(
        kind="listening.import", title="Import listening test 'broken'", status=JobStatus.FAILED,
        error="FileRefused: manifest.csv line 3: audio: file not found", created_by=admin,
        result={"errors": ["manifest.csv line 3: audio: file 'c3.wav' not found"]}, finished_at=timezone.now(),
    )
    login(page, admin)
    page.goto(f"{live_server.url}/listening/manage/import/jobs/{job.pk}/")
    assert page.get_by_role("button", name="Resume").count() == 0
    assert page.get_by_role("link", name="Fix and upload again").count() >= 1
    assert "line 3: audio" in page.locator("#import-errors").inner_text()
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    assert "line 3: audio: file 'c3.wav' not found" in page.locator("#job-errors").inner_text()
    assert "{" not in page.locator("main").inner_text()  # no Python dict on the page


def test_the_job_page_shows_its_result_as_text_with_a_link_to_what_was_made(admin, make_test, page, login, live_server):
    test = make_test(2)
    job = Job.objects.create(
        kind="listening.import", title="Import listening test 'done'", status=JobStatus.SUCCEEDED, total=4, done=4,
        created_by=admin, result={"test": test.pk, "name": test.name, "clips": 2, "gold": 0}, finished_at=timezone.now(),
    )
    login(page, admin)
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    result = page.locator("#job-result").inner_text()
    assert "Clips" in result and "Gold" in result and "{" not in result
    page.click(f"#job-result a:has-text('{test.pk}')")
    page.wait_for_url(f"**/listening/manage/tests/{test.pk}/")
