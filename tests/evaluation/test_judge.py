"""The LLM judge through the real SDKs against the fake server, as VoiceBench's api_judge.py asks it: one request
for n=3 answers at temperature 0.5, top-p 0.95 where the provider has `n` (OpenAI-compatible), three requests
where it has not (Anthropic). Open-ended responses are rated 1-5 (mean x 20), short answers judged Yes/No
(majority). Each of the n answers is a JudgeCall linked to the AgentCall behind it, validated strictly; a model
that refuses a sampling setting is asked again without it and the refusal recorded on the score and the run;
every score names its judge model, the version that answered and the prompt version."""

import json

import pytest

from apps.agents.models import AgentCall, CachedResponse, CallStatus
from apps.agents.services import AgentNeedsAttention, forget_refused_settings
from apps.evaluation.judge import judge_item
from apps.evaluation.models import EvalItem, EvaluationRun, ItemScore
from apps.evaluation.responses import import_responses


@pytest.fixture(autouse=True)
def _no_remembered_refusals():
    """A refusal is remembered per model for the process; each test starts and ends without any."""
    forget_refused_settings()
    yield
    forget_refused_settings()


def _judge(settings, provider="openai", model="gpt-4o-mini"):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": (provider, model)}


@pytest.fixture
def judged_run(english_run, response_file, settings):
    _judge(settings)
    rows = [{"id": i.item_id, "response": {"sd-qa": "It is Canberra.", "mmsu": "The answer is B.",
                                           "commoneval": "My day was fine, thank you."}[i.subset]}
            for i in english_run.items.all()]
    import_responses(run=english_run, source=response_file("r.jsonl", rows))
    return english_run


def _open_item(run):
    return EvalItem.objects.select_related("run").get(run=run, subset="commoneval")


def _qa_item(run, question="What is the capital of Australia?"):
    return EvalItem.objects.select_related("run").get(run=run, question=question)


def _user_text(body):
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def _sampling(body):
    return {k: body.get(k) for k in ("n", "temperature", "top_p")}


# --- one request for three answers (OpenAI-compatible) --------------------------------------------------------
@pytest.mark.django_db
def test_an_openai_judge_is_asked_once_for_three_answers_at_voicebenchs_temperature_and_top_p(judged_run, fake_llm):
    for score in (4, 5, 3):
        fake_llm.reply({"score": score})

    row = judge_item(_open_item(judged_run))

    assert len(fake_llm.requests) == 1
    body = fake_llm.requests[0]["body"]
    assert _sampling(body) == {"n": 3, "temperature": 0.5, "top_p": 0.95}
    assert body["model"] == "gpt-4o-mini"
    text = _user_text(body)
    assert "Please evaluate the response on a scale of 1 to 5" in text
    assert "### [Instruction]: Tell me about your day." in text
    assert "### [Response]:\n<<<RESPONSE>>>\nMy day was fine, thank you.\n<<<END_RESPONSE>>>" in text  # fenced (v2)
    assert row.method == "judge" and row.score == pytest.approx(4 / 5)  # mean 4, x 20 = 80
    assert row.detail["scores"] == [4, 5, 3]


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["argument", "setting"])
def test_voicebenchs_plain_prompt_is_asked_word_for_word_when_chosen(judged_run, fake_llm, settings, how):
    fake_llm.always({"answer": "Yes"})
    if how == "setting":
        settings.EVALUATION_JUDGE_PROMPT = "voicebench"

    row = judge_item(_qa_item(judged_run), **({"prompt": "voicebench"} if how == "argument" else {}))

    text = _user_text(fake_llm.requests[0]["body"])
    assert "### Candidate answer\nIt is Canberra.\n\nIs the candidate answer correct" in text and "<<<" not in text
    assert row.judge_prompt_version == "judge_qa v1" and row.version == "v1 openai:gpt-4o-mini"


@pytest.mark.django_db
def test_an_unknown_judge_prompt_setting_fails_loudly(judged_run, fake_llm, settings):
    from django.core.exceptions import ImproperlyConfigured

    settings.EVALUATION_JUDGE_PROMPT = "plain"
    with pytest.raises(ImproperlyConfigured, match="fenced, voicebench"):
        judge_item(_qa_item(judged_run))
    assert not fake_llm.requests


@pytest.mark.django_db
def test_each_of_the_three_answers_is_a_judge_call_linked_to_the_one_agent_call(judged_run, fake_llm):
    for score in (2, 5, 4):
        fake_llm.reply({"score": score})

    row = judge_item(_open_item(judged_run))

    calls = list(row.judge_calls.select_related("agent_call"))
    assert [(c.sample, c.value, json.loads(c.raw_answer)) for c in calls] == [
        (0, "2", {"score": 2}), (1, "5", {"score": 5}), (2, "4", {"score": 4})]
    assert len({c.agent_call_id for c in calls}) == 1
    agent_call = calls[0].agent_call
    assert agent_call.role == "judge" and agent_call.status == CallStatus.OK and agent_call.http_attempts == 1
    assert agent_call.request["n"] == 3 and agent_call.request["sampling"] == {"temperature": 0.5, "top_p": 0.95}
    assert agent_call.request["refused"] == []
    assert json.loads(agent_call.response_text) == [json.dumps({"score": s}) for s in (2, 5, 4)]
    assert agent_call.output_tokens > 0 and AgentCall.objects.count() == 1  # one request, one row, its whole cost


@pytest.mark.django_db
@pytest.mark.parametrize(("votes", "score"), [
    (["Yes", "No", "yes"], 1.0), (["No", "no", "Yes"], 0.0), (["YES", "YES", "NO"], 1.0), (["no", "NO", "no"], 0.0)])
def test_a_short_answer_is_correct_when_most_of_the_three_answers_say_yes(judged_run, fake_llm, votes, score):
    for vote in votes:
        fake_llm.reply({"answer": vote})

    row = judge_item(_qa_item(judged_run))

    assert row.score == score and row.detail["votes"] == [v.lower() for v in votes]
    assert len(fake_llm.requests) == 1 and _sampling(fake_llm.requests[0]["body"])["n"] == 3
    text = _user_text(fake_llm.requests[0]["body"])
    assert "### Question\nWhat is the capital of Australia?" in text
    assert "### Reference answer\nCanberra" in text
    assert "### Candidate answer\n<<<RESPONSE>>>\nIt is Canberra.\n<<<END_RESPONSE>>>" in text
    assert [c.value for c in row.judge_calls.all()] == [v.lower() for v in votes]


@pytest.mark.django_db
def test_the_korean_side_is_judged_with_the_korean_prompt_and_the_same_sampling(judged_run, fake_llm):
    EvaluationRun.objects.filter(pk=judged_run.pk).update(language="ko")
    fake_llm.always({"answer": "Yes"})

    row = judge_item(_qa_item(judged_run, "How many legs does a spider have?"))

    body = fake_llm.requests[0]["body"]
    assert "### 질문" in _user_text(body) and "### 참조 답변\neight" in _user_text(body)
    assert _sampling(body) == {"n": 3, "temperature": 0.5, "top_p": 0.95}
    assert row.evaluator == "judge:judge_qa_ko" and row.judge_prompt_version == "judge_qa_ko v2"


# --- the judge model on every score ---------------------------------------------------------------------------
@pytest.mark.django_db
def test_every_judge_score_names_the_judge_model_the_version_that_answered_and_the_prompt(judged_run, fake_llm):
    fake_llm.serve_as("gpt-4o-mini-2024-07-18")
    fake_llm.reply_when(lambda body: "### [Instruction]" in _user_text(body), {"score": 5})
    fake_llm.always({"answer": "yes"})

    rows = [judge_item(i) for i in EvalItem.objects.select_related("run").filter(run=judged_run, metric__in=["open", "qa"])]

    assert len(rows) == 4
    assert {(r.judge_model, r.judge_model_version) for r in rows} == {("openai:gpt-4o-mini", "gpt-4o-mini-2024-07-18")}
    assert {r.judge_prompt_version for r in rows} == {"judge_open v2", "judge_qa v2"}
    assert {r.version for r in rows} == {"v2 openai:gpt-4o-mini"}
    # Rule scores name no judge.
    assert not ItemScore.objects.filter(method="rule").exclude(judge_model="").exists()


@pytest.mark.django_db
def test_a_score_from_the_cache_still_names_the_version_that_answered(judged_run, fake_llm):
    fake_llm.serve_as("gpt-4o-mini-2024-07-18")
    fake_llm.always({"score": 4})
    judge_item(_open_item(judged_run))
    ItemScore.objects.all().delete()

    again = judge_item(_open_item(judged_run))

    assert len(fake_llm.requests) == 1
    assert again.judge_model_version == "gpt-4o-mini-2024-07-18" and again.judge_model == "openai:gpt-4o-mini"


# --- the cache ------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_judging_again_is_answered_from_the_cache_with_the_three_answers(judged_run, fake_llm):
    for score in (3, 4, 5):
        fake_llm.reply({"score": score})
    item = _open_item(judged_run)
    judge_item(item)

    again = judge_item(_open_item(judged_run))

    assert len(fake_llm.requests) == 1
    assert again.detail["scores"] == [3, 4, 5]
    calls = list(again.judge_calls.select_related("agent_call"))
    assert {c.agent_call.status for c in calls} == {CallStatus.CACHED} and len({c.agent_call_id for c in calls}) == 1
    assert [json.loads(c.raw_answer)["score"] for c in calls] == [3, 4, 5]
    assert ItemScore.objects.filter(item=item, method="judge").count() == 1
    assert CachedResponse.objects.get().hits == 1


@pytest.mark.django_db
def test_the_cache_key_holds_n_and_the_sampling_settings(judged_run, fake_llm, settings):
    from apps.agents.services import call_agent
    from apps.evaluation.judge import JudgeScore

    fake_llm.always({"score": 4})
    variables = {"prompt": "Tell me about your day.", "response": "My day was fine, thank you."}
    judge_item(_open_item(judged_run))

    # The same prompt and input asked without VoiceBench's sampling, or with another n, is another question.
    call_agent(role="judge", prompt="judge_open", variables=variables, schema=JudgeScore)
    call_agent(role="judge", prompt="judge_open", variables=variables, schema=JudgeScore, n=2, temperature=0.5, top_p=0.95)
    call_agent(role="judge", prompt="judge_open", variables=variables, schema=JudgeScore, n=3, temperature=0.7, top_p=0.95)

    assert len(fake_llm.requests) == 4
    assert len(set(AgentCall.objects.values_list("input_hash", flat=True))) == 4


# --- validation, strictly -------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_one_unreadable_answer_of_three_asks_again_once_with_the_error(judged_run, fake_llm):
    for payload in ({"score": 4}, {"score": 9}, {"score": 3}, {"score": 4}, {"score": 5}, {"score": 3}):
        fake_llm.reply(payload)

    row = judge_item(_open_item(judged_run))

    assert row.detail["scores"] == [4, 5, 3]  # the second request's three answers
    first, second = (r["body"] for r in fake_llm.requests)
    assert second["n"] == 3 and second["temperature"] == 0.5
    assert "answer 2 of 3" in second["messages"][-1]["content"] and '{"score": 9}' in second["messages"][-2]["content"]
    statuses = list(AgentCall.objects.order_by("pk").values_list("status", flat=True))
    assert statuses == [CallStatus.INVALID, CallStatus.OK]
    assert "answer 2 of 3" in AgentCall.objects.get(status=CallStatus.INVALID).error
    assert {c.agent_call.status for c in row.judge_calls.select_related("agent_call")} == {CallStatus.OK}


@pytest.mark.django_db
def test_an_answer_unreadable_twice_leaves_the_item_unscored_and_uncached(judged_run, fake_llm):
    fake_llm.reply({"score": 4}, times=2)
    fake_llm.reply({"score": 0})
    fake_llm.reply({"score": 4}, times=2)
    fake_llm.reply({"score": 6})
    item = _open_item(judged_run)

    with pytest.raises(AgentNeedsAttention, match="answer 3 of 3"):
        judge_item(item)

    assert AgentCall.objects.filter(role="judge", status=CallStatus.INVALID).count() == 2
    assert not ItemScore.objects.filter(item=item).exists() and not CachedResponse.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("bad", [
    {"score": True}, {"score": "+5"}, {"score": "5"}, {"score": 4.0}, {"score": "다섯"}, {"score": [5]}, {"score": None},
    {"points": 5}, "5", "Score: 5", "**5**",
])
def test_a_score_that_is_not_strictly_an_integer_1_to_5_is_not_read(judged_run, fake_llm, bad):
    fake_llm.always(bad)
    item = _open_item(judged_run)

    with pytest.raises(AgentNeedsAttention):
        judge_item(item)

    assert not ItemScore.objects.filter(item=item).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("bad", [
    {"answer": True}, {"answer": 1}, {"answer": "Yes."}, {"answer": "예"}, {"answer": "네, 맞습니다"}, {"answer": "correct"},
    {"answer": ["Yes"]}, "Yes",
])
def test_a_verdict_that_is_not_exactly_yes_or_no_is_not_read(judged_run, fake_llm, bad):
    EvaluationRun.objects.filter(pk=judged_run.pk).update(language="ko")
    fake_llm.always(bad)
    item = _qa_item(judged_run)

    with pytest.raises(AgentNeedsAttention):
        judge_item(item)

    assert not ItemScore.objects.filter(item=item).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("answer", "value"), [('{"score": 5}', 5), ('```json\n{"score": 1}\n```', 1), (' {"score":3} ', 3)])
def test_a_strict_integer_is_read_with_or_without_a_code_fence(judged_run, fake_llm, answer, value):
    fake_llm.always(answer)
    assert judge_item(_open_item(judged_run)).detail["scores"] == [value] * 3


# --- a model that refuses a setting ---------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_model_that_refuses_the_temperature_is_asked_again_without_it_and_the_refusal_recorded(judged_run, fake_llm, settings):
    _judge(settings, "openai", "gpt-5.4")
    fake_llm.refuse("temperature")
    fake_llm.always({"score": 4})

    row = judge_item(_open_item(judged_run))

    refused, accepted = (r["body"] for r in fake_llm.requests)
    assert refused["temperature"] == 0.5
    assert "temperature" not in accepted and (accepted["n"], accepted["top_p"]) == (3, 0.95)
    assert row.detail["sampling"] == {"temperature": 0.5, "top_p": 0.95, "n": 3, "requests": 1, "refused": ["temperature"]}
    call = AgentCall.objects.get()
    assert call.status == CallStatus.OK and call.http_attempts == 2
    assert call.request["sampling"] == {"top_p": 0.95} and call.request["refused"] == ["temperature"]
    judged_run.refresh_from_db()
    assert judged_run.judge_sampling["refused"] == ["temperature"] and judged_run.judge_refused == ["temperature"]


@pytest.mark.django_db
def test_after_a_refusal_the_next_item_is_asked_without_the_setting_from_the_start(judged_run, fake_llm, settings):
    _judge(settings, "openai", "gpt-5.4")
    fake_llm.refuse("temperature")
    fake_llm.always({"answer": "Yes"})
    judge_item(_qa_item(judged_run))

    row = judge_item(_qa_item(judged_run, "Who wrote Hamlet?"))

    assert len(fake_llm.requests) == 3  # refused + accepted, then one request
    assert "temperature" not in fake_llm.requests[-1]["body"]
    assert row.detail["sampling"]["refused"] == ["temperature"]
    assert AgentCall.objects.order_by("-pk").first().http_attempts == 1


@pytest.mark.django_db
def test_a_refusal_is_still_reported_when_the_answers_come_from_the_cache(judged_run, fake_llm, settings):
    _judge(settings, "openai", "gpt-5.4")
    fake_llm.refuse("temperature")
    fake_llm.always({"score": 3})
    judge_item(_open_item(judged_run))
    forget_refused_settings()  # another process: it has not seen the refusal
    EvaluationRun.objects.filter(pk=judged_run.pk).update(judge_sampling={})

    again = judge_item(_open_item(judged_run))

    assert len(fake_llm.requests) == 2
    assert again.detail["sampling"]["refused"] == ["temperature"]
    assert EvaluationRun.objects.get(pk=judged_run.pk).judge_sampling["refused"] == ["temperature"]


@pytest.mark.django_db
def test_a_model_that_refuses_temperature_and_top_p_is_asked_with_neither(judged_run, fake_llm, settings):
    _judge(settings, "openai", "o4-mini")
    fake_llm.refuse("temperature")
    fake_llm.refuse("top_p", message="Unsupported parameter: 'top_p' is not supported with this model.")
    fake_llm.always({"score": 5})

    row = judge_item(_open_item(judged_run))

    assert [("temperature" in r["body"], "top_p" in r["body"]) for r in fake_llm.requests] == [
        (True, True), (False, True), (False, False)]
    assert row.detail["sampling"]["refused"] == ["temperature", "top_p"]
    assert fake_llm.requests[-1]["body"]["n"] == 3


@pytest.mark.django_db
def test_a_refused_setting_the_judge_did_not_send_is_a_refused_request(judged_run, fake_llm):
    from apps.agents.services import ProviderRejected

    fake_llm.fail(status=400)  # a 400 that names no setting: nothing to drop, the job stops as before
    with pytest.raises(ProviderRejected, match="HTTP 400"):
        judge_item(_open_item(judged_run))
    assert len(fake_llm.requests) == 1


@pytest.mark.django_db
def test_the_refusal_is_kept_on_the_run_while_other_items_are_judged(judged_run, fake_llm, settings):
    _judge(settings, "openai", "gpt-5.4")
    fake_llm.refuse("temperature")
    fake_llm.reply_when(lambda body: "### [Instruction]" in _user_text(body), {"score": 2})
    fake_llm.always({"answer": "no"})

    for item in EvalItem.objects.select_related("run").filter(run=judged_run, metric__in=["open", "qa"]).order_by("pk"):
        judge_item(item)

    judged_run.refresh_from_db()
    assert judged_run.judge_sampling == {"judge_model": "openai:gpt-5.4", "temperature": 0.5, "top_p": 0.95, "n": 3,
                                         "requests": 1, "refused": ["temperature"]}
    assert ItemScore.objects.filter(method="judge").count() == 4
    assert all(s.detail["sampling"]["refused"] == ["temperature"] for s in ItemScore.objects.filter(method="judge"))


# --- providers without n --------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_an_anthropic_judge_is_asked_three_times_and_its_apis_refusal_of_sampling_is_recorded(judged_run, fake_llm, settings):
    # Anthropic's Messages API has no `n`, and since its version 2026-10-21 (SDK 2.x) takes no sampling settings.
    _judge(settings, "anthropic", "claude-sonnet-4-5")
    for score in (2, 3, 4):
        fake_llm.reply({"score": score})

    row = judge_item(_open_item(judged_run))

    assert {r["api"] for r in fake_llm.requests} == {"anthropic"} and len(fake_llm.requests) == 3
    assert all(not {"n", "temperature", "top_p"} & set(r["body"]) for r in fake_llm.requests)
    assert row.score == pytest.approx(3 / 5) and row.version == "v2 anthropic:claude-sonnet-4-5"
    calls = list(row.judge_calls.select_related("agent_call"))
    assert [c.value for c in calls] == ["2", "3", "4"]
    assert len({c.agent_call_id for c in calls}) == 3 and len({c.agent_call.input_hash for c in calls}) == 3
    assert row.judge_model == "anthropic:claude-sonnet-4-5" and row.judge_model_version == "claude-sonnet-4-5"
    assert row.detail["sampling"] == {"temperature": 0.5, "top_p": 0.95, "n": 3, "requests": 3,
                                      "refused": ["temperature", "top_p"]}
    judged_run.refresh_from_db()
    assert judged_run.judge_refused == ["temperature", "top_p"]


@pytest.mark.django_db
def test_an_anthropic_judge_again_is_answered_from_its_three_cache_entries(judged_run, fake_llm, settings):
    _judge(settings, "anthropic", "claude-sonnet-4-5")
    for vote in ("Yes", "No", "No"):
        fake_llm.reply({"answer": vote})
    judge_item(_qa_item(judged_run))

    again = judge_item(_qa_item(judged_run))

    assert len(fake_llm.requests) == 3 and again.detail["votes"] == ["yes", "no", "no"] and again.score == 0.0
    assert {c.agent_call.status for c in again.judge_calls.select_related("agent_call")} == {CallStatus.CACHED}


@pytest.mark.django_db
def test_a_compatible_server_that_ignores_n_is_asked_once_per_answer_from_then_on(judged_run, fake_llm, settings):
    _judge(settings, "openai", "local-judge")
    fake_llm.ignore_n()
    for score in (5, 1, 2, 3):
        fake_llm.reply({"score": score})

    row = judge_item(_open_item(judged_run))

    assert len(fake_llm.requests) == 4  # the one that came back with one answer, then one request per answer
    assert [r["body"].get("n") for r in fake_llm.requests] == [3, None, None, None]
    assert row.detail["scores"] == [1, 2, 3]
    assert row.detail["sampling"]["refused"] == ["n"] and row.detail["sampling"]["requests"] == 3
    assert AgentCall.objects.filter(status=CallStatus.INVALID, error__contains="ignores n").count() == 1


@pytest.mark.django_db
def test_a_run_judged_again_by_another_model_records_that_models_sampling_only(judged_run, fake_llm, settings):
    _judge(settings, "openai", "gpt-5.4")
    fake_llm.refuse("temperature")
    fake_llm.always({"answer": "Yes"})
    judge_item(_qa_item(judged_run))
    fake_llm.reset()
    fake_llm.always({"answer": "Yes"})
    _judge(settings, "openai", "gpt-4o-mini")

    judge_item(_qa_item(judged_run, "Who wrote Hamlet?"))

    judged_run.refresh_from_db()
    assert judged_run.judge_sampling["judge_model"] == "openai:gpt-4o-mini" and judged_run.judge_refused == []
