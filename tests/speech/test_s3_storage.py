"""Audio through Django's storage API on S3-compatible object storage (django-storages), against moto's
S3 server on 127.0.0.1: a synthesized sample's audio and the TTS cache land in the bucket, nothing on the
local disk, and the permission-checked audio view serves it with byte ranges."""

import boto3
import pytest
from moto.server import ThreadedMotoServer

pytestmark = pytest.mark.django_db

KEYS = {"access_key": "testing-key", "secret_key": "testing-secret"}


@pytest.fixture
def s3(settings):
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id=KEYS["access_key"], aws_secret_access_key=KEYS["secret_key"])
    client.create_bucket(Bucket="sori-audio")
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {
            "bucket_name": "sori-audio", "endpoint_url": endpoint, "region_name": "us-east-1", "location": "sori",
            "default_acl": None, "file_overwrite": False, **KEYS}},
    }
    yield client
    server.stop()


def test_synthesized_audio_is_stored_in_the_bucket_and_served_with_ranges(
        s3, admin, voices, ready, fake_speech, client_for, django_capture_on_commit_callbacks, settings):
    from apps.speech import services

    benchmark = ready(["거미는 다리가 몇 개인가요?"])
    with django_capture_on_commit_callbacks(execute=True):
        run = services.start_run(acting_user=admin, benchmark=benchmark)
    attempt = run.samples.get().final_attempt
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket="sori-audio")["Contents"]}
    assert f"sori/{attempt.asset.file.name}" in keys
    assert any(k.startswith("sori/speech/cache/") for k in keys)
    assert not (settings.MEDIA_ROOT / "audio").exists()
    stored = s3.get_object(Bucket="sori-audio", Key=f"sori/{attempt.asset.file.name}")["Body"].read()
    response = client_for(admin).get(attempt.asset.get_absolute_url(), HTTP_RANGE="bytes=0-99")
    assert response.status_code == 206
    assert response["Content-Range"] == f"bytes 0-99/{len(stored)}"
    assert b"".join(response.streaming_content) == stored[:100]
