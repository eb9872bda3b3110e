"""Scoring by the HPSU rules on worked examples, agreement statistics, and the human baseline."""

import math

import krippendorff
import pytest

from apps.core.errors import FileRefused
from apps.verification.agreement import fleiss_kappa, krippendorff_nominal_counts
from apps.verification.models import ItemStatus, VerificationItem
from apps.verification.scoring import parse_predictions, score, score_item
from apps.verification.selectors import baseline_next, baseline_report, dashboard
from apps.verification.services import (
    answer_baseline,
    create_baseline,
    next_item,
    stratified_sample,
    submit_review,
)
from tests.verification.conftest import mc_record, record, yes_no_record


def _item(**fields):
    base = dict(external_id="x", task="Intent", domain="Discourse Context", format="single", language="en",
                options=["Complain", "Reject", "Question", "Thanks"], answers=["Complain"],
                tiers={"Reject": "similar", "Question": "middle", "Thanks": "opposite"}, statement="", expected_yes=None)
    base.update(fields)
    return VerificationItem(**base)


EMOTIONS = dict(format="multiple", task="Emotions", domain="Emotion Recognition", tiers={},
                options=["Disappointment", "Joy", "Anger", "Confusion", "Boredom", "Frustration"],
                answers=["Disappointment", "Anger", "Frustration"])


def test_single_choice_is_exact_and_reports_the_tier_it_hit():
    item = _item()
    assert score_item(item, "Complain") == score_item(item, "complain.") == score_item(item, "A")
    assert (score_item(item, "Complain").score, score_item(item, "Complain").tier) == (1.0, "true")
    assert (score_item(item, "Reject").score, score_item(item, "Reject").tier) == (0.0, "similar")
    assert score_item(item, "D").tier == "opposite"
    assert score_item(item, "Question").tier == "middle"
    assert (score_item(item, "I think it is a complaint").score, score_item(item, "gibberish").tier) == (0.0, "blank")
    assert score_item(item, "Complain, Reject").score == 0.0  # two answers to a single-choice question


def test_multiple_choice_gets_zero_for_any_wrong_option_and_half_for_a_correct_subset():
    item = _item(**EMOTIONS)
    assert score_item(item, "Disappointment, Anger, Frustration").score == 1.0
    assert score_item(item, "Frustration,Disappointment,Anger").score == 1.0  # order does not matter
    assert score_item(item, "A, C, F").score == 1.0
    assert score_item(item, "Anger").score == 0.5
    assert score_item(item, "Disappointment, Anger").score == 0.5
    assert score_item(item, "Disappointment, Anger, Frustration, Joy").score == 0.0
    assert score_item(item, "Boredom").score == 0.0


def test_yes_no_is_exact_in_three_languages():
    shown_distractor = _item(format="yes_no", task="Description", domain="Nonverbal Behavior", tiers={},
                             options=["A man.", "A child."], answers=["A man."], statement="A child.", expected_yes=False)
    assert score_item(shown_distractor, "no").score == 1.0
    assert score_item(shown_distractor, "Yes.").score == 0.0
    shift = _item(format="yes_no", task="Emotion Shift Easy", tiers={}, options=["예", "아니요"], answers=["예"],
                  expected_yes=True, language="ko")
    assert score_item(shift, "예").score == score_item(shift, "是").score == 1.0
    assert score_item(shift, "아니요").score == 0.0


def test_the_report_is_per_task_domain_language_and_variant_with_the_unweighted_overall():
    items = [
        _item(external_id="i1"), _item(external_id="i2"), _item(external_id="i3", language="zh"),
        _item(external_id="e1", **EMOTIONS),
    ]
    predictions = parse_predictions(
        "id,prediction,variant\n"
        "i1,Complain,standard\ni2,Thanks,standard\ni3,Complain,standard\ne1,Anger,standard\n"
        "i1,Reject,negative\ni2,Reject,negative\ni3,Complain,negative\n"
        "i1,Complain,positive\ni2,Complain,positive\ni3,Complain,positive\n"
    )
    report = score(items, predictions)
    # Intent: 2 of 3 right (66.67); Emotions: one partial (50); overall is the mean of the two tasks.
    assert report["per_task"]["Intent"] == {"score": 66.67, "n": 3}
    assert report["per_task"]["Emotions"] == {"score": 50.0, "n": 1}
    assert report["overall"] == round((66.67 + 50.0) / 2, 2) == 58.34
    assert report["per_domain"]["Discourse Context"]["score"] == 66.67
    assert report["per_language"] == {"en": {"score": 50.0, "n": 3}, "zh": {"score": 100.0, "n": 1}}
    assert report["per_variant"]["Intent"] == {"standard": 66.67, "positive": 100.0, "negative": 33.33}
    assert report["robustness_spread"] == {"Intent": 66.67}
    assert report["tiers"]["Intent"] == {"true": 2, "opposite": 1}
    assert report["multiple_choice"]["Emotions"] == {"incomplete": 1}


def test_a_missing_prediction_counts_as_wrong_for_a_model_and_unknown_ids_are_reported():
    items = [_item(external_id="i1"), _item(external_id="i2")]
    report = score(items, parse_predictions('[{"id": "i1", "prediction": "Complain"}, {"id": "zz", "prediction": "A"}]'))
    assert (report["per_task"]["Intent"]["score"], report["missing"], report["unknown_ids"]) == (50.0, 1, ["zz"])
    skipped = score(items, parse_predictions('{"id": "i1", "prediction": "Complain"}\n'), missing="skip")
    assert skipped["overall"] == 100.0


def test_a_bad_predictions_file_is_refused_with_its_line():
    with pytest.raises(FileRefused, match=r"^p.csv line 1: missing column\(s\) id, prediction$"):
        parse_predictions("item,answer\na,b\n", name="p.csv")
    with pytest.raises(FileRefused, match=r"^p.csv line 3: id, variant: \('a', 'standard'\) repeats line 2$"):
        parse_predictions("id,prediction\na,A\na,B\n", name="p.csv")
    with pytest.raises(FileRefused, match="^p.jsonl line 2: unknown variant 'sneaky'"):
        parse_predictions('{"id": "a", "prediction": "A"}\n{"id": "b", "prediction": "B", "variant": "sneaky"}\n', name="p.jsonl")
    assert parse_predictions("id,prediction\na,\n")[0].text == ""  # an empty answer is scored, not refused


def test_fleiss_kappa_matches_the_worked_example_of_fleiss_1971():
    # The 10 subjects x 5 categories, 14 raters example (Wikipedia, "Fleiss' kappa"): kappa = 0.210.
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    assert round(fleiss_kappa(table), 3) == 0.210
    assert fleiss_kappa([[3, 0], [3, 0]]) is None  # no variation: undefined
    assert fleiss_kappa([[3, 0], [0, 3]]) == 1.0


def test_krippendorff_alpha_is_one_for_perfect_agreement_and_handles_gaps():
    # units x (reject, approve) counts; the first: four units, one of them rated by two raters only
    assert krippendorff_nominal_counts([[0, 2], [3, 0], [0, 3], [0, 2]]) == 1.0
    assert krippendorff_nominal_counts([[1, 1]] * 4) < 0


@pytest.mark.django_db
def test_the_dashboard_counts_reasons_agreement_split_decisions_and_annotator_times(make_project, annotators, admin, client_for):
    project = make_project(3)
    plan = {0: ["approve", "approve", "approve"], 1: ["approve", "approve", "reject"], 2: ["reject", "reject", "reject"]}
    for annotator_index, annotator in enumerate(annotators):
        while (item := next_item(project=project, acting_user=annotator)) is not None:
            decision = plan[item.position - 1][annotator_index]
            submit_review(item=item, acting_user=annotator, decision=decision, seconds=10 + annotator_index,
                          reasons=["ambiguous_question"] if decision == "reject" else [])
    stats = dashboard(project)
    assert stats["summary"]["acceptance_rate"] == round(100 / 3, 2)
    assert dict(stats["reasons"])["Ambiguous question"] == 4
    assert [i.external_id for i in stats["split_decisions"]] == ["item-2"]
    assert stats["agreement_items"] == 3
    # Fleiss on [[3,0],[2,1],[0,3]] computed by hand: P_bar = 7/9, p = (5/9, 4/9), P_e = 41/81.
    assert stats["fleiss_kappa"] == round((7 / 9 - 41 / 81) / (1 - 41 / 81), 3)
    assert stats["krippendorff_alpha"] is not None
    assert [a["median_seconds"] for a in stats["annotators"]] == [10, 11, 12]
    page = client_for(admin).get(f"/verification/projects/{project.pk}/").content.decode()
    assert "81.26" in page and "Fleiss" in page and "item-2" in page
    assert client_for(annotators[0]).get(f"/verification/projects/{project.pk}/").status_code == 403


def test_the_stratified_sample_allocates_equally_across_tasks_and_fills_from_larger_ones():
    import random

    items = [_item(external_id=f"a{i}", task="Age") for i in range(2)]
    items += [_item(external_id=f"g{i}", task="Gender") for i in range(50)]
    items += [_item(external_id=f"i{i}", task="Intent") for i in range(50)]
    sample = stratified_sample(items, 30, random.Random(1))
    tasks = [i.task for i in sample]
    assert len(sample) == 30 and tasks.count("Age") == 2 and tasks.count("Gender") == tasks.count("Intent") == 14


@pytest.mark.django_db
def test_annotators_answer_a_baseline_blind_and_are_scored_beside_models(hpsu, make_project, annotators, admin, client_for, tmp_path):
    records = [record("b1"), record("b2", answer="Reject", attributes=""), mc_record("b3"), yes_no_record("b4")]
    project = make_project(records=records)
    VerificationItem.objects.filter(project=project).update(status=ItemStatus.ACCEPTED, settled_at="2026-01-01T00:00Z")
    session = create_baseline(project=project, name="Humans", size=300, acting_user=admin, seed=7)
    assert session.sample.count() == 4
    a = annotators[0]
    client = client_for(a)
    seen = []
    while (item := baseline_next(session, a)) is not None:
        page = client.get(f"/verification/baselines/{session.pk}/?answer=1").content.decode()
        assert "badge--accepted" not in page and "similar" not in page and "opposite" not in page  # nothing gives the answer away
        seen.append(item.external_id)
        choice = {"b1": ["Complain"], "b2": ["Thanks"], "b3": ["Pride"], "b4": ["否"]}[item.external_id]
        response = client.post(f"/verification/baselines/{session.pk}/answer/{item.pk}/", {"choice": choice, "seconds_spent": "3"})
        assert response.status_code == 302
    assert sorted(seen) == ["b1", "b2", "b3", "b4"]
    answer_baseline(session=session, item=VerificationItem.objects.get(external_id="b1"), acting_user=a, chosen=["Thanks"])  # kept once
    report = baseline_report(session)
    person = report["people"]["annotator1"]
    # Intent: b1 right, b2 wrong -> 50; Emotions: partial -> 50; Description: right -> 100.
    assert person["per_task"]["Intent"]["score"] == 50.0 and person["per_task"]["Emotions"]["score"] == 50.0
    assert person["per_task"]["Description"]["score"] == 100.0
    assert report["pooled"]["overall"] == person["overall"] == round((50 + 50 + 100) / 3, 2)
    predictions = tmp_path / "model.csv"
    predictions.write_text("id,prediction\nb1,A\nb2,Reject\nb3,Contentment,Pride\nb4,yes\n".replace("Contentment,Pride", '"Contentment,Pride"'))
    response = client_for(admin).post(f"/verification/projects/{project.pk}/scoring/",
                                      {"name": "TinyModel", "file": open(predictions, "rb")})
    assert response.status_code == 302
    run = project.scoring_runs.get()
    assert run.report["per_task"]["Intent"]["score"] == 100.0 and run.report["per_task"]["Description"]["score"] == 0.0
    report_page = client_for(admin).get(f"/verification/baselines/{session.pk}/").content.decode()
    assert "TinyModel" in report_page and "Humans (pooled)" in report_page


@pytest.mark.django_db
def test_an_admin_lists_items_by_status(make_project, annotators, admin, client_for):
    project = make_project(2)
    item = next_item(project=project, acting_user=annotators[0])
    submit_review(item=item, acting_user=annotators[0], decision="approve")
    page = client_for(admin).get(f"/verification/projects/{project.pk}/items/?status=pending").content.decode()
    assert "item-1" in page and "item-2" in page and "approve" in page
    assert "item-1" not in client_for(admin).get(f"/verification/projects/{project.pk}/items/?status=accepted").content.decode()
    assert client_for(annotators[0]).get(f"/verification/projects/{project.pk}/items/").status_code == 403


def test_krippendorff_alpha_from_counts_per_unit_equals_alpha_from_the_matrix():
    nan = math.nan
    matrix = [[1, 0, 1, nan, 0], [1, 0, 0, 1, nan], [nan, 0, 1, 1, 1]]
    counts = [[0, 2], [3, 0], [1, 2], [0, 2], [1, 1]]  # per unit: (zeros, ones)
    reference = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert krippendorff_nominal_counts(counts) == pytest.approx(reference, abs=1e-12)
    assert krippendorff_nominal_counts([[0, 1], [1, 0]]) is None  # no unit with two ratings
    assert krippendorff_nominal_counts([[0, 3], [0, 2]]) is None  # one category only


@pytest.mark.django_db
def test_the_dashboard_figures_equal_those_computed_from_every_review_row(make_project, make_user):
    """The dashboard aggregates in the database; here the same figures come from the rows in Python. Items
    have one, two or three reviews, and one annotator an even number of them (median of the middle two)."""
    import statistics
    from collections import Counter

    from apps.verification.models import Reason, Review

    project = make_project(7)
    people = [make_user(f"reviewer{i}", "annotator") for i in range(4)]
    items = list(project.items.order_by("position"))
    plan = {  # item index -> (annotator index, decision, seconds)
        0: [(0, "approve", 5.0), (1, "approve", 7.5), (2, "approve", 9.0)],
        1: [(0, "approve", 12.0), (1, "reject", 3.0), (3, "approve", 4.25)],
        2: [(1, "reject", 30.0), (2, "reject", 8.0), (3, "reject", 1.0)],
        3: [(0, "approve", 2.0), (2, "reject", 6.5)],
        4: [(3, "approve", 11.0)],
        5: [(0, "reject", 40.0), (1, "approve", 2.5), (2, "approve", 3.5)],
        6: [(1, "approve", 10.0), (2, "approve", 20.0), (3, "reject", 0.5)],
    }
    def reasons_for(i, decision):  # two kinds of list, so the lists are grouped and their counts spread
        return [] if decision == "approve" else ["wrong_answer", "ambiguous_question"] if i % 2 else ["wrong_answer"]

    Review.objects.bulk_create([
        Review(item=items[i], annotator=people[a], decision=d, seconds_spent=s, reasons=reasons_for(i, d))
        for i, reviews in plan.items() for a, d, s in reviews
    ])
    stats = dashboard(project)

    complete = [[sum(d == "approve" for _, d, _ in r), sum(d == "reject" for _, d, _ in r)] for r in plan.values() if len(r) == 3]
    matrix = [[next((float(d == "approve") for a, d, _ in plan[i] if a == p), math.nan) for i in plan] for p in range(4)]
    assert stats["fleiss_kappa"] == round(fleiss_kappa(complete), 3)
    # The package itself over the raters x items matrix is the reference for the dashboard's counts form.
    reference = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert stats["krippendorff_alpha"] == round(reference, 3)
    assert (stats["agreement_items"], stats["overlap_items"], stats["split_count"]) == (5, 6, 3)
    assert [i.external_id for i in stats["split_decisions"]] == ["item-2", "item-6", "item-7"]
    given = Counter(r for i, reviews in plan.items() for _, d, _ in reviews for r in reasons_for(i, d))
    assert stats["reasons"] == [(Reason(r).label, given[r]) for r in Reason.values]
    shown = dict(stats["reasons"])
    assert (shown[Reason("wrong_answer").label], shown[Reason("ambiguous_question").label]) == (7, 3)
    expected = []
    for p, person in enumerate(people):
        mine = [(d, s) for r in plan.values() for a, d, s in r if a == p]
        expected.append({"username": person.username, "reviews": len(mine),
                         "approval_rate": round(100 * sum(d == "approve" for d, _ in mine) / len(mine), 1),
                         "median_seconds": round(statistics.median(s for _, s in mine), 1)})
    assert [{k: row[k] for k in ("username", "reviews", "approval_rate", "median_seconds")} for row in stats["annotators"]] == expected
    assert [row["reviews"] for row in stats["annotators"]] == [4, 5, 5, 4]  # even counts take the middle two
