"""GET /api/evaluation/leaderboard/: the leaderboard for any signed-in user, each score with n, mark, run and
the subsets a mean has or lacks; signed-out callers are refused."""

import pytest

from tests.evaluation.boards import model, paper_board, run_with_scores, source_benchmark

pytestmark = pytest.mark.django_db


def test_it_answers_the_tables_with_marks_n_and_runs(admin, listener, api_client):
    runs = paper_board(admin)
    api_client.force_authenticate(listener)

    body = api_client.get("/api/evaluation/leaderboard/").json()

    models = {m["id"]: m["name"] for m in body["models"]}
    kmmau = next(b for b in body["benchmarks"] if b["label"] == "KMMAU")
    best = next(s for s in kmmau["scores"] if s["mark"] == "best")
    assert models[best["model"]] == "Raon-Speech" and best["run"] == runs[("Raon-Speech", "kmmau")].pk and best["n"] == 900
    pair = next(p for p in body["subsets"] if p["kind"] == "voicebench")
    assert (pair["english"], pair["korean"]) == ("voicebench", "kvoicebench") and len(pair["rows"]) == 9
    agreement = next(a for a in body["rank_agreement"] if a["spoken"] == "kvoicebench")
    assert agreement["n"] == 8 and -1 <= agreement["spearman"] <= 1


def test_a_mean_with_a_missing_subset_is_null_and_names_it(admin, api_client):
    run_with_scores(model("Qwen2.5-Omni"), {"mmsu": (50.0, 2)}, benchmark=source_benchmark("voicebench", "voicebench"))
    api_client.force_authenticate(admin)

    score = api_client.get("/api/evaluation/leaderboard/").json()["benchmarks"][0]["scores"][0]

    assert score["score"] is None and score["subsets"] == ["mmsu"] and "advbench" in score["missing"]


def test_signed_out_callers_are_refused(api_client):
    assert api_client.get("/api/evaluation/leaderboard/").status_code in (401, 403)
    assert api_client.get("/api/evaluation/compare/", {"a": 1, "b": 2}).status_code in (401, 403)
