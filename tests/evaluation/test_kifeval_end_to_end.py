"""KIFEval end to end, on PostgreSQL: an English IFEval item asking for the keyword "banana", the letter "e" at
least ten times, lowercase letters and an end phrase goes through hypertranslation (the translator on the fake
provider server, real SDK: 바나나, ㅌ under ht-letter-mapping, the case instruction removed under
ht-case-removal, the end phrase translated), normalization, a release with audio, an evaluation run and the
rule-based scoring. A correct Korean answer scores 1 with the Korean item's checker data; the English item's
kwargs would score the same answer 0."""

import json

import pytest

from apps.consultations.rulebooks import load_rulebooks
from apps.evaluation.models import ItemScore, SubsetScore
from apps.evaluation.responses import import_responses
from apps.evaluation.scoring import score_response
from apps.evaluation.services import create_run, start_evaluation
from apps.sources.models import SourceBenchmark, SourceSample
from apps.sources.services import import_benchmark
from apps.transfer.hypertranslation.services import start_translation_run
from apps.transfer.models import Translation
from apps.transfer.normalization.services import normalize_translation, published_version
from tests.releases.conftest import build  # noqa: F401 (fixture)
from tests.releases.test_spoken_qa import synthesize  # noqa: F401 (fixture)

pytestmark = pytest.mark.postgres

SOURCE = {
    "key": "3001",
    "prompt": "Write a short note about your breakfast. Mention banana, use the letter e at least 10 times, write "
              "everything in lowercase letters and finish with the exact phrase 'Is there anything else I can help with?'",
    "instruction_id_list": ["keywords:existence", "keywords:letter_frequency", "change_case:english_lowercase",
                            "startend:end_checker"],
    # As IFEval's records are: every argument of every instruction, mostly null.
    "kwargs": [{"keywords": ["banana"], "letter": None, "let_frequency": None, "let_relation": None, "end_phrase": None},
               {"keywords": None, "letter": "e", "let_frequency": 10, "let_relation": "at least", "end_phrase": None},
               {"keywords": None, "letter": None, "let_frequency": None, "let_relation": None, "end_phrase": None},
               {"keywords": None, "letter": None, "let_frequency": None, "let_relation": None,
                "end_phrase": "Is there anything else I can help with?"}],
}
END_KO = "더 도와드릴 일이 있을까요?"
TRANSLATION = {
    "action": "equivalent_replacement",
    "transcription_ko": "아침 식사에 대해 짧게 써 주세요. 바나나를 언급하고, 글자 티읕을 열 번 이상 쓰고, "
                        f"'{END_KO}'라는 말로 끝내세요.",
    "answer_ko": "", "aliases_ko": [], "rule_ids": ["ht-letter-mapping"], "kept_terms": [],
    "reason": "the letter e is mapped to ㅌ; the lowercase instruction is removed (no case in Korean)",
    "instruction_id_list": ["keywords:existence", "keywords:letter_frequency", "startend:end_checker"],
    "kwargs": [{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"},
               {"end_phrase": END_KO}],
    "removed_instructions": [{"instruction_id": "change_case:english_lowercase", "rule": "ht-case-removal"}],
}
# 바나나 with a particle; ㅌ fourteen times (토요일, 탁자, 토스트, 토마토, 튀김, 텃밭, 탄산수, 탕수육, 통, 털어); the Korean
# end phrase last.
CORRECT = ("토요일 아침에 탁자에 앉아 토스트와 바나나를 먹었어요. 토마토 튀김도 조금 곁들였고, 텃밭에서 딴 상추에 탄산수, "
           f"탕수육 한 통까지 털어 넣었답니다. {END_KO}")


@pytest.fixture
def translated(db, tmp_path, fake_llm, django_capture_on_commit_callbacks, settings):
    settings.TRANSFER_TRANSLATE_WORKERS = 1  # worker threads cannot see the test transaction's rows
    path = tmp_path / "ifeval.jsonl"
    path.write_text(json.dumps(SOURCE), encoding="utf-8")
    import_benchmark(fmt="voicebench", subset="ifeval", path=path, benchmark="voicebench-kifeval")
    load_rulebooks()
    fake_llm.reply_when(lambda body: "NormalizerAnswer" in json.dumps(body), {"readings": []})
    fake_llm.always(TRANSLATION)
    with django_capture_on_commit_callbacks(execute=True):
        start_translation_run(benchmark="voicebench-kifeval", subset="ifeval")
    return SourceSample.objects.get(benchmark__name="voicebench-kifeval"), Translation.objects.get()


@pytest.mark.django_db
def test_a_correct_korean_answer_scores_one_with_the_korean_checker_data_and_zero_with_the_english(
        translated, build, synthesize, qwen, admin, response_file, inline_jobs):  # noqa: F811
    sample, translation = translated
    assert translation.action == "equivalent_replacement", translation.attention_reason
    assert translation.checker["kwargs"][1] == {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"}
    normalized = normalize_translation(translation, version=published_version("normalization"))
    assert normalized.status == "ok", normalized.attention_reason
    synthesize(normalized, [0.0])

    release = build("spoken-qa", SourceBenchmark.objects.get(name="voicebench-kifeval"), name="kvoicebench")
    row = release.items.get().row
    assert (row["instruction_id_list"], row["kwargs"], row["removed_instructions"]) == (
        TRANSLATION["instruction_id_list"], TRANSLATION["kwargs"], TRANSLATION["removed_instructions"])

    run = create_run(model=qwen, release=release, acting_user=admin)
    item = run.items.get()
    assert run.language == "ko" and item.metric == "ifeval"
    import_responses(run=run, source=response_file("answers.jsonl", [{"id": item.item_id, "response": CORRECT}]))
    with inline_jobs():
        job = start_evaluation(run=run, acting_user=admin)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error

    scored = ItemScore.objects.get(item=item, method="rule", profile="sori")
    assert scored.score == 1.0, scored.detail
    assert [r["id"] for r in scored.detail["instructions"]] == TRANSLATION["instruction_id_list"]
    assert SubsetScore.objects.get(run=run, subset="ifeval", method="rule", profile="sori").score == 100.0

    # The same answer checked with the English item's kwargs (what the run used to do): "banana", "e" x 10,
    # lowercase English and the English end phrase are all missing from a correct Korean answer.
    english = {"question": sample.transcription, "instruction_id_list": sample.raw["instruction_id_list"],
               "kwargs": sample.raw["kwargs"]}
    with_english = score_response("ifeval", english, CORRECT, language="ko")
    assert with_english.score == 0.0
    assert [r["strict"] for r in with_english.detail["instructions"]] == [False, False, False, False]
    # And the Korean checker data is not simply lenient: the answer without its end phrase misses it.
    without_end = score_response("ifeval", {"question": "", **item.extra}, CORRECT.removesuffix(END_KO), language="ko")
    assert [r["strict"] for r in without_end.detail["instructions"]] == [True, True, False]
