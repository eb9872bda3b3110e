"""Exports: CSV and Parquet with headers, the BVCC-style file, stable pseudonyms without usernames."""

import csv
import io
import zipfile

import pandas as pd
import pytest
from django.core.management import call_command

from apps.accounts.models import Pseudonym
from apps.accounts.pseudonyms import LISTENING
from apps.listening import services

from .conftest import rate_via_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated_test(make_test, listeners, admin):
    test = make_test(6, gold=1)
    for i, user in enumerate(listeners[:6]):
        rate_via_services(test, user, score_for=lambda clip, i=i: 5 if clip.is_gold else 1 + (clip.pk + i) % 5)
    services.exclude_listener(test=test, listener=listeners[0], acting_user=admin)
    rate_via_services(test, listeners[6], score_for=lambda clip: 4 if clip.is_gold else 3)
    services.make_splits(test=test, ratios=(0.5, 0.17, 0.33), seed=1)
    return test


def test_the_command_writes_every_file_with_headers_and_pseudonyms(rated_test, listeners, tmp_path):
    out = tmp_path / "export"
    call_command("export_listening_test", str(rated_test.pk), "--out", str(out))
    ratings = pd.read_csv(out / "ratings.csv")
    assert list(ratings.columns) == ["clip_id", "audio", "listener", "score", "rated_at", "flags", "instructions_version"]
    assert len(ratings) == 6 * 6 + 7  # raw: excluded listener included, gold included
    clips = pd.read_csv(out / "clips.csv")
    assert list(clips.columns)[:2] == ["clip_id", "audio"]
    assert {"text", "speaker", "source_type", "style", "category", "system", "n", "mos_mean", "mos_median", "std",
            "ci95", "split", "speaker_disjoint", "text_disjoint"} <= set(clips.columns)
    assert len(clips) == 6 and (clips["n"] == 5).all()
    assert set(clips["split"]) == {"train", "validation", "test"}
    assert pd.read_parquet(out / "ratings.parquet").shape == ratings.shape
    assert pd.read_parquet(out / "clips.parquet")["mos_mean"].round(6).tolist() == clips["mos_mean"].round(6).tolist()
    for audio in clips["audio"]:
        assert (out / audio).is_file()

    text = "\n".join((out / name).read_text() for name in ("ratings.csv", "clips.csv", "listener_ratings.csv"))
    for user in listeners:
        assert user.username not in text
    excluded = Pseudonym.objects.get(scope=LISTENING, user=listeners[0]).value
    assert set(ratings.loc[ratings["listener"] == excluded, "flags"].str.contains("excluded_listener")) == {True}
    assert ratings["flags"].fillna("").str.contains("gold").sum() == 7

    bvcc = list(csv.reader(io.StringIO((out / "listener_ratings.csv").read_text())))
    assert len(bvcc) == 6 * 5  # clean ratings of regular clips, no header
    system, clip_file, score, ignore, listener_field = bvcc[0]
    assert system in {"sys0", "sys1"} and clip_file.endswith(".wav") and score in "12345" and ignore == "0"
    assert listener_field.startswith("{}_na_") and listener_field.endswith("_na_na_na_na")
    assert listener_field.split("_")[2] in set(ratings["listener"]) and excluded not in listener_field

    # Stable: a second export names everyone the same.
    again = tmp_path / "again"
    call_command("export_listening_test", rated_test.name, "--out", str(again), "--no-audio")
    assert pd.read_csv(again / "ratings.csv")["listener"].tolist() == ratings["listener"].tolist()
    assert not (again / "audio").exists()


def test_the_admin_downloads_the_same_export_as_a_zip(rated_test, admin, listener, client_for):
    response = client_for(admin).get(f"/listening/manage/tests/{rated_test.pk}/export.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert response["X-Content-Type-Options"] == "nosniff"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    for name in ("ratings.csv", "clips.csv", "ratings.parquet", "clips.parquet", "listener_ratings.csv"):
        assert any(n.endswith("/" + name) for n in names)
    assert sum(1 for n in names if "/audio/" in n) == 7
    assert client_for(listener).get(f"/listening/manage/tests/{rated_test.pk}/export.zip").status_code == 403


def test_splits_from_the_page_are_stratified_and_flag_disjoint_test_clips(make_test, listeners, admin, client_for):
    test = make_test(30)
    for i, user in enumerate(listeners[:5]):
        rate_via_services(test, user, score_for=lambda clip, i=i: 1 + (clip.pk * 7 + i) % 5)
    client_for(admin).post(f"/listening/manage/tests/{test.pk}/splits/", {"train": 0.8, "validation": 0.1, "test": 0.1, "seed": 4})
    splits = list(test.clips.values_list("split", flat=True))
    assert (splits.count("train"), splits.count("validation"), splits.count("test")) == (24, 3, 3)
    test.refresh_from_db()
    assert test.split_params["seed"] == 4
    seen = {c.speaker for c in test.clips.exclude(split="test")}
    for clip in test.clips.filter(split="test"):
        assert clip.speaker_disjoint == (clip.speaker not in seen)
    # Same seed, same split.
    before = dict(test.clips.values_list("pk", "split"))
    services.make_splits(test=test, ratios=(0.8, 0.1, 0.1), seed=4)
    assert dict(test.clips.values_list("pk", "split")) == before
