"""Importing VoiceBench (JSONL, Parquet) and OpenAudioBench (CSV) subsets: columns, task types, raw record,
atomicity and bad rows named by line."""

import csv
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command

from apps.core.errors import FileRefused, InvalidInput
from apps.sources.catalogue import TaskType
from apps.sources.models import SourceSample
from apps.sources.services import import_benchmark

pytestmark = pytest.mark.django_db


def write_jsonl(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def write_csv(path, header, rows):
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_it_imports_a_voicebench_sd_qa_jsonl(tmp_path):
    path = write_jsonl(tmp_path / "sd-qa.jsonl", [
        {"prompt": "What is the capital of France?", "reference": "Paris"},
        {"prompt": "Who painted the Mona Lisa?", "reference": "Leonardo da Vinci"},
    ])
    call_command("import_benchmark", "--format", "voicebench", "--subset", "sd-qa", str(path))

    samples = list(SourceSample.objects.order_by("line_number"))
    assert [s.answer for s in samples] == ["Paris", "Leonardo da Vinci"]
    first = samples[0]
    assert (first.benchmark.name, first.subset, first.task_type) == ("voicebench", "sd-qa", TaskType.SHORT_ANSWER)
    assert first.transcription == "What is the capital of France?"
    assert first.raw == {"prompt": "What is the capital of France?", "reference": "Paris"}
    assert first.source_id == "sd-qa-00000" and first.line_number == 1


def test_bbh_rows_get_their_task_type_from_the_reference(tmp_path):
    path = write_jsonl(tmp_path / "bbh.jsonl", [
        {"id": "navigate_0", "prompt": "If you follow these instructions... Options: Yes or No", "reference": "No"},
        {"id": "date_understanding_3", "prompt": "What is the date? (A) ... (B) ...", "reference": "(B)"},
        {"id": "object_counting_7", "prompt": "How many fruits do I have?", "reference": "7"},
    ])
    import_benchmark(fmt="voicebench", subset="bbh", path=path)
    types = dict(SourceSample.objects.values_list("source_id", "task_type"))
    assert types == {"navigate_0": TaskType.BINARY, "date_understanding_3": TaskType.MULTIPLE_CHOICE,
                     "object_counting_7": TaskType.SHORT_ANSWER}


def test_ifeval_keeps_its_instruction_columns_in_the_raw_record(tmp_path):
    path = write_jsonl(tmp_path / "ifeval.jsonl", [
        {"key": 1000, "prompt": "Write a haiku about rain in lowercase.", "instruction_id_list": ["change_case:english_lowercase"],
         "kwargs": [{}]},
    ])
    import_benchmark(fmt="voicebench", subset="ifeval", path=path)
    sample = SourceSample.objects.get()
    assert sample.task_type == TaskType.INSTRUCTION_FOLLOWING and sample.source_id == "1000"
    assert sample.raw["instruction_id_list"] == ["change_case:english_lowercase"]


def test_it_imports_voicebench_parquet_and_names_bad_rows(tmp_path):
    path = tmp_path / "mmsu.parquet"
    pq.write_table(pa.table({
        "id": ["law_1", "law_2", "law_3"],
        "prompt": ["Which is a tort? A. ... B. ...", "", "What is a contract? A. ... B. ..."],
        "reference": ["A", "B", "B"],
    }), path)
    with pytest.raises(FileRefused) as raised:
        import_benchmark(fmt="voicebench", subset="mmsu", path=path)
    assert raised.value.lines() == ["mmsu.parquet row 2: prompt: missing or empty"]
    assert not SourceSample.objects.exists()

    pq.write_table(pa.table({"id": ["law_1", "law_2"], "prompt": ["Q1 A. x B. y", "Q2 A. x B. y"],
                             "reference": ["A", "B"]}), path)
    result = import_benchmark(fmt="voicebench", subset="mmsu", path=path)
    assert result.created == 2
    assert set(SourceSample.objects.values_list("task_type", flat=True)) == {TaskType.MULTIPLE_CHOICE}


def test_a_bad_jsonl_row_rejects_the_whole_file_naming_each_line(tmp_path):
    path = write_jsonl(tmp_path / "openbookqa.jsonl", [
        {"prompt": "Which is a mammal? A. shark B. whale", "reference": "B"},
        "{not json",
        {"prompt": "Which is a metal? A. iron B. wood"},
        {"prompt": "Which is a gas? A. oxygen B. rock", "reference": "A"},
    ])
    with pytest.raises(CommandError) as raised:
        call_command("import_benchmark", "--format", "voicebench", "--subset", "openbookqa", str(path))
    message = str(raised.value)
    assert "openbookqa.jsonl line 2: not valid JSON" in message
    assert "openbookqa.jsonl line 3: reference: missing or empty" in message
    assert not SourceSample.objects.exists()


@pytest.mark.parametrize(("subset", "header", "row", "answer", "aliases"), [
    ("llama_questions", ["audio_filename", "Questions", "Answer"], ["lq_1.wav", "What planet is red?", "Mars"], "Mars", []),
    ("web_questions", ["audio_filename", "question", "answers"],
     ["wq_1.wav", "what language do they speak in belgium?", "['Dutch', 'French', 'German']"], "Dutch", ["French", "German"]),
    ("trivia_qa", ["audio_filename", "question", "answer_normalized_aliases"],
     ["tq_1.wav", "Which country is Amsterdam in?", "['netherlands', 'holland', 'the netherlands']"],
     "netherlands", ["holland", "the netherlands"]),
    ("alpaca_eval", ["audio_filename", "instruction", "output"], ["ae_1.wav", "Give me three tips for sleep.", "1. ..."], "1. ...", []),
])
def test_it_imports_each_openaudiobench_subset(tmp_path, subset, header, row, answer, aliases):
    path = write_csv(tmp_path / f"{subset}.csv", header, [row])
    import_benchmark(fmt="openaudiobench", subset=subset, path=path)
    sample = SourceSample.objects.get()
    assert (sample.answer, sample.aliases) == (answer, aliases)
    assert sample.source_id == row[0] == sample.audio_filename
    assert sample.raw == dict(zip(header, row, strict=True))
    expected = TaskType.OPEN_ENDED if subset == "alpaca_eval" else TaskType.SHORT_ANSWER
    assert sample.task_type == expected


def test_a_bad_csv_row_is_named_by_its_line_and_nothing_is_imported(tmp_path):
    path = tmp_path / "web_questions.csv"
    path.write_text(
        'audio_filename,question,answers\n'
        'wq_1.wav,"what is the capital\nof peru?","[\'Lima\']"\n'  # a quoted cell spanning two lines
        'wq_2.wav,who wrote hamlet?,\n'
        'wq_3.wav,,"[\'x\']"\n'
        'wq_4.wav,what is 2+2?,"[\'4\', broken"\n'
    )
    with pytest.raises(FileRefused) as raised:
        import_benchmark(fmt="openaudiobench", subset="web_questions", path=path)
    assert raised.value.lines() == [
        "web_questions.csv line 4: answers: missing or empty",
        "web_questions.csv line 5: question: missing or empty",
        "web_questions.csv line 6: answers: cannot read the list \"['4', broken\"",
    ]
    assert not SourceSample.objects.exists()


def test_an_unknown_subset_is_refused_with_the_known_ones(tmp_path):
    path = write_csv(tmp_path / "x.csv", ["audio_filename", "question"], [["a.wav", "q"]])
    with pytest.raises(InvalidInput, match="known subsets: alpacaeval_full, alpaca_eval, llama_questions"):
        import_benchmark(fmt="openaudiobench", subset="reasoning_qa_typo", path=path)


def test_importing_again_changes_nothing_and_never_overwrites_an_answer(tmp_path):
    path = write_jsonl(tmp_path / "sd-qa.jsonl", [{"prompt": "Capital of Peru?", "reference": "Lima"}])
    import_benchmark(fmt="voicebench", subset="sd-qa", path=path)
    again = import_benchmark(fmt="voicebench", subset="sd-qa", path=path)
    assert (again.created, again.unchanged) == (0, 1)

    write_jsonl(path, [{"prompt": "Capital of Peru?", "reference": "Cusco"}, {"prompt": "No answer"}])
    with pytest.raises(FileRefused) as raised:
        import_benchmark(fmt="voicebench", subset="sd-qa", path=path)
    assert raised.value.lines() == [  # in line order
        "sd-qa.jsonl line 1: sample 'sd-qa-00000' was imported before with a different question or answer; "
        "the imported answer is never overwritten",
        "sd-qa.jsonl line 2: reference: missing or empty",
    ]
    assert SourceSample.objects.get().answer == "Lima"


def test_an_admin_uploads_a_subset_and_sees_bad_rows(client_for, admin, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = client_for(admin)
    bad = SimpleUploadedFile("sd-qa.jsonl", b'{"prompt": "Q1", "reference": "A1"}\n{"prompt": "Q2"}\n')
    response = client.post("/transfer/import/", {"format": "voicebench", "subset": "sd-qa", "file": bad})
    assert response.status_code == 200
    assert "sd-qa.jsonl line 2: reference: missing or empty" in response.content.decode()
    assert not SourceSample.objects.exists()

    good = SimpleUploadedFile("sd-qa.jsonl", b'{"prompt": "Q1", "reference": "A1"}\n')
    response = client.post("/transfer/import/", {"format": "voicebench", "subset": "sd-qa", "file": good})
    assert response.status_code == 302
    assert SourceSample.objects.count() == 1


def test_only_admins_may_import(client_for, expert):
    assert client_for(expert).get("/transfer/import/").status_code == 403


def test_the_parquet_audio_column_is_not_read_into_the_raw_record(tmp_path):
    path = tmp_path / "sd-qa-usa.parquet"
    audio = pa.array([{"bytes": b"RIFF" + b"\0" * 64, "path": "a.wav"}])
    pq.write_table(pa.table({"audio": audio, "prompt": ["Capital of Peru?"], "reference": ["Lima"]}), path)
    import_benchmark(fmt="voicebench", subset="sd-qa-usa", path=path)  # a regional split of sd-qa
    sample = SourceSample.objects.get()
    assert sample.raw == {"prompt": "Capital of Peru?", "reference": "Lima"}
    assert sample.task_type == TaskType.SHORT_ANSWER


# --- the published layouts, as the sources' loaders read them (issue 21) ---------------------------------
@pytest.mark.parametrize("region", ["usa", "aus", "ind_n"])
def test_sd_qa_is_accepted_under_voicebenchs_own_split_names(tmp_path, region):
    # VoiceBench's Hugging Face data: config "sd-qa", one split per region named by the region alone.
    path = write_jsonl(tmp_path / f"{region}.jsonl", [{"prompt": "What is the capital of France?", "reference": "Paris"}])
    result = import_benchmark(fmt="voicebench", subset=region, path=path)
    sample = SourceSample.objects.get()
    assert result.subset == sample.subset == f"sd-qa-{region}"
    assert sample.task_type == TaskType.SHORT_ANSWER


def test_trivia_qa_takes_the_answer_the_source_marks_not_the_first_alias(tmp_path):
    # TriviaQA's answer fields: value, normalized_value, aliases, normalized_aliases (flattened as columns).
    header = ["audio_filename", "question", "answer_value", "answer_normalized_value", "answer_normalized_aliases"]
    row = ["tq_2.wav", "Which country is Amsterdam the capital of?", "The Netherlands", "the netherlands",
           "['holland', 'netherlands', 'the netherlands']"]
    import_benchmark(fmt="openaudiobench", subset="trivia_qa", path=write_csv(tmp_path / "trivia_qa.csv", header, [row]))
    sample = SourceSample.objects.get()
    assert (sample.answer, sample.aliases) == ("the netherlands", ["holland", "netherlands"])


@pytest.mark.parametrize("cell", ["Dutch;French;German", "['Dutch', 'French', 'German']"])
def test_web_questions_answers_are_split_whether_joined_by_semicolons_or_printed_as_a_list(tmp_path, cell):
    path = write_csv(tmp_path / "web_questions.csv", ["audio_filename", "question", "answers"],
                     [["wq_2.wav", "what language do they speak in belgium?", cell]])
    import_benchmark(fmt="openaudiobench", subset="web_questions", path=path)
    sample = SourceSample.objects.get()
    assert (sample.answer, sample.aliases) == ("Dutch", ["French", "German"])


def test_mmsu_keeps_the_source_record_whole_with_its_empty_values(tmp_path):
    # VoiceBench's mmsu rows carry cot_content, empty for most questions.
    record = {"question_id": 1, "id": "mmsu_biology_1", "prompt": "Which organelle makes ATP? A. ribosome B. mitochondrion",
              "reference": "B", "cot_content": "", "category": "biology", "src": "ori_mmlu-college_biology"}
    import_benchmark(fmt="voicebench", subset="mmsu", path=write_jsonl(tmp_path / "mmsu.jsonl", [record]))
    assert SourceSample.objects.get().raw == record


def test_a_blank_required_column_is_still_reported_missing(tmp_path):
    path = write_jsonl(tmp_path / "mmsu.jsonl", [{"id": "m1", "prompt": "Q? A. x B. y", "reference": "  "}])
    with pytest.raises(FileRefused) as refused:
        import_benchmark(fmt="voicebench", subset="mmsu", path=path)
    assert "mmsu.jsonl line 1: reference: missing or empty" in str(refused.value)
