"""The evaluation API: an admin's script adds a model, starts a run on a source benchmark, imports responses
(a refused file names each bad row and writes nothing), starts the evaluation and reads per-item scores with
their judge calls; other signed-in users read; nobody else gets in."""

import json

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def as_admin(api_client, admin):
    api_client.force_authenticate(admin)
    return api_client


def _upload(client, run_id, name, rows):
    from django.core.files.uploadedfile import SimpleUploadedFile

    body = "\n".join(json.dumps(r) for r in rows).encode()
    return client.post(f"/api/evaluation/runs/{run_id}/responses/", {"file": SimpleUploadedFile(name, body)}, format="multipart")


def test_an_admin_scores_a_model_through_the_api(as_admin, voicebench, fake_llm, settings, inline_jobs):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}
    made = as_admin.post("/api/evaluation/models/", {"name": "Qwen2.5-Omni", "version": "7B",
                                                     "decoding": {"temperature": 0.2}}, format="json")
    assert made.status_code == 201, made.json()
    assert made.json()["decoding"] == {"max_tokens": 4096, "temperature": 0.2, "top_p": 0.95}
    started = as_admin.post("/api/evaluation/runs/", {"model": made.json()["id"], "benchmark": f"source:{voicebench.pk}"}, format="json")
    assert started.status_code == 201, started.json()
    run = started.json()
    assert (run["benchmark_name"], run["language"], run["item_count"], run["status"]) == ("voicebench", "en", 5, "waiting")

    items = as_admin.get(f"/api/evaluation/runs/{run['id']}/items/").json()["results"]
    imported = _upload(as_admin, run["id"], "r.jsonl", [{"id": i["item_id"], "response": "Canberra"} for i in items])
    assert imported.status_code == 200 and imported.json() == {"imported": 5}

    fake_llm.always({"answer": "Yes"})
    fake_llm.reply_when(lambda b: "scale of 1 to 5" in str(b), {"score": 5})
    with inline_jobs():
        evaluated = as_admin.post(f"/api/evaluation/runs/{run['id']}/evaluate/", {}, format="json")
    assert evaluated.status_code == 202 and evaluated.json()["job"]

    detail = as_admin.get(f"/api/evaluation/runs/{run['id']}/").json()
    assert detail["status"] == "evaluated"
    assert {(s["subset"], s["method"]): s["score"] for s in detail["subset_scores"] if s["primary"]}["commoneval", "judge"] == 100
    open_item = next(i for i in as_admin.get(f"/api/evaluation/runs/{run['id']}/items/?subset=commoneval").json()["results"])
    one = as_admin.get(f"/api/evaluation/runs/{run['id']}/items/{open_item['id']}/").json()
    judge = next(s for s in one["scores"] if s["method"] == "judge")
    assert [c["value"] for c in judge["judge_calls"]] == ["5", "5", "5"] and all(c["agent_call"] for c in judge["judge_calls"])


def test_a_refused_file_is_a_400_naming_each_bad_row(as_admin, english_run):
    ids = list(english_run.items.values_list("item_id", flat=True))
    refused = _upload(as_admin, english_run.pk, "bad.jsonl", [{"id": "nope", "response": "x"}]
                      + [{"id": i, "response": "x"} for i in ids[1:]])

    assert refused.status_code == 400
    body = refused.json()
    assert body["code"] == "file_refused"
    assert "bad.jsonl line 1: id: 'nope' is not an item of voicebench" in body["detail"]
    assert f"no response for item {ids[0]!r}" in body["detail"]
    assert not english_run.items.filter(response__isnull=False).exists()


def test_the_api_names_the_field_it_refuses(as_admin, english_run):
    bad = as_admin.post("/api/evaluation/models/", {"name": "x", "decoding": {"top_p": 3}}, format="json")
    assert bad.status_code == 400 and "top_p" in str(bad.json()["fields"])
    neither = as_admin.post("/api/evaluation/runs/", {"model": english_run.model_id}, format="json")
    assert neither.status_code == 400 and "benchmark" in neither.json()["fields"]
    unknown = as_admin.post("/api/evaluation/runs/", {"model": 999999, "benchmark": f"source:{english_run.source_benchmark_id}"}, format="json")
    assert unknown.status_code == 404 and "no model with id 999999" in unknown.json()["detail"]
    busy = as_admin.post(f"/api/evaluation/runs/{english_run.pk}/evaluate/", {}, format="json")
    assert busy.status_code == 409 and busy.json()["code"] == "no_responses"
    assert as_admin.get("/api/evaluation/runs/123456789012345678901/").status_code == 404


def test_others_read_runs_but_only_admins_read_items_and_write(api_client, annotator, english_run):
    assert api_client.get("/api/evaluation/runs/").status_code in (401, 403)
    api_client.force_authenticate(annotator)
    assert api_client.get(f"/api/evaluation/runs/{english_run.pk}/").status_code == 200
    assert api_client.get(f"/api/evaluation/runs/{english_run.pk}/items/").status_code == 403  # tests/evaluation/test_access.py
    assert api_client.post("/api/evaluation/models/", {"name": "x"}, format="json").status_code == 403
    assert api_client.post(f"/api/evaluation/runs/{english_run.pk}/evaluate/", {}, format="json").status_code == 403
