"""End to end in Chromium: two models' responses imported with the import service, evaluated by the evaluation
job (rules, and the judge through the real SDK against the fake server), then the leaderboard page: the scores
with best and second marked and n, and one click from a subset's score to that run's items of the subset, and on
to an item with its response, score and judge calls."""

import pytest

from apps.evaluation.responses import import_responses
from apps.evaluation.services import create_model, create_run, start_evaluation
from apps.jobs.services import run_job

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ANSWERS = {  # model -> question -> response
    "Qwen2.5-Omni": {"What is the capital of Australia?": "Canberra.", "How many legs does a spider have?": "Eight.",
                     "Who wrote Hamlet?": "William Shakespeare.", "Which is a mammal? A. shark B. whale C. trout D. eel": "B",
                     "Tell me about your day.": "It was a long and happy day."},
    "MiniCPM-o": {"What is the capital of Australia?": "Sydney.", "How many legs does a spider have?": "Six.",
                  "Who wrote Hamlet?": "William Shakespeare.", "Which is a mammal? A. shark B. whale C. trout D. eel": "A",
                  "Tell me about your day.": "Fine."},
}


def _evaluate(model_name, voicebench, response_file, admin):
    model = create_model(name=model_name, acting_user=admin)
    run = create_run(model=model, source_benchmark=voicebench, acting_user=admin)
    by_question = dict(run.items.values_list("question", "item_id"))
    rows = [{"id": by_question[q], "response": a} for q, a in ANSWERS[model_name].items()]
    import_responses(run=run, source=response_file(f"{model_name}.jsonl", rows), acting_user=admin)
    job = start_evaluation(run=run, acting_user=admin)
    run_job(job.pk)  # the sync runner ran it on commit already; this does nothing then
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return run


def test_from_imported_responses_to_the_leaderboard_and_a_cells_items(voicebench, response_file, fake_llm, settings,
                                                                      admin, page, login, live_server):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}
    fake_llm.reply_when(lambda b: "scale of 1 to 5" in str(b), {"score": 4})
    for wrong in ("Sydney", "Six."):
        fake_llm.reply_when(lambda b, wrong=wrong: wrong in str(b), {"answer": "No"})
    fake_llm.always({"answer": "Yes"})
    qwen = _evaluate("Qwen2.5-Omni", voicebench, response_file, admin)
    _evaluate("MiniCPM-o", voicebench, response_file, admin)

    login(page, admin)
    page.goto(f"{live_server.url}/evaluation/leaderboard/")

    voicebench_row = page.locator('tr[data-benchmark="voicebench"]')
    assert "no mean" in voicebench_row.inner_text() and "missing AlpacaEval" in voicebench_row.inner_text()
    sdqa = page.locator('#subsets-voicebench tr[data-subset="sd-qa"]')
    assert sdqa.locator("strong.best").inner_text() == "100.0"   # Qwen: all three judged right
    assert sdqa.locator("u.second").inner_text() == "33.3"       # MiniCPM-o: one of three
    assert "n=3" in sdqa.inner_text()
    assert page.locator("#gap-figure").count() == 0  # no Korean run yet, so no gap to draw

    sdqa.locator("strong.best").click()

    page.wait_for_url(f"**/evaluation/runs/{qwen.pk}/?subset=sd-qa#items")
    items = page.locator("#items tbody tr")
    assert items.count() == 3 and "Canberra." in page.locator("#items").inner_text()
    page.locator("#items a", has_text="sd-qa/").first.click()

    assert page.locator("#response").inner_text().strip() in {"Canberra.", "Eight.", "William Shakespeare."}
    judge = page.locator("#score-judge")
    assert judge.locator("tbody tr").count() == 3 and "yes" in judge.inner_text().lower()
