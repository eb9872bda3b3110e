"""The whole loop with the fake provider server: analysis leaves samples undecided, a question is raised with
them, the expert answers in a real browser, the rule is codified and approved, version 2 carries it with its
provenance, re-analysis settles the samples, and the statistics add up."""

import re
import time

import pytest

from apps.consultations import agent_steps, selectors, services
from apps.consultations.models import (
    AnalysisResult,
    DecisionQuestion,
    DraftStatus,
    QuestionStatus,
    Round,
    RoundStatus,
    RuleDraft,
)
from apps.jobs.models import Job, JobStatus

from .conftest import is_analysis, is_codification, is_question_writing


def wait_for(fetch, seconds: float = 10.0):
    """Poll the database until the browser's autosave has landed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = fetch()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("timed out waiting for the autosave")


def script_first_pass(fake_llm, samples):
    mc, wq1, wq2, ifeval = samples
    fake_llm.reply_when(lambda b: is_analysis(b, version=1, containing="rock forms from cooled magma"),
                        {"action": "direct_translation", "cited_rule_ids": ["ht-mc-labels"], "reason": "labels become ㄱ/ㄴ"})
    fake_llm.reply_when(lambda b: is_analysis(b, version=1, containing="Describe Seoul"),
                        {"action": "format_conversion", "cited_rule_ids": ["ht-case-removal"], "reason": "drop the case rule"})
    for s in (wq1, wq2):
        fake_llm.reply_when(
            lambda b, s=s: is_analysis(b, version=1, containing=s.transcription),
            {"action": "undecided", "cited_rule_ids": [], "reason": "the answer is time-sensitive; no rule says what to do"},
        )
    fake_llm.reply_when(is_question_writing, {"questions": [{
        "title": "Time-sensitive answers",
        "decision_needed": "Some answers change over time. How should a Korean sample handle them?",
        "options": [
            {"key": "A", "label": "Keep; accept old and new answers", "effect": "aliases grow"},
            {"key": "B", "label": "Rewrite the question with an explicit year", "effect": "equivalent replacement"},
            {"key": "C", "label": "Delete the samples", "effect": "removed"},
        ],
        "recommendation": "B", "recommendation_why": "keeps one correct answer",
        "sample_ids": [wq1.pk, wq2.pk], "example_sample_ids": [wq2.pk], "rules_touched": ["ht-aliases"],
    }]})


def script_codification_and_second_pass(fake_llm, samples):
    _, wq1, wq2, _ = samples
    fake_llm.reply_when(is_codification, {
        "change": "add", "rule_id": "ht-time-sensitive", "category": "time_sensitive_answers",
        "statement": "Rewrite questions whose answer changes over time with an explicit year.",
        "examples": [{"input": "Who is the current president of France?", "output": "2019년 프랑스 대통령은 누구인가요?"}],
        "scope": {"task_types": ["short_answer"], "subsets": []},
    })
    for s in (wq1, wq2):
        fake_llm.reply_when(
            lambda b, s=s: is_analysis(b, version=2, containing=s.transcription),
            {"action": "equivalent_replacement", "cited_rule_ids": ["ht-time-sensitive"], "reason": "add the year"},
        )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_whole_loop_from_analysis_to_a_settled_version_two(fake_llm, rulebooks, samples, admin, expert, page, login, live_server, settings):
    settings.CONSULTATION_ANALYSIS_WORKERS = 3  # analysts in parallel, as the paper's sub-agents
    mc, wq1, wq2, ifeval = samples
    book = rulebooks["ko-hypertranslation"]
    script_first_pass(fake_llm, samples)

    # 1-2. Analysis as a job, then questions from the undecided samples.
    round = services.create_round(rulebook=book, acting_user=admin, max_questions=3)
    job = agent_steps.start_analysis(round=round, acting_user=admin)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert job.done == job.total == 4
    round.refresh_from_db()
    assert round.status == RoundStatus.ANSWERING
    v1 = round.base_version
    undecided = AnalysisResult.objects.filter(version=v1, action="undecided")
    assert set(undecided.values_list("sample_id", flat=True)) == {wq1.pk, wq2.pk}
    assert all(r.reason for r in undecided)
    first = AnalysisResult.objects.get(sample=mc)
    assert first.cited_rule_ids == ["ht-mc-labels"]
    assert first.agent_call.prompt_name == "consultation_analysis" and first.agent_call.role == "analyst"
    question = DecisionQuestion.objects.get(round=round)
    assert question.agent_call.prompt_name == "consultation_questions"
    assert set(question.affected_samples.values_list("pk", flat=True)) == {wq1.pk, wq2.pk}
    assert question.options.count() == 3 and question.recommendation == "B"

    # 3. The expert answers in the browser: keyboard choice, autosave, Ctrl+Enter.
    logs = []
    page.on("console", lambda m: logs.append(m.text))
    page.on("pageerror", lambda e: logs.append(str(e)))
    page.set_viewport_size({"width": 768, "height": 1024})  # the expert answers on a tablet
    login(page, expert)
    page.goto(f"{live_server.url}/consultations/inbox/")
    page.click(f"[data-question='{question.pk}']")
    page.wait_for_load_state("load")
    assert "Who is the current president of France?" in page.content()
    assert page.evaluate("document.documentElement.scrollWidth") <= 768  # nothing overflows sideways
    page.keyboard.press("2")
    assert page.is_checked("input[name=option][value=B]"), (logs, page.evaluate("document.scripts.length"), page.url)
    page.fill("#comment", "A year keeps the question answerable.")
    page.check("input[name=confidence][value='4']")
    page.wait_for_selector("#save-status:has-text('Draft saved')")
    draft = wait_for(lambda: question.answers.filter(expert=expert, comment__startswith="A year", confidence=4).first())
    assert draft.option.key == "B" and draft.submitted_at is None
    page.focus("#comment")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(re.compile(r"/consultations/inbox/$"))
    question.refresh_from_db()
    assert question.status == QuestionStatus.DECIDED and question.decided_option.key == "B"
    answer = question.answers.get(expert=expert)
    assert answer.confidence == 4 and answer.submitted_at is not None

    # 4. Closing the round codifies the decision; the expert approves the drafted rule in the browser.
    script_codification_and_second_pass(fake_llm, samples)
    agent_steps.close_round_and_codify(round=round, acting_user=admin)
    rule_draft = RuleDraft.objects.get(question=question)
    assert rule_draft.status == DraftStatus.DRAFTED and rule_draft.rule_id == "ht-time-sensitive"
    page.goto(f"{live_server.url}/consultations/drafts/{rule_draft.pk}/")
    page.fill("#statement", "Rewrite questions whose answer changes over time with an explicit year (연도).")
    page.click("#approve-draft")
    page.wait_for_load_state("load")
    assert page.url.endswith("/consultations/inbox/"), (page.url, page.content()[:3000])
    rule_draft.refresh_from_db()
    assert rule_draft.status == DraftStatus.APPROVED and rule_draft.edited and rule_draft.approved_by == expert

    # Version 2 holds the rule with its provenance; re-analysis settles the two samples.
    v2 = services.publish_round_version(round=round, acting_user=admin)
    assert v2.number == 2
    rule = v2.rules.get(rule_id="ht-time-sensitive")
    assert rule.statement.endswith("(연도).")
    assert rule.provenance["source"] == "consultation" and rule.provenance["question"] == question.number
    assert rule.provenance["approved_by"] == expert.username
    assert rule.provenance["answered_by"][0].startswith(expert.username)
    assert v2.rules.count() == v1.rules.count() + 1
    reanalysis = Job.objects.filter(kind=agent_steps.ANALYSIS_JOB).latest("pk")
    assert reanalysis.status == JobStatus.SUCCEEDED, reanalysis.error
    assert set(AnalysisResult.objects.filter(version=v2).values_list("sample_id", "action")) == {
        (wq1.pk, "equivalent_replacement"), (wq2.pk, "equivalent_replacement"),
    }
    # The version-1 results were not touched.
    assert set(AnalysisResult.objects.filter(version=v1, sample__in=[wq1, wq2]).values_list("action", flat=True)) == {"undecided"}

    # Statistics add up.
    round = Round.objects.get(pk=round.pk)
    assert round.status == RoundStatus.CLOSED and round.resulting_version == v2
    stats = selectors.round_stats(round)
    assert (stats.questions_raised, stats.questions_answered, stats.samples_affected) == (1, 1, 2)
    assert stats.samples_analysed == 4
    assert stats.per_action == {"direct_translation": 1, "equivalent_replacement": 2, "format_conversion": 1}
    assert stats.flagged == 2  # the page shows it as a share of samples_analysed through {% rate %}
    assert stats.flagged_by_subset == {"web_questions": {"equivalent_replacement": 2}}
    assert selectors.version_stats(v1).per_action == {"direct_translation": 1, "format_conversion": 1, "undecided": 2}
    assert selectors.version_stats(v2).samples_analysed == 2
    assert selectors.version_stats(v2).citations == {"ht-time-sensitive": 2}

    # The history reads as an audit trail, and the admin's round page shows it.
    kinds = list(round.events.values_list("kind", flat=True))
    for kind in ["created", "question_raised", "answer_submitted", "decided", "rule_drafted", "rule_approved",
                 "version_published", "reanalysis"]:
        assert kind in kinds
    page.context.clear_cookies()
    login(page, admin)
    page.goto(f"{live_server.url}/consultations/rounds/{round.pk}/")
    assert page.inner_text("[data-stat=questions_raised]") == "1"
    # Two of four samples: too few for a percentage, so the page shows the count and says so.
    assert page.inner_text("[data-stat=flagged]") == "2 of 4 (n too small for a percentage)"
    assert "653 of 10,083" in page.content()
    assert f"{expert} answered Q1: option B" in page.inner_text(".history")
    assert "Agent cost of this round: $" in page.inner_text("#agent-cost") and " calls)" in page.inner_text("#agent-cost")


def test_a_failed_analysis_job_resumes_where_it_stopped(fake_llm, rulebooks, samples, admin, django_capture_on_commit_callbacks):
    mc, wq1, wq2, ifeval = samples
    round = services.create_round(rulebook=rulebooks["ko-hypertranslation"], acting_user=admin, scope={"subsets": ["web_questions"]})
    fake_llm.reply_when(lambda b: is_analysis(b, containing=wq1.transcription),
                        {"action": "undecided", "cited_rule_ids": [], "reason": "time-sensitive"})
    fake_llm.fail(status=400)  # the provider refuses the request for the second sample: the job stops
    with django_capture_on_commit_callbacks(execute=True):
        job = agent_steps.start_analysis(round=round, acting_user=admin)
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.done == 1
    assert list(AnalysisResult.objects.values_list("sample_id", flat=True)) == [wq1.pk]

    requests_before = len(fake_llm.requests)
    fake_llm.reply_when(lambda b: is_analysis(b, containing=wq2.transcription),
                        {"action": "deletion", "cited_rule_ids": ["ht-aliases"], "reason": "unanswerable in Korean"})
    fake_llm.reply_when(is_question_writing, {"questions": [{
        "title": "Time-sensitive answers", "decision_needed": "What to do?",
        "options": [{"key": "A", "label": "Keep", "effect": "kept"}, {"key": "B", "label": "Delete", "effect": "gone"}],
        "recommendation": "A", "recommendation_why": "keep data", "sample_ids": [wq1.pk],
    }]})
    from apps.jobs.services import resume_job

    with django_capture_on_commit_callbacks(execute=True):
        resume_job(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.done == job.total == 2
    # Only the unfinished sample and the question writer were asked again.
    asked = [r["body"] for r in fake_llm.requests[requests_before:]]
    assert len(asked) == 2 and not any(is_analysis(b, containing=wq1.transcription) for b in asked)
    assert AnalysisResult.objects.get(sample=wq2).action == "deletion"
    assert DecisionQuestion.objects.get(round=round).affected_samples.get() == wq1


def test_an_invented_rule_id_is_sent_back_and_a_second_failure_needs_attention(fake_llm, rulebooks, samples, admin, django_capture_on_commit_callbacks):
    mc, wq1, wq2, ifeval = samples
    round = services.create_round(rulebook=rulebooks["ko-hypertranslation"], acting_user=admin, scope={"subsets": ["mmsu", "ifeval"]})
    # The retry carries the validation error; for the multiple-choice sample the model then corrects itself.
    fake_llm.reply_when(lambda b: is_analysis(b, containing="cooled magma") and "Your answer was rejected" in str(b),
                        {"action": "direct_translation", "cited_rule_ids": ["ht-mc-labels"], "reason": ""})
    fake_llm.reply_when(lambda b: is_analysis(b),
                        {"action": "format_conversion", "cited_rule_ids": ["ht-invented"], "reason": ""})
    with django_capture_on_commit_callbacks(execute=True):
        job = agent_steps.start_analysis(round=round, acting_user=admin)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED, job.error
    assert AnalysisResult.objects.get(sample=mc).cited_rule_ids == ["ht-mc-labels"]
    stuck = AnalysisResult.objects.get(sample=ifeval)
    assert stuck.action == "needs_attention" and "ht-invented" in stuck.reason
    assert stuck.agent_call.status == "invalid"  # the rejected answer is on the call log
    assert job.result["needs_attention"] == 1
