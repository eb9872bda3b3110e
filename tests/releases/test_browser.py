"""An admin in a real browser builds a release from the form, publishes it and downloads its archive."""

import hashlib
import zipfile

import pytest
from playwright.sync_api import expect

from apps.releases.models import Release
from tests.browser import PageWatch, look

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_builds_publishes_and_downloads_a_release(rated_test, admin, page, login, live_server, tmp_path):
    watch = PageWatch(page, live_server.url)
    login(page, admin)
    page.goto(f"{live_server.url}/releases/")
    look(page, "releases-list")
    page.select_option("#id_source", f"mos:{rated_test.pk}")
    page.fill("#id_name", "komos")
    page.fill("#id_version", "1.0.0")
    page.fill("#id_license", "CC-BY-4.0")
    page.fill("#id_sources", "KSS=CC-BY-NC-SA-4.0")
    page.click("#build-release button[type=submit]")
    # The licence check refuses first, naming the source, and keeps what was typed.
    # expect() waits for the answer page: the click returns once it starts loading.
    expect(page.get_by_text("source KSS is CC-BY-NC-SA-4.0 (non-commercial)")).to_have_count(1)
    assert page.input_value("#id_name") == "komos" and page.input_value("#id_source") == f"mos:{rated_test.pk}"
    page.fill("#id_sources", "Sori listening test=CC-BY-4.0")
    page.click("#build-release button[type=submit]")

    page.wait_for_selector("#publish-release")
    assert page.locator("#release-status").inner_text() == "Built (not published)"
    page.click("#publish-release")
    page.wait_for_selector("text=is published")
    assert page.locator("#release-status").inner_text() == "Published"
    look(page, "releases-published")

    with page.expect_download() as download_info:
        page.click("#download-release")
    download = download_info.value
    assert download.suggested_filename == "komos-1.0.0.zip"
    saved = tmp_path / "komos.zip"
    download.save_as(saved)
    release = Release.objects.get(name="komos")
    assert hashlib.sha256(saved.read_bytes()).hexdigest() == release.archive_sha256
    names = zipfile.ZipFile(saved).namelist()
    assert "komos-1.0.0/README.md" in names and "komos-1.0.0/SHA256SUMS" in names
    assert not [n for n in names if n.endswith(".wav.wav")]

    page.click(f"text={release.items.order_by('item_id').first().item_id}")
    expect(page.get_by_text("Human decisions (5)")).to_have_count(1)
    watch.check()
