"""The verification upload page refuses a media zip bomb by its ratio, naming the zip, the member and the
limit, and imports nothing (test_import.py's ordinary upload still imports)."""

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.verification.models import VerificationProject
from tests.verification.conftest import record


@pytest.mark.django_db
def test_a_media_zip_bomb_is_refused_naming_the_member(hpsu, admin, client_for):
    path = hpsu.write([record("u1")])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for wav in hpsu.media.rglob("*.wav"):
            archive.write(wav, wav.relative_to(hpsu.media).as_posix())
        archive.writestr("padding/zeros.bin", bytes(50 * 1024 * 1024))
    response = client_for(admin).post("/verification/upload/", {
        "name": "Bomb", "file": SimpleUploadedFile("items.json", path.read_bytes()),
        "media": SimpleUploadedFile("media.zip", buffer.getvalue()),
    })
    html = response.content.decode()
    assert response.status_code == 200
    assert "media.zip: padding/zeros.bin unpacks to 52,428,800 bytes from " in html
    assert "(SORI_ZIP_MAX_RATIO)" in html
    assert not VerificationProject.objects.filter(name="Bomb").exists()
