"""Quality control: gold misses, straight-lining and disagreement are flagged; exclusion frees slots."""

import pandas as pd
import pytest

from apps.listening import selectors, services
from apps.listening.models import Rating
from apps.listening.qc import GOLD_MISSES, LOW_CORRELATION, LOW_VARIANCE, Thresholds, listener_qc

from .conftest import rate_via_services

T = Thresholds(max_gold_misses=0, min_variance=0.25, min_correlation=0.3, min_ratings=8)


def _frame(rows):
    return pd.DataFrame(rows, columns=["clip", "listener", "score"])


def _crowd(n_clips=10, listeners=("a", "b", "c", "d")):
    rows = []
    for clip in range(n_clips):
        quality = 1 + clip % 5
        for i, listener in enumerate(listeners):
            rows.append((clip, listener, max(1, min(5, quality + (i % 2) * (1 if clip % 3 else 0)))))
    return rows


def test_an_attentive_listener_is_not_flagged_and_a_straight_liner_is():
    rows = _crowd() + [(clip, "flat", 3) for clip in range(10)]
    qc = listener_qc(_frame(rows), pd.DataFrame(columns=["clip", "listener", "score", "gold_min", "gold_max"]), T)
    assert qc["a"].flags == [] and qc["a"].correlation > 0.8
    assert qc["flat"].flags == [LOW_VARIANCE] and qc["flat"].variance == 0


def test_a_contrarian_is_flagged_for_low_correlation():
    rows = _crowd() + [(clip, "contra", 6 - (1 + clip % 5)) for clip in range(10)]
    qc = listener_qc(_frame(rows), pd.DataFrame(columns=["clip", "listener", "score", "gold_min", "gold_max"]), T)
    assert LOW_CORRELATION in qc["contra"].flags and qc["contra"].correlation < 0


def test_gold_misses_over_the_threshold_are_flagged():
    gold = pd.DataFrame(
        [("g1", "a", 5, 4, 5), ("g1", "b", 2, 4, 5), ("g2", "b", 4, 4, 5)],
        columns=["clip", "listener", "score", "gold_min", "gold_max"],
    )
    qc = listener_qc(_frame([]), gold, T)
    assert qc["a"].flags == [] and qc["a"].gold_rated == 1
    assert qc["b"].flags == [GOLD_MISSES] and qc["b"].gold_missed == 1
    lenient = Thresholds(max_gold_misses=1, min_variance=0.25, min_correlation=0.3, min_ratings=8)
    assert listener_qc(_frame([]), gold, lenient)["b"].flags == []


def test_thresholds_come_from_settings(settings):
    settings.LISTENING_QC_MIN_VARIANCE = 0.9
    settings.LISTENING_QC_MAX_GOLD_MISSES = 3
    t = Thresholds.from_settings()
    assert (t.min_variance, t.max_gold_misses) == (0.9, 3)


@pytest.mark.django_db
def test_excluding_a_flagged_listener_frees_their_slots_for_others(make_test, listeners, admin, client_for):
    test = make_test(8, gold=1)
    # listener1 misses the gold clip (accepted 4-5) and says 1 to everything.
    rate_via_services(test, listeners[0], score_for=lambda clip: 1)
    for user in listeners[1:5]:
        rate_via_services(test, user, score_for=lambda clip: 4 if clip.is_gold else 1 + clip.pk % 5)
    assert selectors.summary(test)["complete_clips"] == 8
    flagged = selectors.summary(test)["flagged_listeners"]
    assert [f["username"] for f in flagged] == ["listener1"]
    assert set(flagged[0]["flags"]) >= {GOLD_MISSES, LOW_VARIANCE}
    # A sixth listener has nothing left but the gold clip.
    assert rate_via_services(test, listeners[5]) == 1

    response = client_for(admin).post(f"/listening/manage/tests/{test.pk}/listeners/{listeners[0].pk}/exclude/")
    assert response.status_code == 302
    summary = selectors.summary(test)
    assert summary["excluded_listeners"] == ["listener1"]
    assert summary["complete_clips"] == 0 and summary["ratings"] == 8 * 4
    # The freed slots go to listener6; the excluded listener gets nothing more and cannot rate.
    assert services.next_assignment(test=test, acting_user=listeners[0]) is None
    assert rate_via_services(test, listeners[5]) == 8
    assert selectors.summary(test)["complete_clips"] == 8
    # Their ratings stay (raw), out of the clean set.
    assert Rating.objects.filter(listener=listeners[0]).count() == 9
    assert listeners[0].pk not in set(selectors.ratings_frame(test)["listener"])


@pytest.mark.django_db
def test_the_dashboard_shows_completion_alpha_flags_and_figures(make_test, listeners, admin, client_for):
    test = make_test(9, gold=1)
    for i, user in enumerate(listeners[:5]):
        rate_via_services(test, user, score_for=lambda clip, i=i: 4 if clip.is_gold else max(1, min(5, 1 + clip.pk % 5 + (i % 2))))
    page = client_for(admin).get(f"/listening/manage/tests/{test.pk}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert html.count("<svg") >= 5  # histogram + source type, style, category, system
    assert 'id="alpha"' in html and "not enough" not in html
    assert "Source type" in html and "95 % CI" in html
    assert client_for(listeners[0]).get(f"/listening/manage/tests/{test.pk}/").status_code == 403
