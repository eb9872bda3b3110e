"""IFEval / KIFEval instruction checks (IFEval's checkers via if-verifiable), strict and loose, with the
Korean adaptations of the hypertranslation rulebook."""

import pytest

from apps.core.errors import InvalidInput
from apps.evaluation.aggregate import subset_score
from apps.evaluation.scoring import score_response
from apps.evaluation.scoring.ifeval import jamo, levels


def _item(question, ids, kwargs):
    return {"question": question, "answer": "", "aliases": [], "instruction_id_list": ids, "kwargs": kwargs}


def test_an_english_item_with_a_word_limit_and_no_commas():
    item = _item("Describe rain in fewer than 10 words, without commas.",
                 ["length_constraints:number_words", "punctuation:no_comma"],
                 [{"num_words": 10, "relation": "less than"}, {}])
    good = score_response("ifeval", item, "Rain falls softly on the roof tonight.", language="en")
    assert good.score == 1.0 and good.detail["strict_prompt"] is True
    half = score_response("ifeval", item, "Rain, soft and cold, falls on the roof.", language="en")
    assert [r["strict"] for r in half.detail["instructions"]] == [True, False]
    assert half.score == pytest.approx((0 + 0 + 0.5 + 0.5) / 4)
    assert good.version == "ifeval-en-1"


def test_loose_checking_forgives_a_first_line_of_preamble():
    item = _item("End your answer with 'Is there anything else?'", ["startend:end_checker"],
                 [{"end_phrase": "Is there anything else?"}])
    scored = score_response("ifeval", item, "Here it is:\nRain is water.\nIs there anything else?\n**Done**",
                            language="en")
    assert scored.detail["instructions"][0] == {"id": "startend:end_checker", "strict": False, "loose": True}


def test_english_sentence_counts_need_no_downloaded_model():
    item = _item("Answer in at least 3 sentences.", ["length_constraints:number_sentences"],
                 [{"num_sentences": 3, "relation": "at least"}])
    assert score_response("ifeval", item, "Dr. Kim came. He sat. He left!", language="en").score == 1.0
    assert score_response("ifeval", item, "He came. He left.", language="en").score == 0.0


def test_a_korean_length_constraint_counts_korean_words():
    # "10단어 미만으로 답하세요" — words are the space-separated 어절.
    item = _item("비에 대해 10단어 미만으로 답하세요.", ["length_constraints:number_words"],
                 [{"num_words": 10, "relation": "less than"}])
    short = score_response("ifeval", item, "비는 하늘에서 조용히 내립니다.", language="ko")  # 4 words
    long = score_response("ifeval", item, "비는 하늘에서 조용히 내리고 땅을 적시며 식물을 자라게 하고 사람들의 마음을 차분하게 합니다.",
                          language="ko")  # 12 words
    assert (short.score, long.score) == (1.0, 0.0)
    assert short.version == "ifeval-ko-1"


def test_a_korean_character_limit_counts_characters_without_spaces():
    item = _item("20자 이내로 답하세요.", ["length_constraints:number_characters"],
                 [{"num_characters": 20, "relation": "less than"}])
    assert score_response("ifeval", item, "비가 조용히 내립니다.", language="ko").score == 1.0
    assert score_response("ifeval", item, "비가 하늘에서 아주 조용하게 천천히 내리고 있습니다.", language="ko").score == 0.0


def test_korean_sentences_are_counted_even_without_punctuation():
    item = _item("세 문장 이상으로 답하세요.", ["length_constraints:number_sentences"],
                 [{"num_sentences": 3, "relation": "at least"}])
    assert score_response("ifeval", item, "비가 옵니다 우산을 챙기세요 길이 미끄럽습니다", language="ko").score == 1.0
    assert score_response("ifeval", item, "비가 옵니다.", language="ko").score == 0.0


def test_a_korean_letter_frequency_counts_jamo():
    assert jamo("타투") == ["ㅌ", "ㅏ", "ㅌ", "ㅜ"]
    item = _item("글자 ㅌ을 세 번 이상 쓰세요.", ["keywords:letter_frequency"],
                 [{"letter": "ㅌ", "let_frequency": 3, "let_relation": "at least"}])
    assert score_response("ifeval", item, "토끼가 탁자 위에서 튀어 올라요.", language="ko").score == 1.0  # 토 탁 튀
    assert score_response("ifeval", item, "토끼가 탁자 위에 있어요.", language="ko").score == 0.0  # 토 탁


def test_a_korean_forbidden_word_is_found_before_its_particle():
    item = _item("'사과'라는 단어를 쓰지 마세요.", ["keywords:forbidden_words"], [{"forbidden_words": ["사과"]}])
    assert score_response("ifeval", item, "저는 사과를 좋아해요.", language="ko").score == 0.0
    assert score_response("ifeval", item, "저는 배를 좋아해요.", language="ko").score == 1.0


def test_a_case_instruction_left_in_a_korean_item_is_skipped_not_failed():
    item = _item("소문자로 쓰고 쉼표를 쓰지 마세요.", ["change_case:english_lowercase", "punctuation:no_comma"], [{}, {}])
    scored = score_response("ifeval", item, "비가 옵니다.", language="ko")
    assert scored.score == 1.0
    assert "skipped" in scored.detail["instructions"][0]


def test_an_empty_response_follows_nothing():
    item = _item("No commas.", ["punctuation:no_comma"], [{}])
    assert score_response("ifeval", item, "   ", language="en").score == 0.0


def test_it_refuses_an_unknown_instruction():
    with pytest.raises(InvalidInput, match="unknown IFEval instruction"):
        score_response("ifeval", _item("?", ["made_up:thing"], [{}]), "x", language="en")


def test_levels_give_voicebenchs_mean_of_strict_and_loose_prompt_and_instruction_accuracy():
    item = _item("Two rules.", ["punctuation:no_comma", "startend:end_checker"], [{}, {"end_phrase": "Bye."}])
    details = [
        score_response("ifeval", item, "Hello there. Bye.", language="en").detail,     # both followed
        score_response("ifeval", item, "Hello, there. Bye.\n**x**", language="en").detail,
    ]
    instruction_level, prompt_level = levels(details)
    # Second item, strict: a comma, and "Bye." is not last. Loose: without its first line ("**x**") it has
    # no comma, without its last line it ends with "Bye.", so both pass.
    assert [(r["strict"], r["loose"]) for r in details[1]["instructions"]] == [(False, True), (False, True)]
    strict_prompt, loose_prompt = [1, 0], [1, 1]
    strict_inst, loose_inst = [1, 1, 0, 0], [1, 1, 1, 1]
    expected = (sum(strict_prompt) / 2 + sum(loose_prompt) / 2 + sum(strict_inst) / 4 + sum(loose_inst) / 4) / 4 * 100
    assert subset_score("ifeval", instruction_level, prompt_level=prompt_level) == pytest.approx(expected)
