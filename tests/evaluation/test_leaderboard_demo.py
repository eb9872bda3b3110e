"""The demo: three scripted models answer the demo benchmarks, the real evaluation job scores them with the demo
provider as the judge, and the leaderboard shows them marked as demo answers. Idempotent; with a real provider the
answers are imported and the evaluation is left to the admin. Here in-process on the English benchmarks only (no
speech stage, so no Korean release); tests/evaluation/test_demo_seed.py runs the whole seed, Korean included."""

import io

import pytest
from django.urls import reverse

from apps.evaluation import demo
from apps.evaluation.leaderboard import selectors as leaderboard
from apps.evaluation.models import EvaluationRun, ItemScore
from apps.pages import demo_provider

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_data(db):
    from apps.accounts.demo import seed_demo_accounts
    from apps.transfer.demo import seed as seed_transfer

    seed_demo_accounts()
    seed_transfer(io.StringIO())


@pytest.fixture(autouse=True)
def no_korean_release(monkeypatch):
    monkeypatch.setattr(demo, "synthesize_benchmark", lambda benchmark, admin: None)
    monkeypatch.setattr(demo, "build_spoken_qa", lambda *args: None)


@pytest.fixture
def demo_judge(fake_llm, settings):
    settings.SORI_DEMO_PROVIDER = True
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}
    fake_llm.always(demo_provider.answer)
    return fake_llm


def test_three_demo_models_are_scored_by_the_evaluation_and_shown_as_demo_answers(demo_data, demo_judge, client_for):
    from apps.accounts.models import User

    out = io.StringIO()
    runs = demo.seed(out)

    assert len(runs) == 6 and {r.benchmark_name for r in runs} == {"voicebench-demo", "openaudiobench-demo"}
    board = leaderboard.leaderboard()
    names = ["Demo middling scripted", "Demo strong scripted", "Demo weak scripted"]
    assert [str(m) for m in board.demo_models] == names
    for row in board.table1:  # a mean for every model on every benchmark, strong > middling > weak
        middling, strong, weak = (c.score for c in row.cells)
        assert not any(c.missing for c in row.cells) and strong > middling > weak, row.label
    subsets = {row.key: row.en for pair in board.table5 for row in pair.rows}
    assert len(subsets) == 13 and all(c.score is not None for cells in subsets.values() for c in cells)
    assert subsets["sd-qa"][1].n == 4
    judged = ItemScore.objects.filter(item__run__in=runs, method="judge")
    assert judged.count() == 3 * 19 and all(s.judge_calls.count() == 3 for s in judged)
    assert "demo answers, not a real model" in out.getvalue()
    html = client_for(User.objects.get(username="admin")).get(reverse("evaluation:leaderboard")).content.decode()
    assert "Demo answers, not a real model" in html and 'id="kmmau-empty"' in html


def test_seeding_again_changes_nothing(demo_data, demo_judge):
    demo.seed(io.StringIO())
    asked = len(demo_judge.requests)

    demo.seed(io.StringIO())

    assert EvaluationRun.objects.count() == 6 and len(demo_judge.requests) == asked


def test_with_a_real_provider_the_demo_imports_the_answers_and_leaves_scoring_to_the_admin(demo_data, settings):
    settings.SORI_DEMO_PROVIDER = False
    out = io.StringIO()

    runs = demo.seed(out)

    assert len(runs) == 6 and all(r.items.filter(response__isnull=True).count() == 0 for r in runs)
    assert not ItemScore.objects.exists() and "evaluate them from their run pages" in out.getvalue()
