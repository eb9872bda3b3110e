"""The provenance page of a released item (bounded queries whatever its history) and the diff between two
versions of a dataset."""

import pytest
from django.urls import reverse

from apps.agents.models import AgentCall
from apps.sources.models import SourceSample
from apps.transfer.models import Correction, CorrectionDecision, GroundTruthReview, ReviewRun


def _call(role, model, n):
    return AgentCall.objects.create(
        role=role, provider="openai" if role == "reviewer" else "anthropic", model=model, prompt_name=f"{role}_prompt",
        prompt_version=2, input_hash=f"{n:064x}", status="ok", cost_usd="0.001200", response_text=f"answer {n}",
        raw_response={"id": f"resp-{n}"})


def _correct(sample, *, admin, expert, decisions: int, answer="Canberra"):
    """A reviewer proposal confirmed by the meta-reviewer, with `decisions` human decisions on it."""
    run = ReviewRun.objects.get_or_create(benchmark=sample.benchmark, defaults={
        "reviewer_model": "openai:gpt-4.1", "meta_reviewer_model": "anthropic:claude-sonnet-4-5"})[0]
    review = GroundTruthReview.objects.create(sample=sample, run=run, outcome="correction_proposed",
                                              reviewer_call=_call("reviewer", "gpt-4.1", sample.pk * 100))
    correction = Correction.objects.create(
        review=review, sample=sample, kind="new_answer", proposed_answer=answer,
        reviewer_rationale=f"{sample.answer} is not the capital.", meta_verdict="confirm",
        meta_call=_call("meta_reviewer", "claude-sonnet-4-5", sample.pk * 100 + 1), status="confirmed")
    for n in range(decisions):
        CorrectionDecision.objects.create(correction=correction, decided_by=(admin, expert)[n % 2],
                                          decided_as=("admin", "expert")[n % 2], from_status="needs_expert",
                                          to_status="confirmed", note=f"decision {n}")
    return correction


def _analyses(sample, count):
    """`count` rulebook versions, each with an analysis of the sample by an analyst agent."""
    from apps.consultations.models import AnalysisResult, Round, Rulebook, RulebookVersion

    book = Rulebook.objects.get_or_create(slug="ko-hypertranslation", defaults={
        "language": "ko", "kind": "hypertranslation", "title": "Korean hypertranslation"})[0]
    for number in range(1, count + 1):
        version = RulebookVersion.objects.get_or_create(rulebook=book, number=number, defaults={"source": "test"})[0]
        round_ = Round.objects.create(rulebook=book, number=Round.objects.filter(rulebook=book).count() + 1,
                                      base_version=version, max_questions=10)
        AnalysisResult.objects.create(sample=sample, version=version, round=round_, action="direct_translation",
                                      agent_call=_call("analyst", "claude-sonnet-4-5", sample.pk * 100 + 10 + number))


@pytest.mark.django_db
def test_the_provenance_page_shows_everything_behind_an_item_in_a_bounded_number_of_queries(
        benchmark, build, admin, expert, client_for, django_assert_num_queries):
    samples = {s.source_id: s for s in SourceSample.objects.filter(subset="sd-qa")}
    australia = next(s for s in samples.values() if "Australia" in s.transcription)
    spider = next(s for s in samples.values() if "spider" in s.transcription)
    _correct(australia, admin=admin, expert=expert, decisions=1)
    _analyses(australia, 1)
    _correct(spider, admin=admin, expert=expert, decisions=12, answer="8")
    _analyses(spider, 6)
    release = build("spoken-qa", benchmark, name="kvb")
    client = client_for(admin)

    small = reverse("releases:item", args=[release.pk, f"sd-qa/{australia.source_id}"])
    big = reverse("releases:item", args=[release.pk, f"sd-qa/{spider.source_id}"])
    client.get(small)  # warm the session and the per-process caches
    with django_assert_num_queries(7):
        page = client.get(small)
    with django_assert_num_queries(7):  # 8 agent calls and 12 decisions: the same queries
        busy = client.get(big)
    html = busy.content.decode()
    assert page.status_code == busy.status_code == 200
    assert html.count('href="/agents/calls/') == 8  # reviewer, meta-reviewer, six analyses; raw response one click away
    assert "claude-sonnet-4-5" in html and "v2" in html and "$0.001200" in html
    assert html.count("correction decision") == 12
    assert "erin_expert" in html and "alice_admin" in html  # admins see the person behind each pseudonym
    assert "ko-hypertranslation v6" in html
    assert "Canberra" in page.content.decode() and "corrected answer" in page.content.decode()

    line = next(i for i in release.items.all() if i.item_id == f"sd-qa/{spider.source_id}").provenance
    assert line["human_decisions"]["count"] == 12 and len(line["human_decisions"]["pseudonyms"]) == 2
    assert all(p.startswith("P") for p in line["human_decisions"]["pseudonyms"])
    assert "erin_expert" not in str(line)  # the released line names pseudonyms only
    assert {c["prompt_version"] for c in line["agent_calls"]} == {2} and len(line["agent_calls"]) == 8


@pytest.mark.django_db
def test_the_diff_lists_added_removed_and_changed_items_with_their_reasons(benchmark, build, admin, expert, client_for):
    old = build("spoken-qa", benchmark, name="kvb", version="1.0.0")
    samples = {s.transcription: s for s in SourceSample.objects.filter(subset="sd-qa")}
    australia = samples["What is the capital of Australia?"]
    _correct(australia, admin=admin, expert=expert, decisions=1)
    hamlet = samples["Who wrote Hamlet?"]
    review = GroundTruthReview.objects.create(sample=hamlet, run=ReviewRun.objects.first(), outcome="correction_proposed")
    Correction.objects.create(review=review, sample=hamlet, kind="new_answer", proposed_answer="Marlowe",
                              reviewer_rationale="doubtful", meta_verdict="reject", status="rejected")
    SourceSample.objects.create(benchmark=benchmark, subset="sd-qa", task_type="short_answer", source_id="new-1",
                                transcription="What is the largest planet?", answer="Jupiter", raw={}, line_number=9)
    new = build("spoken-qa", benchmark, name="kvb", version="1.1.0")

    from apps.releases.selectors import diff

    changes = diff(old, new)
    assert [c.item_id for c in changes.added] == ["sd-qa/new-1"]
    assert [(c.item_id, c.reason) for c in changes.removed] == [(f"sd-qa/{hamlet.source_id}", "correction rejected: excluded")]
    assert len(changes.changed) == 1
    change = changes.changed[0]
    assert change.item_id == f"sd-qa/{australia.source_id}" and change.fields == ["answer"]
    assert change.reason == "corrected answer: Sydney is not the capital."
    assert changes.unchanged == 3

    html = client_for(admin).get(reverse("releases:diff", args=[old.pk, new.pk])).content.decode()
    assert "1 added, 1 removed, 1 changed, 3 unchanged" in html and "Reason: corrected answer" in html


@pytest.mark.django_db
def test_a_mos_diff_says_which_listener_exclusion_changed_a_clip(rated_test, build, admin, listeners):
    from apps.releases.selectors import diff

    old = build("mos", rated_test, name="komos", version="1")
    rated_test.pool.excluded_workers.add(listeners[0])
    new = build("mos", rated_test, name="komos", version="2")
    changes = diff(old, new)
    assert not changes.added and not changes.removed
    assert len(changes.changed) == 6
    assert all("n" in c.fields and c.reason == "listener excluded by an admin" for c in changes.changed)


@pytest.mark.django_db
def test_an_items_human_decisions_show_times_as_people_read_them(settled_project, build, admin, client_for):
    release = build("hpsu", settled_project, name="hpsu-times")
    item = release.items.order_by("item_id").first()
    page = client_for(admin).get(f"/releases/{release.pk}/items/{item.item_id}").content.decode()
    assert " UTC</td>" in page and "+00:00" not in page  # issue 20: no raw ISO strings
