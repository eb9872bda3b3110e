"""Numbers read from answers in digits and in words, English and Korean, with their offsets, and the
ordinary words that look like numbers left alone."""

import pytest

from apps.evaluation.scoring.numbers import Number, find_numbers, fold_digits, parse_number


def spans(text):
    return [(n.value, text[n.start:n.end], n.ordinal) for n in find_numbers(text)]


def values(text):
    return [n.value for n in find_numbers(text)]


# ------------------------------------------------------------------------------------------ digits

@pytest.mark.parametrize("text, expected", [
    ("There are 206 bones.", [(206, "206", False)]),
    ("About 7,000,000 people", [(7000000, "7,000,000", False)]),
    ("Founded in １９４５.", [(1945, "１９４５", False)]),
    ("Water is H₂O", [(2, "₂", False)]),
    ("the area is πr²", [(2, "²", False)]),
    ("She finished 22nd, he was 1st", [(22, "22nd", True), (1, "1st", True)]),
    ("**8**", [(8, "8", False)]),
    ("거미 다리는 8개예요", [(8, "8", False)]),
    ("인구는 약 5천만 명입니다", [(50000000, "5천만", False)]),
    ("상금은 2천5백 달러", [(2500, "2천5백", False)]),
    ("roughly 3 million people", [(3000000, "3 million", False)]),
    ("3번째 줄에 있어요", [(3, "3번째", True)]),
    ("제 2 장을 보세요", [(2, "제 2", True)]),
    ("제2차 세계대전", [(2, "제2", True)]),
])
def test_digits_are_read_with_their_thousands_units_and_ordinal_marks(text, expected):
    assert spans(text) == expected


def test_a_decimal_is_not_an_integer_and_a_longer_number_is_not_split():
    assert values("pi is about 3.14") == []
    assert values("It was 17 degrees") == [17]
    assert values("1945년 8월 15일") == [1945, 8, 15]


def test_folding_keeps_every_offset():
    text = "H₂O와 CO₂, ２개"
    assert len(fold_digits(text)) == len(text)
    assert fold_digits(text) == "H2O와 CO2, 2개"


# ----------------------------------------------------------------------------------- English words

@pytest.mark.parametrize("text, value", [
    ("seven", 7), ("Zero", 0), ("thirteen", 13), ("Forty-Two", 42), ("ninety nine", 99),
    ("one hundred", 100), ("a hundred and five", 105), ("two hundred thirty-one", 231),
    ("one thousand nine hundred forty-five", 1945), ("one thousand nine hundred and forty-five", 1945),
    ("three million two hundred thousand", 3200000), ("a thousand", 1000),
    ("nineteen forty-five", 1945), ("twenty twenty-four", 2024), ("ten sixty-six", 1066),
    ("nineteen hundred", 1900), ("nineteen oh five", 1905), ("seventeen seventy-six", 1776),
])
def test_english_cardinals_and_spoken_years_have_their_value(text, value):
    assert parse_number(text) == value
    assert spans(text) == [(value, text, False)]


@pytest.mark.parametrize("text, value", [
    ("first", 1), ("Second", 2), ("third", 3), ("twelfth", 12), ("twenty-first", 21), ("fortieth", 40),
    ("one hundredth", 100), ("4th", 4), ("103rd", 103),
])
def test_english_ordinals_are_marked_as_ordinals(text, value):
    (number,) = find_numbers(text)
    assert (number.value, number.ordinal) == (value, True)


def test_english_numbers_in_a_long_answer_keep_their_offsets():
    text = "Well, after thinking about the war for a while, I'd say it ended in nineteen forty-five, I think."
    (number,) = find_numbers(text)
    assert number == Number(1945, text.index("nineteen"), text.index(", I think"), False)


def test_separate_english_numbers_stay_separate():
    assert values("one, two, three") == [1, 2, 3]
    assert values("between four and six legs") == [4, 6]
    assert values("seven eight") == [7, 8]


@pytest.mark.parametrize("text", [
    "The right one is Paris.", "Which one? The blue one.", "No one knows.", "Someone said so.",
    "Hold on a second.", "It moves 30 metres per second", "I'm not an oftentimes tone-deaf person",
    "Honestly, anyone could answer.",
])
def test_english_pronouns_and_time_words_are_not_numbers(text):
    assert all(n.value != 1 and n.value != 2 for n in find_numbers(text)), spans(text)


def test_one_is_read_where_it_counts_something():
    assert values("The Earth has one moon.") == [1]
    assert values("One.") == [1]


# ----------------------------------------------------------------------------------- Korean words

@pytest.mark.parametrize("text, value", [
    ("칠", 7), ("십", 10), ("삼십", 30), ("사십이", 42), ("구십구", 99), ("백", 100), ("오백", 500),
    ("천구백사십오", 1945), ("이천이십사", 2024), ("일만", 10000), ("삼억", 300000000),
    ("일곱", 7), ("여덟", 8), ("아홉", 9), ("열", 10), ("스물", 20), ("서른", 30), ("마흔", 40),
    ("마흔다섯", 45), ("예순", 60), ("아흔아홉", 99), ("열하나", 11), ("스물둘", 22),
])
def test_korean_numerals_alone_are_numbers(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text, value", [
    ("칠이요", 7), ("칠입니다.", 7), ("구요", 9), ("일곱이에요", 7), ("일곱 살입니다", 7), ("마흔 살이야", 40),
    ("여덟 개", 8), ("다섯 마리요", 5), ("세 명이요", 3), ("두 명입니다", 2), ("한 사람", 1), ("네 개", 4),
    ("스무 살", 20), ("스물다섯 살이에요", 25), ("서른세 살", 33), ("열두 개", 12), ("두명", 2), ("세개요", 3),
    ("1945년", 1945), ("1945년입니다", 1945), ("8개", 8), ("천구백사십오 년", 1945), ("삼십 퍼센트", 30),
    ("사십 대", 40), ("칠 년", 7), ("구 층이에요", 9), ("오 분", 5), ("만 원", 10000), ("삼만 원이요", 30000),
    ("구월", 9), ("유월", 6), ("시월이요", 10),
])
def test_a_korean_answer_that_is_only_a_number_has_its_value(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text, value", [
    ("두 번째", 2), ("세번째", 3), ("첫 번째", 1), ("첫번째요", 1), ("첫째", 1), ("둘째", 2), ("셋째", 3),
    ("넷째", 4), ("다섯째", 5), ("열두 번째", 12), ("스무 번째", 20), ("제3", 3), ("제 3", 3), ("2번째", 2),
])
def test_korean_ordinals_are_marked_as_ordinals(text, value):
    (number,) = find_numbers(text)
    assert (number.value, number.ordinal, text[number.start:number.end]) == (value, True, text.rstrip("요"))


@pytest.mark.parametrize("text, value", [
    ("정답은 칠입니다", 7),
    ("답은 구예요.", 9),
    ("음… 제 생각에는 아마 일곱 개쯤 될 것 같아요", 7),
    ("문어는 다리가 여덟 개 있어.", 8),
    ("그 사람은 마흔 살에 은퇴했습니다", 40),
    ("**세 명**이 참석했어요", 3),
    ("광복은 천구백사십오 년이었습니다", 1945),
    ("그건 이천이십사년 일이에요", 2024),
    ("사 퍼센트 올랐다고 해요", 4),
    ("삼 층으로 올라가세요", 3),
    ("거기까지 오 분 걸려", 5),
    ("총 네 마리예요", 4),
])
def test_a_korean_number_inside_a_sentence_is_found(text, value):
    assert values(text) == [value]


@pytest.mark.parametrize("text", [
    "회사에 다녀요",                  # 사 in 회사
    "친구가 일을 많이 해요",            # 일 "work", 구 in 친구, 이 particle
    "이 사람이 맞아요",                # 이 "this"
    "네, 맞습니다",                   # 네 "yes"
    "세대 차이가 커요",                # 세대 "generation"
    "구분해야 합니다",                 # 구분 "distinction"
    "이번에는 다르게 해 봐",            # 이번 "this time"
    "어서 오세요",                    # 오세요 "come in"
    "사과를 샀어요",                   # 사과 "apple"
    "우리 사이에 무슨 일이 있었어",       # 사이 "between"
    "이사를 갔어요",                   # 이사 "moving"
    "열이 나서 쉬었어",                # 열 "fever"
    "지금은 천만에요",                  # 천만에요 "you're welcome"
    "하나도 모르겠어요",                # "not at all"
    "한국에서 왔어요",                 # 한 in 한국
    "두부를 좋아해",                   # 두 in 두부
    "세차를 했어요",                   # 세차 "car wash"
    "오이가 싱싱하다",                 # 오이 "cucumber"
    "일만 하다가 끝났다",               # 일만 "only work"
    "제일 좋아하는 색은 파란색이에요",    # 제일 "most"
])
def test_korean_words_that_look_like_numbers_are_not_numbers(text):
    assert find_numbers(text) == [], spans(text)


def test_a_final_i_before_a_copula_is_read_as_kiwi_reads_it():
    assert parse_number("삼십이에요") == 30    # 30 + 이에요
    assert parse_number("삼십이예요") == 32    # 32 + 예요
    assert parse_number("삼십이입니다") == 32  # 32 + 입니다


def test_several_korean_numbers_keep_their_order_and_offsets():
    text = "첫째는 두 명, 둘째는 일곱 명이에요"
    assert spans(text) == [(1, "첫째", True), (2, "두", False), (2, "둘째", True), (7, "일곱", False)]


def test_english_and_korean_in_one_answer():
    assert values("Seven, 즉 일곱 개입니다 (7)") == [7, 7, 7]


@pytest.mark.parametrize("text", [
    "", "Paris", "서울입니다", "seven cities", "1945 or 1946", "정답은 칠입니다", "두 명과 세 명",
])
def test_parse_number_answers_none_unless_the_text_is_one_number(text):
    assert parse_number(text) is None
