"""The dashboard's reads and the splits: a fixed number of queries whatever the number of clips, speaker
and text hold-outs from the page, and an evaluation page that says why it gives no interval."""

import pytest

from apps.listening import selectors, services

from .conftest import rate_via_services
from .test_predictions import _csv

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("clips", [6, 24])
def test_drawing_splits_takes_the_same_few_queries_for_any_number_of_clips(make_test, clips, django_assert_max_num_queries):
    test = make_test(clips)
    # the ratings and exclusions, the clips, at most six UPDATEs (one per split and disjoint-flag pair), the
    # test's split parameters, and the savepoint around them
    with django_assert_max_num_queries(12):
        result = services.make_splits(test=test, ratios=(0.5, 0.2, 0.3), seed=3)
    assert sum(result.counts.values()) == clips
    stored = list(test.clips.values_list("split", flat=True))
    assert {s: stored.count(s) for s in ("train", "validation", "test")} == result.counts


@pytest.mark.parametrize("clips", [6, 30])
def test_the_dashboard_reads_a_fixed_number_of_queries(make_test, listeners, clips, django_assert_max_num_queries):
    test = make_test(clips, gold=1)
    for user in listeners[:3]:
        rate_via_services(test, user, score_for=lambda clip: 1 + clip.pk % 5)
    services.exclude_listener(test=test, listener=listeners[2], acting_user=None)
    with django_assert_max_num_queries(6):
        board = selectors.dashboard(test)
    assert board["ratings"] == 2 * clips
    assert [row.excluded for row in board["listeners"]].count(True) == 1


def test_held_out_speakers_reach_test_whole_and_the_page_reports_the_subset_sizes(make_test, admin, client_for):
    test = make_test(30)  # speakers spk0..spk3 with 7 or 8 clips each
    client = client_for(admin)
    form = {"train": 0.5, "validation": 0.2, "test": 0.3, "seed": 1, "hold_out_speakers": 1, "hold_out_texts": 0}
    client.post(f"/listening/manage/tests/{test.pk}/splits/", form)
    test.refresh_from_db()
    held = {s for s in test.clips.filter(speaker_disjoint=True).values_list("speaker", flat=True)}
    assert len(held) == 1
    assert set(test.clips.filter(speaker__in=held).values_list("split", flat=True)) == {"test"}
    sizes = test.split_params["speaker_disjoint"]
    assert sizes == test.clips.filter(speaker__in=held).count() >= 7
    page = client.get(f"/listening/manage/tests/{test.pk}/").content.decode()
    assert f'id="speaker-disjoint">{sizes}<' in page and "holding out 1 speaker and 0 texts" in page

    form["hold_out_speakers"] = 2  # about 15 clips, more than the 9 of test
    response = client.post(f"/listening/manage/tests/{test.pk}/splits/", form, follow=True)
    assert "No split drawn: the held-out speakers and texts have" in response.content.decode()
    test.refresh_from_db()
    assert test.split_params["hold_out_speakers"] == 1  # the earlier split stands


def test_group_tables_label_the_interval_over_ratings_and_over_clips(make_test, listeners, admin, client_for):
    test = make_test(9)
    for i, user in enumerate(listeners[:3]):
        rate_via_services(test, user, score_for=lambda clip, i=i: 1 + (clip.pk + i) % 5)
    page = client_for(admin).get(f"/listening/manage/tests/{test.pk}/").content.decode()
    assert "95&nbsp;% CI over ratings" in page and "95&nbsp;% CI over clips" in page
    assert 'data-ci="clips"' in page


@pytest.fixture
def rated_split(make_test, listeners):
    test = make_test(20)
    for i, user in enumerate(listeners[:3]):
        rate_via_services(test, user, score_for=lambda clip, i=i: 1 + (clip.pk * 3 + i) % 5)
    services.make_splits(test=test, ratios=(0.5, 0.2, 0.3), seed=0)
    return test


def test_a_predictor_constant_on_test_gets_a_reason_instead_of_a_server_error(rated_split, admin, client_for):
    content = _csv(rated_split, lambda c: float(c.pk % 5), "varied") + _csv(rated_split, lambda c: 3.0, "flat").split("\n", 1)[1]
    varied, flat = services.upload_predictions(test=rated_split, content=content, filename="p.csv")
    page = client_for(admin).get(f"/listening/manage/tests/{rated_split.pk}/evaluation/?a={varied.pk}&b={flat.pk}")
    html = page.content.decode()
    assert page.status_code == 200 and 'id="bootstrap"' not in html
    assert "varied against flat on the 6 test clips with both predictions: no interval: the prediction is the same for every clip here (predictor B)." in html
    assert "(the prediction is the same for every clip here)" in html  # the SRCC table says why too


def test_fewer_than_three_test_clips_with_both_predictions_get_a_reason(rated_split, admin, client_for):
    test_clips = set(rated_split.clips.filter(split="test").values_list("pk", flat=True))
    few = sorted(test_clips)[:2]
    content = _csv(rated_split, lambda c: float(c.pk % 5), "a") + _csv(
        rated_split, lambda c: float(c.pk % 3) if c.pk in few or c.pk not in test_clips else float("nan"), "b"
    ).split("\n", 1)[1]
    content = "\n".join(line for line in content.splitlines() if not line.endswith(("nan,b", "nan"))) + "\n"
    a, b = services.upload_predictions(test=rated_split, content=content, filename="p.csv")
    html = client_for(admin).get(f"/listening/manage/tests/{rated_split.pk}/evaluation/?a={a.pk}&b={b.pk}").content.decode()
    assert "on the 2 test clips with both predictions: no interval: only 2 clips (a correlation needs at least 3)." in html
