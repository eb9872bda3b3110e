"""Uploading predictor outputs and the evaluation page (SRCC/LCC per split, calibration, bootstrap)."""

import numpy as np
import pytest
from scipy import stats as sps

from apps.core.errors import FileRefused
from apps.listening import selectors, services
from apps.listening.evaluation import fit_affine

from .conftest import rate_via_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def split_test(make_test, listeners):
    test = make_test(30)
    for i, user in enumerate(listeners[:5]):
        rate_via_services(test, user, score_for=lambda clip, i=i: 1 + (clip.pk * 3 + (i % 2)) % 5)
    services.make_splits(test=test, ratios=(0.6, 0.2, 0.2), seed=0)
    return test


def _csv(test, fn, predictor=None):
    lines = ["clip_id,score" + (",predictor" if predictor else "")]
    for clip in test.clips.regular():
        lines.append(f"{clip.clip_id},{fn(clip):.4f}" + (f",{predictor}" if predictor else ""))
    return "\n".join(lines) + "\n"


def test_bad_prediction_rows_are_named_by_line(split_test):
    content = "clip_id,score\nt1c000,3.1\nnope,2\nt1c001,abc\nt1c000,2.0\n"
    with pytest.raises(FileRefused) as refused:
        services.upload_predictions(test=split_test, content=content, filename="p.csv", name="m")
    assert refused.value.lines() == [
        "p.csv line 3: clip_id: unknown clip id 'nope'",
        "p.csv line 4: score: Input should be a valid number, unable to parse string as a number",
        "p.csv line 5: predictor, clip_id: ('m', 't1c000') repeats line 2",
    ]
    assert not split_test.predictors.exists()


def test_evaluation_matches_scipy_per_split_and_calibrates_on_validation(split_test, admin, client_for):
    table = selectors.clean_clip_table(split_test)
    rng = np.random.default_rng(0)
    noise = {c.pk: rng.normal(0, 0.4) for c in split_test.clips.all()}
    content = _csv(split_test, lambda c: 0.5 * table.loc[c.pk, "mos_mean"] + noise[c.pk], "good")
    content += _csv(split_test, lambda c: float(rng.uniform(1, 5)), "random").split("\n", 1)[1]
    stored = services.upload_predictions(test=split_test, content=content, filename="p.csv")
    assert sorted(p.name for p in stored) == ["good", "random"]
    good, rnd = sorted(stored, key=lambda p: p.name)

    result = selectors.evaluate_predictors(split_test, [good, rnd], compare=(good, rnd), seed=7, resamples=2000)
    frame = selectors.evaluation_frame(split_test, [good])
    test_rows = frame[frame["split"] == "test"]
    good_result = result["results"][0]
    by_key = {row["key"]: row for row in good_result["rows"]}
    assert by_key["test"]["raw"].srcc == pytest.approx(sps.spearmanr(test_rows["human"], test_rows["good"]).statistic)
    assert by_key["test"]["raw"].lcc == pytest.approx(sps.pearsonr(test_rows["human"], test_rows["good"]).statistic)
    val = frame[frame["split"] == "validation"]
    expected = fit_affine(val["good"], val["human"])
    assert (good_result["calibration"].a, good_result["calibration"].b) == pytest.approx((expected.a, expected.b))
    calibrated = np.clip(expected.a * test_rows["good"] + expected.b, 1, 5)
    assert by_key["test"]["calibrated"].lcc == pytest.approx(sps.pearsonr(test_rows["human"], calibrated).statistic)
    assert good_result["scatter_svg"].startswith("<svg")
    again = selectors.evaluate_predictors(split_test, [good, rnd], compare=(good, rnd), seed=7, resamples=2000)
    assert (result["bootstrap"].ci_low, result["bootstrap"].ci_high) == (again["bootstrap"].ci_low, again["bootstrap"].ci_high)

    page = client_for(admin).get(f"/listening/manage/tests/{split_test.pk}/evaluation/?a={good.pk}&b={rnd.pk}&seed=7")
    html = page.content.decode()
    assert page.status_code == 200 and 'id="bootstrap"' in html and "10000 paired resamples" in html
    assert 'data-subset="test_speaker_disjoint"' in html and "<svg" in html


def test_the_upload_page_stores_a_named_predictor(split_test, admin, client_for):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("utmos.csv", _csv(split_test, lambda c: 3.0 + (c.pk % 3) / 2).encode())
    response = client_for(admin).post(f"/listening/manage/tests/{split_test.pk}/predictions/", {"name": "UTMOS v1", "file": upload})
    assert response.status_code == 302 and response.url.endswith("/evaluation/")
    assert split_test.predictors.get().predictions.count() == 30
