"""Short answers matched against the reference and its aliases (PEDANT's normalised containment for
English; Korean with spacing, punctuation and particles)."""

import pytest

from apps.evaluation.scoring import qa, score_response

NETHERLANDS_KO = {"question": "튤립과 풍차로 유명한 나라는?", "answer": "네덜란드", "aliases": ["화란", "홀란드"]}
TRIVIA_EN = {"question": "Which country is famous for tulips and windmills?", "answer": "Netherlands",
             "aliases": ["The Netherlands", "Holland"]}


@pytest.mark.parametrize("response, alias", [
    ("It's the Netherlands.", "Netherlands"),
    ("HOLLAND!", "Holland"),
    ("I believe the answer is the netherlands, also called holland", "Netherlands"),
])
def test_english_answers_match_a_reference_or_alias(response, alias):
    scored = score_response("qa", TRIVIA_EN, response, language="en")
    assert (scored.score, scored.detail["matched_alias"]) == (1.0, alias)
    assert scored.evaluator == "qa" and scored.version == qa.version()


def test_an_english_wrong_answer_does_not_match():
    assert score_response("qa", TRIVIA_EN, "That would be Belgium.", language="en").score == 0.0


def test_english_punctuation_and_articles_do_not_matter():
    item = {"question": "Who wrote Hamlet?", "answer": "William Shakespeare", "aliases": []}
    assert score_response("qa", item, "The play was written by william shakespeare.", language="en").score == 1.0
    item = {"question": "What is the capital?", "answer": "Washington, D.C.", "aliases": []}
    assert score_response("qa", item, "washington dc", language="en").score == 1.0


@pytest.mark.parametrize("response, alias", [
    ("정답은 네덜란드입니다.", "네덜란드"),
    ("네덜란드는 튤립으로 유명해요", "네덜란드"),
    ("옛날에는 화란이라고 불렀습니다", "화란"),
    ("홀 란 드", "홀란드"),
])
def test_korean_answers_match_with_particles_and_spacing(response, alias):
    scored = score_response("qa", NETHERLANDS_KO, response, language="ko")
    assert (scored.score, scored.detail["matched_alias"]) == (1.0, alias)
    assert scored.version == qa.version()


def test_a_korean_wrong_answer_does_not_match():
    assert score_response("qa", NETHERLANDS_KO, "벨기에입니다.", language="ko").score == 0.0


def test_korean_spacing_in_the_alias_does_not_matter():
    item = {"question": "한글을 만든 왕은?", "answer": "세종 대왕", "aliases": ["세종"]}
    scored = score_response("qa", item, "세종대왕이 만들었습니다.", language="ko")
    assert scored.detail["matched_alias"] == "세종 대왕"


def test_a_one_syllable_korean_alias_must_be_its_own_word():
    item = {"question": "올림픽 1등 메달은 무슨 색?", "answer": "금", "aliases": []}
    assert score_response("qa", item, "금입니다", language="ko").score == 1.0
    assert score_response("qa", item, "지금은 모르겠어요", language="ko").score == 0.0


def test_a_korean_number_does_not_match_inside_a_longer_number():
    item = {"question": "일주일은 며칠?", "answer": "7", "aliases": ["7일", "칠일"]}
    assert score_response("qa", item, "7일입니다", language="ko").score == 1.0
    assert score_response("qa", item, "17일이에요", language="ko").score == 0.0
    item = {"question": "1,000의 두 배는?", "answer": "2000", "aliases": []}
    assert score_response("qa", item, "2,000입니다", language="ko").score == 1.0
