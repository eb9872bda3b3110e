"""Admin pages: import by upload (errors named by row), the test list, navigation, and the demo data."""

import io
import zipfile

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.jobs.models import Job
from apps.listening.models import ListeningTest

from .conftest import clip_rows

pytestmark = pytest.mark.django_db


def _zip(folder, names):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name in names:
            zf.write(folder / name, f"bundle/{name}")
    return SimpleUploadedFile("bundle.zip", buffer.getvalue(), content_type="application/zip")


def test_an_admin_uploads_a_bundle_and_the_import_job_creates_the_test(
    write_manifest, bundle_dir, admin, client_for, django_capture_on_commit_callbacks
):
    rows = clip_rows(3, gold=1)
    write_manifest(rows)
    upload = _zip(bundle_dir, ["manifest.csv", *[r["audio"] for r in rows]])
    client = client_for(admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/listening/manage/import/", {"name": "uploaded", "bundle": upload})
    assert response.status_code == 302 and "/listening/manage/import/jobs/" in response.url
    test = ListeningTest.objects.get(name="uploaded")
    assert test.clips.count() == 4
    status = client.get(response.url).content.decode()
    assert "Imported 3 clips and 1 gold clips" in status and f"/listening/manage/tests/{test.pk}/" in status
    job = Job.objects.get(kind="listening.import")
    assert job.status == "succeeded" and job.done == job.total == 8  # four files checked, then four stored
    assert not default_storage.exists(job.params["bundle"])  # the uploaded zip is not kept


def test_upload_errors_name_the_row_and_import_nothing(
    write_manifest, bundle_dir, admin, client_for, django_capture_on_commit_callbacks
):
    rows = clip_rows(3)
    rows[2]["source_type"] = "studio"
    write_manifest(rows)
    upload = _zip(bundle_dir, ["manifest.csv", rows[0]["audio"], rows[2]["audio"]])  # c001.wav left out
    client = client_for(admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/listening/manage/import/", {"name": "broken", "bundle": upload})
    page = client.get(response.url)
    html = page.content.decode()
    assert page.status_code == 200 and "Nothing was imported: 2 problems" in html
    assert "manifest.csv line 3: audio: missing audio file c001.wav" in html
    assert "manifest.csv line 4: source_type: unknown source type &#x27;studio&#x27;" in html
    assert not ListeningTest.objects.exists()


def test_only_admins_reach_the_admin_pages_and_see_the_nav_link(make_test, admin, listener, client_for):
    test = make_test(2)
    assert client_for(listener).get("/listening/manage/").status_code == 403
    assert client_for(listener).get("/listening/manage/import/").status_code == 403
    page = client_for(admin).get("/listening/manage/").content.decode()
    assert test.name in page and 'href="/listening/manage/"' in page
    listener_page = client_for(listener).get("/listening/").content.decode()
    assert 'href="/listening/"' in listener_page and "/listening/manage/" not in listener_page


def test_the_demo_seed_builds_a_small_rated_test_once():
    from django.apps import apps

    from apps.accounts.demo import seed_demo_accounts
    from apps.listening.demo import DEMO_NAME

    seed_demo_accounts()
    config = apps.get_app_config("listening")
    config.seed_demo(io.StringIO())
    config.seed_demo(io.StringIO())
    test = ListeningTest.objects.get(name=DEMO_NAME)
    assert test.clips.regular().count() == 12 and test.clips.gold().count() == 2
    assert test.clips.filter(source_type="degraded").count() == 1
    # Three demo listeners rated everything they could: 3 ratings per regular clip, and each gold clip.
    assert all(c.ratings.count() == 3 for c in test.clips.regular())
    assert all(c.ratings.count() == 3 for c in test.clips.gold())
