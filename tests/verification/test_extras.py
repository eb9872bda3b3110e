"""Visual media, the scoring command, and the demo data."""

import io
import json

import pytest
from django.core.management import call_command

from apps.verification.models import ItemStatus, VerificationItem, VerificationProject
from apps.verification.services import import_items, next_item
from tests.verification.conftest import record


@pytest.mark.django_db
def test_an_item_may_carry_an_image_that_only_its_reviewers_and_admins_see(hpsu, annotators, admin, client_for):
    (hpsu.media / "Images").mkdir(parents=True)
    (hpsu.media / "Images/v1.png").write_bytes(b"\x89PNG\r\n\x1a\nfake-but-present")
    path = hpsu.write([record("v1", image_path="Images/v1.png")])
    project = import_items(project_name="Visual", file_path=path, media_dir=hpsu.media).project
    item = VerificationItem.objects.get(project=project)
    assert item.visual_kind == "image"
    assert client_for(annotators[0]).get(f"/verification/items/{item.pk}/visual/").status_code == 403
    next_item(project=project, acting_user=annotators[0])
    response = client_for(annotators[0]).get(f"/verification/items/{item.pk}/visual/")
    assert response.status_code == 200 and b"".join(response.streaming_content).startswith(b"\x89PNG")
    assert client_for(admin).get(f"/verification/items/{item.pk}/visual/").status_code == 200


@pytest.mark.django_db
def test_a_missing_image_is_refused_like_missing_audio(hpsu):
    from apps.core.errors import FileRefused

    with pytest.raises(FileRefused) as caught:
        import_items(project_name="Visual", file_path=hpsu.write([record("v2", video_path="Video/v2.mp4")]), media_dir=hpsu.media)
    assert caught.value.lines() == [f"items.json line 2: video_path: missing media 'Video/v2.mp4' (not found under {hpsu.media})"]


@pytest.mark.django_db
def test_the_scoring_command_scores_a_predictions_file_against_accepted_items(make_project, tmp_path):
    project = make_project(records=[record("s1"), record("s2"), record("s3")])
    VerificationItem.objects.filter(external_id__in=["s1", "s2"]).update(status=ItemStatus.ACCEPTED, settled_at="2026-01-01T00:00Z")
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text('{"id": "s1", "prediction": "Complain"}\n{"id": "s2", "prediction": "Thanks"}\n')
    out = io.StringIO()
    call_command("score_verification", project.name, "--predictions", str(predictions), "--model", "M", stdout=out)
    report = json.loads(out.getvalue())
    assert report["overall"] == 50.0 and report["tiers"]["Intent"] == {"true": 1, "opposite": 1}
    assert project.scoring_runs.get().name == "M"


@pytest.mark.django_db
def test_the_demo_project_is_seeded_once_with_korean_audio(annotators):
    from django.apps import apps

    config = apps.get_app_config("verification")
    out = io.StringIO()
    config.seed_demo(out)
    config.seed_demo(out)
    project = VerificationProject.objects.get()
    items = list(project.items.all())
    assert len(items) == 10 and len({i.task for i in items}) >= 8
    assert {i.language for i in items} == {"ko"} and all(i.audio.duration_seconds > 0.5 for i in items)
    assert "already there" in out.getvalue()
