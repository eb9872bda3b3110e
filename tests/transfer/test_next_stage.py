"""A finished stage leads to the next one (issue 34): its run links to the next stage's page with the start form's
benchmark chosen, the chosen value validated as the form's input; a stage's runs and report are live regions that
update themselves when a job finishes."""

import re

import pytest
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from apps.sources.models import SourceBenchmark
from apps.speech.models import SynthesisRun

pytestmark = pytest.mark.django_db


def _selected(html: str, select_id: str) -> list[str]:
    select = html.split(f'id="{select_id}"', 1)[1].split("</select>", 1)[0]
    return [v for v in re.findall(r'<option value="([^"]*)" selected>', select) if v]


def test_a_finished_review_links_to_translation_with_its_benchmark_chosen(
    source_samples, script_agents, admin, client_for, django_capture_on_commit_callbacks
):
    script_agents()
    client = client_for(admin)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/transfer/ground-truth/", {"benchmark": "voicebench", "on_unresolved": "exclude"})
    page = client.get("/transfer/ground-truth/").content.decode()
    assert 'href="/transfer/translations/?benchmark=voicebench">Next: translate voicebench into Korean →' in page
    # The runs (cost, bar, next link) and the report follow a job's end without a reload.
    assert 'hx-select="#gt-runs"' in page and 'hx-select="#gt-report"' in page
    assert 'hx-select="#gt-' not in page.split('<section class="card">\n  <h2>Start</h2>')[1].split("</section>")[0]

    translations = client.get("/transfer/translations/?benchmark=voicebench").content.decode()
    assert _selected(translations, "id_benchmark") == ["voicebench"]


def test_a_running_review_has_no_next_link_yet(source_samples, admin, client_for):
    from apps.transfer.models import ReviewRun

    job = Job.objects.create(kind="transfer.ground_truth", title="Review", status=JobStatus.RUNNING, total=5, done=2)
    ReviewRun.objects.create(benchmark=source_samples[0].benchmark, reviewer_model="r", meta_reviewer_model="m", job=job)
    page = client_for(admin).get("/transfer/ground-truth/").content.decode()
    assert "Next: translate" not in page


def test_a_benchmark_that_does_not_exist_is_not_chosen(source_samples, admin, client_for):
    client = client_for(admin)
    for url, select in [("/transfer/translations/", "id_benchmark"), ("/transfer/ground-truth/", "id_benchmark"),
                        ("/transfer/normalize/", "id_run-benchmark"), ("/speech/", "id_benchmark")]:
        response = client.get(f"{url}?benchmark=nope")
        assert response.status_code == 200
        assert _selected(response.content.decode(), select) == [], url
        assert _selected(client.get(f"{url}?benchmark=voicebench").content.decode(), select) == ["voicebench"], url
    # Each stage page's runs follow their jobs' ends without a reload.
    assert 'hx-select="#translation-runs"' in client.get("/transfer/translations/").content.decode()
    normalize = client.get("/transfer/normalize/").content.decode()
    assert 'hx-select="#normalization-runs"' in normalize and 'hx-select="#normalization-attention"' in normalize


def test_a_finished_synthesis_run_links_to_the_release_form_with_its_benchmark_chosen(source_samples, admin, client_for):
    benchmark = SourceBenchmark.objects.get(name="voicebench")
    job = Job.objects.create(kind="speech.synthesize", title="Speech", status=JobStatus.SUCCEEDED, finished_at=timezone.now())
    run = SynthesisRun.objects.create(benchmark=benchmark, tts_backend="espeak", asr_backend="demo", job=job)
    client = client_for(admin)
    link = f'href="/releases/?source=spoken-qa:{benchmark.pk}#build-release">Next: build a release of voicebench →'
    home, run_page = client.get("/speech/").content.decode(), client.get(f"/speech/runs/{run.pk}/").content.decode()
    assert link in home and link in run_page
    assert 'hx-select="#speech-runs"' in home and 'hx-select="#speech-run-outcome"' in run_page  # live regions

    releases = client.get(f"/releases/?source=spoken-qa:{benchmark.pk}").content.decode()
    assert _selected(releases, "id_source") == [f"spoken-qa:{benchmark.pk}"]
    for wrong in (f"spoken-qa:{benchmark.pk + 1000}", f"mos:{benchmark.pk}", "nonsense"):
        assert _selected(client.get(f"/releases/?source={wrong}").content.decode(), "id_source") == [], wrong
