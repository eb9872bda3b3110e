"""The leaderboard page: the three tables with marks, n and links from each score to the run's items of that
subset, the missing-subset message, the figures as inline SVG (no script), the demo label, and the empty state."""

import re

import pytest
from django.urls import reverse

from apps.evaluation.models import EvaluationRun
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
    assert "no mean" in row and "missing AlpacaEval, CommonEval, WildVoice, SD-QA, BBH, IFEval, AdvBench" in row


def test_a_demo_model_is_labelled_as_demo_answers(admin, client_for):
    vb = source_benchmark("voicebench-demo", "voicebench")
    run = run_with_scores(model("Sori demo model", answer_source="demo"), {"sd-qa": (75.0, 4)}, benchmark=vb)
    EvaluationRun.objects.filter(pk=run.pk).update(answer_source="demo")  # as the demo seeding imports them

    html = client_for(admin).get(reverse("evaluation:leaderboard")).content.decode()

    assert "Demo answers, not a real model" in html and 'id="demo-answers"' in html


def test_a_demo_model_whose_shown_run_has_imported_responses_is_not_labelled_demo(admin, client_for):
    vb = source_benchmark("voicebench-demo", "voicebench")
    run_with_scores(model("Sori demo model", answer_source="demo"), {"sd-qa": (75.0, 4)}, benchmark=vb)  # imported

    html = client_for(admin).get(reverse("evaluation:leaderboard")).content.decode()

    assert 'id="demo-answers"' not in html and '<span class="badge">demo</span>' not in html


def test_signed_out_visitors_are_sent_to_log_in(client):
    page = client.get(reverse("evaluation:leaderboard"))

    assert page.status_code == 302 and "login" in page.url


def test_the_page_says_what_its_tables_are_in_words_not_codes(admin, client_for):
    paper_board(admin)

    html = client_for(admin).get(reverse("evaluation:leaderboard")).content.decode()

    about = re.search(r'<p class="muted" id="leaderboard-about">.*?</p>', html, re.S).group(0)
    assert "Seed 000" not in html and "English-Korean speech benchmark paper" in about
    assert "Table 1" in about and "Table 5" in about and "Table 6" in about
    kmmau = re.search(r'<tr data-capability="fact_extraction">.*?</tr>', html, re.S).group(0)
    assert "Fact Extraction" in kmmau and ">fact_extraction<" not in kmmau
