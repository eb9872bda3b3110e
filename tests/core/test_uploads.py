"""Limits on what an upload may cost: every upload form refuses a body over its limit from its Content-Length,
without reading a byte of it, with a message naming the limit and the variable that sets it; a chunked upload
is refused too, the files of a body are counted as they are read, and a request without an upload is bounded
by SORI_REQUEST_MAX_BYTES. A refusal is a page or a JSON error, never a 500."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponse
from django.http.multipartparser import MultiPartParser
from django.test import RequestFactory
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from apps.audio.models import AudioAsset
from apps.core.uploads import Limit, LimitedUploadHandler, UploadLimitMiddleware
from apps.jobs.models import Job

GiB = 1024**3

# Every upload form: its address, its kind in settings.UPLOAD_LIMITS and the variable that sets it.
FORMS = [
    ("/listening/manage/import/", "SORI_BUNDLE_UPLOAD_MAX_BYTES"),
    ("/listening/manage/tests/1/predictions/", "SORI_TABLE_UPLOAD_MAX_BYTES"),
    ("/verification/upload/", "SORI_BUNDLE_UPLOAD_MAX_BYTES"),
    ("/verification/projects/1/scoring/", "SORI_TABLE_UPLOAD_MAX_BYTES"),
    ("/authoring/corpora/upload/", "SORI_BUNDLE_UPLOAD_MAX_BYTES"),
    ("/authoring/sets/1/score/", "SORI_TABLE_UPLOAD_MAX_BYTES"),
    ("/transfer/import/", "SORI_BENCHMARK_UPLOAD_MAX_BYTES"),
    ("/admin/audio/audioasset/add/", "SORI_AUDIO_UPLOAD_MAX_BYTES"),
    ("/admin/speech/referencevoice/add/", "SORI_AUDIO_UPLOAD_MAX_BYTES"),
    ("/evaluation/runs/1/responses/", "SORI_RESPONSES_UPLOAD_MAX_BYTES"),
    ("/api/evaluation/runs/1/responses/", "SORI_RESPONSES_UPLOAD_MAX_BYTES"),
]


class Untouchable(io.RawIOBase):
    """A request body that fails the test if anything reads it."""

    def read(self, *args):
        raise AssertionError("the request body was read")

    readline = readinto = read


def _limit(settings, variable: str) -> int:
    return next(size for size, name in settings.UPLOAD_LIMITS.values() if name == variable)


@pytest.fixture
def admin_client(admin, client_for):
    return client_for(admin)


@pytest.mark.django_db
@pytest.mark.parametrize("url, variable", FORMS)
def test_it_refuses_an_upload_over_the_forms_limit_without_reading_it(admin_client, settings, url, variable):
    limit = _limit(settings, variable)
    response = admin_client.generic("POST", url, b"", **{"CONTENT_TYPE": MULTIPART_CONTENT,
        "CONTENT_LENGTH": str(limit + 1), "wsgi.input": Untouchable(),
    })
    assert response.status_code == 413
    page = response.content.decode()
    assert f"{limit + 1:,} bytes" in page and f"at most {limit:,} bytes" in page and variable in page
    assert not Job.objects.exists() and not AudioAsset.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("url, variable", FORMS)
def test_it_refuses_a_chunked_upload_without_a_length_unread(admin_client, settings, url, variable):
    response = admin_client.generic("POST", url, b"", **{"CONTENT_TYPE": MULTIPART_CONTENT,
        "CONTENT_LENGTH": "", "HTTP_TRANSFER_ENCODING": "chunked", "wsgi.input": Untouchable(),
    })
    assert response.status_code == 411
    assert "Content-Length" in response.content.decode() and variable in response.content.decode()


@pytest.mark.django_db
def test_a_real_file_over_a_lowered_limit_is_refused_and_nothing_is_stored(admin_client, settings, make_wav):
    settings.UPLOAD_LIMITS = {**settings.UPLOAD_LIMITS, "audio": (1000, "SORI_AUDIO_UPLOAD_MAX_BYTES")}
    upload = SimpleUploadedFile("tone.wav", make_wav().read_bytes())
    response = admin_client.post("/admin/audio/audioasset/add/", {"upload": upload})
    assert response.status_code == 413
    assert "at most 1,000 bytes, set by SORI_AUDIO_UPLOAD_MAX_BYTES" in response.content.decode()
    assert not AudioAsset.objects.exists()


@pytest.mark.django_db
def test_an_upload_within_its_limit_reaches_the_form(admin_client, make_wav):
    response = admin_client.post("/admin/audio/audioasset/add/", {"upload": SimpleUploadedFile("tone.wav", make_wav().read_bytes())})
    assert response.status_code == 302
    assert AudioAsset.objects.count() == 1


@pytest.mark.django_db
def test_the_text_fields_of_an_upload_form_are_bounded_by_the_request_limit(admin_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = admin_client.post("/transfer/import/", {
        "format": "voicebench", "subset": "x" * 5000, "file": SimpleUploadedFile("a.jsonl", b"{}\n"),
    })
    assert response.status_code == 413
    assert "form fields of this request are over 1,000 bytes" in response.content.decode()
    assert "SORI_REQUEST_MAX_BYTES" in response.content.decode()


@pytest.mark.django_db
def test_a_request_without_an_upload_is_bounded_and_the_api_answers_json(client, settings):
    size = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    response = client.generic("POST", "/api/auth/token/", b"", **{"CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(10 * GiB), "wsgi.input": Untouchable(),
    })
    assert response.status_code == 413
    body = response.json()
    assert body["code"] == "upload_too_large" and body["fields"] == {}
    assert f"a request without an upload accepts at most {size:,} bytes" in body["detail"]
    assert "SORI_REQUEST_MAX_BYTES" in body["detail"]


@pytest.mark.django_db
def test_a_page_without_an_upload_refuses_a_huge_body_as_a_page(client):
    response = client.generic("POST", "/login/", b"", **{"CONTENT_TYPE": MULTIPART_CONTENT,
        "CONTENT_LENGTH": str(10 * GiB), "wsgi.input": Untouchable(),
    })
    assert response.status_code == 413
    assert "SORI_REQUEST_MAX_BYTES" in response.content.decode()


class CountingStream(io.BytesIO):
    def __init__(self, data: bytes):
        super().__init__(data)
        self.consumed = 0

    def read(self, size=-1):
        chunk = super().read(size)
        self.consumed += len(chunk)
        return chunk


def _multipart(size: int) -> bytes:
    return encode_multipart(BOUNDARY, {"name": "x", "file": SimpleUploadedFile("big.csv", b"0" * size)})


def test_the_upload_handler_stops_reading_a_file_past_the_limit():
    body = _multipart(5 * 1024 * 1024)
    stream = CountingStream(body)
    handler = LimitedUploadHandler(Limit(100_000, "SORI_TABLE_UPLOAD_MAX_BYTES", "this form"))
    meta = {"CONTENT_TYPE": MULTIPART_CONTENT, "CONTENT_LENGTH": str(len(body))}
    _, files = MultiPartParser(meta, stream, [handler, *_default_handlers()]).parse()
    assert handler.exceeded and "file" not in files
    assert stream.consumed < 500_000  # stopped near the limit, not at the end of the 5 MiB


@pytest.mark.django_db
def test_a_body_longer_than_its_declared_length_is_still_counted(admin, settings):
    """A server that hands on more than the Content-Length says (or a chunked body it passes through) is
    stopped by the count of file bytes, and the form answers 413 instead of reading on."""
    settings.UPLOAD_LIMITS = {**settings.UPLOAD_LIMITS, "table": (100_000, "SORI_TABLE_UPLOAD_MAX_BYTES")}
    body = _multipart(5 * 1024 * 1024)
    request = RequestFactory().generic("POST", "/verification/projects/1/scoring/", b"",
                                       CONTENT_TYPE=MULTIPART_CONTENT, CONTENT_LENGTH="1000")
    stream = CountingStream(body)
    request._stream = stream
    request.user = admin
    reached = []
    response = UploadLimitMiddleware(lambda r: reached.append(r) or HttpResponse())(request)
    assert response.status_code == 413 and not reached
    assert "passed the limit of 100,000 bytes" in response.content.decode()
    assert "SORI_TABLE_UPLOAD_MAX_BYTES" in response.content.decode()
    assert stream.consumed < 500_000


def _default_handlers():
    from django.core.files.uploadhandler import MemoryFileUploadHandler, TemporaryFileUploadHandler

    return [MemoryFileUploadHandler(), TemporaryFileUploadHandler()]
