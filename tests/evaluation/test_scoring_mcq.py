"""Multiple choice read by the `sori` reader: the option a free-text answer finally asserts, named by a label in
any script, a letter name, an ordinal, a numeric label or the option's own text, in English and Korean."""

import json

import pytest

from apps.evaluation.scoring import score_response
from apps.evaluation.scoring.mcq import extract_choice, parse_options, reference_label, score

LATIN = ("A", "B", "C", "D")
KOREAN = ("ㄱ", "ㄴ", "ㄷ", "ㄹ")

# Items as VoiceBench and KVoiceBench write them: the options inline in the question.
EN = {"question": "Which tool is best for stirring hot soup? A. a glass rod B. a wooden spoon C. a paper straw "
                  "D. a copper wire", "answer": "C"}
EN_LINES = {"question": "What do plants need to make food?\n(A) moonlight\n(B) sunlight\n(C) sand\n(D) salt water",
            "answer": "(B)"}
KO = {"question": "다음 중 열을 가장 잘 전달하는 것은? ㄱ. 나무 ㄴ. 유리 ㄷ. 구리 ㄹ. 고무", "answer": "ㄷ"}
KO_LINES = {"question": "지구가 태양 주위를 한 바퀴 도는 데 걸리는 시간은?\nㄱ. 하루\nㄴ. 한 달\nㄷ. 일 년\nㄹ. 십 년",
            "answer": "ㄷ"}
NUM = {"question": "다음 중 포유류는 무엇입니까?\n1. 상어\n2. 고래\n3. 연어\n4. 문어", "answer": "2"}
CIRCLED = {"question": "Which planet is closest to the sun? ① Venus ② Earth ③ Mercury ④ Mars", "answer": "③"}
EN_CHOICES = {"question": "Which animal is a mammal?", "choices": ["shark", "dolphin", "trout", "octopus"],
              "answer": "B"}


def read(item, response, language):
    return score(item, response, language=language)


def assert_reads(item, response, language, expected):
    scored = read(item, response, language)
    assert scored.detail["extracted"] == expected, (response, scored.detail)
    assert scored.score == float(expected is not None and expected == scored.detail["reference"])


# ------------------------------------------------------------------ every common way of naming an option

@pytest.mark.parametrize("response, expected", [
    ("C", "C"),
    ("c", "C"),
    ("(C)", "C"),
    ("C.", "C"),
    ("C)", "C"),
    ("**C**", "C"),
    ("**C. a paper straw**", "C"),
    ("Answer: C", "C"),
    ("**Answer:** C", "C"),
    ("### Final answer\nC", "C"),
    ("The answer is C.", "C"),
    ("the correct answer is (c)", "C"),
    ("The correct option is: **C**", "C"),
    (r"The answer is \boxed{C}.", "C"),
    (r"$\boxed{\text{C}}$", "C"),
    ("C - a paper straw", "C"),
    ("C – a paper straw, since it does not conduct heat.", "C"),
    ("I'd go with option C.", "C"),
    ("My choice is C because paper does not conduct heat well.", "C"),
    ("Option C is correct.", "C"),
    ("C is the best answer here.", "C"),
    ("I would select C: a paper straw.", "C"),
    ("Answer - D", "D"),
    ("ANSWER: A", "A"),
])
def test_it_reads_an_english_label_however_it_is_written(response, expected):
    assert_reads(EN, response, "en", expected)


@pytest.mark.parametrize("response, expected", [
    ("ㄷ", "ㄷ"),
    ("(ㄷ)", "ㄷ"),
    ("ㄷ.", "ㄷ"),
    ("정답은 ㄷ입니다.", "ㄷ"),
    ("정답: ㄷ", "ㄷ"),
    ("답은 ㄷ이에요", "ㄷ"),
    ("ㄷ이야.", "ㄷ"),
    ("ㄷ번", "ㄷ"),
    ("ㄷ번입니다.", "ㄷ"),
    ("ㄷ번이요!", "ㄷ"),
    ("**ㄷ. 구리**", "ㄷ"),
    ("ㄷ, 구리입니다. 금속은 열을 잘 전달하거든요.", "ㄷ"),
    ("ㄷ이 정답이에요.", "ㄷ"),
    ("ㄷ가 맞습니다.", "ㄷ"),
    ("저는 ㄷ을 고르겠습니다.", "ㄷ"),
    ("ㄷ를 선택할게.", "ㄷ"),
    ("보기 ㄷ이 가장 적절합니다.", "ㄷ"),
    ("최종 답: ㄷ", "ㄷ"),
    (r"정답은 $\boxed{ㄷ}$ 입니다.", "ㄷ"),
    ("ㄹ 입니다", "ㄹ"),
])
def test_it_reads_a_korean_label_in_every_register(response, expected):
    assert_reads(KO, response, "ko", expected)


# ------------------------------------------------------------------ ordinals, letter names, numeric labels

@pytest.mark.parametrize("item, response, language, expected", [
    (EN, "The third option.", "en", "C"),
    (EN, "I'd pick the third one, the paper straw.", "en", "C"),
    (EN, "The answer is the last option.", "en", "D"),
    (EN, "It's the second choice.", "en", "B"),
    (EN, "First, let's think about heat. Metal conducts heat, paper does not. So the third option is right.",
     "en", "C"),
    (KO, "세 번째입니다.", "ko", "ㄷ"),
    (KO, "정답은 세번째 보기예요.", "ko", "ㄷ"),
    (KO, "셋째요", "ko", "ㄷ"),
    (KO, "두 번째 것이 맞아요.", "ko", "ㄴ"),
    (KO, "첫째, 나무는 열을 잘 전달하지 않습니다. 둘째, 유리도 마찬가지입니다. 정답은 세 번째예요.", "ko", "ㄷ"),
    (KO, "마지막 보기가 정답입니다.", "ko", "ㄹ"),
])
def test_it_reads_an_ordinal(item, response, language, expected):
    assert_reads(item, response, language, expected)


@pytest.mark.parametrize("response, expected", [
    ("디귿", "ㄷ"),
    ("정답은 디귿입니다.", "ㄷ"),
    ("디귿이요", "ㄷ"),
    ("답은 리을이야", "ㄹ"),
    ("기역은 아니고 니은이에요.", "ㄴ"),
    ("제 생각엔 디귿이 맞는 것 같아요.", "ㄷ"),
])
def test_it_reads_a_korean_label_by_its_letter_name(response, expected):
    assert_reads(KO, response, "ko", expected)


@pytest.mark.parametrize("item, response, language, expected", [
    (NUM, "2", "ko", "2"),
    (NUM, "2번", "ko", "2"),
    (NUM, "정답은 2번입니다.", "ko", "2"),
    (NUM, "②", "ko", "2"),
    (NUM, "(2) 고래", "ko", "2"),
    (NUM, "답: 2", "ko", "2"),
    (NUM, "2번이 맞아요. 고래는 새끼를 낳아 젖을 먹이니까요.", "ko", "2"),
    (NUM, "The answer is 2.", "en", "2"),
    (NUM, "두 번째요.", "ko", "2"),
    (NUM, "1번 상어는 어류라서 틀렸고, 정답은 2번이에요.", "ko", "2"),
    (NUM, "포유류는 2번 고래입니다. 상어는 3억 년 전부터 살아온 어류예요.", "ko", "2"),
    (CIRCLED, "③", "en", "③"),
    (CIRCLED, "The answer is 3.", "en", "③"),
    (CIRCLED, "Mercury, option 3.", "en", "③"),
    (CIRCLED, "정답은 ③번입니다.", "ko", "③"),
])
def test_it_reads_numeric_labels(item, response, language, expected):
    assert_reads(item, response, language, expected)


# ------------------------------------------------------------------ the option's own text

@pytest.mark.parametrize("item, response, language, expected", [
    (EN, "A paper straw.", "en", "C"),
    (EN, "PAPER STRAW", "en", "C"),
    (EN, "The answer is a paper straw.", "en", "C"),
    (EN, "I would use a paper straw, because paper is a poor conductor of heat.", "en", "C"),
    (EN_LINES, "Sunlight!", "en", "B"),
    (EN_LINES, "Plants need sunlight to make food through photosynthesis.", "en", "B"),
    (EN_CHOICES, "Dolphins.", "en", "B"),
    (EN_CHOICES, "The dolphin is the mammal.", "en", "B"),
    (KO, "구리입니다.", "ko", "ㄷ"),
    (KO, "구리요", "ko", "ㄷ"),
    (KO, "정답은 구리예요. 금속이라 열을 잘 전달해요.", "ko", "ㄷ"),
    (KO, "구리가 열을 가장 잘 전달합니다.", "ko", "ㄷ"),
    (KO, "열을 가장 잘 전달하는 것은 구리야.", "ko", "ㄷ"),
    (KO_LINES, "일 년이 걸립니다.", "ko", "ㄷ"),
    (KO_LINES, "일 년입니다.", "ko", "ㄷ"),
    (NUM, "고래입니다.", "ko", "2"),
    (NUM, "고래가 포유류예요.", "ko", "2"),
])
def test_it_reads_the_options_own_text(item, response, language, expected):
    assert_reads(item, response, language, expected)


FACTS_KO = {"question": "다음 중 옳은 설명은? ㄱ. 물은 0도에서 끓는다 ㄴ. 물은 100도에서 끓는다 ㄷ. 얼음은 물에 가라앉는다 "
                        "ㄹ. 분자는 열을 받으면 더 느리게 움직인다", "answer": "ㄴ"}
FACTS_EN = {"question": "Which is true? A. water boils at 0 degrees B. water boils at 100 degrees C. ice sinks in "
                        "water D. heated molecules move more slowly", "answer": "B"}


@pytest.mark.parametrize("item, response, language, expected", [
    (FACTS_KO, "물이 100도에서 끓습니다.", "ko", "ㄴ"),
    (FACTS_KO, "물은 0도에서 끓어요.", "ko", "ㄱ"),
    (FACTS_KO, "얼음이 물에 가라앉는다는 건 틀렸어요. 물이 100도에서 끓는 게 맞죠.", "ko", "ㄴ"),
    (FACTS_KO, "분자는 열을 받으면 더 느리게 움직이지 않아요. 물이 100도에서 끓는다는 것이 옳습니다.", "ko", "ㄴ"),
    (FACTS_EN, "Water boiling at 100 degrees is the true statement.", "en", "B"),
    (FACTS_EN, "Ice sinking in water is false; water boils at 100 degrees.", "en", "B"),
    (FACTS_EN, "Water boiled at 0 degrees.", "en", "A"),
])
def test_an_option_of_several_words_is_read_with_other_particles_and_endings(item, response, language, expected):
    assert_reads(item, response, language, expected)


def test_a_word_that_only_contains_an_options_text_does_not_name_it():
    item = {"question": "무엇이 빨간가요? ㄱ. 사과 ㄴ. 바나나 ㄷ. 포도 ㄹ. 키위", "answer": "ㄱ"}
    assert read(item, "사과나무에는 잎이 많아요.", "ko").detail["extracted"] is None
    assert read(item, "사과입니다.", "ko").detail["extracted"] == "ㄱ"


# ------------------------------------------------------------------ the option finally asserted wins

@pytest.mark.parametrize("item, response, language, expected", [
    (EN, "A is tempting, but the answer is C.", "en", "C"),
    (EN, "Option A, a glass rod, would work too, but the best answer is C.", "en", "C"),
    (EN, "Let's go through them.\nA. a glass rod - it can break.\nB. a wooden spoon - plausible.\n"
         "C. a paper straw - it gets soggy.\nD. a copper wire - conducts heat.\n\nThe answer is B.", "en", "B"),
    (EN, "Glass (A) and copper (D) conduct heat; paper (C) falls apart. So the answer is B, a wooden spoon.",
     "en", "B"),
    (EN, "The answer is A. Actually, wait: a glass rod can shatter, so the answer is B.", "en", "B"),
    (EN, "Considering B? No. The answer is D.", "en", "D"),
    (KO, "ㄱ번은 오답입니다. 나무는 열을 잘 전달하지 않으니까요. 정답은 곰곰이 생각해 보면 ㄷ이에요.", "ko", "ㄷ"),
    (KO, "ㄱ이 그럴듯해 보이지만 정답은 ㄷ입니다.", "ko", "ㄷ"),
    (KO, "ㄱ 나무, ㄴ 유리, ㄹ 고무는 모두 열을 잘 전달하지 못해요. 그래서 답은 ㄷ.", "ko", "ㄷ"),
    (KO, "정답은 ㄴ입니다. 아, 다시 생각해 보니 정답은 ㄷ입니다.", "ko", "ㄷ"),
    (KO, "ㄴ일까요? 아니요, 구리가 금속이니 ㄷ이 맞습니다.", "ko", "ㄷ"),
    (EN, "It's either A or C, but C is more likely.", "en", "C"),
    (EN, "The answer is C, but D would also work in a pinch.", "en", "C"),
    (KO, "정답은 ㄴ 아니면 ㄷ인데, ㄷ이 더 맞는 것 같아요.", "ko", "ㄷ"),
    (KO, "ㄱ이나 ㄷ 같지만 ㄷ이 확실히 정답이야.", "ko", "ㄷ"),
])
def test_the_option_finally_asserted_wins_over_a_passing_mention(item, response, language, expected):
    assert_reads(item, response, language, expected)


@pytest.mark.parametrize("item, response, language, expected", [
    (EN, "Let me think. Soup is hot, so we need something that does not conduct heat. Option A might break. "
         "Option D conducts heat. Option B gets too hot in the pot? No, wood stays cool... So, C.", "en", "C"),
    (EN, "B and C both seem fine, but C is better.", "en", "C"),
    (EN, "C would be my answer.", "en", "C"),
    (EN, "Correct option: C", "en", "C"),
    (EN, "Of the four, the paper straw works best because it stays cool.", "en", "C"),
    (KO, "금속인 구리가 열을 제일 잘 전해. 나무랑 고무는 단열재로 쓰이잖아.", "ko", "ㄷ"),
    (KO, "ㄷ이라고 생각해요.", "ko", "ㄷ"),
    (KO, "음... ㄷ이지 않을까요?", "ko", "ㄷ"),
])
def test_a_conclusion_or_a_superlative_outweighs_options_named_along_the_way(item, response, language, expected):
    assert_reads(item, response, language, expected)


@pytest.mark.parametrize("item, response, language, expected", [
    (EN, "A) glass rod: breaks\nB) wooden spoon: fine\nC) paper straw: soggy\nD) copper wire: hot", "en", None),
    (EN, "- A. a glass rod\n- B. a wooden spoon\n- C. a paper straw\n- D. a copper wire\n\nThe paper straw is "
         "the best choice.", "en", "C"),
    (KO, "ㄱ. 나무: 열을 잘 전달하지 않음\nㄴ. 유리: 잘 전달하지 않음\nㄷ. 구리: 잘 전달함\nㄹ. 고무: 전달하지 않음\n\n"
         "따라서 정답은 ㄷ입니다.", "ko", "ㄷ"),
])
def test_a_list_of_the_options_opens_no_answer(item, response, language, expected):
    assert_reads(item, response, language, expected)


NOT_EN = {"question": "Which of these is NOT a mammal? A. dog B. whale C. shark D. bat", "answer": "C"}
NOT_KO = {"question": "다음 중 옳지 않은 설명은? ㄱ. 물은 100도에서 끓는다 ㄴ. 얼음은 물에 뜬다 ㄷ. 태양은 지구 주위를 돈다 "
                      "ㄹ. 소리는 진공에서 전달되지 않는다", "answer": "ㄷ"}


@pytest.mark.parametrize("item, response, language, expected", [
    (NOT_EN, "C is false: a shark is a fish.", "en", "C"),
    (NOT_EN, "C. Sharks are fish, not mammals.", "en", "C"),
    (NOT_EN, "Dogs, whales and bats are mammals, so the answer is C.", "en", "C"),
    (NOT_EN, "The answer is not B; whales are mammals. It's C.", "en", "C"),
    (NOT_KO, "ㄷ이 틀렸어요. 지구가 태양 주위를 도니까요.", "ko", "ㄷ"),
    (NOT_KO, "ㄷ번이 옳지 않습니다.", "ko", "ㄷ"),
    (NOT_KO, "정답은 ㄱ이 아니라 ㄷ입니다.", "ko", "ㄷ"),
    (NOT_KO, "ㄷ은 사실이 아니에요.", "ko", "ㄷ"),
])
def test_on_a_question_asking_for_the_wrong_option_calling_one_wrong_names_it(item, response, language, expected):
    assert_reads(item, response, language, expected)


@pytest.mark.parametrize("item, response, language, expected", [
    (EN, "The answer is C. C, a paper straw, does not conduct heat. Final answer: C.", "en", "C"),
    (KO, "정답은 ㄷ입니다. ㄷ 구리는 금속이에요. 따라서 ㄷ!", "ko", "ㄷ"),
    (KO, "ㄷ, 구리. 답은 ㄷ이에요.", "ko", "ㄷ"),
])
def test_the_same_option_asserted_again_is_fine(item, response, language, expected):
    assert_reads(item, response, language, expected)


# ------------------------------------------------------------------ negation

@pytest.mark.parametrize("item, response, language, expected", [
    (EN, "Not B. It's C.", "en", "C"),
    (EN, "The answer is not A; it is C.", "en", "C"),
    (EN, "It isn't D, it's C.", "en", "C"),
    (EN, "D is wrong because copper conducts heat. C is correct.", "en", "C"),
    (EN, "The answer is C rather than D.", "en", "C"),
    (EN, "I'd rule out A and D. C.", "en", "C"),
    (KO, "정답은 ㄴ이 아니라 ㄷ입니다.", "ko", "ㄷ"),
    (KO, "ㄴ이 아니고 ㄷ이에요.", "ko", "ㄷ"),
    (KO, "B가 아니고 C입니다.", "ko", "ㄷ"),
    (KO, "ㄱ은 틀렸어. ㄷ이야.", "ko", "ㄷ"),
    (KO, "ㄹ는 오답이고 ㄷ가 정답입니다.", "ko", "ㄷ"),
    (KO, "ㄴ 말고 ㄷ요.", "ko", "ㄷ"),
    (KO, "유리가 아니라 구리입니다.", "ko", "ㄷ"),
    (NUM, "1번은 정답이 아니에요. 2번이 정답이에요.", "ko", "2"),
])
def test_a_negated_option_is_not_the_answer(item, response, language, expected):
    assert_reads(item, response, language, expected)


@pytest.mark.parametrize("item, response, language", [
    (EN, "It is not B.", "en"),
    (KO, "정답은 ㄴ이 아닙니다.", "ko"),
    (KO, "ㄷ은 틀렸어요.", "ko"),
])
def test_an_answer_that_only_negates_reads_nothing_and_records_the_negation(item, response, language):
    scored = read(item, response, language)
    assert scored.detail["extracted"] is None and scored.score == 0.0
    assert scored.detail["negated"]


def test_an_answer_that_rules_out_every_other_option_chose_the_last_one():
    scored = read(EN, "A is wrong, B is wrong and D is wrong.", "en")
    assert scored.detail["extracted"] == "C" and scored.detail["how"].startswith("elimination")


# ------------------------------------------------------------------ two options asserted

@pytest.mark.parametrize("item, response, language", [
    (EN, "The answer is B or C.", "en"),
    (EN, "Both B and C are correct.", "en"),
    (EN, "Answer: B\nAnswer: C", "en"),
    (KO, "정답은 ㄴ 또는 ㄷ입니다.", "ko"),
    (KO, "ㄴ이나 ㄷ이 정답이에요.", "ko"),
    (KO, "정답은 ㄷ입니다. 정답은 ㄹ입니다.", "ko"),
    (NUM, "2번 아니면 3번이요.", "ko"),
])
def test_two_options_asserted_score_zero_and_are_marked_ambiguous(item, response, language):
    scored = read(item, response, language)
    assert scored.score == 0.0 and scored.detail["extracted"] is None
    assert scored.detail["ambiguous"] is True and len(scored.detail["options"]) == 2


# ------------------------------------------------------------------ articles and first letters

@pytest.mark.parametrize("item, response, expected", [
    ({**EN, "answer": "B"}, "The answer is a wooden spoon.", "B"),
    (EN, "A paper straw, definitely.", "C"),
    (EN, "I think a paper straw is best. Definitely C.", "C"),
    (EN, "I believe it is C.", "C"),
    (EN, "Definitely.", None),
    (EN, "A good question! I am not sure.", None),
    (EN, "I'm not sure which one to choose.", None),
    (EN, "Be careful with hot soup; a damp cloth helps.", None),
    (EN, "Vitamin C is good for you, but the answer is B.", "B"),
])
def test_an_article_or_a_first_letter_is_never_a_label(item, response, expected):
    assert_reads(item, response, "en", expected)


# ------------------------------------------------------------------ Korean phrasings with any label script

@pytest.mark.parametrize("item, response, language, expected", [
    (EN, "정답은 C입니다.", "ko", "C"),
    (EN, "C번이요", "ko", "C"),
    (EN, "C가 맞아요.", "ko", "C"),
    (EN, "A는 아니고 C예요.", "ko", "C"),
    (KO, "The answer is C.", "ko", "ㄷ"),
    (KO, "정답은 C입니다.", "ko", "ㄷ"),
    (KO, "(C)", "ko", "ㄷ"),
    (KO, "C번 구리요.", "ko", "ㄷ"),
    (KO, "정답은 3번입니다.", "ko", "ㄷ"),
    (NUM, "정답은 B입니다.", "ko", "2"),
    (NUM, "ㄴ이요", "ko", "2"),
])
def test_korean_phrasings_apply_whatever_the_label_script(item, response, language, expected):
    assert_reads(item, response, language, expected)


def test_a_letter_in_a_korean_word_is_not_a_label():
    item = {"question": "혈액형이 가장 많은 사람은? ㄱ. 20대 ㄴ. 30대 ㄷ. 40대 ㄹ. 50대", "answer": "ㄴ"}
    assert read(item, "A형 간염에 대해서는 잘 모르겠어요.", "ko").detail["extracted"] is None


# ------------------------------------------------------------------ nothing read

@pytest.mark.parametrize("item, response, language", [
    (EN, "", "en"),
    (EN, "I am not sure about this one.", "en"),
    (EN, "Soup is tasty when it is hot.", "en"),
    (KO, "잘 모르겠습니다.", "ko"),
    (KO, "첫째로, 열전도율이라는 개념을 알아야 해요.", "ko"),
    (NUM, "세 가지 이유가 있어요.", "ko"),
])
def test_a_response_naming_no_option_reads_nothing_and_scores_zero(item, response, language):
    scored = read(item, response, language)
    assert scored.detail["extracted"] is None and scored.score == 0.0


def test_an_unreadable_answer_scores_zero_not_a_random_guess():
    results = {score_response("mcq", EN, "Soup is tasty.", language="en").score for _ in range(20)}
    assert results == {0.0}


# ------------------------------------------------------------------ the detail, the reference, the parsing

def test_the_detail_records_the_evidence_in_the_references_script():
    scored = score_response("mcq", KO, "The answer is C.", language="ko")
    assert scored.detail["extracted"] == "ㄷ" and scored.detail["reference"] == "ㄷ"
    assert scored.detail["labels"] == list(KOREAN) and "answer" in scored.detail["how"]
    assert scored.evaluator == "mcq" and scored.version.startswith("mcq-sori-")
    json.dumps(scored.detail)
    ambiguous = score_response("mcq", EN, "B or C", language="en")
    assert ambiguous.detail["options"] == ["B", "C"]
    json.dumps(ambiguous.detail)


@pytest.mark.parametrize("answer, label", [("B", "B"), ("(B)", "B"), ("b.", "B"), ("ㄴ", "ㄴ"), ("(ㄷ)", "ㄷ"),
                                           ("2", "2"), ("(3)", "3"), ("4번", "4"), ("②", "②"), ("Paris", None),
                                           ("", None)])
def test_it_reads_the_reference_label(answer, label):
    assert reference_label(answer) == label


def test_a_reference_that_is_no_label_is_reported():
    scored = read({"question": "Capital of France?", "answer": "Paris"}, "Paris", "en")
    assert scored.score == 0.0 and "problem" in scored.detail


@pytest.mark.parametrize("question, script, texts", [
    (EN["question"], "latin", ("a glass rod", "a wooden spoon", "a paper straw", "a copper wire")),
    (EN_LINES["question"], "latin", ("moonlight", "sunlight", "sand", "salt water")),
    (KO["question"], "korean", ("나무", "유리", "구리", "고무")),
    (NUM["question"], "digit", ("상어", "고래", "연어", "문어")),
    (CIRCLED["question"], "circled", ("Venus", "Earth", "Mercury", "Mars")),
    ("Pick one: A) red, B) blue, C) green, or D) yellow\nAnswer with a letter.", "latin",
     ("red", "blue", "green", "yellow")),
    ("Which gas do plants take in?\n(a) oxygen\n(b) carbon dioxide\n(c) helium\n(d) neon", "latin",
     ("oxygen", "carbon dioxide", "helium", "neon")),
    ("다음 중 퇴적암은? 기역. 화강암 니은. 사암 디귿. 현무암 리을. 대리암", "korean", ("화강암", "사암", "현무암", "대리암")),
    ("2000년에 태어난 사람은 몇 살? (1) 20살 (2) 24살 (3) 30살", "digit", ("20살", "24살", "30살")),
    ("What is 2 + 2?", None, ()),
])
def test_it_parses_the_options_written_in_the_question(question, script, texts):
    assert parse_options(question) == (script, texts)


def test_extract_choice_reads_labels_without_option_texts():
    assert extract_choice("ㄴ 문장이 더 자연스러워요.", ("ㄱ", "ㄴ")) == ("ㄴ", "label: opening the response")
    assert extract_choice("정답은 ㄱ입니다.", ("ㄱ", "ㄴ"))[0] == "ㄱ"
    assert extract_choice("The answer is (B).", LATIN)[0] == "B"
    assert extract_choice("Maybe.", LATIN) == (None, None)
