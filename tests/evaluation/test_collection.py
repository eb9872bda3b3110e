"""Collecting responses from a model's OpenAI-compatible endpoint (the fake server on 127.0.0.1, through the
real `openai` SDK): each item's audio goes as an input_audio part with the paper's decoding settings; a rate
limit is retried; requests stay within the configured limit; a stopped collection resumes without asking
again; a request answered before is taken from the cache; an item without audio is named, not guessed."""

import base64

import pytest

from apps.agents.fake_server import audio_parts
from apps.evaluation.models import EvalItem, RunStatus
from apps.evaluation.services import create_run, start_collection
from apps.jobs.models import Job


def _collect(run, inline_jobs, admin, **kwargs):
    with inline_jobs():
        job = start_collection(run=run, acting_user=admin, **kwargs)
    job.refresh_from_db()
    run.refresh_from_db()
    return job


def _answer_by_audio(audio_dir, run):
    """Answer each request with the name of the file whose bytes it carries (so a mix-up would show)."""
    by_bytes = {(audio_dir / i.audio).read_bytes(): i.item_id for i in run.items.all()}

    def answer(body):
        return f"I heard {by_bytes[base64.b64decode(audio_parts(body)[0]['data'])]}"

    return answer


@pytest.mark.django_db
def test_it_sends_each_items_audio_with_the_papers_decoding_settings(english_run, fake_endpoint, audio_dir, inline_jobs, admin):
    fake_endpoint.always(_answer_by_audio(audio_dir, english_run))

    job = _collect(english_run, inline_jobs, admin)

    assert job.status == "succeeded", job.error
    assert english_run.status == RunStatus.READY
    assert {i.item_id: i.response for i in english_run.items.all()} == {
        i.item_id: f"I heard {i.item_id}" for i in english_run.items.all()}
    assert len(fake_endpoint.requests) == 5
    body = fake_endpoint.requests[0]["body"]
    assert body["model"] == "Qwen/Qwen2.5-Omni-7B"
    assert (body["max_tokens"], body["temperature"], body["top_p"]) == (4096, 0.7, 0.95)
    assert audio_parts(body)[0]["format"] == "wav"
    item = english_run.items.first()
    assert item.response_meta["http_attempts"] == 1 and item.response_meta["output_tokens"] > 0
    assert english_run.decoding == {"max_tokens": 4096, "temperature": 0.7, "top_p": 0.95}
    assert job.result["asked"] == 5 and job.done == job.total == 5


@pytest.mark.django_db
def test_a_rate_limited_request_is_retried_and_answered(english_run, fake_endpoint, audio_dir, inline_jobs, admin, settings):
    settings.EVALUATION_COLLECT_CONCURRENCY = 1
    fake_endpoint.fail(status=429, retry_after=0.01, times=2)
    fake_endpoint.always("an answer")

    job = _collect(english_run, inline_jobs, admin)

    assert job.status == "succeeded", job.error
    assert len(fake_endpoint.requests) == 7
    assert sorted(i.response_meta["http_attempts"] for i in english_run.items.all()) == [1, 1, 1, 1, 3]


@pytest.mark.django_db(transaction=True)
def test_requests_in_flight_stay_within_the_limit(english_run, fake_endpoint, audio_dir, inline_jobs, admin, settings):
    settings.EVALUATION_COLLECT_CONCURRENCY = 2
    fake_endpoint.slow(0.3, times=5)
    fake_endpoint.always("an answer")

    job = _collect(english_run, inline_jobs, admin)

    assert job.status == "succeeded", job.error
    assert fake_endpoint.max_in_flight_by_api["openai"] == 2
    assert EvalItem.objects.filter(run=english_run, response="an answer").count() == 5


@pytest.mark.django_db
def test_a_stopped_collection_resumes_with_the_items_left(english_run, fake_endpoint, audio_dir, inline_jobs, admin):
    fake_endpoint.always("an answer")
    _collect(english_run, inline_jobs, admin, limit=2)
    assert EvalItem.objects.filter(run=english_run, response__isnull=False).count() == 2
    assert english_run.status == RunStatus.WAITING

    job = _collect(english_run, inline_jobs, admin)

    assert job.status == "succeeded", job.error
    assert len(fake_endpoint.requests) == 5  # two, then the three left: nothing asked twice
    assert english_run.status == RunStatus.READY


@pytest.mark.django_db
def test_a_refused_request_fails_its_item_not_the_job_and_the_run_needs_attention(english_run, fake_endpoint, audio_dir,
                                                                                 inline_jobs, admin, settings):
    settings.EVALUATION_COLLECT_CONCURRENCY = 1
    fake_endpoint.reply("first")
    fake_endpoint.fail(status=400)
    fake_endpoint.always("after")

    job = _collect(english_run, inline_jobs, admin)

    assert job.status == "succeeded" and job.result["failed"] and list(job.result["failed"].values()) == ["HTTP 400"]
    assert english_run.status == RunStatus.NEEDS_ATTENTION and "1 HTTP 400" in english_run.attention_reason
    assert EvalItem.objects.filter(run=english_run, response__isnull=False).count() == 4
    refused = EvalItem.objects.get(run=english_run, response__isnull=True)
    assert refused.response_meta["collect_failed"] == "HTTP 400"

    fake_endpoint.always("later")
    job = _collect(english_run, inline_jobs, admin)
    assert job.status == "succeeded" and english_run.status == RunStatus.READY
    assert EvalItem.objects.filter(run=english_run, response="first").count() == 1
    assert EvalItem.objects.filter(run=english_run, response="later").count() == 1


@pytest.mark.django_db
def test_a_request_answered_before_comes_from_the_cache(english_run, qwen, voicebench, fake_endpoint, audio_dir, inline_jobs, admin):
    fake_endpoint.always("an answer")
    _collect(english_run, inline_jobs, admin)
    again = create_run(model=qwen, source_benchmark=voicebench, acting_user=admin)

    job = _collect(again, inline_jobs, admin)

    assert job.result["from_cache"] == 5 and len(fake_endpoint.requests) == 5
    assert set(again.items.values_list("response", flat=True)) == {"an answer"}
    assert {i.response_meta["cached_from_run"] for i in again.items.all()} == {english_run.pk}


@pytest.mark.django_db
def test_items_without_audio_are_named_and_left_unanswered(english_run, fake_endpoint, audio_dir, inline_jobs, admin):
    from apps.sources.models import SourceSample

    fake_endpoint.always("an answer")
    lost = english_run.items.order_by("item_id").first()
    SourceSample.objects.filter(pk=lost.source_sample_id).update(audio=None)

    job = _collect(english_run, inline_jobs, admin)

    assert job.status == "succeeded"
    assert list(job.result["missing_audio"]) == [lost.item_id]
    assert "no audio stored for this sample" in job.result["missing_audio"][lost.item_id]
    assert english_run.status == RunStatus.NEEDS_ATTENTION and lost.item_id in english_run.attention_reason
    assert EvalItem.objects.get(pk=lost.pk).response is None


@pytest.mark.django_db
def test_without_its_audio_imported_the_english_source_cannot_be_collected(english_run, fake_endpoint, inline_jobs, admin):
    job = _collect(english_run, inline_jobs, admin)

    assert job.result["without_response"] == 5 and not fake_endpoint.requests
    assert "import the benchmark's audio" in english_run.attention_reason


@pytest.mark.django_db
def test_a_model_without_an_endpoint_is_refused(voicebench, admin):
    from apps.core.errors import Conflict
    from apps.evaluation.services import create_model

    model = create_model(name="Imported only", acting_user=admin)
    run = create_run(model=model, source_benchmark=voicebench, acting_user=admin)

    with pytest.raises(Conflict, match="no endpoint"):
        start_collection(run=run, acting_user=admin)
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_a_source_without_audio_file_names_is_read_by_item_id(english_run, fake_endpoint, tmp_path, inline_jobs, admin,
                                                             settings):
    from apps.sources.models import SourceSample
    from apps.sources.source_audio import import_audio_folder
    from tests.conftest import write_wav

    SourceSample.objects.filter(benchmark=english_run.source_benchmark).update(audio_filename="")
    folder = tmp_path / "by-id"
    for n, item in enumerate(english_run.items.all()):
        (folder / item.subset).mkdir(parents=True, exist_ok=True)
        write_wav(folder / f"{item.item_id}.wav", seconds=0.1, freq=300 + 50 * n)  # distinct audio: no cache hits
    settings.IMPORT_ROOTS = [tmp_path.resolve()]
    import_audio_folder(benchmark=english_run.source_benchmark, folder=folder)
    fake_endpoint.always("an answer")

    job = _collect(english_run, inline_jobs, admin)

    assert job.status == "succeeded" and job.result["without_response"] == 0 and len(fake_endpoint.requests) == 5


@pytest.mark.django_db
def test_no_collection_request_names_a_server_folder(english_run, api_client, admin):
    api_client.force_authenticate(admin)
    answer = api_client.post(f"/api/evaluation/runs/{english_run.pk}/collect/", {"audio_dir": "/proc/self"}, format="json")
    assert answer.status_code == 400 and "audio_dir" in str(answer.json())


@pytest.mark.django_db
@pytest.mark.parametrize("body", ["2.0", "[1]", '"audio_dir"'])
def test_a_collection_request_that_is_not_an_object_is_a_clear_400(english_run, api_client, admin, body):
    api_client.force_authenticate(admin)
    answer = api_client.post(f"/api/evaluation/runs/{english_run.pk}/collect/", body, content_type="application/json")
    assert answer.status_code == 400


# --- the KMMAU request template -------------------------------------------------------------------------------
def _as_audio_understanding(run, language, choices):
    """One item of the run asked as KMMAU asks (metric kmmau, its choices), the run of that family and language."""
    from apps.evaluation.models import EvaluationRun

    EvaluationRun.objects.filter(pk=run.pk).update(family="kmmau", language=language)
    item = run.items.get(subset="commoneval")
    EvalItem.objects.filter(pk=item.pk).update(metric="kmmau", question=choices[0], extra={"choices": choices[1]})
    run.refresh_from_db()
    return EvalItem.objects.get(pk=item.pk)


def _text_part(body):
    return next(p["text"] for m in body["messages"] for p in m["content"] if p["type"] == "text")


@pytest.mark.django_db
def test_a_kmmau_item_is_asked_with_the_versioned_korean_instruction_and_its_choices(
        english_run, fake_endpoint, audio_dir, inline_jobs, admin):
    item = _as_audio_understanding(english_run, "ko", ("화자의 성별은 무엇인가요?", ["남성", "여성"]))
    fake_endpoint.always("여성입니다.")

    job = _collect(english_run, inline_jobs, admin)

    assert job.status == "succeeded", job.error
    asked = [r["body"] for r in fake_endpoint.requests if any(
        p["type"] == "text" for m in r["body"]["messages"] for p in m["content"])]
    assert len(asked) == 1  # only the KMMAU item carries text; the spoken questions are audio alone
    assert _text_part(asked[0]) == ("화자의 성별은 무엇인가요?\n"
                                    "다음 보기 중 하나를 골라 답하세요. 답할 때는 고른 보기를 그대로 말해 주세요.\n"
                                    "- 남성\n- 여성")
    assert audio_parts(asked[0])  # with the clip
    item.refresh_from_db()
    assert item.response == "여성입니다."
    assert (item.response_meta["request_template"], item.response_meta["request_template_version"]) == ("kmmau_request", 1)
    others = EvalItem.objects.filter(run=english_run).exclude(pk=item.pk)
    assert not any("request_template" in i.response_meta for i in others)


@pytest.mark.django_db
def test_an_english_audio_understanding_item_is_asked_to_select_one_option(
        english_run, fake_endpoint, audio_dir, inline_jobs, admin):
    item = _as_audio_understanding(english_run, "en", ("How many speakers are there?", ["one", "two", "three"]))
    fake_endpoint.always("Two speakers.")

    _collect(english_run, inline_jobs, admin)

    text = next(_text_part(r["body"]) for r in fake_endpoint.requests
                if any(p["type"] == "text" for m in r["body"]["messages"] for p in m["content"]))
    assert text.startswith("How many speakers are there?\nSelect one option from the choices below")
    assert text.endswith("- one\n- two\n- three")
    item.refresh_from_db()
    assert item.response_meta["request_template"] == "mmau_request"


@pytest.mark.django_db
def test_a_kmmau_answer_taken_from_the_cache_still_names_its_template(
        english_run, qwen, voicebench, fake_endpoint, audio_dir, inline_jobs, admin):
    _as_audio_understanding(english_run, "ko", ("몇 명이 말하나요?", ["한 명", "두 명"]))
    fake_endpoint.always("두 명이요.")
    _collect(english_run, inline_jobs, admin)
    again = create_run(model=qwen, source_benchmark=voicebench, acting_user=admin)
    item = _as_audio_understanding(again, "ko", ("몇 명이 말하나요?", ["한 명", "두 명"]))

    _collect(again, inline_jobs, admin)

    item.refresh_from_db()
    assert item.response_meta["cached_from_run"] == english_run.pk
    assert item.response_meta["request_template"] == "kmmau_request"
    assert item.response_meta["request_template_version"] == 1


@pytest.mark.django_db
def test_a_new_template_version_is_a_new_request_not_a_cache_hit(english_run, tmp_path):
    from apps.agents.prompting import load_prompt
    from apps.evaluation.collection import messages_for, request_hash

    item = _as_audio_understanding(english_run, "ko", ("누가 말하나요?", ["아이", "어른"]))
    folder = tmp_path / "prompts" / "kmmau_request"
    folder.mkdir(parents=True)
    (folder / "v2.md").write_text("---\nversion: 2\n---\n{{ question }}\n하나만 고르세요.\n"
                                  "{% for choice in choices %}- {{ choice }}\n{% endfor %}", encoding="utf-8")
    v1, v2 = load_prompt("kmmau_request", 1), load_prompt("kmmau_request", base=tmp_path / "prompts")

    hashes = {request_hash(english_run, item, b"RIFF", messages_for(item, b"RIFF", "wav", t)) for t in (v1, v2)}

    assert len(hashes) == 2
