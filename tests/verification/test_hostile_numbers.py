"""An HPSU record is stored as JSON text exactly as the file gave it, so a number JSON cannot hold is refused at
the door, naming file, line and field: 1e99999 (Python reads it as infinity and would write `Infinity`, which is
not JSON), NaN and Infinity (which Python's json accepts and JSON does not), in any field, nested or not."""

import html
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.verification.models import VerificationItem, VerificationProject
from tests.verification.conftest import record
from tests.verification.test_media_safety import media_zip

pytestmark = pytest.mark.django_db

HOLE = "__number__"


def _file(hpsu, records, raw: str, *, jsonl: bool) -> bytes:
    """The records as the HPSU file, with the value HOLE replaced by `raw` as written (json.dumps cannot)."""
    path = hpsu.write(records, jsonl=jsonl)
    return path.read_text(encoding="utf-8").replace(json.dumps(HOLE), raw).encode()


def _upload(client, hpsu, name: str, body: bytes):
    return client.post("/verification/upload/", {
        "name": "Numbers", "file": SimpleUploadedFile(name, body),
        "media": SimpleUploadedFile("media.zip", media_zip(hpsu.media)),
    })


@pytest.mark.parametrize(("raw", "why"), [
    ("1e99999", "1e99999 is too large a number to store (it reads as infinity)"),
    ("-2.5E+700", "-2.5E+700 is too large a number to store (it reads as infinity)"),
    ("NaN", "NaN is not a number JSON allows"),
    ("-Infinity", "-Infinity is not a number JSON allows"),
])
@pytest.mark.parametrize("jsonl", [False, True], ids=["json", "jsonl"])
def test_a_record_holding_a_number_json_cannot_hold_is_refused_and_nothing_is_stored(
        hpsu, admin, client_for, raw, why, jsonl):
    records = [record("ok-1"), record("bad-2", duration=HOLE), record("bad-3", extra={"scores": [1, {"x": HOLE}]})]
    name = "items.jsonl" if jsonl else "items.json"
    body = _file(hpsu, records, raw, jsonl=jsonl)
    lines = body.decode().splitlines()
    starts = [n for n, line in enumerate(lines, 1) if '"id": "bad-' in line]
    first, second = ([n - (0 if jsonl else 1) for n in starts])

    answer = _upload(client_for(admin), hpsu, name, body)

    page = html.unescape(answer.content.decode())
    assert answer.status_code == 200
    assert f"{name} line {first}: duration: {why}" in page
    assert f"{name} line {second}: extra: {why}" in page
    assert not VerificationProject.objects.exists() and not VerificationItem.objects.exists()


def test_the_same_file_with_finite_numbers_is_stored_as_json(hpsu, admin, client_for):
    records = [record("ok-1", duration=HOLE), record("ok-2", extra={"scores": [1, {"x": HOLE}]})]
    answer = _upload(client_for(admin), hpsu, "items.json", _file(hpsu, records, "1e300", jsonl=False))

    assert answer.status_code == 302
    stored = {item.external_id: json.loads(item.record) for item in VerificationItem.objects.all()}
    assert stored["ok-1"]["duration"] == 1e300 and stored["ok-2"]["extra"] == {"scores": [1, {"x": 1e300}]}
