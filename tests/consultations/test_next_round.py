"""What stays undecided after re-analysis feeds the next round, which works under the new version."""

import pytest

from apps.consultations import agent_steps, services
from apps.consultations.models import AnalysisResult, DecisionQuestion, RoundStatus

from .conftest import is_analysis, is_codification, is_question_writing

pytestmark = pytest.mark.django_db


def test_samples_still_undecided_after_reanalysis_are_asked_about_in_the_next_round(
    fake_llm, rulebooks, samples, admin, expert, django_capture_on_commit_callbacks
):
    _, wq1, wq2, _ = samples
    book = rulebooks["ko-hypertranslation"]
    round1 = services.create_round(rulebook=book, acting_user=admin, scope={"subsets": ["web_questions"]})
    # Round 1, recorded directly (the analysis step itself is covered by the whole-loop test).
    for s in (wq1, wq2):
        services.record_analysis(round=round1, sample=s, version=round1.base_version, action="undecided", reason="time-sensitive")
    services.set_round_status(round=round1, status=RoundStatus.ANSWERING)
    question = services.create_question(
        round=round1, title="Time-sensitive answers", decision_needed="?", samples=[wq2],
        options=[{"key": "A", "label": "Add a year", "effect": "x"}, {"key": "B", "label": "Delete", "effect": "y"}],
    )
    services.submit_answer(question=question, acting_user=expert, option="A")
    fake_llm.reply_when(is_codification, {"change": "add", "rule_id": "ht-time-sensitive", "category": "time_sensitive_answers",
                                          "statement": "Add the year.", "examples": [], "scope": {"task_types": [], "subsets": []}})
    fake_llm.reply_when(lambda b: is_analysis(b, version=2, containing=wq2.transcription),
                        {"action": "equivalent_replacement", "cited_rule_ids": ["ht-time-sensitive"], "reason": ""})
    fake_llm.reply_when(lambda b: is_analysis(b, version=2, containing=wq1.transcription),
                        {"action": "undecided", "cited_rule_ids": [], "reason": "a capital that was renamed, not a date"})
    with django_capture_on_commit_callbacks(execute=True):
        agent_steps.close_round_and_codify(round=round1, acting_user=admin)
    services.approve_draft(draft=question.rule_draft, acting_user=expert)
    with django_capture_on_commit_callbacks(execute=True):
        v2 = services.publish_round_version(round=round1, acting_user=admin)
    # wq1 was not in the question but was still undecided: it was analysed again too.
    assert set(AnalysisResult.objects.filter(version=v2).values_list("sample_id", "action")) == {
        (wq1.pk, "undecided"), (wq2.pk, "equivalent_replacement")}

    # Round 2 starts from v2; nothing is analysed twice under v2, and wq1 becomes its question.
    fake_llm.reply_when(is_question_writing, {"questions": [{
        "title": "Renamed places", "decision_needed": "Old or new name?",
        "options": [{"key": "A", "label": "Accept both", "effect": "aliases"}, {"key": "B", "label": "New only", "effect": "strict"}],
        "recommendation": "A", "recommendation_why": "both are heard", "sample_ids": [wq1.pk], "rules_touched": ["ht-time-sensitive"],
    }]})
    analyses_before = sum(1 for r in fake_llm.requests if is_analysis(r["body"]))
    round2 = services.create_round(rulebook=book, acting_user=admin, scope={"subsets": ["web_questions"]})
    assert round2.base_version == v2 and round2.number == 2
    with django_capture_on_commit_callbacks(execute=True):
        agent_steps.start_analysis(round=round2, acting_user=admin)
    assert sum(1 for r in fake_llm.requests if is_analysis(r["body"])) == analyses_before
    second = DecisionQuestion.objects.get(round=round2)
    assert list(second.affected_samples.all()) == [wq1] and second.rules_touched == ["ht-time-sensitive"]
