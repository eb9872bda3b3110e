"""The demo: one scripted model answers the demo benchmarks, the real evaluation job scores it with the demo
provider as the judge, and the leaderboard shows it marked as demo answers. Idempotent; with a real provider the
answers are imported and the evaluation is left to the admin."""

import io

import pytest
from django.urls import reverse

from apps.evaluation import demo, leaderboard
from apps.evaluation.models import EvaluationRun, ItemScore
from apps.pages import demo_provider

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_data(db):
    from apps.accounts.demo import seed_demo_accounts
    from apps.transfer.demo import seed as seed_transfer

    seed_demo_accounts()
    seed_transfer(io.StringIO())


@pytest.fixture
def demo_judge(fake_llm, settings):
    settings.SORI_DEMO_PROVIDER = True
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}
    fake_llm.always(demo_provider.answer)
    return fake_llm


def test_the_demo_model_is_scored_by_the_evaluation_and_shown_as_demo_answers(demo_data, demo_judge, client_for):
    from apps.accounts.models import User

    out = io.StringIO()
    runs = demo.seed(out)

    assert {r.benchmark_name for r in runs} == {"voicebench-demo", "openaudiobench-demo"}
    board = leaderboard.leaderboard()
    assert [str(m) for m in board.demo_models] == ["Sori demo model scripted"]
    subsets = {row["key"]: row["en"][0] for pair in board.table5 for row in pair["rows"] if row["en"][0].score is not None}
    assert subsets["sd-qa"].score == 75.0 and subsets["sd-qa"].n == 4  # the judge says no to "six legs"
    assert subsets["web_questions"].score == 100.0 and subsets["web_questions"].n == 3
    judged = ItemScore.objects.filter(item__run__in=runs, method="judge")
    assert judged.count() == 7 and all(s.judge_calls.count() == 3 for s in judged)
    assert "demo answers, not a real model" in out.getvalue()
    html = client_for(User.objects.get(username="admin")).get(reverse("evaluation:leaderboard")).content.decode()
    assert "Demo answers, not a real model" in html


def test_seeding_again_changes_nothing(demo_data, demo_judge):
    demo.seed(io.StringIO())
    asked = len(demo_judge.requests)

    demo.seed(io.StringIO())

    assert EvaluationRun.objects.count() == 2 and len(demo_judge.requests) == asked


def test_with_a_real_provider_the_demo_imports_the_answers_and_leaves_scoring_to_the_admin(demo_data, settings):
    settings.SORI_DEMO_PROVIDER = False
    out = io.StringIO()

    runs = demo.seed(out)

    assert all(r.items.filter(response__isnull=True).count() == 0 for r in runs)
    assert not ItemScore.objects.exists() and "evaluate it from its run page" in out.getvalue()
