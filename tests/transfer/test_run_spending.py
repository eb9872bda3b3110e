"""What review runs cost so far, for the ground-truth page: one query for every run listed, not two a run."""

from decimal import Decimal

import pytest

from apps.agents.models import AgentCall
from apps.jobs.models import Job
from apps.sources.models import SourceBenchmark
from apps.transfer.models import ReviewRun
from apps.transfer.selectors import run_spending


@pytest.mark.django_db
def test_run_spending_sums_each_runs_calls_in_one_query(django_assert_num_queries):
    bench = SourceBenchmark.objects.create(name="voicebench", format="voicebench")
    runs = [ReviewRun.objects.create(benchmark=bench, job=Job.objects.create(kind="transfer.ground_truth", title=f"run {n}"))
            for n in range(3)]
    runs.append(ReviewRun.objects.create(benchmark=bench))  # not started: no job yet
    for n, (run, calls) in enumerate(zip(runs, [2, 0, 1], strict=False)):
        for k in range(calls):
            AgentCall.objects.create(role="reviewer", provider="openai", model="m", prompt_name="p", prompt_version=1,
                                     input_hash=f"{n}{k}".rjust(64, "0"), status="ok", cost_usd="0.001200", job=run.job)
    with django_assert_num_queries(1):
        spent = run_spending(runs)
    assert spent == {runs[0].pk: (Decimal("0.0024"), 2), runs[1].pk: (Decimal("0"), 0),
                     runs[2].pk: (Decimal("0.0012"), 1), runs[3].pk: (Decimal("0"), 0)}
