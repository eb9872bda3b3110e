"""The import page refuses a zip bomb by its compression ratio, naming the bundle, the member and the limit,
and imports nothing; the ordinary bundle of tests/listening/test_admin_pages.py still imports."""

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.listening.models import ListeningTest

from .conftest import clip_rows

pytestmark = pytest.mark.django_db


def test_a_bundle_holding_a_zip_bomb_is_refused_naming_the_member(
    write_manifest, bundle_dir, admin, client_for, django_capture_on_commit_callbacks
):
    rows = clip_rows(2)
    write_manifest(rows)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in ["manifest.csv", *[r["audio"] for r in rows]]:
            zf.write(bundle_dir / name, f"bundle/{name}")
        zf.writestr("bundle/audio/zeros.wav", bytes(50 * 1024 * 1024))
    client = client_for(admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/listening/manage/import/", {
            "name": "bomb", "bundle": SimpleUploadedFile("bomb.zip", buffer.getvalue(), content_type="application/zip"),
        })
    html = client.get(response.url).content.decode()
    assert "bomb.zip: bundle/audio/zeros.wav unpacks to 52,428,800 bytes from " in html
    assert "over the limit of 100x (SORI_ZIP_MAX_RATIO)" in html
    assert not ListeningTest.objects.exists()
