"""KMMAU read by the `sori` reader: the choice an answer asserts, matched through Korean morphology and numbers
in words, negated choices dropped, two asserted choices ambiguous; MMAU's matching kept as score_mmau."""

import json

import pytest

from apps.core.errors import InvalidInput
from apps.evaluation.scoring import kmmau, score_response

GENDER = {"question": "화자의 성별은 무엇입니까?", "choices": ["남성", "여성"], "answer": "여성"}
AGE = {"question": "화자의 연령대는?", "choices": ["20대", "40대", "60대"], "answer": "40대"}
SPEAKERS = {"question": "대화에 참여한 사람은 몇 명입니까?", "choices": ["1명", "2명", "3명", "4명"], "answer": "2명"}
FREQUENCY = {"question": "'사과'라는 단어는 몇 번 나왔나요?", "choices": ["1번", "2번", "3번", "4번"], "answer": "3번"}
TOPIC = {"question": "이 대화의 주제는 무엇입니까?", "choices": ["날씨", "음식", "여행 계획", "운동"],
         "answer": "여행 계획"}
ROLE = {"question": "화자의 직업은 무엇일까요?", "choices": ["의사", "교사", "요리사", "운전기사"], "answer": "교사"}


def read(item, response, language="ko"):
    return kmmau.score(item, response, language=language)


def assert_reads(item, response, expected, language="ko"):
    scored = read(item, response, language)
    assert scored.detail["extracted"] == expected, (response, scored.detail)
    assert scored.score == float(expected == item["answer"])


# ------------------------------------------------------------------ particles and copulas

@pytest.mark.parametrize("item, response, expected", [
    (GENDER, "여성", "여성"),
    (GENDER, "여성입니다.", "여성"),
    (GENDER, "여성이에요", "여성"),
    (GENDER, "여성으로 보입니다.", "여성"),
    (GENDER, "목소리를 들어 보면 여성으로 추정돼요.", "여성"),
    (GENDER, "화자는 여성이야.", "여성"),
    (GENDER, "**여성**", "여성"),
    (GENDER, "답: 남성", "남성"),
    (GENDER, "남성인 것 같습니다.", "남성"),
    (GENDER, "화자는 여성분이세요.", "여성"),
    (GENDER, "여자 목소리예요.", "여성"),
    (GENDER, "The speaker is female.", "여성"),
    (GENDER, "It sounds like a man.", "남성"),
    (AGE, "40대입니다.", "40대"),
    (AGE, "40대로 추정됩니다.", "40대"),
    (AGE, "화자의 연령대는 40대예요.", "40대"),
    (AGE, "60대 초반으로 보여요.", "60대"),
    (SPEAKERS, "2명입니다.", "2명"),
    (SPEAKERS, "대화 참여자는 2명이에요.", "2명"),
    (SPEAKERS, "3명이 대화하고 있습니다.", "3명"),
    (FREQUENCY, "3번 나왔습니다.", "3번"),
    (FREQUENCY, "'사과'는 총 3번 등장해요.", "3번"),
    (TOPIC, "여행 계획에 대한 대화입니다.", "여행 계획"),
    (TOPIC, "두 사람은 여행 계획을 세우고 있어요.", "여행 계획"),
    (TOPIC, "주제는 날씨야.", "날씨"),
    (ROLE, "교사입니다.", "교사"),
    (ROLE, "화자는 교사로 보입니다. 학생들에게 숙제를 설명하고 있기 때문입니다.", "교사"),
    (ROLE, "요리사일 거예요.", "요리사"),
])
def test_a_choice_is_read_through_particles_and_copulas(item, response, expected):
    assert_reads(item, response, expected)


def test_a_longer_word_that_contains_a_choice_does_not_name_it():
    item = {"question": "무엇에 대한 이야기인가요?", "choices": ["사과", "배", "포도", "감"], "answer": "사과"}
    assert read(item, "사과나무를 심는 이야기예요.").detail["extracted"] is None
    assert read(item, "사과 이야기예요.").detail["extracted"] == "사과"
    # 남성적인 (masculine) is not 남성 (male)
    assert_reads(GENDER, "남성적인 목소리이지만 여성이에요.", "여성")


# ------------------------------------------------------------------ numbers in words

@pytest.mark.parametrize("item, response, expected", [
    (SPEAKERS, "두 명", "2명"),
    (SPEAKERS, "두 명입니다.", "2명"),
    (SPEAKERS, "두 사람이 이야기하고 있어요.", "2명"),
    (SPEAKERS, "세 사람이 대화해요.", "3명"),
    (SPEAKERS, "화자는 네 명이야.", "4명"),
    (SPEAKERS, "한 명이 혼자 이야기합니다.", "1명"),
    (SPEAKERS, "혼자 말하고 있어요.", "1명"),
    (SPEAKERS, "There are two speakers.", "2명"),
    (SPEAKERS, "I hear 3 people talking.", "3명"),
    (AGE, "마흔 살", "40대"),
    (AGE, "마흔다섯 살쯤 된 것 같아요.", "40대"),
    (AGE, "목소리로 보아 마흔 살 정도입니다.", "40대"),
    (AGE, "45세로 추정됩니다.", "40대"),
    (AGE, "사십 대 초반이에요.", "40대"),
    (AGE, "스물", "20대"),
    (AGE, "스물다섯 살 정도의 젊은 목소리예요.", "20대"),
    (AGE, "예순 살이 넘어 보여요.", "60대"),
    (AGE, "The speaker is probably in their forties.", "40대"),
    (AGE, "About 45 years old.", "40대"),
    (FREQUENCY, "세 번 나왔어요.", "3번"),
    (FREQUENCY, "두 번입니다.", "2번"),
])
def test_numbers_in_words_name_a_numeric_choice(item, response, expected):
    assert_reads(item, response, expected)


def test_an_ordinal_is_a_position_not_a_count():
    # 세 번째 (the third) names the third choice, 세 번 (three times) the choice "3번".
    assert_reads(FREQUENCY, "세 번째 보기요.", "3번")
    assert_reads(SPEAKERS, "두 번째 보기가 정답입니다.", "2명")
    assert_reads(AGE, "The second option.", "40대", language="en")
    assert_reads(AGE, "정답은 ㄷ입니다.", "60대")
    assert_reads(AGE, "(B) 40대", "40대")


@pytest.mark.parametrize("response, expected", [
    ("화자는 2명이고, 그중 1명은 남성입니다.", "2명"),
    ("두 명 중 한 명이 주로 말해요.", "2명"),
    ("세 사람 가운데 한 명은 계속 웃고 있어.", "3명"),
    ("One of the two speakers is male.", "2명"),
    ("Two of them are women, so four people in total.", "4명"),
])
def test_a_number_counting_part_of_the_group_is_not_the_count(response, expected):
    assert_reads(SPEAKERS, response, expected)


def test_a_passing_number_without_a_counter_does_not_name_a_counted_choice():
    assert read(SPEAKERS, "그중 하나는 질문을 하고 있어요.").detail["extracted"] is None
    assert_reads(SPEAKERS, "정답은 2입니다.", "2명")


# ------------------------------------------------------------------ negation and the asserted choice

@pytest.mark.parametrize("item, response, expected", [
    (GENDER, "남성이 아니라 여성입니다.", "여성"),
    (GENDER, "남성은 아니고 여성이에요.", "여성"),
    (GENDER, "남성처럼 들리지만 여성입니다.", "여성"),
    (GENDER, "처음엔 남성인 줄 알았는데, 여성이에요.", "여성"),
    (GENDER, "It is not a man; it is a woman.", "여성"),
    (AGE, "20대는 아니고 40대예요.", "40대"),
    (AGE, "20대로 들릴 수도 있지만 40대로 보입니다.", "40대"),
    (AGE, "60대가 아닌 40대입니다.", "40대"),
    (SPEAKERS, "두 명이 아니라 세 명이야.", "3명"),
    (SPEAKERS, "1명은 아니고, 2명입니다.", "2명"),
    (ROLE, "의사는 아닙니다. 수업 이야기를 하니 교사예요.", "교사"),
    (TOPIC, "날씨 이야기도 잠깐 나오지만 주제는 여행 계획입니다.", "여행 계획"),
])
def test_the_asserted_choice_wins_and_a_negated_one_does_not(item, response, expected):
    assert_reads(item, response, expected)


@pytest.mark.parametrize("item, response", [
    (GENDER, "남성 또는 여성"),
    (GENDER, "남성이거나 여성입니다."),
    (AGE, "20대 혹은 40대입니다."),
    (SPEAKERS, "2명 아니면 3명이에요."),
    (SPEAKERS, "두 명이나 세 명 같아요."),
    (ROLE, "교사이거나 의사일 거예요."),
])
def test_two_asserted_choices_score_zero_and_are_ambiguous(item, response):
    scored = read(item, response)
    assert scored.score == 0.0 and scored.detail["ambiguous"] is True and len(scored.detail["options"]) == 2
    json.dumps(scored.detail)


@pytest.mark.parametrize("item, response", [
    (GENDER, "잘 모르겠어요."),
    (AGE, "20대는 아닙니다."),
    (AGE, "나이를 알 수 없습니다."),
    (SPEAKERS, ""),
])
def test_no_choice_read_scores_zero(item, response):
    scored = read(item, response)
    assert scored.score == 0.0 and scored.detail["extracted"] is None


def test_the_negated_choice_is_recorded_and_the_only_one_left_is_read_by_elimination():
    assert read(AGE, "60대는 아니에요.").detail["negated"] == ["60대"]
    scored = read(GENDER, "남성은 아닙니다.")
    assert scored.detail["negated"] == ["남성"] and scored.detail["extracted"] == "여성"
    assert scored.detail["how"].startswith("elimination")


# ------------------------------------------------------------------ the detail, dispatch and MMAU's matching

def test_the_detail_records_the_evidence_and_the_sori_version():
    scored = score_response("kmmau", AGE, "마흔다섯 살쯤입니다.", language="ko")
    assert scored.score == 1.0 and scored.evaluator == "kmmau" and scored.version.startswith("kmmau-sori-")
    assert scored.detail["extracted"] == "40대" and scored.detail["reference"] == "40대"
    assert scored.detail["choices"] == AGE["choices"] and scored.detail["how"]
    json.dumps(scored.detail)


def test_an_answer_that_is_not_a_choice_is_reported():
    scored = read({"choices": ["남성", "여성"], "answer": "아이"}, "여성")
    assert scored.score == 0.0 and "problem" in scored.detail


def test_an_item_without_choices_is_refused():
    with pytest.raises(InvalidInput):
        read({"answer": "여성"}, "여성")


@pytest.mark.parametrize("response, mmau, sori", [
    ("여성", 1.0, 1.0),
    ("여성입니다", 0.0, 1.0),  # MMAU's whole tokens: 여성입니다 is not 여성
    ("남성이 아니라 여성입니다", 0.0, 1.0),
    ("남성", 0.0, 0.0),
])
def test_mmaus_matching_stays_reachable_as_score_mmau(response, mmau, sori):
    old = kmmau.score_mmau(GENDER, response, language="ko")
    assert old.score == mmau and old.evaluator == "kmmau" and old.version == "kmmau-mmau-match-1"
    assert kmmau.score(GENDER, response, language="ko").score == sori
