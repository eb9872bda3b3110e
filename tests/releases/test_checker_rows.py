"""A released IFEval or BBH item carries its checker data in its row: the Korean item its translation's
(Korean keywords and letters, the instructions a rule removed), the English item its source record's; the
JSONL keeps the values, the Parquet IFEval's kwargs as JSON text, and `datasets` loads both."""

import json

import pyarrow.parquet as pq
import pytest

from apps.sources.models import SourceBenchmark, SourceSample
from apps.sources.services import import_benchmark
from apps.transfer.models import NormalizedText, Translation
from tests.releases.test_spoken_qa import synthesize, versions  # noqa: F401 (fixtures)

IFEVAL = {"key": "2001", "prompt": "Mention banana, use the letter e at least 10 times, write in lowercase.",
          "instruction_id_list": ["keywords:existence", "keywords:letter_frequency", "change_case:english_lowercase"],
          "kwargs": [{"keywords": ["banana"], "letter": None},
                     {"keywords": None, "letter": "e", "let_frequency": 10, "let_relation": "at least"}, {"letter": None}]}
BBH = {"id": "web_of_lies_7", "prompt": "Ka tells the truth. Does Ka tell the truth?", "reference": "Yes"}
KOREAN_CHECKER = {"instruction_id_list": ["keywords:existence", "keywords:letter_frequency"],
                  "kwargs": [{"keywords": ["바나나"]}, {"letter": "ㅌ", "let_frequency": 10, "let_relation": "at least"}],
                  "removed_instructions": [{"instruction_id": "change_case:english_lowercase", "rule": "ht-case-removal"}]}


@pytest.fixture
def source(db, tmp_path):
    for subset, row in (("ifeval", IFEVAL), ("bbh", BBH)):
        path = tmp_path / f"{subset}.jsonl"
        path.write_text(json.dumps(row), encoding="utf-8")
        import_benchmark(fmt="voicebench", subset=subset, path=path, benchmark="vb-checkers")
    return SourceBenchmark.objects.get(name="vb-checkers")


def _rows(folder, config):
    return [json.loads(line) for line in (folder / f"data/{config}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.django_db
def test_an_english_release_carries_the_source_checker_data(source, build, extracted):
    release = build("spoken-qa", source, name="vb-en")
    folder = extracted(release)

    [ifeval] = _rows(folder, "ifeval")
    assert ifeval["instruction_id_list"] == IFEVAL["instruction_id_list"]
    assert ifeval["kwargs"] == [{"keywords": ["banana"]}, {"letter": "e", "let_frequency": 10, "let_relation": "at least"}, {}]
    assert ifeval["removed_instructions"] == []
    [bbh] = _rows(folder, "bbh")
    assert (bbh["task"], bbh["choices"]) == ("web_of_lies", [])
    assert "instruction_id_list" not in bbh and "task" not in ifeval
    # The Parquet keeps kwargs as JSON text (their shape differs from instruction to instruction).
    [stored] = pq.read_table(folder / "data/ifeval.parquet").to_pylist()
    assert json.loads(stored["kwargs"]) == ifeval["kwargs"] and stored["instruction_id_list"] == IFEVAL["instruction_id_list"]
    assert release.items.get(config="ifeval").row["kwargs"] == ifeval["kwargs"]


@pytest.mark.django_db
def test_a_korean_release_carries_the_translations_checker_data(source, versions, build, extracted, synthesize):  # noqa: F811
    hyper, norm = versions
    for sample, text, checker in (
            (SourceSample.objects.get(subset="ifeval"), "바나나를 언급하고 ㅌ을 열 번 이상 쓰세요.", KOREAN_CHECKER),
            (SourceSample.objects.get(subset="bbh"), "가는 진실을 말합니다. 가는 진실을 말하나요?", {"task": "web_of_lies", "choices": []})):
        t = Translation.objects.create(sample=sample, rulebook_version=hyper, action="direct_translation",
                                       source_transcription=sample.transcription, transcription_ko=text,
                                       answer_ko="예" if sample.subset == "bbh" else "", checker=checker)
        normalized = NormalizedText.objects.create(sample=sample, translation=t, rulebook_version=norm, source_text=text,
                                                   text=text, status="ok")
        synthesize(normalized, [0.0])

    release = build("spoken-qa", source, name="kvb-checkers")
    folder = extracted(release)

    [ifeval] = _rows(folder, "ifeval")
    assert {k: ifeval[k] for k in KOREAN_CHECKER} == KOREAN_CHECKER
    assert release.items.get(config="ifeval").row["kwargs"][1]["letter"] == "ㅌ"
    [bbh] = _rows(folder, "bbh")
    assert bbh["task"] == "web_of_lies" and bbh["answer"] == "예"


@pytest.mark.django_db
def test_a_korean_translation_without_checker_data_releases_empty_fields_not_the_english_ones(
        source, versions, build, extracted, synthesize):  # noqa: F811
    hyper, norm = versions
    sample = SourceSample.objects.get(subset="ifeval")
    t = Translation.objects.create(sample=sample, rulebook_version=hyper, action="direct_translation",
                                   source_transcription=sample.transcription, transcription_ko="바나나를 언급하세요.")
    normalized = NormalizedText.objects.create(sample=sample, translation=t, rulebook_version=norm,
                                               source_text=t.transcription_ko, text=t.transcription_ko, status="ok")
    synthesize(normalized, [0.0])

    [ifeval] = _rows(extracted(build("spoken-qa", source, name="kvb-old")), "ifeval")
    assert (ifeval["instruction_id_list"], ifeval["kwargs"], ifeval["removed_instructions"]) == ([], [], [])


@pytest.mark.django_db
def test_datasets_loads_the_checker_columns(source, build, extracted, tmp_path, monkeypatch):
    import datasets.config
    import huggingface_hub.constants
    from datasets import load_dataset

    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)  # nothing leaves the machine
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)

    folder = extracted(build("spoken-qa", source, name="vb-load"))
    files = {"test": str(folder / "data/ifeval.parquet")}
    loaded = load_dataset("parquet", data_files=files, cache_dir=str(tmp_path / "hf-cache"))["test"]
    assert loaded.column_names[-3:] == ["instruction_id_list", "kwargs", "removed_instructions"]
    assert json.loads(loaded[0]["kwargs"])[0] == {"keywords": ["banana"]}
