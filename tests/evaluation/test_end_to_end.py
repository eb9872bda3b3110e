"""From imported responses to stored item scores and subset scores, through the evaluation job: the rules score
multiple choice and short answers, the judge (fake server, real SDK) scores open-ended and short answers, and
each subset's score is stored per method with its n, the judge primary where VoiceBench reports it."""

import pytest

from apps.evaluation.models import EvalItem, ItemScore, RunStatus, SubsetScore
from apps.evaluation.responses import import_responses
from apps.evaluation.services import start_evaluation


@pytest.fixture
def judge_model(settings):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}


def _import(run, response_file, answers):
    by_question = dict(run.items.values_list("question", "item_id"))
    rows = [{"id": by_question[q], "response": a} for q, a in answers.items()]
    import_responses(run=run, source=response_file("responses.csv", rows))


@pytest.mark.django_db
def test_imported_responses_end_as_item_and_subset_scores(english_run, response_file, fake_llm, judge_model,
                                                         inline_jobs, admin):
    _import(english_run, response_file, {
        "What is the capital of Australia?": "The capital is Canberra.",
        "How many legs does a spider have?": "Spiders have six legs.",
        "Who wrote Hamlet?": "William Shakespeare wrote it.",
        "Which is a mammal? A. shark B. whale C. trout D. eel": "B",
        "Tell me about your day.": "It was a good day.",
    })
    # The qa judge: yes for Canberra and Shakespeare, no for the spider; the open judge: 5, 4, 4.
    fake_llm.reply_when(lambda b: "six legs" in str(b), {"answer": "No"})
    fake_llm.reply_when(lambda b: "### Candidate answer" in str(b), {"answer": "Yes"})
    for score in (5, 4, 4):
        fake_llm.reply({"score": score})

    with inline_jobs():
        job = start_evaluation(run=english_run, acting_user=admin)
    job.refresh_from_db()
    english_run.refresh_from_db()

    assert job.status == "succeeded", job.error
    assert english_run.status == RunStatus.EVALUATED and english_run.judge_model == "openai:gpt-4o-mini"
    scores = {(s.item.question[:12], s.method): s.score
              for s in ItemScore.objects.filter(item__run=english_run, profile__in=("", "sori")).select_related("item")}
    assert scores == {
        ("What is the ", "rule"): 1.0, ("What is the ", "judge"): 1.0,
        ("How many leg", "rule"): 0.0, ("How many leg", "judge"): 0.0,
        ("Who wrote Ha", "rule"): 1.0, ("Who wrote Ha", "judge"): 1.0,
        ("Which is a m", "rule"): 1.0,
        ("Tell me abou", "judge"): pytest.approx(13 / 15),
    }
    subsets = {(s.subset, s.method): (round(s.score, 2), s.n, s.primary)
               for s in SubsetScore.objects.filter(run=english_run, profile="sori")}
    assert subsets == {
        # SD-QA as VoiceBench reports it: (rule + judge) / 2
        ("sd-qa", "rule"): (66.67, 3, False), ("sd-qa", "judge"): (66.67, 3, False), ("sd-qa", "combined"): (66.67, 3, True),
        ("mmsu", "rule"): (100.0, 1, True),
        ("commoneval", "judge"): (86.67, 1, True),  # mean of 5, 4, 4 is 4.33; x 20
    }
    judged = ItemScore.objects.get(item__subset="commoneval", method="judge")
    assert judged.judge_calls.count() == 3 and all(c.agent_call_id for c in judged.judge_calls.all())
    assert job.result["judged"] == 4 and job.result["judge_failed"] == 0


@pytest.mark.django_db
def test_evaluating_again_rescores_the_rules_but_judges_nothing_again(english_run, response_file, fake_llm, judge_model, inline_jobs, admin):
    _import(english_run, response_file, {q: "Canberra" for q in english_run.items.values_list("question", flat=True)})
    fake_llm.always({"answer": "Yes"})
    fake_llm.reply_when(lambda b: "scale of 1 to 5" in str(b), {"score": 3})
    with inline_jobs():
        start_evaluation(run=english_run, acting_user=admin)
    asked = len(fake_llm.requests)

    with inline_jobs():
        job = start_evaluation(run=english_run, acting_user=admin)

    job.refresh_from_db()
    assert job.status == "succeeded" and len(fake_llm.requests) == asked == 4  # 4 judged items, n=3 in one request each
    assert job.result["judged"] == 0 and job.result["rule_scored"] == 4  # sd-qa and mmsu, by the current rules
    assert SubsetScore.objects.filter(run=english_run, subset="commoneval", method="judge", profile="sori").get().score == pytest.approx(60)


@pytest.mark.django_db
def test_a_judge_that_cannot_answer_leaves_the_run_needing_attention(english_run, response_file, fake_llm, judge_model,
                                                                    inline_jobs, admin):
    _import(english_run, response_file, {q: "Canberra" for q in english_run.items.values_list("question", flat=True)})
    fake_llm.always({"answer": "Yes"})
    fake_llm.reply_when(lambda b: "scale of 1 to 5" in str(b), "I would say four")  # never the JSON asked for

    with inline_jobs():
        job = start_evaluation(run=english_run, acting_user=admin)

    job.refresh_from_db()
    english_run.refresh_from_db()
    assert job.status == "succeeded" and job.result["judge_failed"] == 1
    assert english_run.status == RunStatus.NEEDS_ATTENTION and "1 judge scores" in english_run.attention_reason
    assert not SubsetScore.objects.filter(run=english_run, subset="commoneval").exists()
    assert EvalItem.objects.get(run=english_run, subset="commoneval").scores.count() == 0


@pytest.mark.django_db
def test_the_budget_cap_stops_the_judge_and_says_so(english_run, response_file, fake_llm, judge_model, inline_jobs, admin, settings):
    settings.AGENTS_PRICES = {**settings.AGENTS_PRICES, "openai:gpt-4o-mini": {"input": 1000, "output": 1000}}
    _import(english_run, response_file, {q: "Canberra" for q in english_run.items.values_list("question", flat=True)})
    fake_llm.always({"answer": "Yes"})

    with inline_jobs():
        job = start_evaluation(run=english_run, acting_user=admin, budget_usd=0.01)

    job.refresh_from_db()
    english_run.refresh_from_db()
    assert job.status == "failed" and "budget cap" in job.message
    assert english_run.status == RunStatus.NEEDS_ATTENTION and "budget cap" in english_run.attention_reason
    assert not fake_llm.requests


@pytest.mark.django_db
def test_an_evaluator_failing_on_one_item_leaves_that_item_unscored_with_the_error(
        english_run, response_file, fake_llm, judge_model, inline_jobs, admin, monkeypatch):
    from apps.evaluation import jobs as services

    _import(english_run, response_file, {q: "B, Canberra" for q in english_run.items.values_list("question", flat=True)})
    fake_llm.always({"answer": "Yes"})
    fake_llm.reply_when(lambda b: "scale of 1 to 5" in str(b), {"score": 3})
    real = services.rule_score

    def failing_on_mmsu(item, profile):
        if item.subset == "mmsu":
            raise KeyError("kwargs")
        return real(item, profile)

    monkeypatch.setattr(services, "rule_score", failing_on_mmsu)
    with inline_jobs():
        job = start_evaluation(run=english_run, acting_user=admin)
    job.refresh_from_db()
    english_run.refresh_from_db()

    assert job.status == "succeeded" and job.result["rule_failed"] == [english_run.items.get(subset="mmsu").item_id]
    failed = ItemScore.objects.get(item__subset="mmsu", item__run=english_run, profile="sori")
    assert failed.score is None and failed.detail == {"error": "KeyError: 'kwargs'"}
    assert english_run.status == RunStatus.NEEDS_ATTENTION and "failed on 1 items" in english_run.attention_reason
    assert SubsetScore.objects.filter(run=english_run, subset="sd-qa", method="rule", profile="sori").get().n == 3  # the others scored
    assert not SubsetScore.objects.filter(run=english_run, subset="mmsu").exists()
