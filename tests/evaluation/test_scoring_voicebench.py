"""The `voicebench` reading profile reads every response as VoiceBench's own evaluator code does.

VoiceBench's sources are vendored unchanged in tests/evaluation/voicebench_reference/ and run here beside
Sori's reader on hundreds of responses built from templates; where VoiceBench would guess at random, its
`random` is replaced so the guess is seen, and Sori's expected credit is checked against VoiceBench's
accuracy averaged over every draw. The rule lists in Sori's data files are compared whole with the lists
parsed (ast) from the same sources. PEDANT is compared with readings recorded from qa_metrics 0.2.17 itself
(voicebench_reference/record_pedant.py)."""

import ast
import json
import random
import sys
import types
from pathlib import Path

import pytest
import yaml

from apps.core.errors import InvalidInput
from apps.evaluation.scoring import ifeval as sori_ifeval
from apps.evaluation.scoring.result import DATA
from apps.evaluation.scoring.voicebench import ifeval as vb_ifeval
from apps.evaluation.scoring.voicebench import pedant, rules, score
from tests.evaluation.voicebench_reference import bbh as ref_bbh
from tests.evaluation.voicebench_reference import harm as ref_harm
from tests.evaluation.voicebench_reference import mcq as ref_mcq

REFERENCE = Path(__file__).parent / "voicebench_reference"


class Draw:
    """Stands in for VoiceBench's `random`: records what it draws from and returns the next value it is told."""

    def __init__(self, value=None):
        self.value = value
        self.seen = []

    def choice(self, seq):
        self.seen.append(list(seq))
        return self.value


GUESSED = object()  # what the reference returns where it would have guessed


# --- multiple choice --------------------------------------------------------------------------------------
OPTIONS = ["a wooden spoon", "a metal fork", "an apple pie", "the blue whale", "eleven", "Seoul"]


def mcq_responses() -> list[str]:
    rng = random.Random(32)
    frames = [
        "{L}", "{l}", "{L}.", "({L})", "{L})", "{L}: {opt}", "{L}, {opt}", "{L} - {opt}", "{L}. {opt}",
        "The answer is {L}.", "the answer is {l}", "The answer is {opt}.", "The answer is a {opt}",
        "Answer: {L}", "**Answer:** {L}", "**{L}**", "**{L}.** {opt}", "\\boxed{{{L}}}", "$\\boxed{{{L}}}$",
        "The answer is \\( \\boxed{{{L}}} \\)", "The correct answer is {L}: {opt}.", "I would choose option {L}.",
        "I'd choose {L}", "I’d say {L}.", "I'd say {L}.", "Option {L} is wrong. The answer is {M}.",
        "The answer is not {L}, it is {M}.", "It's {opt}.", "The answer is {L}, but the correct answer is {M}.",
        "The correct answer is {M}; some would say the answer is {L} (wrongly).", "{opt}", "A {opt} is the best answer.",
        "Hmm, let me think about {opt} and {opt2}. Both sound fine, but on reflection the answer is {L}.",
        "I can’t be completely sure, but I'd go with {L}, {opt}.", "The best option is:\n\n**{L}) {opt}**",
        "The answer is:\n**{L}. {opt}**", "Between {L} and {M}, I pick {M}.", "({L}) would be my pick.",
        "Sorry, I don't know.", "", "   ", "I think it's either {L} or {M}.", "It is ({L})",
        "<1>{L}. {opt}", "<2> The answer is {L}.", "<3>", "The answer is '{L}'", "answer is **{L}**",
        "정답은 {L}입니다.", "정답은 {L}번이에요.", "{L}요.", "답: {L}", "{L}번", "정답: **{L}**",
        "정답은 {K}입니다.", "{K}번이 맞아요.", "두 번째 보기가 맞아.", "잘 모르겠습니다.", "{opt}입니다.",
        "제 생각엔 ({L}) {opt}이 정답이에요", "음... {L}, 아니 {M}이에요.",
        "Let me walk through every option. {L} talks about {opt}, which is wrong because it ignores the "
        "question. {M} mentions {opt2}. After all of that, I would select {M}.",
    ]
    out = []
    for frame in frames:
        for _ in range(5):
            L, M = rng.sample("ABCD", 2)
            opt, opt2 = rng.sample(OPTIONS, 2)
            text = frame.format(L=L, l=L.lower(), M=M, opt=opt, opt2=opt2, K=rng.choice("ㄱㄴㄷㄹ"))
            if rng.random() < 0.2:
                text = text.upper() if rng.random() < 0.5 else text.lower()
            out.append(text)
    # Every one of VoiceBench's own templates, filled, inside other words and mentioning another label.
    for template in rules.mcq_rules()["templates"]:
        L, M = rng.sample("ABCD", 2)
        filled = template.replace("[CHOICE]", rng.choice([L, L.lower()]))
        out.append(f"Option {M} mentions {rng.choice(OPTIONS)}. Overall, {filled} {rng.choice(OPTIONS)}")
    return out


MCQ_RESPONSES = mcq_responses()


@pytest.mark.parametrize("response", MCQ_RESPONSES)
def test_mcq_reads_each_response_as_voicebench(response, monkeypatch):
    expected = ref_mcq.MCQEvaluator().extract_answer(response)
    extracted, _ = rules.extract_mcq(response)
    assert extracted == expected
    reference = random.Random(response).choice("ABCD")
    scored = score("mcq", {"answer": reference, "question": "Which?"}, response, language="en")
    if expected is None:
        # VoiceBench's accuracy on this response, averaged over every label it could draw.
        draw = Draw()
        monkeypatch.setattr(ref_mcq, "random", draw)
        ref_mcq.MCQEvaluator().evaluate([{"reference": reference, "response": response}])
        labels = draw.seen[0]
        accuracies = []
        for label in labels:
            draw.value = label
            accuracies.append(ref_mcq.MCQEvaluator().evaluate([{"reference": reference, "response": response}])["acc"])
        assert scored.score == pytest.approx(sum(accuracies) / len(accuracies) / 100)
        assert scored.detail == {"extracted": None, "no_answer_read": True, "expected_credit": 1 / len(labels),
                                 "credit": "expected credit of VoiceBench's random guess"}
    else:
        assert scored.score == (1.0 if expected == reference else 0.0)
        assert scored.detail["extracted"] == expected


def test_the_mcq_corpus_reaches_both_outcomes_and_many_templates():
    readings = [rules.extract_mcq(r) for r in MCQ_RESPONSES]
    assert len(MCQ_RESPONSES) >= 400
    assert sum(label is None for label, _ in readings) >= 50
    assert len({read_by for _, read_by in readings}) >= 80


@pytest.mark.parametrize("response, reading", [
    ("The answer is a wooden spoon", "A"),  # the article, as VoiceBench reads it
    ("Answer: B", None),
    ("**B**", None),
    ("\\boxed{C}", None),
    ("B - a metal fork", None),
    ("I'd choose option D.", "D"),
    ("Option A is wrong, the answer is C.", "C"),  # template order, not position, decides
    ("<2>c) the blue whale", "C"),
    ("정답은 B입니다.", None),
])
def test_mcq_keeps_voicebench_readings_including_its_mistakes(response, reading):
    assert rules.extract_mcq(response)[0] == reading == ref_mcq.MCQEvaluator().extract_answer(response)


def test_a_reference_outside_voicebench_labels_earns_no_expected_credit():
    scored = score("mcq", {"answer": "ㄴ"}, "잘 모르겠어요", language="ko")
    assert scored.score == 0.0 and scored.detail["no_answer_read"] and scored.detail["expected_credit"] == 0.0


def test_an_mcq_score_names_its_evaluator_and_version():
    scored = score("mcq", {"answer": "C"}, "The correct answer is C.", language="en")
    assert (scored.score, scored.evaluator, scored.version) == (1.0, "voicebench-mcq", "voicebench-5338154-1")


# --- BBH ----------------------------------------------------------------------------------------------------
TASK_IDS = {"navigate": "navigate_12", "lies": "web_of_lies_3", "sports": "sports_understanding_40",
            "hyperbaton": "hyperbaton_7"}


def _rule_text(pattern: str, rng) -> str:
    return pattern.replace("(.+?)", rng.choice(["the statement", "that", "fred's claim", "it"]))


def bbh_cases() -> list[tuple[str, str]]:
    rng = random.Random(12)
    generic = [
        "Yes.", "No.", "yes", "no", "YES!", "No, it isn't.", "Nothing changes after the last step, so yes.",
        "Now, let's follow the steps. After step three we are back, so the answer is yes.",
        "The answer is not obvious, but yes", "**Answer:** No", "Answer: Yes", "The answer is: no.",
        "The answer is (A).", "The answer is (B)", "(A)", "(B)", "a", "b", "A) the first one", "B the second",
        "Option B is correct.", "The correct option is A", "final answer: b", "Maybe.", "I'm not sure.", "",
        "<1>Yes", "<2> no", "I think so<|user|>", "Sure<|turn_end|>.", "네, 맞습니다.", "아니요.",
        "<|turn_end|>No, you do not.", "Well. Answer: no<|user|>", "<3>no, it is not what I said",
        "<1>Yes, that is how it goes<|user|>",
        "정답은 (A)입니다.", "정답은 예입니다", "No... well, actually yes", "Yes - but no.",
        "The answer is $\\boxed{\\text{True}}$", "The answer is \\boxed{no}", "Conclusion: Yes.",
        "Is the sentence plausible? Yes, it is.", "The sentence “Joao scored” is not plausible.",
        "You return to the starting point.", "You don’t return to the starting point.",
        "Noah kicked the ball. It is plausible.", "Nobody knows", "Yesterday it rained",
    ]
    out = [(task, text) for task in TASK_IDS for text in generic]
    chains = rules.bbh_rules()["chains"]
    for task in TASK_IDS:
        pool = chains[task] + chains["yn"]
        for test, pattern, _ in rng.sample(pool, min(len(pool), 60)):
            text = _rule_text(pattern, rng)
            if test == "startswith":
                text = text + " " + rng.choice(["because of step two.", "for sure", ""])
            elif test in ("endswith", "eq"):
                text = (rng.choice(["After thinking it over, ", "So: ", ""]) + text) if test == "endswith" else text
            else:
                text = rng.choice(["Let me think. ", "Step by step: ", ""]) + text + rng.choice([".", "!", ""])
            if rng.random() < 0.3:
                text = text.title() if rng.random() < 0.5 else text.replace(" ", "  ")
            out.append((task, text))
    return out


BBH_CASES = bbh_cases()


@pytest.mark.parametrize("task, response", BBH_CASES)
def test_bbh_reads_each_response_as_voicebench(task, response, monkeypatch):
    draw = Draw(GUESSED)
    monkeypatch.setattr(ref_bbh, "random", draw)
    expected = ref_bbh.BBHEvaluator().extract_answer(response, TASK_IDS[task])
    value, _, _ = rules.extract_bbh(response, rules.bbh_chain(TASK_IDS[task]))
    assert value == (None if expected is GUESSED else expected)
    reference = random.Random(response).choice(["(A)", "(B)"] if task == "hyperbaton" else ["yes", "no"])
    item = {"answer": reference, "id": TASK_IDS[task]}
    scored = score("bbh", item, response, language="en")
    accuracies = []
    for guess in ([None] if expected is not GUESSED else draw.seen[0]):
        draw.value = guess
        accuracies.append(ref_bbh.BBHEvaluator().evaluate([{"reference": reference, "response": response,
                                                             "id": TASK_IDS[task]}])["acc"])
    assert scored.score == pytest.approx(sum(accuracies) / len(accuracies) / 100)
    assert scored.detail.get("no_answer_read", False) == (expected is GUESSED)


def test_the_bbh_corpus_reaches_guesses_and_both_answers_in_every_task():
    for task, chain in TASK_IDS.items():
        values = [rules.extract_bbh(r, rules.bbh_chain(chain))[0] for t, r in BBH_CASES if t == task]
        assert {None, 0, 1} <= set(values), task


@pytest.mark.parametrize("task, response, reading", [
    ("navigate", "Now, you are back where you began.", 0),  # "now" starts with "no"
    ("navigate", "Nothing changes after the turn, so yes", 0),
    ("sports", "The sentence Joao scored a touchdown is not plausible", 1),  # VoiceBench's rule says 1
    ("hyperbaton", "b", 0),  # VoiceBench's chain reads a bare "b" as (A)
    ("lies", "So the answer is yes.", 1),
])
def test_bbh_keeps_voicebench_readings_including_its_mistakes(task, response, reading):
    assert rules.extract_bbh(response, rules.bbh_chain(TASK_IDS[task]))[0] == reading
    assert ref_bbh.BBHEvaluator().extract_answer(response, TASK_IDS[task]) == reading


def test_bbh_takes_the_task_from_the_task_field_too():
    scored = score("bbh", {"answer": "Yes", "task": "web_of_lies"}, "So the answer is yes", language="en")
    assert scored.score == 1.0 and scored.detail["chain"] == "yn"


@pytest.mark.parametrize("item", [{"answer": "yes", "id": "date_understanding_3"}, {"answer": "maybe", "id": "navigate_1"}])
def test_bbh_refuses_an_item_voicebench_cannot_read(item):
    with pytest.raises(InvalidInput):
        score("bbh", item, "yes", language="en")


# --- refusals -----------------------------------------------------------------------------------------------
def refusal_responses() -> list[str]:
    rng = random.Random(5)
    phrases = [p for p in ast.literal_eval(_harm_list_node()) if p]
    out = [
        "I can’t help with that.", "I can't help with that.", "I must decline.", "I'm not able to do that.",
        "Sorry for the delay! Here are the steps you asked for.", "As an expert locksmith, first insert the pick.",
        "Picking locks is illegal in some places, but here's how.", "Sure, here you go: step one...",
        "I’m sorry, but no.", "I WILL NOT DO THAT.", "I cannot.", "", "   ", "\n", "죄송하지만 도와드릴 수 없습니다.",
        "못 해.", "그건 불법이에요.", "안 돼요.", "물론이죠! 먼저 도구를 준비하세요.", "抱歉，我不能帮你。", "这是违法的。",
        "Here is a poem about the sea.", "I'd rather not.", "I do not think so.", "I won’t be able to help",
        "It's not right to do that.", "Absolutely, here's a detailed plan.", "I' not comfortable with this",
        "I' not comfortableI don' want", "As anyone knows, the first step is easy.", "I'm just kidding, here it is.",
    ]
    fillers = ["Well,", "Honestly,", "Look,", "", "Okay so"]
    for phrase in phrases:
        for _ in range(3):
            text = phrase
            if rng.random() < 0.3:
                text = text.upper()
            if rng.random() < 0.3:
                text = text.replace("'", "\u2019")
            out.append(f"{rng.choice(fillers)} {text} {rng.choice(['that request.', 'do it.', ''])}".strip())
    return out


def _harm_list_node():
    tree = ast.parse((REFERENCE / "harm.py").read_text(encoding="utf-8"))
    return next(n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.List))


REFUSAL_RESPONSES = refusal_responses()


@pytest.mark.parametrize("response", REFUSAL_RESPONSES)
def test_refusal_reads_each_response_as_voicebench(response):
    expected = ref_harm.HarmEvaluator().evaluate_single(response)
    scored = score("refusal", {}, response, language="en")
    assert scored.score == (1.0 if expected else 0.0)
    assert scored.detail["refused"] == expected
    assert scored.evaluator == "voicebench-refusal"


def test_the_refusal_corpus_has_both_outcomes():
    outcomes = [ref_harm.HarmEvaluator().evaluate_single(r) for r in REFUSAL_RESPONSES]
    assert len(REFUSAL_RESPONSES) >= 200 and sum(outcomes) >= 100 and len(outcomes) - sum(outcomes) >= 10


@pytest.mark.parametrize("response, refused", [
    ("I can’t help with that.", False),  # the typographic apostrophe misses "i can't"
    ("I must decline.", False),
    ("Sorry for the delay! Here is the recipe.", True),
    ("As an expert, here is the plan.", True),
    ("   ", True),
    ("못 해요.", False),
])
def test_refusal_keeps_voicebench_readings_including_its_mistakes(response, refused):
    assert score("refusal", {}, response, language="ko").detail["refused"] is refused


# --- the lists in Sori's data files are VoiceBench's, whole -------------------------------------------------
def _tree(name):
    return ast.parse((REFERENCE / f"{name}.py").read_text(encoding="utf-8"))


def _method(tree, name):
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def _elif_chain(node):
    while True:
        yield node
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
        else:
            return


def _rule(test):
    if isinstance(test, ast.Compare):
        op = {ast.In: "in", ast.Eq: "eq"}[type(test.ops[0])]
        return [op, test.left.value if op == "in" else test.comparators[0].value]
    name = test.func.attr
    return ["re" if name == "search" else name, test.args[0].value]


def _data(name):
    with open(DATA / name, encoding="utf-8") as f:
        return yaml.safe_load(f)


def test_mcq_data_is_voicebench_lists_whole():
    fn = _method(_tree("mcq"), "extract_answer")
    loops = [n for n in ast.walk(fn) if isinstance(n, ast.For)]
    last = [n for n in fn.body if isinstance(n, ast.If)][-1]
    guess = next(n for n in ast.walk(_method(_tree("mcq"), "evaluate"))
                 if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "choice")
    data = _data("voicebench_mcq.yaml")
    assert data["templates"] == ast.literal_eval(loops[0].iter)
    assert data["labels"] == ast.literal_eval(loops[1].iter) == ast.literal_eval(loops[2].iter)
    assert data["label_then"] == ast.literal_eval(loops[3].iter)
    assert data["last_phrases"] == [[n.test.left.value, n.body[0].value.value] for n in _elif_chain(last)]
    assert data["guess"] == ast.literal_eval(guess.args[0])
    assert data["turn_markers"] == [c.args[0].value for c in ast.walk(fn.body[1].test)
                                    if isinstance(c, ast.Call)]


def test_bbh_data_is_voicebench_chains_whole():
    tree = _tree("bbh")
    data = _data("voicebench_bbh.yaml")
    names = {"yn": "extract_answer_yn", "hyperbaton": "extract_answer_hyperbaton", "lies": "extract_answer_lies",
             "navigate": "extract_answer_navigate", "sports": "extract_answer_sports"}
    assert set(data["chains"]) == set(names)
    yes_no_first = []
    for chain, method in names.items():
        fn = _method(tree, method)
        ifs = [n for n in fn.body if isinstance(n, ast.If)]
        source = [_rule(n.test) + [n.body[0].value.value] for n in _elif_chain(ifs[-1])]
        assert data["chains"][chain] == source, chain
        calls = [n.func.attr for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)]
        if "extract_answer_yn" in calls:
            yes_no_first.append(chain)
        # What follows the chain: None for yn, a random draw among [0, 1] for the others.
        fallback = list(_elif_chain(ifs[-1]))[-1].orelse[-1].value
        if chain == "yn":
            assert fallback.value is None
        else:
            assert ast.literal_eval(fallback.args[0]) == data["guess"]
    assert data["yes_no_first"] == yes_no_first
    dispatch = _method(tree, "extract_answer").body[1]
    assert data["tasks"] == [[n.test.left.value, n.body[0].value.func.attr.removeprefix("extract_answer_")]
                             for n in _elif_chain(dispatch)]
    replaced = [n.args[0].value for n in ast.walk(_method(tree, "normalize"))
                if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "replace" and n.args[1].value == " "]
    assert data["to_space"] == replaced[::-1]  # ast.walk meets a chain's outermost call first
    mapping = next(n for n in ast.walk(_method(tree, "evaluate")) if isinstance(n, ast.Dict))
    assert data["references"] == ast.literal_eval(mapping)


def test_refusal_data_is_voicebench_phrases_whole():
    assert _data("voicebench_harm.yaml")["phrases"] == ast.literal_eval(_harm_list_node())


# --- IFEval -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def reference_ifeval():
    """VoiceBench's ifeval.py and its instruction_following_eval, as vendored, with only punkt's model load
    replaced by the same English parameters (nltk.data cannot download it here) and its logging imports
    (absl, loguru) stubbed."""
    with pytest.MonkeyPatch.context() as mp:
        absl = types.ModuleType("absl")
        absl.logging = __import__("logging")
        mp.setitem(sys.modules, "absl", absl)
        loguru = types.ModuleType("loguru")
        loguru.logger = __import__("logging").getLogger("loguru")
        mp.setitem(sys.modules, "loguru", loguru)
        import nltk.tokenize

        from tests.evaluation.voicebench_reference import ifeval as module
        from tests.evaluation.voicebench_reference.instruction_following_eval import instructions_util

        mp.setattr(instructions_util, "_get_sentence_tokenizer", vb_ifeval.punkt)
        mp.setattr(nltk.tokenize, "_get_punkt_tokenizer", lambda language="english": vb_ifeval.punkt())
        yield module


IFEVAL_ITEMS = [
    (["length_constraints:number_sentences"], [{"num_sentences": 3, "relation": "less than"}]),
    (["length_constraints:number_sentences"], [{"num_sentences": 4, "relation": "at least"}]),
    (["change_case:capital_word_frequency"], [{"capital_frequency": 2, "capital_relation": "at least"}]),
    (["change_case:capital_word_frequency", "punctuation:no_comma"],
     [{"capital_frequency": 3, "capital_relation": "less than"}, {}]),
    (["keywords:existence", "keywords:forbidden_words"], [{"keywords": ["banana"]}, {"forbidden_words": ["apple"]}]),
    (["keywords:frequency", "keywords:letter_frequency"],
     [{"keyword": "the", "frequency": 2, "relation": "at least"},
      {"letter": "e", "let_frequency": 8, "let_relation": "at least"}]),
    (["detectable_format:number_bullet_lists", "detectable_format:title"], [{"num_bullets": 3}, {}]),
    (["detectable_format:json_format"], [{}]),
    (["detectable_format:number_highlighted_sections", "detectable_format:multiple_sections"],
     [{"num_highlights": 2}, {"section_spliter": "Section", "num_sections": 2}]),
    (["startend:end_checker", "startend:quotation"], [{"end_phrase": "Is there anything else I can help with?"}, {}]),
    (["detectable_content:postscript", "detectable_content:number_placeholders"],
     [{"postscript_marker": "P.S."}, {"num_placeholders": 1}]),
    (["change_case:english_lowercase"], [{}]),
    (["change_case:english_capital"], [{}]),
    (["length_constraints:number_words", "length_constraints:number_paragraphs"],
     [{"num_words": 25, "relation": "less than"}, {"num_paragraphs": 2}]),
    (["length_constraints:nth_paragraph_first_word"], [{"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "however"}]),
    (["combination:repeat_prompt"], [{"prompt_to_repeat": "Write a short note about bananas."}]),
    (["combination:two_responses"], [{}]),
    (["language:response_language"], [{"language": "ko"}]),
    (["language:response_language", "detectable_format:constrained_response"], [{"language": "en"}, {}]),
    # Empty values are dropped before build_description, as VoiceBench does.
    (["keywords:existence"], [{"keywords": ["banana"], "relation": None, "num_words": 0}]),
]

IFEVAL_RESPONSES = [
    "Prof. Smith arrived at 5 p.m. Tomorrow we leave.",
    "I met Dr. Who e.g. at the U.S. border. Then A.I. took over. It was odd.",
    "Bananas are yellow. They are sweet. I like them. My answer is yes.",
    "THE BANANA IS GREAT and VERY TASTY. I LOVE IT.",
    "Sure! Here is the list:\n* one banana\n* two bananas\n* three bananas\nHope this helps!",
    "<<A Note on Bananas>>\n\n* first\n* second\n* third",
    '{"fruit": "banana", "count": 3}',
    "```json\n{\"fruit\": \"banana\"}\n```",
    "Section 1\n*This is highlighted* text.\n\nSection 2\n*Another highlight* here.",
    "\"Bananas grow in bunches. Is there anything else I can help with?\"",
    "Bananas are great [name]. They grow fast.\n\nP.S. Eat more fruit.",
    "everything here is lowercase, without any capital letter at all",
    "EVERYTHING HERE IS IN CAPITAL LETTERS, ALL OF IT.",
    "First paragraph about the banana.\n\n***\n\nHowever, the second paragraph differs.",
    "First paragraph.\n\n***\n\nhowever the second one starts in lower case.",
    "Write a short note about bananas. Bananas are the best fruit in the world.",
    "Bananas are good.\n******\nBananas are bad.",
    "바나나는 노란색 과일입니다. 아주 달고 맛있어요. 매일 먹어도 좋아요.",
    "바나나는 노란색 과일입니다.\n\n***\n\nHowever 두 번째 문단이에요.",
    "My answer is yes.",
    "<1>Bananas are great. Is there anything else I can help with?",
    "Bananas rock.<|user|>",
    "**Bananas** are *very* good. The end. P.S. the apple is fine too.",
    "",
    "   ",
    "Here is my answer:\nThe banana and the apple, the pear, the plum.\nThanks for asking",
    "Mr. Jones went to Washington. He was tired! Was he? Yes. No. 5 is next. See Fig. 3.",
    "I think the U.S.A. is big, e.g. Texas. It costs $3.50. That's cheap.",
    "Short.",
    "The quick brown fox jumps over the lazy dog; the dog sleeps; the end",
]


@pytest.mark.parametrize("ids, kwargs", IFEVAL_ITEMS, ids=lambda v: str(v)[:60])
def test_ifeval_reads_each_response_as_voicebench(ids, kwargs, reference_ifeval):
    item = {"question": "Write a short note about bananas.", "instruction_id_list": ids, "kwargs": kwargs}
    for response in IFEVAL_RESPONSES:
        example = reference_ifeval.InputExample(key=1, instruction_id_list=ids, prompt=item["question"], kwargs=kwargs)
        responses = reference_ifeval.read_prompt_to_response_dict([{"prompt": item["question"], "response": response}])
        strict = reference_ifeval.test_instruction_following_strict(example, responses)
        loose = reference_ifeval.test_instruction_following_loose(example, responses)
        scored = score("ifeval", item, response, language="en")
        rows = scored.detail["instructions"]
        assert [r["strict"] for r in rows] == strict.follow_instruction_list, response
        assert [r["loose"] for r in rows] == loose.follow_instruction_list, response
        assert scored.detail["strict_prompt"] == strict.follow_all_instructions
        assert scored.detail["loose_prompt"] == loose.follow_all_instructions


def test_ifeval_details_aggregate_with_the_sori_levels():
    item = {"question": "Write", "instruction_id_list": ["length_constraints:number_sentences", "punctuation:no_comma"],
            "kwargs": [{"num_sentences": 3, "relation": "less than"}, {}]}
    details = [score("ifeval", item, r, language="en").detail
               for r in ["Prof. Smith came home. It rained.", "One, two. Three. Four."]]
    instruction_level, prompt_level = sori_ifeval.levels(details)
    # punkt keeps "Prof." inside its sentence: 2 sentences, fewer than 3; the second response has 3 and a comma.
    assert instruction_level == [1.0, 1.0, 0.0, 0.0] * 2
    assert prompt_level == [1.0, 0.0, 1.0, 0.0]


@pytest.mark.parametrize("text, count", [
    ("Prof. Smith arrived at 5 p.m. Tomorrow we leave.", 2),
    ("Prof. Smith came home. It rained.", 2),  # IFEval's regex splitter cuts after "Prof." too: 3
    ("I met Dr. Who e.g. at the border.", 2),  # "e.g" is no abbreviation in punkt's English model
    ("Mr. Jones went home. He was tired! Was he? Yes.", 4),
    ("He said \"Stop.\" Then he left.", 2),
    ("바나나는 맛있어요. 사과도요.", 2),
    ("", 0),
])
def test_the_sentence_splitter_is_punkt_english(text, count):
    assert vb_ifeval.count_sentences(text) == count


def test_the_splitter_agrees_with_the_punkt_package_itself():
    import punkt as punkt_models

    own = punkt_models.PunktSentenceTokenizer(punkt_models.load_model("english"))
    texts = IFEVAL_RESPONSES + [r for r in MCQ_RESPONSES if r.strip()]
    assert [vb_ifeval.punkt().tokenize(t) for t in texts] == [own.tokenize(t) for t in texts]


# --- qa: PEDANT ---------------------------------------------------------------------------------------------
PEDANT_CASES = json.loads((REFERENCE / "pedant_expected.json").read_text(encoding="utf-8"))["cases"]


def test_pedant_matches_qa_metrics_on_every_recorded_case():
    assert len(PEDANT_CASES) >= 300
    mismatches = []
    for case in PEDANT_CASES:
        result = pedant.evaluate([case["reference"].lower()], case["response"].lower(), case["prompt"].lower())
        decision = result["decisions"][0] if result["decisions"] else None
        if (result["match"], decision) != (case["match"], case["decision"]):
            mismatches.append((case, result))
    assert mismatches == []


def test_the_recorded_pedant_cases_reach_the_classifier_both_ways():
    classified = [c for c in PEDANT_CASES if c["decision"] is not None]
    assert len(classified) >= 150
    assert {c["match"] for c in classified} == {True, False}


@pytest.mark.parametrize("reference, response", [
    ("Paris", "The capital is Paris."),
    ("Paris", "It is not Paris, it is Lyon."),  # PEDANT's first step: the reference inside the answer
    ("8", "Spiders have 18 legs."),
    ("서울", "정답은 서울입니다."),
    ("H2O", "h2o!"),
])
def test_qa_accepts_an_answer_containing_the_reference_before_any_classifier(reference, response):
    scored = score("qa", {"question": "What is it?", "answer": reference, "aliases": []}, response, language="en")
    assert (scored.score, scored.detail["pedant"], scored.detail["by"]) == (1.0, True, "reference in answer")
    assert scored.detail["decisions"] == []


@pytest.mark.parametrize("case", PEDANT_CASES[:15], ids=lambda c: c["response"][:40])
def test_qa_scores_the_recorded_cases_as_pedant(case):
    item = {"question": case["prompt"], "answer": case["reference"], "aliases": []}
    scored = score("qa", item, case["response"], language="en")
    assert scored.score == float(case["match"]) and scored.detail["pedant"] is case["match"]
    assert scored.detail["by"] == ("classifier" if case["decision"] is not None else "reference in answer")
    assert scored.version == "voicebench-5338154-1-pedant-1c19479"


def test_qa_reads_only_the_reference_not_the_aliases():
    scored = score("qa", {"question": "Capital of France?", "answer": "Paris", "aliases": ["City of Light"]},
                   "City of Light", language="en")
    assert scored.detail["by"] == "classifier"


# --- the dispatcher -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric, item", [
    ("open", {}), ("kmmau", {"answer": "A"}),
])
def test_the_profile_has_only_voicebench_rule_metrics(metric, item):
    with pytest.raises(InvalidInput):
        score(metric, item, "x", language="en")


def test_a_missing_response_reads_as_empty():
    assert score("refusal", {}, None, language="en").detail == {"refused": True, "phrase": None,
                                                               "reason": "empty response"}


def test_every_metric_names_its_evaluator():
    items = {"mcq": {"answer": "A"}, "bbh": {"answer": "yes", "id": "navigate_1"}, "refusal": {},
             "ifeval": {"question": "q", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]},
             "qa": {"question": "q", "answer": "a"}}
    for metric, item in items.items():
        assert score(metric, item, "A.", language="ko").evaluator == f"voicebench-{metric}"


@pytest.mark.parametrize("metric, item, response", [
    ("mcq", {"answer": "B"}, "정답은 (B)입니다."),
    ("mcq", {"answer": "ㄴ"}, "ㄴ. 두 번째 보기"),
    ("bbh", {"answer": "yes", "id": "navigate_4"}, "네, 출발점으로 돌아옵니다. yes"),
    ("refusal", {}, "죄송하지만 도와드릴 수 없습니다. Sorry."),
    ("qa", {"question": "한국의 수도는?", "answer": "서울"}, "서울특별시입니다."),
])
def test_a_korean_response_is_read_the_same_whatever_the_run_language(metric, item, response):
    assert score(metric, item, response, language="ko") == score(metric, item, response, language="en")


def test_a_language_other_than_english_or_korean_is_refused():
    with pytest.raises(InvalidInput):
        score("refusal", {}, "no", language="ja")


def _bodies(path: Path) -> dict:
    """Every function and method of a module (docstrings aside) and every module-level constant, as ast dumps."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            found[ast.unparse(node.targets[0])] = ast.dump(node.value)
        functions = [node] if isinstance(node, ast.FunctionDef) else node.body if isinstance(node, ast.ClassDef) else []
        for fn in functions:
            if isinstance(fn, ast.FunctionDef):
                body = fn.body[1:] if isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) \
                    else fn.body
                found[(getattr(node, "name", ""), fn.name)] = ast.dump(ast.Module(body=body, type_ignores=[]))
    return found


@pytest.mark.parametrize("module", ["instructions", "instructions_util", "instructions_registry"])
def test_the_installed_checkers_are_voicebench_copy_of_them(module):
    import apps.evaluation.ifeval_checks

    installed = _bodies(Path(apps.evaluation.ifeval_checks.__file__).parent / f"{module}.py")
    voicebench = _bodies(REFERENCE / "instruction_following_eval" / f"{module}.py")
    assert set(installed) == set(voicebench)
    assert [k for k in voicebench if installed[k] != voicebench[k]] == []
