"""IFEval through the evaluation job: an English source run checks each item with its source record's
instruction_id_list and kwargs, a release run with those its release row carries (a Korean item's own, from
its translation), and the subset is scored as VoiceBench does (the mean of strict and loose prompt- and
instruction-level accuracy); an item the scorer cannot check is stored unscored with the reason, not failed."""

import json

import pytest

from apps.evaluation.models import ItemScore, SubsetScore
from apps.evaluation.responses import import_responses
from apps.evaluation.services import create_run, start_evaluation
from tests.releases.conftest import build  # noqa: F401 (fixture)
from tests.releases.test_spoken_qa import synthesize, versions  # noqa: F401 (fixtures)


@pytest.fixture
def ifeval_run(db, tmp_path, qwen, admin):
    from apps.sources.models import SourceBenchmark
    from apps.sources.services import import_benchmark

    rows = [
        {"key": "1", "prompt": "Describe a cat in lower case without commas.",
         "instruction_id_list": ["punctuation:no_comma", "change_case:english_lowercase"], "kwargs": [{}, {}]},
        {"key": "2", "prompt": "Say hello without commas.", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]},
    ]
    path = tmp_path / "ifeval.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    import_benchmark(fmt="voicebench", subset="ifeval", path=path, benchmark="vb-ifeval")
    return create_run(model=qwen, source_benchmark=SourceBenchmark.objects.get(name="vb-ifeval"), acting_user=admin)


@pytest.mark.django_db
def test_ifeval_is_scored_by_prompt_and_instruction_level(ifeval_run, response_file, inline_jobs, admin):
    items = {i.question[:8]: i for i in ifeval_run.items.all()}
    assert items["Describe"].extra["instruction_id_list"] == ["punctuation:no_comma", "change_case:english_lowercase"]
    rows = [{"id": items["Describe"].item_id, "response": "a cat is soft, small and quiet"},  # a comma: one of two
            {"id": items["Say hell"].item_id, "response": "hello there"}]                   # followed
    import_responses(run=ifeval_run, source=response_file("r.jsonl", rows))

    with inline_jobs():
        job = start_evaluation(run=ifeval_run, acting_user=admin)
    job.refresh_from_db()

    assert job.status == "succeeded", job.error
    first = ItemScore.objects.get(item=items["Describe"], profile="sori")
    assert (first.detail["strict_prompt"], first.detail["loose_prompt"]) == (False, False)
    subset = SubsetScore.objects.get(run=ifeval_run, subset="ifeval", profile="sori")
    # prompt level 1 of 2, instruction level 2 of 3, strict and loose alike: (1/2 + 2/3) / 2
    assert subset.score == pytest.approx(100 * (1 / 2 + 2 / 3) / 2)
    assert subset.detail == {"prompt_level": 50.0, "instruction_level": 66.67} and subset.n == 2 and subset.primary


# --- a Korean release: each item is checked with the Korean checker data its release row carries ---------------
BANANA = {"key": "31", "prompt": "Mention banana, use the letter e at least 5 times, write in lowercase.",
          "instruction_id_list": ["keywords:existence", "keywords:letter_frequency", "change_case:english_lowercase"],
          "kwargs": [{"keywords": ["banana"]}, {"letter": "e", "let_frequency": 5, "let_relation": "at least"}, {}]}
KOREAN = {"instruction_id_list": ["keywords:existence", "keywords:letter_frequency"],
          "kwargs": [{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 5, "let_relation": "at least"}],
          "removed_instructions": [{"instruction_id": "change_case:english_lowercase", "rule": "ht-case-removal"}]}
# 토 탁 튀 토 텃: five ㅌ, and 바나나 with a particle; nothing English about it.
KOREAN_ANSWER = "토요일에 탁자 위의 바나나를 먹고 튀김과 토마토를 텃밭에서 땄어요."


@pytest.fixture
def korean_ifeval(db, tmp_path, versions, build, synthesize):  # noqa: F811
    from apps.sources.models import SourceBenchmark, SourceSample
    from apps.sources.services import import_benchmark
    from apps.transfer.models import NormalizedText, Translation

    path = tmp_path / "ifeval.jsonl"
    path.write_text(json.dumps(BANANA), encoding="utf-8")
    import_benchmark(fmt="voicebench", subset="ifeval", path=path, benchmark="vb-kifeval")
    bbh = tmp_path / "bbh.jsonl"
    bbh.write_text(json.dumps({"id": "navigate_4", "prompt": "Take 2 steps. Turn around. Take 2 steps. Are you back?",
                               "reference": "Yes"}), encoding="utf-8")
    import_benchmark(fmt="voicebench", subset="bbh", path=bbh, benchmark="vb-kifeval")
    hyper, norm = versions

    def translate(korean_checker):
        for sample in SourceSample.objects.filter(benchmark__name="vb-kifeval"):
            text = "바나나를 말하고 ㅌ을 다섯 번 이상 쓰세요." if sample.subset == "ifeval" else "두 걸음 가고 돌아서 두 걸음 가면 제자리인가요?"
            t = Translation.objects.create(
                sample=sample, rulebook_version=hyper, action="direct_translation", source_transcription=sample.transcription,
                transcription_ko=text, answer_ko="예" if sample.subset == "bbh" else "",
                checker=korean_checker if sample.subset == "ifeval" else {"task": "navigate", "choices": []})
            normalized = NormalizedText.objects.create(sample=sample, translation=t, rulebook_version=norm,
                                                       source_text=text, text=text, status="ok")
            synthesize(normalized, [0.0])
        return build("spoken-qa", SourceBenchmark.objects.get(name="vb-kifeval"), name="kvb-ifeval")

    return translate


def _evaluate(run, answers, response_file, inline_jobs, admin):
    rows = [{"id": i.item_id, "response": answers[i.subset]} for i in run.items.all()]
    import_responses(run=run, source=response_file("r.jsonl", rows))
    with inline_jobs():
        job = start_evaluation(run=run, acting_user=admin)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return {s.item.subset: s for s in ItemScore.objects.filter(item__run=run, method="rule", profile="sori").select_related("item")}


@pytest.mark.django_db
def test_a_korean_release_run_checks_the_korean_items_own_instructions(korean_ifeval, qwen, admin, response_file,
                                                                      inline_jobs):
    release = korean_ifeval(KOREAN)
    run = create_run(model=qwen, release=release, acting_user=admin)
    item = run.items.get(subset="ifeval")
    assert run.language == "ko"
    assert item.extra == {**KOREAN}  # from the release row, not the English source record
    assert run.items.get(subset="bbh").extra == {"task": "navigate", "choices": []}

    scores = _evaluate(run, {"ifeval": KOREAN_ANSWER, "bbh": "네, 제자리로 돌아옵니다."}, response_file, inline_jobs, admin)
    assert scores["ifeval"].score == 1.0 and scores["ifeval"].version == "ifeval-ko-2"
    assert [r["id"] for r in scores["ifeval"].detail["instructions"]] == KOREAN["instruction_id_list"]
    assert scores["bbh"].detail["task"] == "navigate"


@pytest.mark.django_db
def test_a_korean_item_released_without_checker_data_is_unscorable_not_checked_in_english(
        korean_ifeval, qwen, admin, response_file, inline_jobs):
    from apps.releases.models import ReleaseItem

    release = korean_ifeval(KOREAN)
    # A release built before rows carried checker data: the rows have none of the fields.
    for item in ReleaseItem.objects.filter(release=release):
        ReleaseItem.objects.filter(pk=item.pk).update(row={k: v for k, v in item.row.items()
                                                          if k not in ("instruction_id_list", "kwargs",
                                                                       "removed_instructions", "task", "choices")})
    run = create_run(model=qwen, release=release, acting_user=admin)
    assert run.items.get(subset="ifeval").extra == {}
    # BBH's task is the same in both languages: it still comes from the source record.
    assert run.items.get(subset="bbh").extra == {"id": "navigate_4"}

    scores = _evaluate(run, {"ifeval": KOREAN_ANSWER, "bbh": "네."}, response_file, inline_jobs, admin)
    assert scores["ifeval"].score is None and "no instruction_id_list" in scores["ifeval"].detail["unscorable"]
    assert scores["bbh"].detail["task"] == "navigate"


@pytest.mark.django_db
def test_an_english_release_run_reads_the_rows_and_a_source_run_the_source_record(db, tmp_path, qwen, admin, build):  # noqa: F811
    from apps.sources.models import SourceBenchmark
    from apps.sources.services import import_benchmark

    path = tmp_path / "ifeval.jsonl"
    path.write_text(json.dumps(BANANA), encoding="utf-8")
    import_benchmark(fmt="voicebench", subset="ifeval", path=path, benchmark="vb-english")
    benchmark = SourceBenchmark.objects.get(name="vb-english")

    from_release = create_run(model=qwen, release=build("spoken-qa", benchmark, name="vb-english"), acting_user=admin)
    from_source = create_run(model=qwen, source_benchmark=benchmark, acting_user=admin)
    assert from_release.language == from_source.language == "en"
    released, sourced = from_release.items.get().extra, from_source.items.get().extra
    assert released["instruction_id_list"] == sourced["instruction_id_list"] == BANANA["instruction_id_list"]
    assert released["kwargs"][1] == sourced["kwargs"][1] == {"letter": "e", "let_frequency": 5, "let_relation": "at least"}
    assert released["removed_instructions"] == [] and "removed_instructions" not in sourced
