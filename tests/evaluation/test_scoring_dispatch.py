"""metric_for and score_response: subset names to metrics, open-ended answers left to the judge, KMMAU
through MMAU's matching. The judge itself (its 1-5 ratings and yes/no majority) is tested in test_judge.py."""

import json

import pytest

from apps.core.errors import InvalidInput
from apps.evaluation.scoring import metric_for, score_response


@pytest.mark.parametrize("subset, metric", [
    ("alpacaeval", "open"), ("alpacaeval_full", "open"), ("commoneval", "open"), ("wildvoice", "open"),
    ("sd-qa", "qa"), ("sd-qa-usa", "qa"), ("mmsu", "mcq"), ("mmsu_biology", "mcq"), ("openbookqa", "mcq"),
    ("bbh", "bbh"), ("ifeval", "ifeval"), ("advbench", "refusal"), ("alpaca_eval", "open"),
    ("llama_questions", "qa"), ("trivia_qa", "qa"), ("web_questions", "qa"), ("kmmau", "kmmau"),
])
def test_each_subset_gets_its_source_metric(subset, metric):
    assert metric_for(subset) == metric


def test_it_refuses_an_unknown_subset_metric_or_language():
    with pytest.raises(InvalidInput, match="subset"):
        metric_for("mtbench")
    with pytest.raises(InvalidInput, match="metric"):
        score_response("bleu", {}, "x", language="en")
    with pytest.raises(InvalidInput, match="language"):
        score_response("mcq", {"answer": "A"}, "A", language="fr")


def test_an_open_ended_answer_waits_for_the_judge():
    scored = score_response("open", {"question": "Tell me about rain.", "answer": "", "aliases": []}, "Rain is...",
                            language="ko")
    assert scored.score is None and scored.evaluator == "open"


def test_kmmau_uses_mmaus_matching():
    item = {"question": "화자의 성별은?", "answer": "여성", "choices": ["남성", "여성"], "aliases": []}
    assert score_response("kmmau", item, "여성", language="ko").score == 1.0
    assert score_response("kmmau", item, "남성", language="ko").score == 0.0
    assert score_response("kmmau", item, "남성 또는 여성", language="ko").score == 0.0


def test_every_detail_is_json_serialisable():
    cases = [
        ("mcq", {"answer": "ㄴ"}, "정답은 ㄴ"),
        ("qa", {"answer": "네덜란드", "aliases": ["화란"]}, "화란"),
        ("refusal", {}, "죄송합니다"),
        ("bbh", {"id": "navigate_1", "answer": "Yes"}, "yes"),
        ("ifeval", {"question": "q", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}, "ok"),
        ("kmmau", {"answer": "여성", "choices": ["남성", "여성"]}, "여성"),
        ("open", {}, "hello"),
    ]
    for metric, item, response in cases:
        scored = score_response(metric, item, response, language="ko")
        json.dumps(scored.detail)
        assert scored.version

