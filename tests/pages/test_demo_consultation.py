"""The consultation stages in the demo, against the scripted demo provider as ./scripts/demo runs it: the
demo round's decisions are codified into rules that fit the demo samples, and a new round's analysis raises
questions that quote the demo samples' own text, whose answers become rules with Korean examples."""

import io

import pytest

from apps.consultations import agent_steps, services
from apps.consultations.models import DraftStatus, QuestionStatus, Round, RuleDraft
from apps.consultations.selectors import round_stats

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_data(settings):
    from apps.consultations.demo import seed_demo
    from apps.transfer.demo import seed

    settings.CONSULTATION_ANALYSIS_WORKERS = 1  # worker threads cannot see this test's rows
    seed(io.StringIO())
    seed_demo(io.StringIO())
    return Round.objects.get(is_demo=True)


def _answer_codify_and_publish(round, *, expert, admin, capture, choices=None):
    """The expert picks an option of each open question (the recommended one unless `choices` says), the
    admin closes the round, approves every drafted rule and publishes the next version."""
    for question in round.questions.filter(status=QuestionStatus.OPEN):
        option = (choices or {}).get(question.number, question.recommendation)
        services.submit_answer(question=question, acting_user=expert, option=option)
    with capture(execute=True):
        agent_steps.close_round_and_codify(round=round, acting_user=admin)
    for draft in RuleDraft.objects.filter(question__round=round):
        services.approve_draft(draft=draft, acting_user=admin)
    with capture(execute=True):
        services.publish_round_version(round=round, acting_user=admin)
    return {d.rule_id: d for d in RuleDraft.objects.filter(question__round=round)}


def test_the_demo_round_and_a_new_round_run_on_the_demo_samples(
    demo_provider, demo_data, admin, expert, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    # The demo round's two questions (aliases; numbers and symbols), codified with recorded rules.
    drafts = _answer_codify_and_publish(demo_data, expert=expert, admin=admin, capture=capture, choices={2: "A"})
    assert set(drafts) == {"ht-aliases", "ht-numeric-answers"}
    assert all(d.status == DraftStatus.APPROVED and d.agent_call_id for d in drafts.values())
    assert {"input": "Japanese yen; Yen", "output": "[일본 엔, 엔화, 엔]"} in drafts["ht-aliases"].examples
    assert drafts["ht-numeric-answers"].change == "add" and "Au (alias: 금)" in str(drafts["ht-numeric-answers"].examples)

    # A new round: the analyst settles what the rules cover and asks about the two book titles.
    round = services.create_round(rulebook=demo_data.rulebook, acting_user=admin)
    with capture(execute=True):
        agent_steps.start_analysis(round=round, acting_user=admin)
    round.refresh_from_db()
    [question] = round.questions.all()
    assert question.agent_call_id and question.title == "Titles of works: 'Pride and Prejudice' and 'The Hobbit'"
    assert "Who wrote the novel Pride and Prejudice?" in question.decision_needed
    assert "who is the author of the hobbit?" in question.decision_needed
    assert sorted(question.affected_samples.values_list("transcription", flat=True)) == [
        "Who wrote the novel Pride and Prejudice?", "who is the author of the hobbit?"]
    assert "demo answer" not in question.decision_needed.lower()  # recorded for the demo data, not the default
    stats = round_stats(round)
    assert stats.samples_analysed == 29 and stats.undecided == 2  # every demo sample

    drafts = _answer_codify_and_publish(round, expert=expert, admin=admin, capture=capture)
    rule = drafts["ht-proper-nouns"]
    assert rule.change == "amend" and "Titles of works" in rule.statement
    assert {"input": "Who wrote the novel Pride and Prejudice?", "output": "소설 오만과 편견을 쓴 사람은 누구인가요?"} in rule.examples
    # Re-analysis under the new version settles the two samples the question was about.
    assert round_stats(Round.objects.get(pk=round.pk)).undecided == 0


def test_samples_no_recorded_question_fits_get_a_default_question_that_quotes_them(demo_provider, demo_data, admin,
                                                                                 django_capture_on_commit_callbacks):
    # The normalization rulebook has no recorded answers for the English demo samples: every sample stays
    # undecided and the one default question names them as the expert reads them.
    from apps.consultations.models import Rulebook

    round = services.create_round(rulebook=Rulebook.objects.get(slug="ko-normalization"), acting_user=admin,
                                  scope={"subsets": ["sd-qa"]})
    with django_capture_on_commit_callbacks(execute=True):
        agent_steps.start_analysis(round=round, acting_user=admin)
    [question] = Round.objects.get(pk=round.pk).questions.all()
    assert "demo answers, not a real model" in question.decision_needed
    assert "What is the capital city of Australia?" in question.decision_needed and "and 1 more" in question.decision_needed
    assert question.affected_samples.count() == 4
