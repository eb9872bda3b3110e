"""The leaderboard page: the three tables with marks, n and links from each score to the run's items of that
subset, the missing-subset message, the figures as inline SVG (no script), the demo label, and the empty state."""

import re

import pytest
from django.urls import reverse

from tests.evaluation.boards import model, paper_board, run_with_scores, source_benchmark

pytestmark = pytest.mark.django_db


def test_the_page_says_what_to_do_when_nothing_is_scored(admin, client_for):
    page = client_for(admin).get(reverse("evaluation:leaderboard"))

    assert page.status_code == 200 and "No run has been scored yet" in page.content.decode()


def test_the_page_shows_tables_1_5_and_6_with_marks_n_and_links_to_items(admin, listener, client_for):
    runs = paper_board(admin)

    html = client_for(listener).get(reverse("evaluation:leaderboard")).content.decode()

    kvb = re.search(r'<tr data-benchmark="kvoicebench">.*?</tr>', html, re.S).group(0)
    assert '<strong class="best">66.6</strong>' in kvb and '<u class="second">50.1</u>' in kvb and "n=900" in kvb
    advbench = re.search(r'<tr data-subset="advbench">.*?</tr>', html, re.S).group(0)
    af3_en, af3_ko = runs[("Audio Flamingo3", "voicebench")], runs[("Audio Flamingo3", "kvoicebench")]
    assert f'href="/evaluation/runs/{af3_en.pk}/?subset=advbench#items"' in advbench
    assert f'href="/evaluation/runs/{af3_ko.pk}/?subset=advbench#items"' in advbench
    assert "KAdvBench" in advbench and "-43.0" in advbench
    assert '<tr data-capability="word_order">' in html and "Average" in html
    assert 'id="gap-figure"' in html and "<script" not in html.split("<main", 1)[-1]
    assert "Spearman" in html and "ranks-kvoicebench-kmmau" in html


def test_a_missing_subset_is_named_on_the_page(admin, client_for):
    vb = source_benchmark("voicebench", "voicebench")
    run_with_scores(model("Qwen2.5-Omni"), {"mmsu": (50.0, 4), "openbookqa": (75.0, 4)}, benchmark=vb)

    html = client_for(admin).get(reverse("evaluation:leaderboard")).content.decode()

    row = re.search(r'<tr data-benchmark="voicebench">.*?</tr>', html, re.S).group(0)
    assert "no mean" in row and "missing alpacaeval, commoneval, wildvoice, sd-qa, bbh, ifeval, advbench" in row


def test_a_demo_model_is_labelled_as_demo_answers(admin, client_for):
    vb = source_benchmark("voicebench-demo", "voicebench")
    run_with_scores(model("Sori demo model", answer_source="demo"), {"sd-qa": (75.0, 4)}, benchmark=vb)

    html = client_for(admin).get(reverse("evaluation:leaderboard")).content.decode()

    assert "Demo answers, not a real model" in html and 'id="demo-answers"' in html


def test_signed_out_visitors_are_sent_to_log_in(client):
    page = client.get(reverse("evaluation:leaderboard"))

    assert page.status_code == 302 and "login" in page.url
