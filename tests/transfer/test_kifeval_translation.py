"""KIFEval's constraints travel with the item: the translator's answer for an IFEval sample carries the Korean
item's instruction_id_list and kwargs (keywords translated, a letter mapped to a Korean one, end phrases and
markers translated) and the instructions a rule removed; they are validated against the checkers that will
score the item (a problem sends the answer back once, then the sample needs attention, the problem named),
stored on the translation, shown beside the English ones and editable by a person. BBH items keep their task,
a redesigned grammar judgment its choices."""

import html
import json

import pytest
from django.urls import reverse

from apps.consultations.models import Rulebook
from apps.consultations.rulebooks import load_rulebooks
from apps.core.errors import InvalidInput
from apps.jobs.models import Job, JobStatus
from apps.pages.demo_provider import recorded
from apps.sources.models import SourceSample
from apps.sources.services import import_benchmark
from apps.transfer.hypertranslation.services import (
    correct_translation,
    start_translation_run,
    translator_schema,
)
from apps.transfer.models import Translation, TranslationAction

BANANA = {"key": "1001", "prompt": "Write a short note about breakfast. Mention the word banana, use the letter e at "
                                   "least 10 times, write in all lowercase letters and end with 'Any other questions?'",
          "instruction_id_list": ["keywords:existence", "keywords:letter_frequency", "change_case:english_lowercase",
                                  "startend:end_checker"],
          # As IFEval's records are: every argument of every instruction, mostly null.
          "kwargs": [{"keywords": ["banana"], "letter": None, "end_phrase": None},
                     {"keywords": None, "letter": "e", "let_frequency": 10, "let_relation": "at least", "end_phrase": None},
                     {"keywords": None, "letter": None, "end_phrase": None},
                     {"keywords": None, "letter": None, "end_phrase": "Any other questions?"}]}
SECTIONS = {"key": "1002", "prompt": "Explain rain in 2 sections marked SECTION X, and add a postscript starting with P.S.",
            "instruction_id_list": ["detectable_format:multiple_sections", "detectable_content:postscript"],
            "kwargs": [{"section_spliter": "SECTION", "num_sections": 2}, {"postscript_marker": "P.S."}]}

KOREAN_BANANA = {
    "action": "equivalent_replacement", "transcription_ko": "아침 식사에 대해 짧게 쓰세요. 바나나라는 단어를 넣고, 글자 ㅌ을 "
    "10번 이상 쓰고, '더 궁금한 점 있으신가요?'로 끝내세요.", "answer_ko": "", "aliases_ko": [],
    "rule_ids": ["ht-letter-mapping"], "kept_terms": [], "reason": "letter e mapped to ㅌ; case instruction removed",
    "instruction_id_list": ["keywords:existence", "keywords:letter_frequency", "startend:end_checker"],
    "kwargs": [{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"},
               {"end_phrase": "더 궁금한 점 있으신가요?"}],
    "removed_instructions": [{"instruction_id": "change_case:english_lowercase", "rule": "ht-case-removal"}],
}
KOREAN_SECTIONS = {
    "action": "direct_translation", "transcription_ko": "비에 대해 '섹션 X'로 나눈 두 섹션으로 설명하고, '추신:'으로 시작하는 "
    "추신을 덧붙이세요.", "rule_ids": ["ht-fixed-phrases"],
    "instruction_id_list": ["detectable_format:multiple_sections", "detectable_content:postscript"],
    "kwargs": [{"section_spliter": "섹션", "num_sections": 2}, {"postscript_marker": "추신:"}],
}


def _sample_of(body) -> dict:
    text = body["messages"][0]["content"]
    return json.loads(text.split("The sample (answer and aliases after ground-truth correction):\n", 1)[1].split("\n\n")[0])


def _rejected_before(body) -> bool:
    return any("Your answer was rejected" in str(m.get("content")) for m in body["messages"])


@pytest.fixture
def rulebook(db):
    load_rulebooks()
    return Rulebook.objects.get(slug="ko-hypertranslation")


@pytest.fixture
def ifeval_samples(db, tmp_path):
    path = tmp_path / "ifeval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (BANANA, SECTIONS)), encoding="utf-8")
    import_benchmark(fmt="voicebench", subset="ifeval", path=path)
    return {s.source_id: s for s in SourceSample.objects.filter(subset="ifeval")}


@pytest.fixture
def now(django_capture_on_commit_callbacks):
    def run(start, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            started = start(**kwargs)
        started.refresh_from_db()
        return started
    return run


def _translator(fake_llm, banana: dict, sections: dict = KOREAN_SECTIONS):
    """The translator answers the banana sample with `banana` (a callable gets the request body) and the
    sections sample with `sections`."""
    def answer(body):
        sample = _sample_of(body)
        reply = banana if "banana" in sample["transcription"] else sections
        return reply(body) if callable(reply) else reply
    fake_llm.always(answer)
    return fake_llm


def _translation(sample) -> Translation:
    return Translation.objects.filter(sample=sample).order_by("-pk").first()


@pytest.mark.django_db
def test_the_korean_items_instructions_and_arguments_are_stored_on_the_translation(ifeval_samples, rulebook, fake_llm, now):
    translator = _translator(fake_llm, KOREAN_BANANA)
    run = now(start_translation_run, benchmark="voicebench", subset="ifeval")

    assert Job.objects.get(pk=run.job_id).status == JobStatus.SUCCEEDED
    banana = _translation(ifeval_samples["1001"])
    assert banana.action == TranslationAction.EQUIVALENT_REPLACEMENT
    assert banana.checker == {
        "instruction_id_list": ["keywords:existence", "keywords:letter_frequency", "startend:end_checker"],
        "kwargs": [{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"},
                   {"end_phrase": "더 궁금한 점 있으신가요?"}],
        "removed_instructions": [{"instruction_id": "change_case:english_lowercase", "rule": "ht-case-removal"}]}
    # The rule that removed the case instruction is cited with the one the translator named.
    assert banana.rule_ids == ["ht-letter-mapping", "ht-case-removal"]
    sections = _translation(ifeval_samples["1002"])
    assert sections.checker["kwargs"] == [{"section_spliter": "섹션", "num_sections": 2}, {"postscript_marker": "추신:"}]
    assert sections.checker["removed_instructions"] == []
    # The translator was shown the English item's checker data (nulls left out).
    asked = next(_sample_of(r["body"]) for r in translator.requests if "banana" in _sample_of(r["body"])["transcription"])
    assert asked["checker"]["instruction_id_list"] == BANANA["instruction_id_list"]
    assert asked["checker"]["kwargs"][1] == {"letter": "e", "let_frequency": 10, "let_relation": "at least"}


def _with(**changes) -> dict:
    return {**KOREAN_BANANA, **changes}


BAD_ANSWERS = [
    ("an unknown instruction",
     _with(instruction_id_list=["keywords:existance", "keywords:letter_frequency", "startend:end_checker"]),
     "instruction keywords:existence of the English item is neither in instruction_id_list"),
    ("a misspelt instruction is named by the registry too",
     _with(instruction_id_list=["keywords:existance", "keywords:letter_frequency", "startend:end_checker"]),
     "instruction 1 (keywords:existance): not a known instruction"),
    ("a missing argument",
     _with(kwargs=[{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10}, {"end_phrase": "끝!"}]),
     "instruction 2 (keywords:letter_frequency): missing argument 'let_relation'"),
    ("an unexpected argument",
     _with(kwargs=[{"keywords": ["바나나"], "keyword": "바나나"}, {"letter": "ㅌ", "let_frequency": 10,
                                                              "let_relation": "at least"}, {"end_phrase": "끝!"}]),
     "instruction 1 (keywords:existence): unexpected argument 'keyword'"),
    ("one kwargs entry too few",
     _with(kwargs=[{"keywords": ["바나나"]}, {"end_phrase": "끝!"}]),
     "kwargs: 2 entries for 3 instructions"),
    ("the English letter left unmapped",
     _with(kwargs=[{"keywords": ["바나나"]}, {"letter": "e", "let_frequency": 10, "let_relation": "at least"},
                   {"end_phrase": "끝!"}]),
     "instruction 2 (keywords:letter_frequency): argument 'letter' = 'e' is not a Korean letter"),
    ("an instruction dropped without a rule",
     _with(instruction_id_list=["keywords:existence", "keywords:letter_frequency"],
           kwargs=[{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"}]),
     "instruction startend:end_checker of the English item is neither in instruction_id_list nor in removed_instructions"),
    ("the case instruction kept in the Korean item",
     _with(instruction_id_list=["keywords:existence", "keywords:letter_frequency", "change_case:english_lowercase",
                                "startend:end_checker"],
           kwargs=[{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"}, {},
                   {"end_phrase": "끝!"}], removed_instructions=[]),
     "instruction 3 (change_case:english_lowercase): ht-case-removal removes case instructions"),
    ("a removal citing a rule the version does not have",
     _with(removed_instructions=[{"instruction_id": "change_case:english_lowercase", "rule": "ht-no-case"}]),
     "removed_instructions: rule 'ht-no-case' of change_case:english_lowercase is not a rule of this version"),
    ("an instruction the English item does not have",
     _with(instruction_id_list=["keywords:existence", "keywords:letter_frequency", "startend:end_checker",
                                "punctuation:no_comma"],
           kwargs=[{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"},
                   {"end_phrase": "끝!"}, {}]),
     "instruction punctuation:no_comma is not in the English item"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("case, bad, named", BAD_ANSWERS, ids=[c for c, _b, _n in BAD_ANSWERS])
def test_checker_data_that_cannot_be_checked_as_written_makes_the_sample_need_attention(
        ifeval_samples, rulebook, fake_llm, now, case, bad, named):
    translator = _translator(fake_llm, bad)
    run = now(start_translation_run, benchmark="voicebench", subset="ifeval")

    banana = _translation(ifeval_samples["1001"])
    assert banana.action == TranslationAction.NEEDS_ATTENTION
    assert named in banana.attention_reason and "checker data cannot be checked as written" in banana.attention_reason
    assert banana.checker == {}
    # The translator was told what was wrong once before the sample was given up.
    retries = [r for r in translator.requests if "banana" in _sample_of(r["body"])["transcription"]
               and _rejected_before(r["body"])]
    assert len(retries) == 1 and named in json.dumps(retries[0]["body"], ensure_ascii=False)
    assert _translation(ifeval_samples["1002"]).action == TranslationAction.DIRECT_TRANSLATION
    assert Job.objects.get(pk=run.job_id).result.get("attention")


@pytest.mark.django_db
def test_a_retry_that_fixes_the_named_problem_is_kept(ifeval_samples, rulebook, fake_llm, now):
    unmapped = _with(kwargs=[{"keywords": ["바나나"]}, {"letter": "e", "let_frequency": 10, "let_relation": "at least"},
                             {"end_phrase": "더 궁금한 점 있으신가요?"}])
    _translator(fake_llm, lambda body: KOREAN_BANANA if _rejected_before(body) else unmapped)
    now(start_translation_run, benchmark="voicebench", subset="ifeval")

    banana = _translation(ifeval_samples["1001"])
    assert banana.action == TranslationAction.EQUIVALENT_REPLACEMENT
    assert banana.checker["kwargs"][1]["letter"] == "ㅌ"


@pytest.mark.django_db
def test_removing_every_instruction_leaves_nothing_to_check(db, tmp_path, rulebook, fake_llm, now):
    path = tmp_path / "ifeval.jsonl"
    path.write_text(json.dumps({"key": "7", "prompt": "Answer in capital letters only.",
                                "instruction_id_list": ["change_case:english_capital"], "kwargs": [{}]}))
    import_benchmark(fmt="voicebench", subset="ifeval", path=path)
    fake_llm.always({"action": "direct_translation", "transcription_ko": "대문자로만 답하세요.", "rule_ids": [],
                     "instruction_id_list": [], "kwargs": [],
                     "removed_instructions": [{"instruction_id": "change_case:english_capital", "rule": "ht-case-removal"}]})
    now(start_translation_run, benchmark="voicebench", subset="ifeval")

    translation = Translation.objects.get()
    assert translation.action == TranslationAction.NEEDS_ATTENTION
    assert "every instruction was removed: nothing is left to check, so delete the sample" in translation.attention_reason


@pytest.mark.django_db
def test_checker_fields_on_a_sample_that_has_no_checker_are_refused(db, tmp_path, rulebook, fake_llm, now):
    path = tmp_path / "sd-qa.jsonl"
    path.write_text(json.dumps({"prompt": "What is the capital of France?", "reference": "Paris"}))
    import_benchmark(fmt="voicebench", subset="sd-qa", path=path)
    fake_llm.always({"action": "direct_translation", "transcription_ko": "프랑스의 수도는?", "answer_ko": "파리",
                     "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})
    now(start_translation_run, benchmark="voicebench", subset="sd-qa")

    translation = Translation.objects.get()
    assert translation.action == TranslationAction.NEEDS_ATTENTION
    assert "for instruction-following (IFEval) samples only" in translation.attention_reason


@pytest.fixture
def bbh_samples(db, tmp_path):
    rows = [{"id": "hyperbaton_3", "prompt": "Which sentence has the correct adjective order: (A) a big old red car "
             "(B) a red old big car", "reference": "(A)"},
            {"id": "navigate_12", "prompt": "If you follow these instructions, do you return to the starting point? "
             "Take 3 steps. Turn around. Take 3 steps.", "reference": "Yes"}]
    path = tmp_path / "bbh.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    import_benchmark(fmt="voicebench", subset="bbh", path=path)
    return {s.raw["id"]: s for s in SourceSample.objects.filter(subset="bbh")}


GRAMMAR = {"action": "equivalent_replacement", "rule_ids": ["ht-grammar-redesign"], "reason": "hyperbaton redesigned",
           "transcription_ko": "다음 중 문법에 맞는 문장은? ㄱ. 나는 학교에서 친구를 만났다 ㄴ. 나는 학교에 친구를 만났다",
           "answer_ko": "ㄱ", "choices_ko": ["나는 학교에서 친구를 만났다", "나는 학교에 친구를 만났다"]}


@pytest.mark.django_db
def test_a_bbh_item_keeps_its_task_and_a_redesigned_one_its_choices(bbh_samples, rulebook, fake_llm, now):
    def answer(body):
        if "adjective" in _sample_of(body)["transcription"]:
            return GRAMMAR
        return {"action": "direct_translation", "transcription_ko": "다음 지시를 따르면 출발점으로 돌아오나요? 세 걸음 "
                "걷고, 뒤로 돌고, 세 걸음 걸으세요.", "answer_ko": "예", "rule_ids": []}
    fake_llm.always(answer)
    now(start_translation_run, benchmark="voicebench", subset="bbh")

    grammar = _translation(bbh_samples["hyperbaton_3"])
    assert grammar.answer_ko == "ㄱ"
    assert grammar.checker == {"task": "hyperbaton", "choices": ["나는 학교에서 친구를 만났다", "나는 학교에 친구를 만났다"]}
    assert _translation(bbh_samples["navigate_12"]).checker == {"task": "navigate", "choices": []}


@pytest.mark.django_db
@pytest.mark.parametrize("answer_ko, choices, named", [
    ("ㄷ", ["나는 학교에서 친구를 만났다", "나는 학교에 친구를 만났다"], "answer_ko 'ㄷ' is not one of the labels ㄱ, ㄴ"),
    ("ㄱ", ["나는 학교에서 친구를 만났다"], "choices: 1 given; a choice item has 2 to 5"),
    ("ㄴ", ["나는 학교에서 친구를 만났다", " "], "choices: an option is empty"),
])
def test_redesigned_choices_that_do_not_fit_the_answer_need_attention(bbh_samples, rulebook, fake_llm, now, answer_ko,
                                                                       choices, named):
    fake_llm.always({**GRAMMAR, "answer_ko": answer_ko, "choices_ko": choices})
    now(start_translation_run, benchmark="voicebench", subset="bbh")
    grammar = _translation(bbh_samples["hyperbaton_3"])
    assert grammar.action == TranslationAction.NEEDS_ATTENTION and named in grammar.attention_reason


@pytest.mark.django_db
def test_the_translation_page_shows_the_english_and_korean_checker_data(ifeval_samples, rulebook, fake_llm, now,
                                                                        client_for, expert):
    _translator(fake_llm, KOREAN_BANANA)
    now(start_translation_run, benchmark="voicebench", subset="ifeval")
    banana = _translation(ifeval_samples["1001"])

    page = client_for(expert).get(reverse("transfer:translation_detail", args=[banana.pk])).content.decode()
    section = html.unescape(page.split('id="checker"', 1)[1].split("</section>", 1)[0])
    for shown in ('"banana"', '"바나나"', '"e"', '"ㅌ"', '"Any other questions?"', '"더 궁금한 점 있으신가요?"',
                  "change_case:english_lowercase", "removed by <code>ht-case-removal</code>"):
        assert shown in section, shown


@pytest.mark.django_db
def test_a_person_corrects_the_korean_checker_data_and_a_broken_edit_is_refused(ifeval_samples, rulebook, fake_llm,
                                                                               now, admin, client_for):
    _translator(fake_llm, KOREAN_BANANA)
    now(start_translation_run, benchmark="voicebench", subset="ifeval")
    banana = _translation(ifeval_samples["1001"])
    checker = json.loads(json.dumps(banana.checker))
    checker["kwargs"][2]["end_phrase"] = "더 궁금한 게 있나요?"

    edited = correct_translation(translation=banana, acting_user=admin, transcription_ko=banana.transcription_ko,
                                 answer_ko="", aliases_ko=[], note="end phrase as the question says it",
                                 checker=checker)
    assert edited.checker["kwargs"][2] == {"end_phrase": "더 궁금한 게 있나요?"} and edited.corrects == banana
    assert "ht-case-removal" in edited.rule_ids

    broken = json.loads(json.dumps(checker))
    broken["kwargs"][1]["let_relation"] = "at most"
    with pytest.raises(InvalidInput, match=r"instruction 2 \(keywords:letter_frequency\): its arguments are not usable"):
        correct_translation(translation=edited, acting_user=admin, transcription_ko=edited.transcription_ko,
                            answer_ko="", aliases_ko=[], checker=broken)
    with pytest.raises(InvalidInput, match="instruction_id_list and choices are lists of strings"):
        correct_translation(translation=edited, acting_user=admin, transcription_ko=edited.transcription_ko,
                            answer_ko="", aliases_ko=[], checker={**checker, "instruction_id_list": "keywords:existence"})

    # The page's form: the JSON field, refused with the problem named, kept when it is valid.
    url = reverse("transfer:translation_detail", args=[edited.pk])
    client = client_for(admin)
    form = client.get(url).content.decode()
    assert 'name="checker"' in form and "더 궁금한 게 있나요?" in form
    refused = client.post(url, {"transcription_ko": edited.transcription_ko, "answer_ko": "", "aliases_ko": "",
                                "note": "", "checker": json.dumps(broken, ensure_ascii=False)})
    assert refused.status_code == 200 and "its arguments are not usable" in refused.content.decode()
    saved = client.post(url, {"transcription_ko": edited.transcription_ko, "answer_ko": "", "aliases_ko": "",
                              "note": "", "checker": json.dumps(checker, ensure_ascii=False)})
    assert saved.status_code == 302 and Translation.objects.filter(corrects=edited).get().checker == edited.checker


@pytest.mark.django_db
def test_a_person_writing_an_undecided_ifeval_sample_must_give_its_checker_data(ifeval_samples, rulebook, fake_llm, now,
                                                                                admin):
    _translator(fake_llm, {"action": "undecided", "reason": "no rule for lowercase instructions"})
    now(start_translation_run, benchmark="voicebench", subset="ifeval")
    banana = _translation(ifeval_samples["1001"])
    assert banana.checker == {}
    with pytest.raises(InvalidInput, match="instruction keywords:existence of the English item is neither"):
        correct_translation(translation=banana, acting_user=admin, transcription_ko="바나나에 대해 쓰세요.", answer_ko="",
                            aliases_ko=[])


@pytest.mark.django_db
def test_the_demo_providers_recorded_translations_validate_against_the_new_schema(rulebook):
    schema = translator_schema(rulebook.latest_version())
    for entry in recorded()["TranslatorAnswer"]:
        answer = schema.model_validate(entry["answer"])
        # The demo's IFEval samples carry their checker data; every other answer carries none.
        assert answer.choices_ko == [] and len(answer.kwargs) == len(answer.instruction_id_list)
    assert any(e["answer"].get("instruction_id_list") for e in recorded()["TranslatorAnswer"])
