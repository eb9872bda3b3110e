"""seed_demo: rulebooks and one open round with demo questions for the demo expert, offline and idempotent."""

import io

import pytest
from django.core.management import call_command

from apps.consultations.models import DecisionQuestion, QuestionOrigin, Round, RulebookVersion

pytestmark = pytest.mark.django_db


def test_seed_demo_gives_the_expert_demo_questions_and_runs_twice_without_change(client_for):
    call_command("seed_demo", stdout=io.StringIO())
    call_command("seed_demo", stdout=io.StringIO())
    assert RulebookVersion.objects.count() == 4
    round = Round.objects.get(is_demo=True)
    questions = DecisionQuestion.objects.filter(round=round)
    assert questions.count() == 2 and set(questions.values_list("origin", flat=True)) == {QuestionOrigin.DEMO}
    assert "demo data" in round.events.first().message
    # Each demo question carries the demo source samples it is about (transfer's seed_demo runs first).
    assert all(q.affected_samples.exists() for q in questions)
    from apps.accounts.models import User

    expert = User.objects.get(username="expert")
    assert expert.language == "ko"  # the demo's participants start in Korean; this test reads English
    expert.language = "en"
    expert.save(update_fields=["language"])
    inbox = client_for(expert).get("/consultations/inbox/")
    assert len(inbox.context["waiting"]) == 2 and "demo data" in inbox.content.decode()
