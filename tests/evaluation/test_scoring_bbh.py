"""BBH / KBBH answers read by Sori's reader: whole words, the answer finally asserted, negations turned over,
conditions and reports set aside, in both languages and every register."""

import pytest

from apps.core.errors import InvalidInput
from apps.evaluation.scoring import bbh, score_response
from apps.evaluation.scoring.bbh import read_answer, version
from apps.evaluation.scoring.patterns import Rule

YES, NO = 1, 0


def reads(task: str, response: str, language: str = "en", question: str = "") -> int | None:
    return read_answer(task, response, language=language, question=question)[0]


@pytest.mark.parametrize("task, response, expected", [
    # a word is read whole: "now", "nothing", "nobody", "know", "notably" are not "no"; "yesterday" is not "yes"
    ("sports_understanding", "Now, thinking it through, the sentence is plausible.", YES),
    ("sports_understanding", "Nothing about that play is odd for a striker, so yes.", YES),
    ("sports_understanding", "Nobody throws a touchdown in a hockey game, so no.", NO),
    ("web_of_lies", "I know this one. The answer: no.", NO),
    ("navigate", "Notably, every step is undone later; you end up back at the starting point.", YES),
    ("sports_understanding", "Yesterday's match aside, it's implausible.", NO),
    ("navigate", "Nowhere near: you finish 4 steps to the left, not at the starting point.", NO),
])
def test_words_are_read_whole_not_as_prefixes(task, response, expected):
    assert reads(task, response) == expected


@pytest.mark.parametrize("task, response, expected", [
    ("web_of_lies", "It's not an easy call, but yes.", YES),
    ("sports_understanding", "I'm not sure about the season, but ultimately yes", YES),
    ("navigate", "Yes, it looks that way at first. Working it through, though, the answer is no.", NO),
    ("web_of_lies", "At first I thought no. Checking again, the final answer is yes.", YES),
    ("navigate", "Let me trace it: 3 forward, 3 back, then 2 left.\n\nSo, no.", NO),
    ("sports_understanding", "It's not implausible at all for a point guard to do that.", YES),
    ("sports_understanding", "A tennis player throwing a touchdown pass? That makes no sense.", NO),
    ("sports_understanding", "It's quite likely, given he's a striker.", YES),
    ("navigate", "Following these instructions, you wouldn't return to the starting point.", NO),
    ("navigate", "You end up right where you started.", YES),
    ("navigate", "Final answer: \\boxed{No}", NO),
    ("web_of_lies", "**Answer: Yes**", YES),
    ("web_of_lies", "No, she isn't lying; she tells the truth.", YES),
    ("navigate", "If you return to the starting point you would have to turn around, which you never do. You do "
                 "not end up back at the start.", NO),
    ("sports_understanding", "This is a plausible sentence.", YES),
    ("sports_understanding", "It isn't a plausible sentence for a goalie.", NO),
    ("sports_understanding", "Plausible? Not really.", NO),
    ("web_of_lies", "True.", YES),
    ("navigate", "The instructions bring you back to the starting point.", YES),
])
def test_the_final_asserted_answer_decides(task, response, expected):
    assert reads(task, response) == expected


QUESTION_EN = ("Question: Fidel lies. Jerry says Fidel lies. Vina says Jerry lies. Sal says Vina lies. "
               "Does Sal tell the truth?")


@pytest.mark.parametrize("response, expected", [
    ("Fidel lies. Jerry says Fidel lies, so Jerry tells the truth. Vina says Jerry lies, so Vina lies. "
     "Sal says Vina lies, so Sal tells the truth.", YES),
    ("Sal tells the truth, because Vina lies.", YES),
    ("Sal lies. Reasoning: Jerry tells the truth.", NO),
    ("If Sal tells the truth, Vina lies; Vina does lie, so yes.", YES),
])
def test_web_of_lies_reads_the_person_asked_about(response, expected):
    assert reads("web_of_lies", response, question=QUESTION_EN) == expected


@pytest.mark.parametrize("task, response, expected", [
    # registers: 합니다 / 해요 / 해 / plain
    ("sports_understanding", "네, 그럴듯합니다.", YES),
    ("sports_understanding", "응, 그럴듯해.", YES),
    ("sports_understanding", "충분히 말이 되는 문장입니다.", YES),
    ("sports_understanding", "아니요, 그럴듯하지 않아요.", NO),
    ("sports_understanding", "아니, 말이 안 돼.", NO),
    ("sports_understanding", "그럴듯한 문장이 아니다.", NO),
    ("navigate", "아뇨. 처음 위치로 돌아가지 않습니다.", NO),
    ("navigate", "결국 시작 지점에 다시 도착하게 돼요.", YES),
    ("navigate", "출발점으로 안 돌아와.", NO),
    ("navigate", "네 번 오른쪽으로 돈 뒤 두 걸음 가면 원래 자리로 돌아오지 않아요.", NO),
    ("navigate", "예를 들어 설명하면, 처음 위치로 다시 돌아오게 됩니다.", YES),
    ("navigate", "그렇지 않습니다. 출발점과 다른 곳에 도착해요.", NO),
    ("web_of_lies", "맞습니다. 서연은 정직해요.", YES),
    ("web_of_lies", "참이에요.", YES),
    ("web_of_lies", "거짓입니다.", NO),
    ("web_of_lies", "지수는 거짓말을 안 해요.", YES),
    ("web_of_lies", "지수는 거짓말쟁이가 아니에요.", YES),
    ("web_of_lies", "답은 네가 아니고 아니오예요.", NO),
    ("web_of_lies", "결론: 아니요", NO),
    ("web_of_lies", "**정답: 예**", YES),
    ("web_of_lies", "네 맞아요, 진실을 말하고 있어요.", YES),
    ("web_of_lies", "민수는 거짓말을 해요. 그러니까 답은 '예'입니다.", YES),
    ("navigate", "아니요 그렇지 않아요. 출발점으로 돌아오지 못해요.", NO),
    ("navigate", "단계별로 보면 앞으로 세 걸음, 뒤로 세 걸음이라 제자리로 돌아옵니다. 그러므로 정답은 예입니다.", YES),
])
def test_korean_answers_in_every_register(task, response, expected):
    assert reads(task, response, "ko") == expected


QUESTION_KO = ("질문: 민수는 거짓말을 합니다. 지현은 민수가 거짓말을 한다고 말합니다. 서연은 지현이 거짓말을 한다고 "
               "말합니다. 서연은 진실을 말하나요?")


@pytest.mark.parametrize("response, expected", [
    ("민수가 진실을 말한다면 지현은 거짓말을 합니다. 하지만 민수는 거짓말을 하므로 지현은 진실을 말하고, 서연은 "
     "거짓말을 해요.", NO),
    ("서연이 진실을 말하는지 봅시다. 지현은 진실을 말합니다. 따라서 서연은 거짓말쟁이예요.", NO),
    ("서연은 진실을 말하고 있어요. 왜냐하면 지현은 거짓말을 하기 때문이에요.", YES),
])
def test_kbbh_web_of_lies_reads_the_person_asked_about(response, expected):
    assert reads("web_of_lies", response, "ko", QUESTION_KO) == expected


@pytest.mark.parametrize("response, language, expected", [
    ("정답은 ㄴ입니다.", "ko", YES),
    ("ㄱ은 틀렸고 ㄴ이 맞아요.", "ko", YES),
    ("ㄴ 문장이 문법적으로 올바릅니다.", "ko", YES),
    ("두 번째 문장이 더 자연스러워요.", "ko", YES),
    ("ㄱ이 자연스러워.", "ko", NO),
    ("The answer is (B).", "en", YES),
    ("Option A has the correct adjective order.", "en", NO),
    ("The second sentence sounds more natural.", "en", YES),
])
def test_hyperbaton_options_are_read_as_multiple_choice(response, language, expected):
    assert reads("hyperbaton", response, language) == expected


@pytest.mark.parametrize("task, response, language", [
    ("navigate", "Hmm, let me think about the directions step by step.", "en"),
    ("sports_understanding", "Is the sentence plausible?", "en"),
    ("web_of_lies", "음, 잘 모르겠어요.", "ko"),
    ("navigate", "네 번 왼쪽으로 돌고 세 걸음 가세요.", "ko"),
    ("web_of_lies", "예를 들어 민수와 지현의 말을 비교해 봅시다.", "ko"),
])
def test_where_no_answer_is_asserted_nothing_is_read(task, response, language):
    assert read_answer(task, response, language=language) == (None, None)


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
    assert scored.score == 1.0 and scored.version == version() == "bbh-sori-1"
    assert scored.detail["rule"].startswith("multiple choice")


def test_the_detail_says_what_was_read_and_why():
    item = {"task": "navigate", "answer": "No"}
    detail = score_response("bbh", item, "Yes at first glance, but the answer is no.", language="en").detail
    assert detail["extracted"] == 0 and detail["reference"] == 0
    assert detail["rule"] == "explicit answer: the answer is no"


def test_one_reader_for_both_languages():
    for task, response in [("navigate", "출발점으로 안 돌아와."), ("web_of_lies", "So, no."),
                           ("sports_understanding", "네, 그럴듯합니다."), ("navigate", "You end up where you started.")]:
        assert reads(task, response, "en") == reads(task, response, "ko") is not None


def test_it_refuses_an_item_whose_task_it_cannot_tell():
    with pytest.raises(InvalidInput, match="task"):
        score_response("bbh", {"id": "date_understanding_1", "answer": "Yes"}, "yes", language="en")


def _rules_in(value) -> list[Rule]:
    if isinstance(value, Rule):
        return [value]
    values = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else ()
    return [rule for v in values for rule in _rules_in(v)]


def test_no_pattern_of_the_rules_is_skipped_where_it_would_match():
    rules = _rules_in(bbh._rules())
    cases = [case for test in (test_words_are_read_whole_not_as_prefixes, test_the_final_asserted_answer_decides,
                               test_korean_answers_in_every_register) for case in test.pytestmark[0].args[1]]
    texts = [line for _, response, _ in cases for line in bbh.normalise(response).splitlines()]
    assert len(rules) > 10 and len(texts) > 40
    for rule in rules:
        for text in texts:
            tried = set(rule._candidates(text))
            for pattern, _, _ in rule.parts:
                assert pattern in tried or pattern.search(text) is None, (pattern.pattern, text)
