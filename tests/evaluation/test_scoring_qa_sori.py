"""The `sori` short-answer reader on answers as models write them: a denial of the reference is not a match,
numbers match in digits and in words in both languages, subscript digits are folded, and the detail says
which reference matched or was denied."""

import pytest

from apps.evaluation.scoring import qa, score_response

CANBERRA = {"question": "What is the capital of Australia?", "answer": "Canberra", "aliases": []}
SEOUL = {"question": "대한민국의 수도는?", "answer": "서울", "aliases": ["서울특별시"]}
EVEREST = {"question": "세계에서 가장 높은 산은?", "answer": "에베레스트", "aliases": ["초모룽마"]}
NILE = {"question": "What is the longest river in Africa?", "answer": "the Nile", "aliases": ["Nile River"]}


def en(item, response):
    return score_response("qa", item, response, language="en")


def ko(item, response):
    return score_response("qa", item, response, language="ko")


# --------------------------------------------------------------------------------- English matching

@pytest.mark.parametrize("response", [
    "Canberra",
    "canberra.",
    "**Canberra**",
    "The capital of Australia is Canberra.",
    "Answer: Canberra",
    "Lots of people assume it's Sydney because it's the biggest city, and Melbourne was the seat of "
    "parliament for a while, but the capital is Canberra",
    "- Capital: *Canberra* (ACT)",
    "Canberra—not the largest city, but the capital.",
    "It's Canberra, not Sydney.",
    "Canberra, not Sydney or Melbourne.",
    "I'm not sure, but I think it's Canberra.",
    "I'm not 100% certain; Canberra?",
    "Isn't it Canberra?",
])
def test_an_english_answer_that_asserts_the_reference_matches(response):
    scored = en(CANBERRA, response)
    assert scored.score == 1.0, scored.detail
    assert scored.detail["matched_alias"] == "Canberra" and scored.detail["denied"] == []


@pytest.mark.parametrize("response", [
    "Sydney.", "The capital is Canberrana", "Acanberra", "I don't know.", "",
])
def test_an_english_answer_without_the_reference_as_a_word_does_not_match(response):
    assert en(CANBERRA, response).score == 0.0


def test_english_articles_punctuation_and_aliases_are_normalised():
    assert en(NILE, "Nile.").detail["matched_alias"] == "the Nile"
    assert en(NILE, "It's the Nile River, at about 6,650 km.").detail["matched_alias"] == "the Nile"
    item = {"answer": "U.S.A.", "aliases": []}
    assert en(item, "the usa").score == 1.0
    item = {"answer": "Beatle", "aliases": []}
    assert en(item, "The Beatles").score == 1.0  # a plural s may follow


# --------------------------------------------------------------------------------- English denials

@pytest.mark.parametrize("response", [
    "It is not Canberra, it's Sydney.",
    "It's not Canberra — it's Sydney.",
    "Not Canberra but Sydney.",
    "Canberra? No — Sydney.",
    "Canberra... nope, Sydney.",
    "The answer isn't Canberra; it's Sydney.",
    "Canberra is not correct. The capital is Sydney.",
    "Canberra isn't the capital, Sydney is.",
    "Canberra is wrong; it's Sydney.",
    "Sydney, rather than Canberra.",
    "Sydney, not Canberra.",
    "The capital is Sydney instead of Canberra.",
    "Many people think it's Canberra, but it's really Sydney.",
    "I don't think it's Canberra. Sydney.",
    "Definitely never Canberra. The answer is Sydney.",
])
def test_an_english_mention_in_denial_does_not_match(response):
    scored = en(CANBERRA, response)
    assert scored.score == 0.0, scored.detail
    assert scored.detail["denied"] == ["Canberra"]


def test_an_english_denial_of_another_answer_still_matches():
    for response in ("Canberra, not Sydney.", "It's not Sydney, it's Canberra.", "Sydney? No, Canberra.",
                     "Sydney is wrong; Canberra is right.", "Not Sydney but Canberra."):
        scored = en(CANBERRA, response)
        assert (scored.score, scored.detail["denied"]) == (1.0, []), response


def test_a_reference_both_denied_and_asserted_matches_by_its_assertion():
    response = "Some might say it's not Canberra. They'd be wrong: it is Canberra."
    assert en(CANBERRA, response).score == 1.0


def test_hedges_and_not_only_are_not_denials():
    assert en(CANBERRA, "Not only is Canberra the capital, it was built for it.").score == 1.0
    assert en(CANBERRA, "I don't know if it's Canberra, but probably").score == 1.0
    assert en(CANBERRA, "No doubt: Canberra.").score == 1.0


# --------------------------------------------------------------------------------- Korean matching

@pytest.mark.parametrize("response", [
    "서울", "서울이요", "서울입니다.", "서울이에요", "서울이야", "서울이지", "정답은 서울!", "수도는 서울이고요",
    "**서울**", "서울 특별시입니다", "대한민국의 수도는 서울이랍니다", "음... 잘 모르겠지만 아마 서울일걸요",
    "부산이 아니라 서울입니다", "부산은 틀렸고 서울이 맞아요", "서울, 부산 말고요", "부산? 아니요, 서울이에요",
    "서울 아니에요?",
])
def test_a_korean_answer_that_asserts_the_reference_matches(response):
    scored = ko(SEOUL, response)
    assert scored.score == 1.0, (response, scored.detail)


@pytest.mark.parametrize("response", [
    "서울이 아니라 부산입니다",
    "서울은 아니고 부산이에요",
    "서울은 아니야, 부산이야",
    "서울이 아닙니다. 부산입니다",
    "서울은 정답이 아니에요. 부산이 수도예요",
    "서울은 틀렸어. 부산이야",
    "서울은 틀린 답이고 부산이 맞습니다",
    "서울은 오답입니다",
    "서울 말고 부산",
    "서울 대신 부산이 수도입니다",
    "서울? 아뇨, 부산이에요",
    "서울... 아니 부산이다",
    "서울특별시 아님. 부산광역시",
    "서울이라고 착각하기 쉽지만 부산이에요",
])
def test_a_korean_mention_in_denial_does_not_match(response):
    scored = ko(SEOUL, response)
    assert scored.score == 0.0, (response, scored.detail)
    assert scored.detail["denied"]


def test_a_korean_denial_of_something_else_after_the_reference_does_not_deny_it():
    for response in ("서울이 맞고 부산은 아니에요", "정답은 서울이에요. 부산은 아닙니다", "서울이죠, 부산이 아니라",
                     "서울뿐만 아니라 어디든 수도가 될 수 있지만 지금은 서울입니다", "서울이 틀림없어요"):
        assert ko(SEOUL, response).score == 1.0, response


def test_korean_aliases_and_spacing():
    assert ko(EVEREST, "에베 레스트 산이요").detail["matched_alias"] == "에베레스트"
    assert ko(EVEREST, "티베트에서는 초모룽마라고 불러요").detail["matched_alias"] == "초모룽마"
    assert ko(EVEREST, "K2입니다").score == 0.0


def test_a_latin_reference_on_a_korean_item_must_be_its_own_word():
    item = {"answer": "CPU", "aliases": []}
    assert ko(item, "정답은 CPU예요").score == 1.0
    assert ko(item, "cpu입니다").score == 1.0
    assert ko(item, "GPCPUX라는 칩이에요").score == 0.0


# ---------------------------------------------------------------------------------------- numbers

@pytest.mark.parametrize("item, response", [
    ({"answer": "7", "aliases": []}, "seven"),
    ({"answer": "7", "aliases": []}, "Seven days."),
    ({"answer": "seven", "aliases": []}, "There are 7."),
    ({"answer": "1945", "aliases": []}, "It ended in nineteen forty-five."),
    ({"answer": "1945", "aliases": []}, "One thousand nine hundred and forty-five"),
    ({"answer": "eight", "aliases": []}, "A spider has 8 legs"),
    ({"answer": "8 legs", "aliases": []}, "eight"),
    ({"answer": "twenty-first", "aliases": []}, "the 21st century"),
    ({"answer": "Apollo 11", "aliases": []}, "It was Apollo eleven."),
    ({"answer": "three", "aliases": []}, "I'd say three, maybe."),
])
def test_english_numbers_match_in_digits_and_words(item, response):
    scored = en(item, response)
    assert scored.score == 1.0, scored.detail


@pytest.mark.parametrize("item, response", [
    ({"answer": "7", "aliases": []}, "seventeen"),
    ({"answer": "7", "aliases": []}, "It has 17."),
    ({"answer": "eight", "aliases": []}, "eighteen"),
    ({"answer": "1945", "aliases": []}, "nineteen forty-six"),
    ({"answer": "1945", "aliases": []}, "Not 1945 but 1946."),
    ({"answer": "Apollo 11", "aliases": []}, "Apollo thirteen"),
    ({"answer": "3", "aliases": []}, "pi is 3.14"),
])
def test_english_numbers_that_differ_or_are_denied_do_not_match(item, response):
    assert en(item, response).score == 0.0


@pytest.mark.parametrize("item, response", [
    ({"answer": "7", "aliases": []}, "일곱이요"),
    ({"answer": "7", "aliases": []}, "칠입니다"),
    ({"answer": "7", "aliases": []}, "일주일은 칠 일이에요"),
    ({"answer": "7일", "aliases": []}, "일곱 날이야"),
    ({"answer": "일곱", "aliases": []}, "7개요"),
    ({"answer": "1945년", "aliases": []}, "천구백사십오 년에 광복했어요"),
    ({"answer": "1945년", "aliases": []}, "nineteen forty-five"),
    ({"answer": "1945", "aliases": []}, "1945년 8월 15일입니다"),
    ({"answer": "8", "aliases": ["8개"]}, "다리는 여덟 개입니다"),
    ({"answer": "8", "aliases": []}, "팔 개요"),
    ({"answer": "여덟 개", "aliases": []}, "8개"),
    ({"answer": "2명", "aliases": []}, "두 명이요"),
    ({"answer": "3", "aliases": []}, "세 번째 행성이에요"),
    ({"answer": "40대", "aliases": []}, "마흔 살쯤 된 남성 같아요"),
    ({"answer": "24", "aliases": []}, "하루는 스물네 시간이지"),
    ({"answer": "2024", "aliases": []}, "이천이십사 년입니다"),
])
def test_korean_numbers_match_in_digits_sino_and_native_words(item, response):
    scored = ko(item, response)
    assert scored.score == 1.0, (response, scored.detail)


@pytest.mark.parametrize("item, response", [
    ({"answer": "7", "aliases": []}, "17일이에요"),
    ({"answer": "7", "aliases": []}, "칠판에 적어 두었어요"),
    ({"answer": "8", "aliases": []}, "열여덟 개입니다"),
    ({"answer": "2", "aliases": []}, "이 문제는 어렵네요"),
    ({"answer": "1945년", "aliases": []}, "천구백사십육 년이에요"),
    ({"answer": "8", "aliases": []}, "여덟 개가 아니라 여섯 개예요"),
    ({"answer": "4", "aliases": []}, "회사에 가야 해요"),
])
def test_korean_numbers_that_differ_look_alike_or_are_denied_do_not_match(item, response):
    assert ko(item, response).score == 0.0


def test_a_number_matched_by_value_says_so():
    scored = en({"answer": "8 legs", "aliases": []}, "eight")
    assert scored.detail["matched_by"] == "number"
    assert ko({"answer": "8", "aliases": []}, "여덟 개").detail["matched_by"] == "text"  # 8 in "8 개"
    assert en(CANBERRA, "Canberra").detail["matched_by"] == "text"


# ----------------------------------------------------------------------------- subscripts, detail

@pytest.mark.parametrize("language, response", [
    ("en", "Water is H₂O."), ("en", "h2o"), ("ko", "물의 화학식은 H₂O입니다"), ("ko", "Ｈ２Ｏ예요"),
])
def test_subscript_and_full_width_digits_are_folded(language, response):
    item = {"answer": "H2O", "aliases": []}
    assert score_response("qa", item, response, language=language).score == 1.0


def test_a_superscript_reference_matches_plain_digits():
    item = {"answer": "E=mc²", "aliases": []}
    assert en(item, "E=mc2").score == 1.0
    assert en({"answer": "H2O", "aliases": []}, "H₂O₂").score == 0.0  # hydrogen peroxide


def test_the_detail_names_the_match_the_references_and_the_denials():
    scored = ko(SEOUL, "서울이 아니라 서울특별시 말고 부산이에요")
    assert scored.detail == {"matched_alias": None, "references": 2, "denied": ["서울", "서울특별시"],
                             "rule": qa.RULE[1]}
    scored = en(CANBERRA, "Canberra.")
    assert scored.detail["rule"] == qa.RULE[0]
    assert scored.version == qa.version() and scored.version.startswith("qa-sori-")


def test_an_item_without_a_reference_is_flagged():
    scored = en({"answer": "", "aliases": []}, "Canberra")
    assert scored.score == 0.0 and scored.detail["problem"] == "the item has no reference answer"
