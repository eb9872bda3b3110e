"""Admins upload reference voices in the admin: a Korean clip, its exact transcript, a gender and a name."""

import pytest

from apps.speech.models import ReferenceVoice

pytestmark = pytest.mark.django_db


def _post(client, **fields):
    return client.post("/admin/speech/referencevoice/add/", {"active": "on", "vendor_voice": "", **fields})


def test_an_admin_uploads_a_reference_voice_with_its_clip_and_transcript(admin, client_for, make_wav):
    client = client_for(admin)
    with open(make_wav("jisu.wav", seconds=2.0), "rb") as clip:
        response = _post(client, name="지수", gender="female", transcript="안녕하세요. 저는 지수입니다.", clip_upload=clip)
    assert response.status_code == 302, response.content.decode()[:2000]
    voice = ReferenceVoice.objects.get()
    assert (voice.name, voice.gender, voice.transcript, voice.created_by) == ("지수", "female", "안녕하세요. 저는 지수입니다.", admin)
    assert voice.clip.duration_seconds == 2.0 and voice.clip.original_name == "jisu.wav"
    assert client.get(f"/admin/speech/referencevoice/{voice.pk}/change/").status_code == 200


def test_a_clip_that_is_not_audio_is_refused_naming_the_file(admin, client_for, tmp_path):
    bad = tmp_path / "notes.wav"
    bad.write_text("not audio")
    with open(bad, "rb") as clip:
        response = _post(client_for(admin), name="x", gender="male", transcript="텍스트", clip_upload=clip)
    assert response.status_code == 200 and "notes.wav:" in response.content.decode()
    assert not ReferenceVoice.objects.exists()


def test_an_overlong_transcript_is_refused_naming_the_bound(admin, client_for, make_wav):
    with open(make_wav("long.wav", seconds=1.0), "rb") as clip:
        response = _post(client_for(admin), name="긴", gender="female", transcript="가" * 3_000, clip_upload=clip)
    assert response.status_code == 200
    assert "at most 2000 characters" in response.content.decode()
    # Two million characters are past the request's own limit: refused before the form reads them.
    with open(make_wav("long.wav", seconds=1.0), "rb") as clip:
        huge = _post(client_for(admin), name="긴", gender="female", transcript="가" * 2_000_000, clip_upload=clip)
    assert huge.status_code == 413 and "SORI_REQUEST_MAX_BYTES" in huge.content.decode()
    assert not ReferenceVoice.objects.exists()


def test_the_voice_service_refuses_an_overlong_transcript_too(admin, make_wav):
    from apps.core.errors import InvalidInput
    from apps.speech.services import voice_create

    with open(make_wav("long.wav", seconds=1.0), "rb") as clip, pytest.raises(InvalidInput) as refused:
        voice_create(acting_user=admin, name="긴", gender="female", transcript="가" * 2_000_000, clip=clip)
    assert refused.value.field == "transcript" and "at most 2,000 characters" in refused.value.message
    assert not ReferenceVoice.objects.exists()
