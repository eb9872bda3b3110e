"""The run pages: the list with its forms (and an empty state), a run's page with its subset scores and items,
an import through the page (refusals listed row by row, nothing stored), and an item's page with its response,
its scores and the judge calls with their raw answers and links to the call log."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from apps.evaluation.models import EvalItem, ItemScore, JudgeCall, SubsetScore


@pytest.mark.django_db
def test_the_run_list_says_what_to_do_first(admin, client_for):
    page = client_for(admin).get(reverse("evaluation:runs"))
    assert page.status_code == 200
    assert "No evaluation run yet" in page.content.decode() and "Add a model first." in page.content.decode()


@pytest.mark.django_db
def test_an_admin_adds_a_model_and_a_run_through_the_pages(admin, client_for, voicebench):
    client = client_for(admin)
    client.post(reverse("evaluation:create_model"), {"name": "Qwen2.5-Omni", "version": "7B", "temperature": "0.5"})
    from apps.evaluation.models import EvaluatedModel

    model = EvaluatedModel.objects.get()
    assert model.decoding == {"max_tokens": 4096, "temperature": 0.5, "top_p": 0.95}
    made = client.post(reverse("evaluation:create_run"), {"model": model.pk, "benchmark": f"source:{voicebench.pk}"})
    run = model.runs.get()
    assert made.url == reverse("evaluation:run", args=[run.pk])
    listed = client.get(reverse("evaluation:runs")).content.decode()
    assert "voicebench" in listed and "0 / 5" in listed


@pytest.mark.django_db
def test_an_import_through_the_page_lists_each_bad_row(admin, client_for, english_run):
    client = client_for(admin)
    upload = SimpleUploadedFile("bad.csv", b"id,response\nnope,hello\n")

    page = client.post(reverse("evaluation:import_responses", args=[english_run.pk]), {"responses": upload}, follow=True)

    text = page.content.decode()
    assert "bad.csv line 2: id: &#x27;nope&#x27; is not an item of voicebench" in text
    assert "no response for item" in text
    assert not EvalItem.objects.filter(run=english_run, response__isnull=False).exists()


@pytest.mark.django_db
def test_a_runs_page_and_an_items_page_show_scores_and_judge_calls(admin, client_for, english_run, annotator):
    from apps.agents.models import AgentCall

    item = english_run.items.get(subset="commoneval")
    EvalItem.objects.filter(pk=item.pk).update(response="It was a good day.")
    score = ItemScore.objects.create(item=item, method="judge", score=0.8, detail={"scores": [4, 4, 4]},
                                     evaluator="judge:judge_open", version="v1 openai:gpt-4o-mini")
    call = AgentCall.objects.create(role="judge", provider="openai", model="gpt-4o-mini", prompt_name="judge_open",
                                    prompt_version=1, input_hash="0" * 64, status="ok", response_text='{"score": 4}')
    JudgeCall.objects.create(score=score, sample=0, agent_call=call, prompt_name="judge_open", prompt_version=1,
                             raw_answer='{"score": 4}', value="4")
    SubsetScore.objects.create(run=english_run, subset="commoneval", metric="open", method="judge", score=80.0, n=1)

    run_page = client_for(annotator).get(reverse("evaluation:run", args=[english_run.pk]) + "?subset=commoneval").content.decode()
    assert "80.0" in run_page and "It was a good day." not in run_page and "Import responses" not in run_page
    assert "It was a good day." in client_for(admin).get(reverse("evaluation:run", args=[english_run.pk]) + "?subset=commoneval").content.decode()

    page = client_for(admin).get(reverse("evaluation:item", args=[english_run.pk, item.pk])).content.decode()
    assert "It was a good day." in page and "judge:judge_open" in page
    assert "{&quot;score&quot;: 4}" in page and reverse("agents:call_detail", args=[call.pk]) in page


@pytest.mark.django_db
def test_an_item_of_another_run_is_not_found(admin, client_for, english_run, qwen, voicebench):
    from apps.evaluation.services import create_run

    other = create_run(model=qwen, source_benchmark=voicebench, acting_user=admin)
    item = other.items.first()
    assert client_for(admin).get(reverse("evaluation:item", args=[english_run.pk, item.pk])).status_code == 404


@pytest.mark.django_db
def test_a_runs_page_shows_its_jobs_progress_and_time(admin, client_for, english_run):
    from datetime import timedelta

    from django.utils import timezone

    from apps.evaluation.models import EvaluationRun
    from apps.jobs.models import Job

    start = timezone.now() - timedelta(minutes=3)
    job = Job.objects.create(kind="evaluation.collect", title="Collect responses", status="succeeded", done=5, total=5,
                             message="5 of 5 asked in 180 s", started_at=start, finished_at=start + timedelta(minutes=3))
    EvaluationRun.objects.filter(pk=english_run.pk).update(collect_job=job)

    page = client_for(admin).get(reverse("evaluation:run", args=[english_run.pk])).content.decode()

    assert "5 of 5 asked in 180 s" in page and "5 / 5 (100%)" in page and "(3\xa0minutes)" in page


@pytest.mark.django_db
def test_a_runs_page_names_its_subsets_and_readings_in_words(admin, client_for, english_run):
    SubsetScore.objects.create(run=english_run, subset="sd-qa-usa", metric="qa", method="rule", score=50.0, n=2,
                               primary=True)

    page = client_for(admin).get(reverse("evaluation:run", args=[english_run.pk])).content.decode()

    table = re.search(r'<table class="table" id="subset-scores">.*?</table>', page, re.S).group(0)
    assert "SD-QA (usa)" in table and ">sd-qa-usa<" not in table and "Sori (corrected" in table
    filters = page.split("<h2>Items</h2>", 1)[1].split("</p>", 1)[0]
    assert "CommonEval" in filters and ">commoneval<" not in filters
