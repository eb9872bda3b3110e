"""The import page in a real browser: the bar moves through the storing of the clips, Cancel stops the
import within a batch, and Resume finishes it from the clips already stored."""

import time
import zipfile

import pytest

from apps.jobs.models import Job
from apps.listening import services
from apps.listening.models import ListeningTest
from tests.browser import wait_until
from tests.listening.conftest import clip_rows

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BAR_SAMPLER = """() => {
    window.__bar = {values: [], missing: 0};
    const tick = () => {
        const bar = document.querySelector('.job-progress progress');
        if (!bar) window.__bar.missing += 1;
        else if (window.__bar.values.at(-1) !== bar.value) window.__bar.values.push(bar.value);
        requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""


def test_the_bar_moves_while_storing_and_cancel_then_resume_completes_the_import(
    admin, page, login, live_server, write_manifest, bundle_dir, tmp_path, settings, monkeypatch
):
    settings.JOB_RUNNER = "thread"  # as the embedded default runs it: the page polls while a thread works
    monkeypatch.setattr(services, "IMPORT_BATCH", 4)
    real = services._store_batch

    def slow_storage(test, rows, **kwargs):  # a slow disk: each batch of clips takes a moment to store
        time.sleep(0.35)
        real(test, rows, **kwargs)

    monkeypatch.setattr(services, "_store_batch", slow_storage)
    rows = clip_rows(40)
    write_manifest(rows)
    bundle = tmp_path / "upload.zip"
    with zipfile.ZipFile(bundle, "w") as zf:
        for path in bundle_dir.iterdir():
            zf.write(path, f"bundle/{path.name}")

    login(page, admin)
    page.goto(f"{live_server.url}/listening/manage/import/")
    page.fill("#id_name", "resumed in the browser")
    page.set_input_files("#id_bundle", str(bundle))
    page.click("button:has-text('Import')")
    page.wait_for_url("**/listening/manage/import/jobs/*/")
    page.evaluate(BAR_SAMPLER)

    # Storing runs in batches of 4 clips; cancel once the bar has moved into the storing half.
    wait_until(page, "() => (document.querySelector('.job-progress progress')?.value ?? 0) >= 60", timeout=30000)
    asked = time.monotonic()
    page.get_by_role("button", name="Cancel").click()
    page.wait_for_selector(".job-progress[data-status=cancelled]", timeout=15000)
    cancel_seconds = time.monotonic() - asked
    first_run = page.evaluate("window.__bar.values")
    job = Job.objects.get(kind="listening.import")
    test = ListeningTest.objects.get(name="resumed in the browser")
    stored = test.clips.count()
    assert test.is_importing and 0 < stored < 40 and stored % 4 == 0
    assert cancel_seconds < 3.5, cancel_seconds  # a batch, plus a poll of the page
    storing = [v for v in first_run if 50 < v < 100]
    assert len(storing) >= 2, first_run  # the bar showed the storing as it went, not in one jump
    assert first_run == sorted(first_run)
    page.wait_for_selector(f"text=Import incomplete: {stored} of 40 clips stored", timeout=10000)

    page.get_by_role("button", name="Resume").click()
    page.wait_for_selector(".job-progress[data-status=succeeded]", timeout=30000)
    page.wait_for_selector("text=Imported 40 clips and 0 gold clips", timeout=10000)
    assert page.evaluate("window.__bar.missing") == 0
    test.refresh_from_db()
    job.refresh_from_db()
    assert not test.is_importing and job.attempts == 2
    assert sorted(test.clips.values_list("clip_id", flat=True)) == sorted(r["clip_id"] for r in rows)
