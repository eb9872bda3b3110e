"""A served file is named for the type its content was checked to be, never for the name it was imported
under: a GIF that is also an HTML page, imported as poly.html, is served as image/gif named poly.gif; a file
only offered as a download is .bin; an audio file imported as page.html is served as <sha256>.wav."""

import pytest
from django.core.files.base import ContentFile

from apps.verification.media import EXTENSIONS, SERVABLE_TYPES
from apps.verification.models import VerificationItem
from tests.verification.conftest import record
from tests.verification.test_media_safety import HTML, png, upload

# A 1x1 GIF whose bytes go on as an HTML page: a browser told it is text/html, or a desktop opening a file
# named .html, runs the script.
POLYGLOT = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00"
            b"\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;" + HTML)

pytestmark = pytest.mark.django_db


def _disposition(response) -> str:
    return response.get("Content-Disposition", "")


def test_a_gif_imported_as_an_html_page_is_served_as_a_gif_named_gif(hpsu, admin, client_for):
    (hpsu.media / "Images").mkdir(parents=True)
    (hpsu.media / "Images/poly.html").write_bytes(POLYGLOT)
    png(hpsu.media / "Images/really-a-png.svg")
    records = [record("g1", image_path="Images/poly.html"), record("p1", image_path="Images/really-a-png.svg")]
    assert upload(client_for(admin), hpsu, hpsu.write(records)).status_code == 302

    client = client_for(admin)
    served = {item.external_id: client.get(f"/verification/items/{item.pk}/visual/")
              for item in VerificationItem.objects.all()}

    assert served["g1"]["Content-Type"] == "image/gif"
    assert _disposition(served["g1"]) == 'inline; filename="poly.gif"'
    assert served["p1"]["Content-Type"] == "image/png"
    assert _disposition(served["p1"]) == 'inline; filename="really-a-png.png"'
    assert b"".join(served["g1"].streaming_content) == POLYGLOT


def test_a_file_offered_only_as_a_download_is_named_bin(make_project, admin, client_for):
    item = make_project(1).items.get()
    item.visual.save("legacy.html", ContentFile(HTML))  # what an older import or a hand edit left behind

    served = client_for(admin).get(f"/verification/items/{item.pk}/visual/")

    assert served["Content-Type"] == "application/octet-stream"
    assert _disposition(served) == 'attachment; filename="legacy.bin"'


def test_every_type_served_inline_has_its_extension():
    assert SERVABLE_TYPES <= EXTENSIONS.keys()
    assert all(ext.startswith(".") and ext != ".bin" for ext in EXTENSIONS.values())


@pytest.mark.parametrize("range_header", [None, "bytes=0-99"])
def test_audio_imported_under_an_html_name_is_served_named_for_its_format(hpsu, admin, client_for, range_header):
    from apps.verification.services import import_items

    project = import_items(project_name="Names", file_path=hpsu.write([record("a1", audio_path="Audios/page.html")]),
                           media_dir=hpsu.media).project
    asset = project.items.get().audio
    assert asset.file.name.endswith(".html")  # stored under the imported name's extension

    headers = {"HTTP_RANGE": range_header} if range_header else {}
    served = client_for(admin).get(asset.get_absolute_url(), **headers)

    assert served.status_code == (206 if range_header else 200)
    assert served["Content-Type"] == "audio/wav"
    assert _disposition(served) == f'inline; filename="{asset.sha256}.wav"'
