"""The releases API: an admin's script builds, reads, publishes, downloads and diffs releases with the same
refusals as the pages; nobody else gets in."""

import hashlib

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def as_admin(api_client, admin):
    api_client.force_authenticate(admin)
    return api_client


def _start(client, benchmark, django_capture_on_commit_callbacks, **overrides):
    body = {"kind": "spoken-qa", "source_id": benchmark.pk, "name": "kvb", "version": "1.0.0", **overrides}
    with django_capture_on_commit_callbacks(execute=True):  # the build job runs inline on commit
        return client.post("/api/releases/", body, format="json")


def test_an_admin_builds_publishes_and_downloads_a_release_through_the_api(as_admin, benchmark,
                                                                            django_capture_on_commit_callbacks):
    started = _start(as_admin, benchmark, django_capture_on_commit_callbacks)
    assert started.status_code == 202, started.json()
    release = started.json()
    assert release["status"] == "building" and release["license"] == "Apache-2.0" and release["job"]

    detail = as_admin.get(f"/api/releases/{release['id']}/").json()
    assert detail["status"] == "built" and detail["item_count"] == 5
    files = {f["path"]: f for f in detail["files"]}
    assert {"README.md", "provenance.jsonl", "data/sd-qa.parquet"} <= set(files)
    assert all(len(f["sha256"]) == 64 for f in files.values())

    published = as_admin.post(f"/api/releases/{release['id']}/publish/")
    assert published.status_code == 200 and published.json()["status"] == "published"
    archive = as_admin.get(f"/api/releases/{release['id']}/archive/")
    assert archive.status_code == 200 and archive["Content-Type"] == "application/zip"
    assert archive["X-Content-Type-Options"] == "nosniff"
    assert hashlib.sha256(b"".join(archive.streaming_content)).hexdigest() == detail["archive_sha256"]
    listed = as_admin.get("/api/releases/").json()
    assert [(r["name"], r["version"], r["status"]) for r in listed["results"]] == [("kvb", "1.0.0", "published")]

    again = as_admin.post(f"/api/releases/{release['id']}/publish/")
    assert again.status_code == 409


def test_the_api_refuses_what_the_pages_refuse_naming_the_field(as_admin, benchmark, django_capture_on_commit_callbacks):
    refused = _start(as_admin, benchmark, django_capture_on_commit_callbacks,
                     sources=[{"name": "KSS", "license": "CC-BY-NC-SA-4.0"}], license="Apache-2.0")
    assert refused.status_code == 400 and "KSS" in refused.json()["detail"] and "license" in refused.json()["fields"]
    wrong_type = _start(as_admin, benchmark, django_capture_on_commit_callbacks, source_id=str(benchmark.pk))
    assert wrong_type.status_code == 400 and "source_id" in wrong_type.json()["fields"]
    missing = _start(as_admin, benchmark, django_capture_on_commit_callbacks, source_id=999999)
    assert missing.status_code == 404
    assert _start(as_admin, benchmark, django_capture_on_commit_callbacks).status_code == 202
    older = _start(as_admin, benchmark, django_capture_on_commit_callbacks, version="0.9.0")
    assert older.status_code == 400 and "version" in older.json()["fields"]


def test_the_api_diffs_two_versions(as_admin, benchmark, django_capture_on_commit_callbacks):
    from apps.sources.models import SourceSample

    old = _start(as_admin, benchmark, django_capture_on_commit_callbacks).json()
    SourceSample.objects.create(benchmark=benchmark, subset="sd-qa", task_type="short_answer", source_id="new-1",
                                transcription="What is the largest planet?", answer="Jupiter", raw={}, line_number=9)
    new = _start(as_admin, benchmark, django_capture_on_commit_callbacks, version="1.1.0").json()
    diff = as_admin.get(f"/api/releases/diff/{old['id']}/{new['id']}/").json()
    assert [c["item_id"] for c in diff["added"]] == ["sd-qa/new-1"] and diff["removed"] == diff["changed"] == []


def test_only_admins_use_the_releases_api(api_client, annotator, benchmark, django_capture_on_commit_callbacks):
    assert api_client.get("/api/releases/").status_code in (401, 403)
    api_client.force_authenticate(annotator)
    assert api_client.get("/api/releases/").status_code == 403
    assert _start(api_client, benchmark, django_capture_on_commit_callbacks).status_code == 403
