"""IFEval through the evaluation job: each item checked with its source record's instruction_id_list and
kwargs, and the subset scored as VoiceBench does (the mean of strict and loose prompt- and instruction-level
accuracy); an item the scorer cannot check is stored unscored with the reason, not failed."""

import json

import pytest

from apps.evaluation.models import ItemScore, SubsetScore
from apps.evaluation.services import create_run, import_responses, start_evaluation


@pytest.fixture
def ifeval_run(db, tmp_path, qwen, admin):
    from apps.transfer.models import SourceBenchmark
    from apps.transfer.services import import_benchmark

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
