"""Fixtures for evaluation tests: a small English source benchmark (VoiceBench sd-qa, mmsu, commoneval), a model
under evaluation, a run on the benchmark, a response file writer, and `inline_jobs` for jobs that run on commit."""

import json

import pytest


@pytest.fixture(autouse=True)
def _one_at_a_time(settings):
    """Jobs' worker threads use connections of their own, which do not see a test's uncommitted rows: tests
    run one item at a time unless they use transaction=True and set the limits themselves."""
    settings.EVALUATION_COLLECT_CONCURRENCY = 1
    settings.EVALUATION_JUDGE_WORKERS = 1


@pytest.fixture
def voicebench(db, tmp_path):
    """VoiceBench: three sd-qa questions (short answer), one mmsu question (multiple choice), one commoneval
    prompt (open-ended). Each sample names an audio file, as OpenAudioBench's do."""
    from apps.sources.models import SourceBenchmark, SourceSample
    from apps.sources.services import import_benchmark

    def write(subset, rows):
        path = tmp_path / f"{subset}.jsonl"
        path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
        import_benchmark(fmt="voicebench", subset=subset, path=path)

    write("sd-qa", [{"prompt": "What is the capital of Australia?", "reference": "Canberra"},
                    {"prompt": "How many legs does a spider have?", "reference": "eight"},
                    {"prompt": "Who wrote Hamlet?", "reference": "William Shakespeare"}])
    write("mmsu", [{"id": "m1", "prompt": "Which is a mammal? A. shark B. whale C. trout D. eel", "reference": "B"}])
    write("commoneval", [{"prompt": "Tell me about your day."}])
    benchmark = SourceBenchmark.objects.get(name="voicebench")
    for sample in SourceSample.objects.filter(benchmark=benchmark):
        SourceSample.objects.filter(pk=sample.pk).update(audio_filename=f"{sample.subset}-{sample.source_id}.wav")
    return benchmark


@pytest.fixture
def audio_dir(tmp_path, voicebench, settings):
    """A folder (under the import root) with one real WAV file per sample, named as the samples name them, imported
    into the audio store as the benchmark's audio."""
    from apps.sources.models import SourceSample
    from apps.sources.source_audio import import_audio_folder
    from tests.conftest import write_wav

    settings.IMPORT_ROOTS = [tmp_path.resolve()]
    folder = tmp_path / "voicebench-audio"
    folder.mkdir()
    for n, sample in enumerate(SourceSample.objects.filter(benchmark=voicebench).order_by("pk")):
        write_wav(folder / sample.audio_filename, seconds=0.2, freq=300 + 40 * n)
    import_audio_folder(benchmark=voicebench, folder=folder)
    return folder


@pytest.fixture
def qwen(db, admin, settings):
    from apps.evaluation.services import create_model

    settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS = True  # its endpoint (and the fake one) is on 127.0.0.1

    return create_model(name="Qwen2.5-Omni", version="7B", answer_source="endpoint", endpoint="http://127.0.0.1:9/v1",
                        served_model="Qwen/Qwen2.5-Omni-7B", acting_user=admin)


@pytest.fixture
def english_run(qwen, voicebench, admin):
    from apps.evaluation.services import create_run

    return create_run(model=qwen, source_benchmark=voicebench, acting_user=admin)


@pytest.fixture
def item_ids(db):
    def ids(run):
        return dict(run.items.values_list("question", "item_id"))

    return ids


@pytest.fixture
def response_file(tmp_path):
    """response_file(name, rows) -> path of a CSV, JSONL or Parquet file with the rows ({"id", "response"})."""

    def write(name, rows):
        path = tmp_path / name
        if name.endswith(".jsonl"):
            path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
        elif name.endswith(".csv"):
            import csv

            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=sorted({k for r in rows for k in r}))
                writer.writeheader()
                writer.writerows(rows)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.Table.from_pylist(rows), path)
        return path

    return write


@pytest.fixture
def inline_jobs(django_capture_on_commit_callbacks):
    """`with inline_jobs(): start_...()`: the job runs in this thread when the start commits."""

    def capture():
        return django_capture_on_commit_callbacks(execute=True)

    return capture


@pytest.fixture
def fake_endpoint(fake_llm, qwen, settings):
    """The model's endpoint is the fake server's OpenAI-compatible API (which checks input_audio parts), on
    127.0.0.1, so local endpoints are allowed."""
    from apps.evaluation.models import EvaluatedModel

    settings.EVALUATION_ALLOW_LOCAL_ENDPOINTS = True

    EvaluatedModel.objects.filter(pk=qwen.pk).update(endpoint=f"{fake_llm.url}/v1")
    qwen.refresh_from_db()
    return fake_llm
