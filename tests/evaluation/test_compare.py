"""Two runs on the same items: the paired difference per subset with a paired bootstrap 95% interval, by each
subset's reported method, only over items both runs scored; a gap the items support is told from one they do
not; runs with nothing in common are refused; the page and the API."""

import re

import pytest
from django.urls import reverse

from apps.evaluation.leaderboard import selectors as leaderboard
from apps.evaluation.models import SubsetScore
from tests.evaluation.boards import model, run_with_scores, scored_items, source_benchmark

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_runs(db):
    """Qwen twice on VoiceBench: mmsu clearly better the second time (30 items: 27 right vs 9), openbookqa the
    same but for one item of 30; sd-qa judged (primary) and also matched by rule (not compared)."""
    vb = source_benchmark("voicebench", "voicebench")
    m = model("Qwen2.5-Omni")
    a = run_with_scores(m, {"mmsu": (90.0, 30), "openbookqa": (50.0, 30)}, benchmark=vb)
    b = run_with_scores(m, {"mmsu": (30.0, 30), "openbookqa": (46.7, 30)}, benchmark=vb)
    scored_items(a, "mmsu", [1.0] * 27 + [0.0] * 3)
    scored_items(b, "mmsu", [1.0] * 9 + [0.0] * 21)
    scored_items(a, "openbookqa", [1.0, 0.0] * 15)
    scored_items(b, "openbookqa", [1.0, 0.0] * 14 + [0.0, 0.0])
    for run, judged in ((a, [1.0, 1.0, None]), (b, [0.0, 0.0, 1.0])):
        SubsetScore.objects.create(run=run, subset="sd-qa", metric="qa", method="judge", score=50, n=2, primary=True)
        scored_items(run, "sd-qa", judged, method="judge", metric="qa")
    return a, b


def test_a_clear_gap_has_an_interval_above_zero_and_a_tiny_one_contains_zero(two_runs):
    a, b = two_runs

    result = leaderboard.compare(a, b, resamples=2000)

    subsets = {s["subset"]: s for s in result["subsets"]}
    mmsu, obqa = subsets["mmsu"], subsets["openbookqa"]
    assert mmsu["n"] == 30 and mmsu["diff"] == pytest.approx(60.0) and mmsu["ci_low"] > 30 and mmsu["clear"]
    assert obqa["diff"] == pytest.approx(100 / 30) and obqa["ci_low"] <= 0 <= obqa["ci_high"] and not obqa["clear"]
    assert mmsu["mean_a"] == pytest.approx(90.0) and mmsu["mean_b"] == pytest.approx(30.0)


def test_only_items_both_runs_scored_are_paired_by_the_reported_method(two_runs):
    a, b = two_runs

    result = leaderboard.compare(a, b, resamples=500)

    sdqa = next(s for s in result["subsets"] if s["subset"] == "sd-qa")
    assert sdqa["method"] == "judge" and sdqa["n"] == 2  # the third item is unscored in A
    assert sdqa["diff"] == pytest.approx(100.0)
    assert result["overall"]["n"] == 62 and result["same_benchmark"]


def test_the_interval_is_the_same_for_the_same_seed(two_runs):
    a, b = two_runs

    first, again = leaderboard.compare(a, b, resamples=500, seed=3), leaderboard.compare(a, b, resamples=500, seed=3)

    assert first == again


def test_it_refuses_runs_without_a_scored_item_in_common(two_runs, admin):
    a, _ = two_runs
    other = run_with_scores(model("MiniCPM-o"), {"mmsu": (50.0, 2)}, benchmark=source_benchmark("voicebench", "voicebench"))
    scored_items(other, "mmsu", [1.0, 0.0], prefix="elsewhere-")

    from apps.core.errors import Conflict

    with pytest.raises(Conflict, match="no scored items in common"):
        leaderboard.compare(a, other)


def test_the_page_shows_each_subset_with_its_interval(two_runs, admin, client_for):
    a, b = two_runs

    html = client_for(admin).get(reverse("evaluation:compare"), {"a": a.pk, "b": b.pk}).content.decode()

    assert 'data-subset="mmsu"' in html and "beyond noise" in html and "within noise" in html
    mmsu = re.search(r'<tr data-subset="mmsu">.*?</tr>', html, re.S).group(0)
    assert "<td>&lt; 0.001</td>" in mmsu  # a Monte Carlo p is not shown as 0.000
    assert f'href="/evaluation/runs/{a.pk}/?subset=mmsu#items"' in html


def test_the_page_names_a_refusal(two_runs, admin, client_for):
    a, _ = two_runs

    html = client_for(admin).get(reverse("evaluation:compare"), {"a": a.pk, "b": a.pk}).content.decode()

    assert 'id="compare-error"' in html and "two different runs" in html


def test_the_api_compares_two_runs(two_runs, admin, api_client):
    a, b = two_runs
    api_client.force_authenticate(admin)

    answer = api_client.get("/api/evaluation/compare/", {"a": a.pk, "b": b.pk, "resamples": 500})

    assert answer.status_code == 200
    body = answer.json()
    assert body["resamples"] == 500 and {s["subset"] for s in body["subsets"]} == {"mmsu", "openbookqa", "sd-qa"}
    assert body["overall"]["n"] == 62


@pytest.mark.parametrize(("query", "status", "code"), [
    ({"a": "x", "b": "1"}, 400, "invalid"),
    ({"a": 1}, 400, "invalid"),
    ({"a": 999999, "b": 999998}, 404, "not_found"),
])
def test_the_api_refuses_bad_queries(admin, api_client, query, status, code):
    api_client.force_authenticate(admin)

    answer = api_client.get("/api/evaluation/compare/", query)

    assert answer.status_code == status and answer.json()["code"] == code


def test_the_api_answers_409_for_runs_with_nothing_in_common(two_runs, admin, api_client):
    a, _ = two_runs
    other = run_with_scores(model("MiniCPM-o"), {"mmsu": (50.0, 2)}, benchmark=source_benchmark("voicebench", "voicebench"))
    scored_items(other, "mmsu", [1.0], prefix="elsewhere-")
    api_client.force_authenticate(admin)

    answer = api_client.get("/api/evaluation/compare/", {"a": a.pk, "b": other.pk})

    assert answer.status_code == 409 and answer.json()["code"] == "no_common_items"


def test_four_identical_differences_are_too_few_to_tell_not_beyond_noise(admin, client_for):
    """A right and B wrong on each of four items: no spread, so a bootstrap interval is the point [100, 100];
    an exact sign-flip test gives p = 2/16, and four items are too few for any outcome to be told from noise."""
    vb = source_benchmark("voicebench", "voicebench")
    a = run_with_scores(model("Qwen2.5-Omni"), {"mmsu": (100.0, 4)}, benchmark=vb)
    b = run_with_scores(model("MiniCPM-o"), {"mmsu": (0.0, 4)}, benchmark=vb)
    scored_items(a, "mmsu", [1.0] * 4)
    scored_items(b, "mmsu", [0.0] * 4)

    result = leaderboard.compare(a, b, resamples=500)
    html = client_for(admin).get(reverse("evaluation:compare"), {"a": a.pk, "b": b.pk}).content.decode()

    assert result["overall"]["diff"] == pytest.approx(100.0)
    assert result["overall"]["verdict"] == "too_few" and not result["overall"]["clear"]
    assert result["overall"]["ci_low"] is None and result["overall"]["p"] is None
    row = re.search(r'<tr data-subset="all">.*?</tr>', html, re.S).group(0)
    assert "too few items to tell" in row and "beyond noise" not in row


def test_a_subset_of_one_item_is_compared_as_too_few_instead_of_refusing_the_comparison(two_runs):
    a, b = two_runs
    scored_items(a, "bbh", [1.0])
    scored_items(b, "bbh", [0.0])
    SubsetScore.objects.create(run=a, subset="bbh", metric="bbh", method="rule", score=100, n=1, primary=True)

    result = leaderboard.compare(a, b, resamples=500)

    bbh = next(s for s in result["subsets"] if s["subset"] == "bbh")
    assert bbh["n"] == 1 and bbh["verdict"] == "too_few"


def test_the_page_names_subsets_and_methods_in_words(two_runs, admin, client_for):
    a, b = two_runs

    html = client_for(admin).get(reverse("evaluation:compare"), {"a": a.pk, "b": b.pk}).content.decode()

    row = re.search(r'<tr data-subset="sd-qa">.*?</tr>', html, re.S).group(0)
    assert ">SD-QA</a>" in row and "LLM judge" in row
    assert ">OpenBookQA</a>" in html and ">openbookqa</a>" not in html
