"""An item is answered when it holds a response, an empty one included (the model said nothing); the
querysets say so once, and the metric an item is scored with is one of the scorers' metrics."""

import re
from pathlib import Path

import pytest

from apps.evaluation.models import EvalItem, Metric
from apps.evaluation.scoring import METRICS

APP = Path(__file__).resolve().parents[2] / "apps" / "evaluation"


def test_the_metric_choices_are_the_scorers_metrics():
    assert tuple(Metric.values) == METRICS


@pytest.mark.django_db
def test_an_empty_response_is_answered_and_a_missing_one_is_not(english_run):
    first, second, *rest = EvalItem.objects.filter(run=english_run).order_by("item_id")
    EvalItem.objects.filter(pk=first.pk).update(response="")
    EvalItem.objects.filter(pk=second.pk).update(response="Canberra")

    assert set(english_run.items.answered()) == {first, second}
    assert set(english_run.items.unanswered()) == set(rest)


def test_only_the_queryset_spells_out_what_has_a_response():
    spelled = [f"{path.relative_to(APP)}:{n}" for path in APP.rglob("*.py") if "migrations" not in path.parts
               for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if re.search(r"response__isnull", line)]
    assert spelled and all(place.startswith("models.py:") for place in spelled), spelled
