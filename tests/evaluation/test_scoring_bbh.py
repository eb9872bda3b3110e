"""BBH / KBBH answers read the way VoiceBench's bbh evaluator reads them, plus Korean phrasings."""

import pytest

from apps.core.errors import InvalidInput
from apps.evaluation.scoring import score_response
from apps.evaluation.scoring.bbh import read_answer


@pytest.mark.parametrize("task, response, expected", [
    ("sports_understanding", "The sentence is not plausible.", 0),
    ("sports_understanding", "Yes, the sentence is plausible.", 1),
    ("navigate", "After these steps, you return to the starting point. The answer is yes.", 1),
    ("navigate", "You do not return to the starting point.", 0),
    ("web_of_lies", "So, the answer is: No.", 0),
    ("web_of_lies", "Therefore Jim tells the truth", 1),
    ("hyperbaton", "The answer is (B).", 1),
    ("hyperbaton", "Option A has the correct adjective order.", 0),
])
def test_it_reads_english_answers_like_voicebench(task, response, expected):
    assert read_answer(task, response, language="en")[0] == expected


def test_a_bare_b_reads_as_option_b_where_voicebench_read_a():
    assert read_answer("hyperbaton", "B", language="en")[0] == 1
    assert read_answer("hyperbaton", "a", language="en")[0] == 0


def test_the_sentence_is_not_plausible_reads_as_no_where_voicebench_read_yes():
    response = "Well, considering it all, the sentence about the goalie is not plausible for me"
    assert read_answer("sports_understanding", response, language="en")[0] == 0


@pytest.mark.parametrize("task, response, expected", [
    ("sports_understanding", "이 문장은 그럴듯하지 않습니다.", 0),
    ("sports_understanding", "네, 그럴듯합니다.", 1),
    ("navigate", "이 지시를 따르면 출발점으로 다시 돌아옵니다.", 1),
    ("navigate", "아니요, 출발점으로 돌아오지 않습니다.", 0),
    ("web_of_lies", "따라서 민수는 거짓말을 합니다.", 0),
    ("web_of_lies", "정답은 예입니다.", 1),
    ("hyperbaton", "정답은 ㄴ입니다.", 1),
])
def test_it_reads_korean_answers(task, response, expected):
    assert read_answer(task, response, language="ko")[0] == expected


def test_an_unreadable_answer_scores_zero_not_a_coin_flip():
    item = {"id": "navigate_3", "question": "...", "answer": "Yes", "aliases": []}
    scored = score_response("bbh", item, "Hmm, let me think about directions.", language="en")
    assert scored.score == 0.0 and scored.detail["extracted"] is None


def test_a_kbbh_item_scores_against_its_korean_reference():
    item = {"id": "web_of_lies_41", "question": "...", "answer": "아니요", "aliases": []}
    assert score_response("bbh", item, "지수는 거짓말을 하고 있습니다.", language="ko").score == 1.0
    assert score_response("bbh", item, "지수는 진실을 말합니다.", language="ko").score == 0.0
    item = {"id": "hyperbaton_7", "question": "...", "answer": "(ㄱ)", "aliases": []}
    scored = score_response("bbh", item, "ㄱ번이 맞습니다.", language="ko")
    assert scored.score == 1.0 and scored.version == "bbh-1"


def test_it_refuses_an_item_whose_task_it_cannot_tell():
    with pytest.raises(InvalidInput, match="task"):
        score_response("bbh", {"id": "date_understanding_1", "answer": "Yes"}, "yes", language="en")
