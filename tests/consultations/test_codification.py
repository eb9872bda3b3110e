"""Codification: a draft the agent could not write is visible and an admin writes the rule; a rejected draft
stays out of the next version; only the answering expert or an admin may approve."""

import pytest

from apps.consultations import agent_steps, services
from apps.consultations.models import DraftStatus, RuleDraft
from apps.core.errors import Conflict

from .conftest import is_codification

pytestmark = pytest.mark.django_db


def _two_decided_questions(make_question, expert):
    first = make_question()
    second = make_question(round=first.round)
    services.submit_answer(question=first, acting_user=expert, option="B")
    services.submit_answer(question=second, acting_user=expert, option="C")
    return first, second


def test_a_draft_the_agent_cannot_write_needs_attention_and_an_admin_writes_the_rule(
    fake_llm, make_question, expert, admin, client_for, make_user, django_capture_on_commit_callbacks
):
    first, second = _two_decided_questions(make_question, expert)
    fake_llm.reply_when(lambda b: is_codification(b) and "Add a year" in str(b) and "B. Add a year" in str(b),
                        {"change": "add", "rule_id": "ht-year", "category": "time_sensitive_answers",
                         "statement": "Add the year.", "examples": [], "scope": {"task_types": [], "subsets": []}})
    fake_llm.reply_when(is_codification, "I would rather not answer in JSON.")
    fake_llm.reply_when(lambda b: "You are the analyst" in str(b),
                        {"action": "undecided", "cited_rule_ids": [], "reason": "still open"})
    with django_capture_on_commit_callbacks(execute=True):
        agent_steps.close_round_and_codify(round=first.round, acting_user=admin)
    good, stuck = RuleDraft.objects.get(question=first), RuleDraft.objects.get(question=second)
    assert good.status == DraftStatus.DRAFTED
    assert stuck.status == DraftStatus.NEEDS_ATTENTION and "invalid" in stuck.reason
    assert "Needs attention" in client_for(admin).get(f"/consultations/rounds/{first.round_id}/").content.decode()

    # Another expert, who did not answer, may not approve; the answering expert may.
    outsider = make_user("olga_other", "expert")
    assert client_for(outsider).get(f"/consultations/drafts/{good.pk}/").status_code == 403
    with pytest.raises(Conflict, match="wait for approval"):
        services.publish_round_version(round=first.round, acting_user=admin)
    services.approve_draft(draft=good, acting_user=expert)
    response = client_for(admin).post(f"/consultations/drafts/{stuck.pk}/", {
        "decision": "approve", "rule_id": "ht-delete-stale", "category": "deletion",
        "statement": "Delete samples whose answer cannot be dated.",
        "example_input": ["Who is the current champion?"], "example_output": ["(deleted)"],
    })
    assert response.status_code == 302
    stuck.refresh_from_db()
    assert stuck.status == DraftStatus.APPROVED and stuck.edited and stuck.examples == [
        {"input": "Who is the current champion?", "output": "(deleted)"}]
    with django_capture_on_commit_callbacks(execute=True):
        v2 = services.publish_round_version(round=first.round, acting_user=admin)
    assert {"ht-year", "ht-delete-stale"} <= set(v2.rules.values_list("rule_id", flat=True))
    assert v2.rules.get(rule_id="ht-delete-stale").provenance["approved_by"] == admin.username


def test_a_rejected_draft_stays_out_of_the_next_version(fake_llm, make_question, expert, admin, django_capture_on_commit_callbacks):
    first, second = _two_decided_questions(make_question, expert)
    fake_llm.reply_when(is_codification, {"change": "amend", "rule_id": "ht-aliases", "category": "aliases",
                                          "statement": "Reconstruct Korean aliases, with the year.", "examples": [],
                                          "scope": {"task_types": ["short_answer"], "subsets": []}})
    fake_llm.reply_when(lambda b: "You are the analyst" in str(b),
                        {"action": "undecided", "cited_rule_ids": [], "reason": "still open"})
    with django_capture_on_commit_callbacks(execute=True):
        agent_steps.close_round_and_codify(round=first.round, acting_user=admin)
    services.approve_draft(draft=RuleDraft.objects.get(question=first), acting_user=expert)
    services.reject_draft(draft=RuleDraft.objects.get(question=second), acting_user=expert, reason="duplicate of Q1")
    with django_capture_on_commit_callbacks(execute=True):
        v2 = services.publish_round_version(round=first.round, acting_user=admin)
    aliases = v2.rules.get(rule_id="ht-aliases")
    assert aliases.statement == "Reconstruct Korean aliases, with the year."
    assert aliases.provenance["question"] == first.number  # amended by Q1, not by the rejected Q2
    assert v2.rules.count() == first.round.base_version.rules.count()
    assert "rule_rejected" in list(first.round.events.values_list("kind", flat=True))
