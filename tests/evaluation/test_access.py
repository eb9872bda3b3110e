"""Who reads evaluation (apps.evaluation.rules): every role reads runs, scores and the leaderboard; only admins
read what lies behind a score (items with their transcripts and references, responses, judge calls and raw
answers, the endpoint, why a run needs attention, its jobs), on the pages and through the API alike."""

import json

import pytest
from django.urls import reverse

from apps.accounts.permissions import can
from apps.evaluation.models import EvalItem, EvaluatedModel, EvaluationRun, ItemScore, JudgeCall, SubsetScore
from apps.jobs.models import Job, JobStatus

pytestmark = pytest.mark.django_db

# What lies behind the scores, each a string no score, name or count contains.
RESPONSE = "Kangaroo-response-7741"
RAW_JUDGE = "judge-raw-answer-5529"
DETAIL = "extracted-by-rule-3318"
ENDPOINT = "http://gpu-secret-host.internal:8000/v1"
SERVED = "qwen-private-ft-0412"
REASON = "HTTP 400: db_password=hunter2-from-the-endpoint"
JOB_MESSAGE = "asked 3 of 5 at gpu-secret-host"
BEHIND = [RESPONSE, RAW_JUDGE, DETAIL, ENDPOINT, SERVED, "hunter2", JOB_MESSAGE]
OTHERS = ["expert", "listener", "annotator"]


@pytest.fixture
def scored_run(english_run, admin):
    """The English run with a response, a rule score, a judge score with its raw answer, a subset score, an
    endpoint, a reason it needs attention and a finished job."""
    EvaluatedModel.objects.filter(pk=english_run.model_id).update(endpoint=ENDPOINT, served_model=SERVED)
    item = english_run.items.get(subset="sd-qa", question__contains="Australia")
    EvalItem.objects.filter(pk=item.pk).update(response=RESPONSE)
    ItemScore.objects.create(item=item, method="rule", score=1.0, detail={"matched": DETAIL}, evaluator="qa", version="1")
    judged = ItemScore.objects.create(item=item, method="judge", score=1.0, detail={"votes": ["yes"]}, evaluator="judge", version="1")
    JudgeCall.objects.create(score=judged, sample=0, prompt_name="judge_qa", prompt_version=1, raw_answer=RAW_JUDGE, value="yes")
    SubsetScore.objects.create(run=english_run, subset="sd-qa", metric="qa", method="judge", score=61.5, n=1, primary=True)
    job = Job.objects.create(kind="evaluation.collect", title="Collect", status=JobStatus.SUCCEEDED, message=JOB_MESSAGE,
                             created_by=admin, done=3, total=5)
    EvaluationRun.objects.filter(pk=english_run.pk).update(attention_reason=REASON, state="needs_attention", collect_job=job)
    return english_run, item


def _user(request, role):
    return request.getfixturevalue(role)


def _text(answer) -> str:
    return answer.content.decode()


@pytest.mark.parametrize("role", OTHERS)
def test_the_rules_let_every_role_see_scores_and_only_admins_inspect_or_manage(request, role, admin):
    user = _user(request, role)
    assert can(user, "evaluation.view") and can(admin, "evaluation.view")
    assert not can(user, "evaluation.inspect") and can(admin, "evaluation.inspect")
    assert not can(user, "evaluation.manage") and can(admin, "evaluation.manage")


# --- pages -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("role", OTHERS)
def test_a_run_page_shows_other_roles_the_scores_and_nothing_behind_them(request, role, scored_run, client_for):
    run, item = scored_run
    client = client_for(_user(request, role))

    for query in ("", "?subset=sd-qa", "?subset=sd-qa&page=1"):
        page = client.get(reverse("evaluation:run", args=[run.pk]) + query)
        html = _text(page)
        assert page.status_code == 200 and "61.5" in html and "Needs attention" in html  # score and status
        assert not [secret for secret in BEHIND if secret in html], query
        assert 'id="items"' not in html and reverse("evaluation:item", args=[run.pk, item.pk]) not in html
        assert "What is the capital of Australia" not in html and "Canberra" not in html  # transcript, reference
        assert "/jobs/" not in html


def test_a_run_page_shows_an_admin_everything_behind_the_scores(scored_run, client_for, admin):
    run, item = scored_run

    html = _text(client_for(admin).get(reverse("evaluation:run", args=[run.pk]) + "?subset=sd-qa"))

    assert "61.5" in html and RESPONSE in html and ENDPOINT in html and SERVED in html and "hunter2" in html
    assert reverse("evaluation:item", args=[run.pk, item.pk]) in html and "Canberra" in html and JOB_MESSAGE in html


@pytest.mark.parametrize("role", OTHERS)
def test_an_item_page_is_refused_to_other_roles(request, role, scored_run, client_for, admin):
    run, item = scored_run

    refused = client_for(_user(request, role)).get(reverse("evaluation:item", args=[run.pk, item.pk]))

    assert refused.status_code == 403 and not [s for s in BEHIND if s in _text(refused)]
    shown = _text(client_for(admin).get(reverse("evaluation:item", args=[run.pk, item.pk])))
    assert RESPONSE in shown and RAW_JUDGE in shown and DETAIL in shown


@pytest.mark.parametrize("role", OTHERS)
def test_every_role_reads_the_runs_list_the_leaderboard_its_exports_and_comparisons(request, role, scored_run, client_for):
    run, _ = scored_run
    client = client_for(_user(request, role))

    runs = client.get(reverse("evaluation:runs"))
    assert runs.status_code == 200 and "voicebench" in _text(runs) and not [s for s in BEHIND if s in _text(runs)]
    assert "Import responses" not in _text(runs) and 'id="new-model"' not in _text(runs)
    for name, args in (("evaluation:leaderboard", []), ("evaluation:leaderboard_export", ["csv"]),
                       ("evaluation:leaderboard_export", ["json"]), ("evaluation:compare", [])):
        page = client.get(reverse(name, args=args))
        assert page.status_code == 200, name
        assert not [s for s in BEHIND if s in _text(page)], name


@pytest.mark.parametrize("role", OTHERS)
def test_other_roles_cannot_start_or_import_from_the_run_page(request, role, scored_run, client_for):
    run, _ = scored_run
    client = client_for(_user(request, role))

    for name in ("evaluation:collect", "evaluation:evaluate", "evaluation:import_responses"):
        assert client.post(reverse(name, args=[run.pk])).status_code == 403, name
    assert Job.objects.filter(params__run=run.pk).count() == 0


def test_a_signed_out_visitor_is_sent_to_sign_in(scored_run, client):
    run, item = scored_run
    for url in (reverse("evaluation:run", args=[run.pk]), reverse("evaluation:item", args=[run.pk, item.pk]),
                reverse("evaluation:leaderboard")):
        answer = client.get(url)
        assert answer.status_code == 302 and "login" in answer["Location"], url


# --- API ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("role", OTHERS)
def test_the_api_gives_other_roles_runs_and_scores_with_the_endpoint_and_reason_blank(request, role, scored_run, api_client):
    run, _ = scored_run
    api_client.force_authenticate(_user(request, role))

    detail = api_client.get(f"/api/evaluation/runs/{run.pk}/")
    listed = api_client.get("/api/evaluation/runs/")
    models = api_client.get("/api/evaluation/models/")
    one_model = api_client.get(f"/api/evaluation/models/{run.model_id}/")

    for answer in (detail, listed, models, one_model):
        assert answer.status_code == 200 and not [s for s in BEHIND if s in _text(answer)]
    body = detail.json()
    assert body["subset_scores"][0]["score"] == 61.5 and body["status"] == "needs_attention"
    assert body["attention_reason"] == "" and body["model"]["endpoint"] == "" and body["model"]["served_model"] == ""
    assert one_model.json()["name"] == "Qwen2.5-Omni" and one_model.json()["endpoint"] == ""


def test_the_api_gives_an_admin_the_endpoint_and_the_reason(scored_run, api_client, admin):
    run, _ = scored_run
    api_client.force_authenticate(admin)

    body = api_client.get(f"/api/evaluation/runs/{run.pk}/").json()
    listed = api_client.get("/api/evaluation/runs/").json()
    row = next(r for r in (listed["results"] if isinstance(listed, dict) else listed) if r["id"] == run.pk)

    assert body["attention_reason"] == REASON and body["model"]["endpoint"] == ENDPOINT
    assert row["model"]["served_model"] == SERVED
    assert api_client.get(f"/api/evaluation/models/{run.model_id}/").json()["endpoint"] == ENDPOINT


@pytest.mark.parametrize("role", OTHERS)
def test_the_items_api_is_refused_to_other_roles_and_answers_admins(request, role, scored_run, api_client, admin):
    run, item = scored_run
    api_client.force_authenticate(_user(request, role))
    for url in (f"/api/evaluation/runs/{run.pk}/items/", f"/api/evaluation/runs/{run.pk}/items/?subset=sd-qa",
                f"/api/evaluation/runs/{run.pk}/items/{item.pk}/"):
        refused = api_client.get(url)
        assert refused.status_code == 403 and not [s for s in BEHIND if s in _text(refused)], url

    api_client.force_authenticate(admin)
    one = api_client.get(f"/api/evaluation/runs/{run.pk}/items/{item.pk}/").json()
    assert one["response"] == RESPONSE and one["answer"] == "Canberra"
    assert RAW_JUDGE in json.dumps(one["scores"]) and DETAIL in json.dumps(one["scores"])


@pytest.mark.parametrize("role", OTHERS)
def test_the_leaderboard_and_compare_apis_answer_every_role(request, role, scored_run, api_client):
    api_client.force_authenticate(_user(request, role))
    board = api_client.get("/api/evaluation/leaderboard/")
    assert board.status_code == 200 and not [s for s in BEHIND if s in _text(board)]
    # Asked about runs that do not exist: the rule lets them in, the lookup answers.
    assert api_client.get("/api/evaluation/compare/", {"a": 999999, "b": 999998}).status_code == 404


@pytest.mark.parametrize("role", OTHERS)
def test_other_roles_cannot_write_through_the_api(request, role, scored_run, api_client):
    run, _ = scored_run
    api_client.force_authenticate(_user(request, role))

    assert api_client.post("/api/evaluation/models/", {"name": "x"}, format="json").status_code == 403
    assert api_client.post("/api/evaluation/runs/", {"model": run.model_id, "benchmark": f"source:{run.source_benchmark_id}"},
                           format="json").status_code == 403
    for action in ("collect", "evaluate", "responses"):
        assert api_client.post(f"/api/evaluation/runs/{run.pk}/{action}/", {}, format="json").status_code == 403, action
    assert Job.objects.filter(params__run=run.pk).count() == 0 and EvaluationRun.objects.count() == 1


def test_signed_out_callers_read_nothing_through_the_api(scored_run, api_client):
    run, item = scored_run
    for url in ("/api/evaluation/runs/", f"/api/evaluation/runs/{run.pk}/", "/api/evaluation/models/",
                f"/api/evaluation/runs/{run.pk}/items/", f"/api/evaluation/runs/{run.pk}/items/{item.pk}/",
                "/api/evaluation/leaderboard/"):
        assert api_client.get(url).status_code in (401, 403), url


def test_an_items_score_details_read_as_words_not_python_reprs(scored_run, client_for, admin):
    run, item = scored_run
    ItemScore.objects.filter(item=item, method="judge").update(detail={"votes": ["yes", "yes", "no"], "no_answer_read": True})

    shown = _text(client_for(admin).get(reverse("evaluation:item", args=[run.pk, item.pk])))

    assert "<dt>Votes</dt><dd>yes, yes, no</dd>" in shown and "<dt>No answer read</dt><dd>yes</dd>" in shown
    assert "[&#x27;yes&#x27;" not in shown and "['yes'" not in shown
