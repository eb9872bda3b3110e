"""Uploading a published release to a Hugging Face dataset repository, against a fake Hub on 127.0.0.1."""

import hashlib

import pytest

from apps.core.errors import Conflict, InvalidInput
from apps.releases.services import publish_release, upload_to_hub
from tests.releases.hub_server import fake_hub  # noqa: F401 (fixture)


@pytest.mark.django_db
def test_a_published_release_is_uploaded_file_for_file(rated_test, build, admin, fake_hub):  # noqa: F811
    release = build("mos", rated_test, name="komos")
    with pytest.raises(Conflict, match="not published"):
        upload_to_hub(release=release, acting_user=admin, repo_id="sori/komos", token="hf_test")
    release = publish_release(release=release, acting_user=admin)
    with pytest.raises(InvalidInput, match="token"):
        upload_to_hub(release=release, acting_user=admin, repo_id="sori/komos")

    upload = upload_to_hub(release=release, acting_user=admin, repo_id="sori/komos", token="hf_test")
    assert upload.commit_url.startswith(f"{fake_hub.url}/datasets/sori/komos/commit/")
    received = fake_hub.repos["sori/komos"]
    expected = {f.path: f.sha256 for f in release.files.all()}
    assert {p: hashlib.sha256(b).hexdigest() for p, b in received.items() if p != "SHA256SUMS"} == expected
    assert "SHA256SUMS" in received and fake_hub.commits[0]["summary"] == "komos 1.0.0"
    assert ("POST", "/api/validate-yaml") in fake_hub.requests  # the Hub's own check of the card's YAML
