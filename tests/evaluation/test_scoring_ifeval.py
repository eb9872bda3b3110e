"""IFEval / KIFEval instruction checks (IFEval's checkers via if-verifiable), strict and loose: the item is
checked exactly as it says (no instruction skipped for a language), English sentences counted by pysbd,
Korean ones on Kiwi, Korean letters in jamo, curly and Korean quotation marks; and `problems`, which names
what keeps an item's checker data from being checked as written."""

import pytest

from apps.core.errors import InvalidInput
from apps.evaluation.aggregate import subset_score
from apps.evaluation.scoring import score_response
from apps.evaluation.scoring.ifeval import english_sentence_count, jamo, levels, problems


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
    assert good.version == "ifeval-en-2"


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
    assert short.version == "ifeval-ko-2"


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


def test_a_case_instruction_left_in_a_korean_item_is_checked_as_written():
    # ht-case-removal takes case instructions out of the Korean item at translation; one still there is the
    # item's own instruction, so Korean text (no upper case, not English) does not follow it.
    item = _item("대문자로 쓰고 쉼표를 쓰지 마세요.", ["change_case:english_capital", "punctuation:no_comma"], [{}, {}])
    scored = score_response("ifeval", item, "비가 옵니다.", language="ko")
    assert [(r["id"], r["strict"]) for r in scored.detail["instructions"]] == [
        ("change_case:english_capital", False), ("punctuation:no_comma", True)]
    assert scored.score == pytest.approx((0 + 0 + 0.5 + 0.5) / 4)
    assert all("skipped" not in r for r in scored.detail["instructions"])


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


# --- English sentences: a real boundary detector (pysbd) -----------------------------------------------------
@pytest.mark.parametrize("text, count", [
    ("Prof. Lee explained the idea. Everyone nodded.", 2),
    ("Bring something sweet, e.g. cake or fruit. Then we eat.", 2),
    ("A.I. is changing how people work. Some jobs will change.", 2),
    ("The meeting ends at 5 p.m. Tomorrow we start early.", 2),
    ("We leave at 9 a.m. and come back at noon.", 1),
    ("Dr. Park and Mr. Choi met in the U.S. capital. It rained. They stayed inside!", 3),
    ("The price rose to 3.75 dollars. Is that a lot? Maybe...", 3),
    ("**Summary**\n- Rain is water.\n- It falls.\nThat is all.", 4),
    ("no punctuation at all in this answer", 1),
])
def test_english_sentences_are_counted_through_abbreviations(text, count):
    assert english_sentence_count(text) == count


@pytest.mark.parametrize("relation, threshold, response, followed", [
    ("less than", 3, "Prof. Kim of the U.S. team, i.e. the coach, arrived at 5 p.m. on Friday. He left.", True),
    ("at least", 3, "Prof. Kim of the U.S. team, i.e. the coach, arrived at 5 p.m. on Friday. He left.", False),
    ("at least", 2, "I will answer.\nIt rains on Mon. and Tue. It stops on Wed.", True),
    ("less than", 2, "Well, let me think about this for a moment, because rain is complicated, e.g. drizzle "
                     "versus showers, and the answer depends on where you live and the season, so: it rains.", True),
])
def test_an_english_sentence_limit_is_checked_on_real_sentences(relation, threshold, response, followed):
    item = _item("How many sentences?", ["length_constraints:number_sentences"],
                 [{"num_sentences": threshold, "relation": relation}])
    assert score_response("ifeval", item, response, language="en").detail["strict_prompt"] is followed


# --- Korean sentences stay on Kiwi --------------------------------------------------------------------------
@pytest.mark.parametrize("response, followed", [
    ("비가 와요 우산 챙겨요 길이 미끄러워요", True),                           # 해요체, no punctuation
    ("나 지금 간다 너도 빨리 와 늦으면 안 돼", True),                           # 해체
    ("오늘은 비가 옵니다. 우산을 챙기십시오! 길이 미끄럽습니까?", True),       # 합쇼체, punctuation
    ("비가 오니까 우산을 챙기고 천천히 걸어가면 좋겠습니다.", False),           # one long sentence
    ("- 비가 옵니다\n- 우산을 챙기세요", False),                                # two list lines
])
def test_a_korean_sentence_minimum_counts_sentences_in_every_register(response, followed):
    item = _item("세 문장 이상으로 답하세요.", ["length_constraints:number_sentences"],
                 [{"num_sentences": 3, "relation": "at least"}])
    assert score_response("ifeval", item, response, language="ko").detail["strict_prompt"] is followed


# --- quotation marks ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("response, followed", [
    ('"비가 옵니다."', True),
    ("“비가 옵니다.”", True),
    ("「비가 옵니다.」", True),
    ("『비가 옵니다. 우산을 챙기세요.』", True),
    ("‘비가 와요.’", True),
    ("  “비가 와요.\n우산 챙겨요.”  ", True),
    ("“비가 옵니다.」", False),    # the marks do not pair
    ("비가 “옵니다”.", False),     # quoted inside, not wrapped
    ("“", False),
])
def test_a_korean_answer_wrapped_in_korean_or_curly_quotes_is_quoted(response, followed):
    item = _item("답 전체를 큰따옴표로 감싸세요.", ["startend:quotation"], [{}])
    assert score_response("ifeval", item, response, language="ko").detail["strict_prompt"] is followed


@pytest.mark.parametrize("response, followed", [
    ('"Rain is water."', True),
    ("“Rain is water.”", True),
    ('“Rain is water."', True),
    ("‘Rain is water.’", False),   # single quotes are not the double quotation marks asked for
    ("「Rain is water.」", False),
    ("Rain is “water”.", False),
])
def test_an_english_answer_in_curly_double_quotes_is_quoted(response, followed):
    item = _item("Wrap your entire response with double quotation marks.", ["startend:quotation"], [{}])
    assert score_response("ifeval", item, response, language="en").detail["strict_prompt"] is followed


# --- Korean checker data, checked as the Korean item says ------------------------------------------------------
def test_a_translated_keyword_letter_and_end_phrase_are_checked_in_korean():
    item = _item("바나나를 언급하고 ㅌ을 열 번 이상 쓰고 '더 궁금한 점 있으신가요?'로 끝내세요.",
                 ["keywords:existence", "keywords:letter_frequency", "startend:end_checker"],
                 [{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"},
                  {"end_phrase": "더 궁금한 점 있으신가요?"}])
    answer = ("토요일 아침 탁자 위에 바나나를 두고 토마토와 튀김을 먹었어요. 텃밭에서 딴 토란과 탄산수도 곁들였죠. "
              "더 궁금한 점 있으신가요?")
    assert len([j for j in jamo(answer) if j == "ㅌ"]) >= 10
    assert score_response("ifeval", item, answer, language="ko").score == 1.0
    missing_end = answer.rsplit(" 더", 1)[0]
    scored = score_response("ifeval", item, missing_end, language="ko")
    assert [r["strict"] for r in scored.detail["instructions"]] == [True, True, False]


@pytest.mark.parametrize("response, count", [
    ("닭", 0),         # a double final (ㄺ) is a letter of its own, not ㄹ + ㄱ
    ("꿈", 0),         # ㄲ is not ㄱ
    ("각각", 4),       # initial and final of both syllables
    ("ㄱㄱ 웃겨요", 3),  # standalone jamo count too
])
def test_korean_letters_are_counted_in_jamo_as_written(response, count):
    item = _item("ㄱ을 세어 봅니다.", ["keywords:letter_frequency"],
                 [{"letter": "ㄱ", "let_frequency": count, "let_relation": "at least"}])
    assert score_response("ifeval", item, response, language="ko").score == 1.0
    fewer = _item("ㄱ을 세어 봅니다.", ["keywords:letter_frequency"],
                  [{"letter": "ㄱ", "let_frequency": count + 1, "let_relation": "less than"}])
    assert score_response("ifeval", fewer, response, language="ko").score == 1.0
    more = _item("ㄱ을 세어 봅니다.", ["keywords:letter_frequency"],
                 [{"letter": "ㄱ", "let_frequency": count + 1, "let_relation": "at least"}])
    assert score_response("ifeval", more, response, language="ko").score == 0.0


@pytest.mark.parametrize("response, used", [
    ("사과는 빨개요.", True),
    ("저희 집에서는 사과도 길러.", True),
    ("**사과**만 먹었습니다.", True),
    ("사과에서 향이 납니다.", True),
    ("제가 사과드립니다라고 말할 일은 없습니다.", True),  # a word starting with the forbidden one
    ("배와 귤을 먹었습니다.", False),
    ("홍사과라는 품종은 없어요.", False),                 # inside another word, not at its start
])
def test_a_korean_forbidden_word_is_found_with_any_particle(response, used):
    item = _item("'사과'라는 말을 쓰지 마세요.", ["keywords:forbidden_words"], [{"forbidden_words": ["사과"]}])
    assert score_response("ifeval", item, response, language="ko").detail["strict_prompt"] is (not used)


def test_a_korean_postscript_and_sections_use_the_translated_markers():
    item = _item("두 섹션으로 나누고 추신을 붙이세요.", ["detectable_format:multiple_sections", "detectable_content:postscript"],
                 [{"section_spliter": "섹션", "num_sections": 2}, {"postscript_marker": "추신:"}])
    good = "섹션 1\n비가 와요.\n섹션 2\n우산을 챙겨요.\n\n추신: 장화도 좋아요."
    assert score_response("ifeval", item, good, language="ko").score == 1.0
    english_markers = "Section 1\n비가 와요.\nSection 2\n우산을 챙겨요.\n\nP.S. 장화도 좋아요."
    assert score_response("ifeval", item, english_markers, language="ko").score == 0.0


# --- problems: what keeps checker data from being checked as written -------------------------------------------
def test_valid_korean_and_english_checker_data_have_no_problems():
    assert problems(["keywords:existence", "keywords:letter_frequency", "startend:end_checker",
                     "length_constraints:number_characters"],
                    [{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"},
                     {"end_phrase": "더 궁금한 점 있으신가요?"}, {"num_characters": 50, "relation": "less than"}],
                    language="ko") == []
    # Source records list every argument of every instruction, mostly null: null ones are absent.
    assert problems(["keywords:letter_frequency", "punctuation:no_comma"],
                    [{"letter": "e", "let_frequency": 10, "let_relation": "at least", "keywords": None, "end_phrase": None},
                     {"num_words": None}], language="en") == []


@pytest.mark.parametrize("ids, kwargs, expected", [
    (["keywords:existance"], [{"keywords": ["바나나"]}], "instruction 1 (keywords:existance): not a known instruction"),
    (["startend:end_checker"], [{}], "instruction 1 (startend:end_checker): missing argument 'end_phrase'"),
    (["punctuation:no_comma", "keywords:letter_frequency"], [{}, {"letter": "ㅌ", "let_frequency": 3}],
     "instruction 2 (keywords:letter_frequency): missing argument 'let_relation'"),
    (["detectable_format:title"], [{"title": "제목"}],
     "instruction 1 (detectable_format:title): unexpected argument 'title' (it takes none)"),
    (["startend:end_checker"], [{"end_phrase": "끝.", "ending": "끝."}],
     "instruction 1 (startend:end_checker): unexpected argument 'ending' (it takes end_phrase)"),
    (["punctuation:no_comma", "startend:quotation"], [{}],
     "kwargs: 1 entries for 2 instructions (one dict per instruction)"),
    ([], [], "instruction_id_list: the item names no instruction"),
    (["keywords:letter_frequency"], [{"letter": "가", "let_frequency": 3, "let_relation": "at least"}],
     "instruction 1 (keywords:letter_frequency): argument 'letter' = '가' is not a value this checker takes as given"),
    (["keywords:existence"], [{"keywords": "바나나"}],
     "instruction 1 (keywords:existence): argument 'keywords' = '바나나' is not a value this checker takes as given"),
    (["length_constraints:number_words"], [{"num_words": "100", "relation": "at least"}],
     "instruction 1 (length_constraints:number_words): its arguments are not usable"),
    (["length_constraints:number_sentences"], [{"num_sentences": 3, "relation": "at most"}],
     "instruction 1 (length_constraints:number_sentences): its arguments are not usable"),
    (["startend:end_checker"], ["끝."], "instruction 1 (startend:end_checker): its kwargs must be an object, not str"),
])
def test_problems_name_the_instruction_and_the_argument(ids, kwargs, expected):
    found = problems(ids, kwargs, language="ko")
    assert any(p.startswith(expected) for p in found), found


def test_a_latin_letter_is_a_valid_argument_in_english_and_korean_alike():
    kwargs = [{"letter": "e", "let_frequency": 10, "let_relation": "at least"}]
    assert problems(["keywords:letter_frequency"], kwargs, language="en") == []
    assert problems(["keywords:letter_frequency"], kwargs, language="ko") == []
    assert problems(["length_constraints:number_characters"], [{"num_characters": 20, "relation": "less than"}],
                    language="en") == ["instruction 1 (length_constraints:number_characters): not a known instruction"]


def test_the_fast_sentence_count_agrees_with_pysbd_on_the_whole_line():
    # english_sentence_count cuts a line only where pysbd is certain to end a sentence and asks pysbd about
    # the rest; on every kind of line it must count what pysbd counts on the whole line.
    import pysbd

    segmenter = pysbd.Segmenter(language="en", clean=False)
    lines = [
        "Rain falls from clouds. Then it collects in rivers. Finally it reaches the sea.",
        "(Lee 2016) While rain is common, it varies. Some regions get little.",
        "The storm hit at 4 p.m. Residents left. Officials, e.g. the mayor, stayed.",
        "It rose by 3.5 percent. Experts vs. critics disagree. That is normal.",
        "She works for Acme Corp. She likes it. Her boss, Mr. Kim, agrees.",
        "Was it good? Yes! It was great. Really great...",
        "He said \"go home.\" Then he left. Nobody followed.",
        "The U.S. and the U.K. signed it. Both countries agreed.",
        "See the appendix (Table 3). Then read section 4. It explains the method.",
        "first line without capitals. second one. Third one follows.",
    ]
    for line in lines:
        expected = sum(1 for s in segmenter.segment(line) if s.strip())
        assert english_sentence_count(line) == expected, line
