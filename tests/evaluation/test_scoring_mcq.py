"""Multiple choice read from free text the way VoiceBench's mcq evaluator reads it, with the Korean labels
ㄱ/ㄴ/ㄷ/ㄹ and Korean answer phrasings."""

import pytest

from apps.evaluation.scoring import score_response
from apps.evaluation.scoring.mcq import extract_choice, reference_label

LATIN = ("A", "B", "C", "D")
KOREAN = ("ㄱ", "ㄴ", "ㄷ", "ㄹ")


@pytest.mark.parametrize("response, expected", [
    ("The answer is B.", "B"),
    ("B", "B"),
    ("c) Sedimentary rock", "C"),
    ("Let me think. Option A is wrong... so the correct answer is D, because it is warm.", "D"),
    ("I would choose option C here.", "C"),
    ("<2>The answer is (A)", "A"),
    ("The answer is: **B) sedimentary**", "B"),
])
def test_it_reads_english_answers_like_voicebench(response, expected):
    assert extract_choice(response, LATIN)[0] == expected


def test_the_first_matching_template_decides_not_the_first_label_in_the_text():
    # " a." (a late, generic template) occurs before "the answer is c" (an early, specific one).
    response = "Igneous rock is a. not right here; the answer is c"
    assert extract_choice(response, LATIN)[0] == "C"


@pytest.mark.parametrize("response, expected", [
    ("정답은 ㄴ입니다.", "ㄴ"),
    ("ㄴ번", "ㄴ"),
    ("답: ㄷ", "ㄷ"),
    ("ㄱ은 화성암이고 ㄴ은 퇴적암입니다. 정답은 ㄹ 변성암입니다.", "ㄹ"),
    ("ㄱ이 아니라 ㄷ이 정답이에요.", "ㄷ"),
    ("보기 ㄴ을 선택하겠습니다.", "ㄴ"),
    ("정답은 니은입니다.", "ㄴ"),
    ("The answer is ㄹ.", "ㄹ"),
    ("ㄷ. 변성암", "ㄷ"),
])
def test_it_reads_korean_labels_and_phrasings(response, expected):
    assert extract_choice(response, KOREAN)[0] == expected


def test_a_response_naming_no_option_extracts_nothing():
    assert extract_choice("잘 모르겠습니다.", KOREAN) == (None, None)
    assert extract_choice("I am not sure about this one", LATIN) == (None, None)


@pytest.mark.parametrize("answer, label", [("B", "B"), ("(B)", "B"), ("b.", "B"), ("ㄴ", "ㄴ"), ("(ㄷ)", "ㄷ"),
                                           ("Paris", None)])
def test_it_reads_the_reference_label(answer, label):
    assert reference_label(answer) == label


def test_a_korean_item_scores_one_for_the_right_option_and_zero_for_another():
    item = {"question": "다음 중 퇴적암은? ㄱ. 화강암 ㄴ. 사암 ㄷ. 현무암 ㄹ. 대리암", "answer": "ㄴ", "aliases": []}
    right = score_response("mcq", item, "정답은 ㄴ, 사암입니다.", language="ko")
    wrong = score_response("mcq", item, "답: ㄷ", language="ko")
    assert (right.score, right.detail["extracted"]) == (1.0, "ㄴ")
    assert (wrong.score, wrong.detail["extracted"]) == (0.0, "ㄷ")
    assert right.evaluator == "mcq" and right.version == "mcq-1"


def test_an_unreadable_answer_scores_zero_not_a_random_guess():
    item = {"question": "Which is sedimentary? A. granite B. sandstone", "answer": "B", "aliases": []}
    results = {score_response("mcq", item, "Rocks are interesting.", language="en").score for _ in range(20)}
    assert results == {0.0}
    assert score_response("mcq", item, "Rocks are interesting.", language="en").detail["extracted"] is None
