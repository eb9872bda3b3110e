"""Where a reader sees how the judge was asked: the item page names the judge model, the version that answered and
the prompt; the run page says n, temperature and top-p, and loudly when the judge model refused one; the
leaderboard's exports (JSON, CSV, Markdown) carry the same for every run on the board; a KMMAU run's page shows the
request template it is collected with. The evaluation job end to end records the refusal on the run."""

import csv
import io
import json

import pytest
from django.urls import reverse

from apps.agents.services import forget_refused_settings
from apps.evaluation.models import EvaluationRun, ItemScore
from apps.evaluation.responses import import_responses
from apps.evaluation.services import start_evaluation
from tests.evaluation.boards import model, run_with_scores, source_benchmark


@pytest.fixture(autouse=True)
def _no_remembered_refusals():
    forget_refused_settings()
    yield
    forget_refused_settings()


@pytest.fixture
def evaluated(english_run, response_file, settings, fake_llm, inline_jobs, admin):
    """The small English run evaluated by a judge model that refuses a temperature, as OpenAI's reasoning models do."""
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-5.4")}
    fake_llm.refuse("temperature")
    fake_llm.serve_as("gpt-5.4-2026-03-05")
    fake_llm.reply_when(lambda body: "### [Instruction]" in str(body["messages"]), {"score": 4})
    fake_llm.always({"answer": "Yes"})
    rows = [{"id": i.item_id, "response": "It is Canberra, I think."} for i in english_run.items.all()]
    import_responses(run=english_run, source=response_file("r.jsonl", rows))
    with inline_jobs():
        job = start_evaluation(run=english_run, acting_user=admin)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    english_run.refresh_from_db()
    return english_run


@pytest.mark.django_db
def test_the_evaluation_job_records_the_judges_refusal_on_the_run_and_every_score(evaluated, fake_llm):
    assert evaluated.judge_model == "openai:gpt-5.4"
    assert evaluated.judge_sampling == {"judge_model": "openai:gpt-5.4", "temperature": 0.5, "top_p": 0.95, "n": 3,
                                        "requests": 1, "refused": ["temperature"]}
    judged = ItemScore.objects.filter(item__run=evaluated, method="judge")
    assert judged.count() == 4  # three sd-qa, one commoneval
    assert {(s.judge_model, s.judge_model_version) for s in judged} == {("openai:gpt-5.4", "gpt-5.4-2026-03-05")}
    # One refused request for the first item, then every item in one request without the temperature.
    assert len(fake_llm.requests) == 5 and sum("temperature" in r["body"] for r in fake_llm.requests) == 1


@pytest.mark.django_db
def test_the_run_page_says_how_the_judge_sampled_and_that_the_model_refused_the_temperature(evaluated, admin, client_for):
    page = client_for(admin).get(reverse("evaluation:run", args=[evaluated.pk])).content.decode()

    assert 'id="judge-sampling"' in page
    assert "n=3 in one request an item" in page and "temperature 0.5, top-p 0.95" in page
    assert "the judge model refused temperature" in page
    assert 'id="request-template"' not in page  # a spoken-QA run: the question is the audio


@pytest.mark.django_db
def test_a_run_judged_as_voicebench_does_shows_no_refusal(english_run, admin, client_for):
    EvaluationRun.objects.filter(pk=english_run.pk).update(
        judge_model="openai:gpt-4o-mini", judge_sampling={"temperature": 0.5, "top_p": 0.95, "n": 3, "requests": 1, "refused": []})

    page = client_for(admin).get(reverse("evaluation:run", args=[english_run.pk])).content.decode()

    assert "n=3 in one request an item" in page and "refused" not in page


@pytest.mark.django_db
def test_the_item_page_names_the_judge_model_the_version_that_answered_and_the_prompt(evaluated, admin, client_for):
    item = evaluated.items.get(subset="commoneval")

    page = client_for(admin).get(reverse("evaluation:item", args=[evaluated.pk, item.pk])).content.decode()

    assert "Judge <code>openai:gpt-5.4</code>" in page and "answered as <code>gpt-5.4-2026-03-05</code>" in page
    assert "prompt judge_open v2" in page and "refused by the model: temperature" in page


@pytest.mark.django_db
def test_a_kmmau_runs_page_shows_its_request_template_and_version(english_run, admin, client_for):
    EvaluationRun.objects.filter(pk=english_run.pk).update(family="kmmau", language="ko")

    page = client_for(admin).get(reverse("evaluation:run", args=[english_run.pk])).content.decode()

    assert 'id="request-template"' in page and "<code>kmmau_request</code> v1" in page
    assert "다음 보기 중 하나를 골라 답하세요." in page and "- (보기 1)" in page and "(질문)" in page


# --- the leaderboard's exports -----------------------------------------------------------------------------------
@pytest.fixture
def two_judged_runs(db):
    oab = source_benchmark("openaudiobench", "openaudiobench")
    scores = {"llama_questions": (70.0, 3), "trivia_qa": (60.0, 3), "web_questions": (50.0, 3), "alpacaeval_full": (80.0, 3)}
    refusing = run_with_scores(model("Qwen2.5-Omni"), scores, benchmark=oab)
    faithful = run_with_scores(model("Raon-Speech"), scores, benchmark=oab)
    EvaluationRun.objects.filter(pk=refusing.pk).update(judge_model="openai:gpt-5.4", judge_sampling={
        "temperature": 0.5, "top_p": 0.95, "n": 3, "requests": 1, "refused": ["temperature"]})
    EvaluationRun.objects.filter(pk=faithful.pk).update(judge_model="openai:gpt-4o-mini", judge_sampling={
        "temperature": 0.5, "top_p": 0.95, "n": 3, "requests": 1, "refused": []})
    return refusing, faithful


def _export(client, fmt):
    return client.get(reverse("evaluation:leaderboard_export", args=[fmt])).content.decode()


@pytest.mark.django_db
def test_the_json_export_says_which_judge_refused_which_setting(two_judged_runs, admin, client_for, api_client):
    refusing, faithful = two_judged_runs

    exported = json.loads(_export(client_for(admin), "json"))

    assert {j["run"]: (j["judge_model"], j["refused"], j["n"], j["temperature"]) for j in exported["judges"]} == {
        refusing.pk: ("openai:gpt-5.4", ["temperature"], 3, 0.5), faithful.pk: ("openai:gpt-4o-mini", [], 3, 0.5)}
    api_client.force_authenticate(admin)
    assert api_client.get("/api/evaluation/leaderboard/").json()["judges"] == exported["judges"]


@pytest.mark.django_db
def test_the_csv_export_carries_the_runs_judge_and_its_refusal_on_every_row(two_judged_runs, admin, client_for):
    refusing, faithful = two_judged_runs

    rows = list(csv.DictReader(io.StringIO(_export(client_for(admin), "csv"))))

    by_run = {}
    for row in rows:
        by_run.setdefault(row["run"], set()).add((row["judge"], row["judge_refused"]))
    assert by_run == {str(refusing.pk): {("openai:gpt-5.4", "temperature")}, str(faithful.pk): {("openai:gpt-4o-mini", "")}}


@pytest.mark.django_db
def test_the_markdown_export_notes_the_refusal_under_the_tables(two_judged_runs, admin, client_for):
    text = _export(client_for(admin), "md")

    assert ("Judge openai:gpt-5.4 refused temperature, so it sampled at its own default for it, not as VoiceBench's "
            "judge (n=3, temperature 0.5, top-p 0.95): Qwen2.5-Omni on openaudiobench.") in text
    assert "Judge openai:gpt-4o-mini, n=3 at temperature 0.5, top-p 0.95 as VoiceBench's judge: Raon-Speech on" in text


@pytest.mark.django_db
def test_a_run_judged_before_sampling_was_recorded_says_so(admin, client_for):
    run = run_with_scores(model("Qwen2.5-Omni"), {"llama_questions": (70.0, 3)},
                          benchmark=source_benchmark("openaudiobench", "openaudiobench"))
    EvaluationRun.objects.filter(pk=run.pk).update(judge_model="openai:gpt-4.1")

    text = _export(client_for(admin), "md")

    assert "Judge openai:gpt-4.1, its sampling not recorded" in text
    assert json.loads(_export(client_for(admin), "json"))["judges"] == [{
        "run": run.pk, "benchmark": "openaudiobench", "model": "Qwen2.5-Omni", "judge_model": "openai:gpt-4.1", "refused": []}]
