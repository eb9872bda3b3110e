"""No script runs from an uploaded file: an item's image or video is judged by its content at every import
door (the upload page, the command), a file that is not an image or video the review page shows is refused
naming it, and a stored file that slipped in before (or by hand) is never served inline as SVG or HTML."""

import html
import io
import subprocess
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from apps.audio.models import AudioAsset
from apps.verification.models import VerificationItem, VerificationProject
from apps.verification.services import import_items, next_item
from tests.verification.conftest import record

SVG = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>'
HTML = b"<!doctype html><html><body><script>fetch('/api/releases/',{method:'POST'})</script></body></html>"


def ffmpeg(path, *args):
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", *args, str(path)], check=True)
    return path


def png(path):
    return ffmpeg(path, "-f", "lavfi", "-i", "testsrc=size=32x24", "-frames:v", "1", "-f", "image2", "-c:v", "png")


def jpeg(path):
    return ffmpeg(path, "-f", "lavfi", "-i", "testsrc=size=32x24", "-frames:v", "1", "-f", "image2", "-c:v", "mjpeg")


def video(path, codec: str, fmt: str):
    return ffmpeg(path, "-f", "lavfi", "-i", "testsrc=size=32x24:rate=5", "-t", "0.4", "-pix_fmt", "yuv420p",
                  "-c:v", codec, "-f", fmt)


def media_zip(media_dir) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for file in media_dir.rglob("*"):
            if file.is_file():
                archive.write(file, file.relative_to(media_dir).as_posix())
    return buffer.getvalue()


def nothing_stored(settings):
    visual_dir = settings.MEDIA_ROOT / "verification" / "visual"
    return (not VerificationProject.objects.exists() and not VerificationItem.objects.exists()
            and not AudioAsset.objects.exists() and not (visual_dir.exists() and any(visual_dir.iterdir())))


def upload(client, hpsu, items_path):
    return client.post("/verification/upload/", {
        "name": "Hostile", "file": SimpleUploadedFile("items.json", items_path.read_bytes()),
        "media": SimpleUploadedFile("media.zip", media_zip(hpsu.media)),
    })


@pytest.mark.django_db
def test_an_svg_with_a_script_uploaded_as_an_image_is_refused_naming_the_file(hpsu, admin, client_for, settings):
    (hpsu.media / "Images").mkdir(parents=True)
    (hpsu.media / "Images/pic.svg").write_bytes(SVG)
    items = hpsu.write([record("x1", image_path="Images/pic.svg")])
    response = upload(client_for(admin), hpsu, items)
    assert response.status_code == 200
    assert ("items.json line 2: image_path: media 'Images/pic.svg' is not an image the review page can show "
            "(PNG, JPEG, GIF or WebP); its content is SVG, which can carry script") in html.unescape(response.content.decode())
    assert nothing_stored(settings)


@pytest.mark.django_db
def test_an_html_page_uploaded_as_a_video_is_refused_naming_the_file(hpsu, admin, client_for, settings):
    (hpsu.media / "Video").mkdir(parents=True)
    (hpsu.media / "Video/page.html").write_bytes(HTML)
    items = hpsu.write([record("x2", video_path="Video/page.html")])
    response = upload(client_for(admin), hpsu, items)
    assert ("items.json line 2: video_path: media 'Video/page.html' is not a video the review page can show "
            "(MP4 or WebM); its content is HTML, which can carry script") in html.unescape(response.content.decode())
    assert nothing_stored(settings)


@pytest.mark.django_db
def test_the_command_refuses_script_media_under_any_name_and_stores_nothing(hpsu, settings):
    (hpsu.media / "Images").mkdir(parents=True)
    (hpsu.media / "Images/innocent.png").write_bytes(SVG)  # the name says PNG, the content is SVG
    (hpsu.media / "Video").mkdir(parents=True)
    (hpsu.media / "Video/clip.mp4").write_bytes(HTML)
    items = hpsu.write([record("c1", image_path="Images/innocent.png"), record("c2", video_path="Video/clip.mp4")])
    with pytest.raises(CommandError) as caught:
        call_command("import_verification_items", "--name", "Hostile", "--file", str(items), "--media", str(hpsu.media))
    message = str(caught.value)
    assert "image_path: media 'Images/innocent.png' is not an image the review page can show" in message
    assert "video_path: media 'Video/clip.mp4' is not a video the review page can show" in message
    assert nothing_stored(settings)


@pytest.mark.django_db
def test_a_webm_without_a_picture_is_refused_as_a_video(hpsu, settings):
    from apps.core.errors import FileRefused

    ffmpeg(hpsu.media / "Video/sound.webm", "-f", "lavfi", "-i", "sine=duration=0.3", "-c:a", "libopus", "-f", "webm")
    with pytest.raises(FileRefused) as caught:
        import_items(project_name="Hostile", file_path=hpsu.write([record("w1", video_path="Video/sound.webm")]),
                     media_dir=hpsu.media)
    assert caught.value.lines() == ["items.json line 2: video_path: media 'Video/sound.webm' has no video stream ffprobe can read"]
    assert nothing_stored(settings)


@pytest.mark.django_db
def test_real_images_and_videos_are_served_inline_with_the_type_their_content_says(hpsu, admin, client_for):
    png(hpsu.media / "Images/a.png")
    jpeg(hpsu.media / "Images/b.jpg")
    png(hpsu.media / "Images/really-a-png.svg")  # a misleading name does not make it SVG
    video(hpsu.media / "Video/c.mp4", "libx264", "mp4")
    video(hpsu.media / "Video/d.webm", "libvpx", "webm")
    records = [record("i1", image_path="Images/a.png"), record("i2", image_path="Images/b.jpg"),
               record("i3", image_path="Images/really-a-png.svg"), record("v1", video_path="Video/c.mp4"),
               record("v2", video_path="Video/d.webm")]
    response = upload(client_for(admin), hpsu, hpsu.write(records))
    assert response.status_code == 302
    expected = {"i1": "image/png", "i2": "image/jpeg", "i3": "image/png", "v1": "video/mp4", "v2": "video/webm"}
    client = client_for(admin)
    for item in VerificationItem.objects.all():
        served = client.get(f"/verification/items/{item.pk}/visual/")
        assert served.status_code == 200
        assert served["Content-Type"] == expected[item.external_id]
        assert "attachment" not in served.get("Content-Disposition", "")
        assert served["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "content"), [("legacy.svg", SVG), ("legacy.html", HTML), ("legacy.png", SVG)])
def test_a_script_file_stored_before_the_check_is_never_served_inline(hpsu, annotators, admin, client_for, name, content):
    png(hpsu.media / "Images/ok.png")
    project = import_items(project_name="Legacy", file_path=hpsu.write([record("l1", image_path="Images/ok.png")]),
                           media_dir=hpsu.media).project
    item = VerificationItem.objects.get(project=project)
    item.visual.save(name, ContentFile(content))  # what an older import or a hand edit left behind
    next_item(project=project, acting_user=annotators[0])
    for user in (annotators[0], admin):
        served = client_for(user).get(f"/verification/items/{item.pk}/visual/")
        assert served.status_code == 200
        assert served["Content-Type"] == "application/octet-stream"
        assert served["Content-Disposition"].startswith("attachment;")
        assert served["X-Content-Type-Options"] == "nosniff"
        assert b"".join(served.streaming_content) == content


@pytest.mark.django_db
def test_every_verification_file_is_sent_with_nosniff(make_project, admin, client_for):
    project = make_project(1)
    item = project.items.get()
    client = client_for(admin)
    for url in (item.audio.get_absolute_url(), f"/verification/projects/{project.pk}/export.zip"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["X-Content-Type-Options"] == "nosniff", url
    ranged = client.get(item.audio.get_absolute_url(), HTTP_RANGE="bytes=0-9")
    assert ranged.status_code == 206 and ranged["X-Content-Type-Options"] == "nosniff"
