import struct
import zlib

import pytest
from django.utils.html import escape

from apps.core.errors import ApplicationError, Forbidden
from apps.queues.models import AssignmentStatus
from apps.verification.models import ItemStatus, Review, ReviewEvent, VerificationItem
from apps.verification.services import import_items, next_item, submit_review
from tests.verification.conftest import record


def _review_all(project, annotators, decisions):
    """Each annotator claims the same item (K = 3) and decides."""
    items = [next_item(project=project, acting_user=a) for a in annotators]
    assert len({i.pk for i in items}) == 1, "with one item, all three get it"
    for annotator, decision in zip(annotators, decisions, strict=False):
        reasons = ["wrong_answer"] if decision == "reject" else []
        submit_review(item=items[0], acting_user=annotator, decision=decision, reasons=reasons)
    return VerificationItem.objects.get(pk=items[0].pk)


@pytest.mark.django_db
def test_an_item_is_accepted_on_three_approvals(make_project, annotators):
    item = _review_all(make_project(1), annotators, ["approve", "approve", "approve"])
    assert item.status == ItemStatus.ACCEPTED and item.settled_at


@pytest.mark.django_db
def test_by_default_a_rejection_still_collects_all_three_reviews(make_project, annotators):
    project = make_project(1)
    item = _review_all(project, annotators, ["reject"])
    assert item.status == ItemStatus.PENDING  # default setting: keep collecting for agreement statistics
    assert not item.work_item.closed
    submit_review(item=item, acting_user=annotators[1], decision="approve")
    submit_review(item=item, acting_user=annotators[2], decision="approve")
    item.refresh_from_db()
    assert item.status == ItemStatus.REJECTED and item.reviews.count() == 3


@pytest.mark.django_db
def test_with_the_setting_the_first_rejection_settles_and_closes_the_item(make_project, annotators):
    project = make_project(1, settle_on_first_rejection=True)
    item = _review_all(project, annotators, ["approve", "reject"])
    assert item.status == ItemStatus.REJECTED
    item.work_item.refresh_from_db()
    assert item.work_item.closed
    # The third annotator's lease was released; their review is refused and the item is not handed out again.
    third = item.work_item.assignments.get(worker=annotators[2])
    assert third.status == AssignmentStatus.RELEASED
    with pytest.raises(ApplicationError) as caught:
        submit_review(item=item, acting_user=annotators[2], decision="approve")
    assert caught.value.code == "settled"
    assert next_item(project=project, acting_user=annotators[2]) is None
    assert item.reviews.count() == 2


@pytest.mark.django_db
def test_with_the_setting_three_approvals_still_accept(make_project, annotators):
    item = _review_all(make_project(1, settle_on_first_rejection=True), annotators, ["approve"] * 3)
    assert item.status == ItemStatus.ACCEPTED


@pytest.mark.django_db
def test_a_reviewer_may_change_their_decision_until_settled_and_the_history_keeps_every_change(make_project, annotators):
    project = make_project(1)
    a, b, c = annotators
    item = next_item(project=project, acting_user=a)
    next_item(project=project, acting_user=b), next_item(project=project, acting_user=c)
    submit_review(item=item, acting_user=a, decision="approve", seconds=4)
    review, created = submit_review(item=item, acting_user=a, decision="reject", reasons=["ambiguous_question"], seconds=3)
    assert not created and review.changes == 1 and review.seconds_spent == 7
    submit_review(item=item, acting_user=a, decision="reject", reasons=["ambiguous_question"])  # the same again: no new entry
    assert Review.objects.filter(item=item).count() == 1
    assert list(ReviewEvent.objects.filter(item=item).values_list("kind", "decision")) == [
        ("submitted", "approve"), ("changed", "reject")]
    submit_review(item=item, acting_user=b, decision="approve")
    submit_review(item=item, acting_user=c, decision="approve")
    with pytest.raises(ApplicationError, match="already settled"):
        submit_review(item=item, acting_user=a, decision="approve")
    item.refresh_from_db()
    assert item.status == ItemStatus.REJECTED


@pytest.mark.django_db
def test_history_is_append_only(make_project, annotators):
    project = make_project(1)
    item = next_item(project=project, acting_user=annotators[0])
    submit_review(item=item, acting_user=annotators[0], decision="approve")
    event = ReviewEvent.objects.get()
    with pytest.raises(TypeError):
        event.save()
    with pytest.raises(TypeError):
        ReviewEvent.objects.all().delete()
    with pytest.raises(TypeError):
        ReviewEvent.objects.update(decision="reject")


@pytest.mark.django_db
def test_a_rejection_needs_a_reason_and_other_needs_a_comment(make_project, annotator):
    project = make_project(1)
    item = next_item(project=project, acting_user=annotator)
    with pytest.raises(ApplicationError, match="at least one reason"):
        submit_review(item=item, acting_user=annotator, decision="reject")
    with pytest.raises(ApplicationError, match="needs a comment"):
        submit_review(item=item, acting_user=annotator, decision="reject", reasons=["other"])
    review, _ = submit_review(item=item, acting_user=annotator, decision="reject", reasons=["other", "media_unclear"], comment="clipped at the end")
    assert review.reasons == ["other", "media_unclear"]


@pytest.mark.django_db
def test_a_fourth_annotator_gets_nothing_and_cannot_review(make_project, annotators, make_user):
    project = make_project(1)
    item = _review_all(project, annotators, ["approve"] * 3)
    fourth = make_user("annotator4", "annotator")
    assert next_item(project=project, acting_user=fourth) is None
    with pytest.raises(Forbidden):
        submit_review(item=item, acting_user=fourth, decision="approve")


# ---- API contract and blindness ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_api_contract_next_review_item_summary(make_project, annotators, admin, api_client, client_for):
    project = make_project(2)
    a, b, c = annotators
    api_client.force_authenticate(a)
    first = api_client.post(f"/api/verification/projects/{project.pk}/next/")
    assert first.status_code == 200
    body = first.json()
    assert body["task"] == "Intent" and body["status"] == "pending" and "reviews" not in body
    assert [o["tier"] for o in body["options"]] == ["true", "similar", "middle", "opposite"]
    assert body["audio_url"].startswith("/audio/")
    assert client_for(a).get(body["audio_url"]).status_code == 200  # a reviewer of the item may hear it
    created = api_client.post(f"/api/verification/items/{body['id']}/reviews/",
                              {"decision": "reject", "reasons": ["wrong_answer"], "comment": "it is thanks"}, format="json")
    assert created.status_code == 201
    changed = api_client.post(f"/api/verification/items/{body['id']}/reviews/", {"decision": "approve"}, format="json")
    assert changed.status_code == 200 and changed.json()["your_review"]["decision"] == "approve"
    bad = api_client.post(f"/api/verification/items/{body['id']}/reviews/", {"decision": "maybe"}, format="json")
    assert bad.status_code == 400 and "decision" in bad.json()["fields"]
    second = api_client.post(f"/api/verification/projects/{project.pk}/next/").json()
    api_client.post(f"/api/verification/items/{second['id']}/reviews/", {"decision": "approve"}, format="json")
    assert api_client.post(f"/api/verification/projects/{project.pk}/next/").status_code == 204
    assert api_client.get(f"/api/verification/projects/{project.pk}/summary/").status_code == 403
    for other in (b, c):
        api_client.force_authenticate(other)
        for _ in range(2):
            item = api_client.post(f"/api/verification/projects/{project.pk}/next/").json()
            api_client.post(f"/api/verification/items/{item['id']}/reviews/", {"decision": "approve"}, format="json")
    # c's approval settled the item: the same review again is answered with the stored one, a change is refused.
    again = api_client.post(f"/api/verification/items/{body['id']}/reviews/", {"decision": "approve"}, format="json")
    assert again.status_code == 200 and again.json()["created"] is False and again.json()["settled"] is True
    settled = api_client.post(f"/api/verification/items/{body['id']}/reviews/",
                              {"decision": "reject", "reasons": ["wrong_answer"]}, format="json")
    assert settled.status_code == 409 and settled.json()["code"] == "settled"
    api_client.force_authenticate(admin)
    summary = api_client.get(f"/api/verification/projects/{project.pk}/summary/").json()
    assert (summary["items"], summary["accepted"], summary["rejected"], summary["pending"]) == (2, 2, 0, 0)
    assert summary["per_task"]["Intent"]["acceptance_rate"] == 100.0
    assert summary["paper_acceptance_rate"] == 81.26


@pytest.mark.django_db
def test_reviews_are_blind_in_the_api_until_the_item_settles(make_project, annotators, make_user, api_client, client_for):
    project = make_project(1)
    a, b, c = annotators
    item = next_item(project=project, acting_user=a)
    next_item(project=project, acting_user=b), next_item(project=project, acting_user=c)
    submit_review(item=item, acting_user=a, decision="reject", reasons=["distractor_correct"], comment="SECRET-A")
    api_client.force_authenticate(b)
    seen = api_client.get(f"/api/verification/items/{item.pk}/")
    assert seen.status_code == 200
    text = seen.content.decode()
    assert "SECRET-A" not in text and "distractor_correct" not in text and "reject" not in text
    assert seen.json()["your_review"] is None and "reviews" not in seen.json()
    submit_review(item=item, acting_user=b, decision="approve")
    assert "reviews" not in api_client.get(f"/api/verification/items/{item.pk}/").json()
    outsider = make_user("annotator9", "annotator")
    api_client.force_authenticate(outsider)
    assert api_client.get(f"/api/verification/items/{item.pk}/").status_code == 403
    assert client_for(outsider).get(item.audio.get_absolute_url()).status_code == 403
    submit_review(item=item, acting_user=c, decision="approve")
    api_client.force_authenticate(b)
    after = api_client.get(f"/api/verification/items/{item.pk}/").json()
    assert after["settled"] and sorted(r["decision"] for r in after["reviews"]) == ["approve", "approve", "reject"]
    assert all(r["annotator"].startswith("annotator-") for r in after["reviews"])  # pseudonyms, not usernames


@pytest.mark.django_db
def test_reviews_are_blind_in_pages_until_the_item_settles(make_project, annotators, client_for):
    project = make_project(1)
    a, b, c = annotators
    item = next_item(project=project, acting_user=a)
    submit_review(item=item, acting_user=a, decision="reject", reasons=["offensive_personal"], comment="SECRET-A")
    page = client_for(b).get(f"/verification/projects/{project.pk}/review/")
    html = page.content.decode()
    assert page.status_code == 200 and escape(item.question) in html
    assert "SECRET-A" not in html and "All reviews" not in html
    item_page = client_for(b).get(f"/verification/items/{item.pk}/").content.decode()
    assert "SECRET-A" not in item_page and "History" not in item_page
    assert client_for(c).get(f"/verification/items/{item.pk}/").status_code == 403  # c was not handed it yet
    next_item(project=project, acting_user=c)
    submit_review(item=item, acting_user=b, decision="approve")
    submit_review(item=item, acting_user=c, decision="approve")
    settled = client_for(b).get(f"/verification/items/{item.pk}/").content.decode()
    assert "SECRET-A" in settled and "All reviews" in settled


@pytest.mark.django_db
def test_the_review_page_records_a_form_decision_and_moves_on(make_project, annotator, client_for):
    project = make_project(2)
    client = client_for(annotator)
    page = client.get(f"/verification/projects/{project.pk}/review/").content.decode()
    first = next_item(project=project, acting_user=annotator)
    assert escape(first.question) in page and "correct" in page and "similar" in page
    response = client.post(f"/verification/items/{first.pk}/review/",
                           {"decision": "reject", "reasons": ["wrong_answer", "other"], "comment": "Thanks, clearly", "seconds_spent": "12.5"})
    assert response.status_code == 302
    review = Review.objects.get(item=first, annotator=annotator)
    assert (review.decision, review.reasons, review.seconds_spent) == ("reject", ["wrong_answer", "other"], 12.5)
    assert next_item(project=project, acting_user=annotator).pk != first.pk


@pytest.mark.django_db
def test_nav_and_home_panel_show_annotators_their_waiting_items(make_project, annotator, admin, client_for, expert):
    make_project(3)
    home = client_for(annotator).get("/").content.decode()
    assert "Verify: HPSU test" in home and 'aria-label="3 waiting"' in home
    assert "/verification/" in client_for(admin).get("/").content.decode()
    assert client_for(expert).get("/verification/").status_code == 403


@pytest.mark.django_db
def test_a_late_review_counts_only_while_its_slot_is_free(hpsu, annotators, make_user, api_client):
    from datetime import timedelta

    from django.utils import timezone

    from apps.verification.services import create_project, import_items
    from tests.verification.conftest import record

    project = create_project(name="Short leases", lease_seconds=1)
    import_items(project_name="Short leases", file_path=hpsu.write([record("l1")]), media_dir=hpsu.media)
    a, b, c = annotators
    past = timezone.now() - timedelta(seconds=2)  # both leases, taken then for 1 s, have lapsed by now
    item = next_item(project=project, acting_user=a, now=past)
    next_item(project=project, acting_user=b, now=past)
    submit_review(item=item, acting_user=a, decision="approve")  # late, but the slot is still free: counted
    d = make_user("annotator4", "annotator")
    next_item(project=project, acting_user=c), next_item(project=project, acting_user=d)  # the lapsed slot of b goes to c, the last free one to d
    api_client.force_authenticate(b)
    late = api_client.post(f"/api/verification/items/{item.pk}/reviews/", {"decision": "approve"}, format="json")
    assert late.status_code == 409 and late.json()["code"] == "slot_taken"
    assert Review.objects.filter(item=item).count() == 1


@pytest.mark.django_db
def test_turning_on_settle_at_first_rejection_settles_pending_rejected_items(make_project, annotators, admin, client_for):
    project = make_project(2)
    first = next_item(project=project, acting_user=annotators[0])
    submit_review(item=first, acting_user=annotators[0], decision="reject", reasons=["wrong_answer"])
    second = next_item(project=project, acting_user=annotators[0])
    submit_review(item=second, acting_user=annotators[0], decision="approve")
    response = client_for(admin).post(f"/verification/projects/{project.pk}/", {"settle_on_first_rejection": "on"})
    assert response.status_code == 302
    first.refresh_from_db(), second.refresh_from_db()
    assert (first.status, second.status) == (ItemStatus.REJECTED, ItemStatus.PENDING)
    first.work_item.refresh_from_db()
    assert first.work_item.closed


@pytest.mark.django_db
def test_the_review_page_shows_prompt_variants_transcript_and_tiers(make_project, annotator, client_for, api_client):
    from tests.verification.conftest import record

    prompts = {"standard": "Identify the purpose.", "positive": ["It seems a complaint.", "Surely a complaint?"],
               "negative": "It seems thanks."}
    project = make_project(records=[record("p1", prompts=prompts, transcript="Not again, seriously.")])
    page = client_for(annotator).get(f"/verification/projects/{project.pk}/review/").content.decode()
    for text in ("Identify the purpose.", "Surely a complaint?", "It seems thanks.", "Not again, seriously.",
                 "similar", "middle", "opposite", "option--correct"):
        assert escape(text) in page, text
    api_client.force_authenticate(annotator)
    body = api_client.post(f"/api/verification/projects/{project.pk}/next/").json()
    assert body["prompts"]["positive"] == ["It seems a complaint.", "Surely a complaint?"]
    assert body["transcript"] == "Not again, seriously."


def _png() -> bytes:
    """A real 1x1 PNG."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


@pytest.mark.django_db
def test_an_identical_resend_of_the_review_that_settled_an_item_answers_200_with_the_stored_review(
        make_project, annotators, api_client):
    project = make_project(1)
    review = {"decision": "reject", "reasons": ["wrong_answer"], "comment": "it is thanks"}
    for annotator in annotators:
        api_client.force_authenticate(annotator)
        item = api_client.post(f"/api/verification/projects/{project.pk}/next/").json()
        first = api_client.post(f"/api/verification/items/{item['id']}/reviews/", review, format="json")
        assert first.status_code == 201
    assert VerificationItem.objects.get(pk=item["id"]).status == ItemStatus.REJECTED
    again = api_client.post(f"/api/verification/items/{item['id']}/reviews/", review, format="json")
    assert again.status_code == 200
    assert again.json()["your_review"] == first.json()["your_review"]
    assert ReviewEvent.objects.filter(item_id=item["id"]).count() == 3


@pytest.mark.django_db
def test_a_listener_cannot_skip_an_item(make_project, annotator, listener, client_for):
    project = make_project(1)
    item = next_item(project=project, acting_user=annotator)
    assert client_for(listener).post(f"/verification/items/{item.pk}/skip/").status_code == 403
    assert item.work_item.assignments.get(worker=annotator).status == AssignmentStatus.LEASED


@pytest.mark.django_db
def test_skipping_an_item_one_does_not_hold_changes_nothing_and_does_not_name_it(make_project, annotators, client_for):
    project = make_project(1)
    holder, other = annotators[0], annotators[1]
    item = next_item(project=project, acting_user=holder)
    response = client_for(other).post(f"/verification/items/{item.pk}/skip/", {"reason": "I know the speaker"}, follow=True)
    page = response.content.decode()
    assert "not assigned to you" in page
    assert item.external_id not in page
    assert not item.work_item.assignments.filter(worker=other).exists()
    assert item.work_item.assignments.get(worker=holder).status == AssignmentStatus.LEASED


@pytest.mark.django_db
def test_a_token_client_fetches_the_visual_url_the_api_gave_it(hpsu, annotators, make_user, token_client_for):
    (hpsu.media / "Images").mkdir(parents=True)
    (hpsu.media / "Images/v1.png").write_bytes(_png())
    project = import_items(project_name="Visual", file_path=hpsu.write([record("v1", image_path="Images/v1.png")]),
                           media_dir=hpsu.media).project
    holder, stranger = token_client_for(annotators[0]), token_client_for(make_user("l9", "listener"))
    item = holder.post(f"/api/verification/projects/{project.pk}/next/").json()
    visual = holder.get(item["visual_url"])
    assert visual.status_code == 200 and b"".join(visual.streaming_content) == _png()
    assert holder.get(item["audio_url"]).status_code == 200
    assert stranger.get(item["visual_url"]).status_code == 403


@pytest.mark.django_db
def test_an_overlong_review_comment_is_refused_and_nothing_stored(make_project, annotator, client_for):
    project = make_project(1)
    item = next_item(project=project, acting_user=annotator)
    with pytest.raises(ApplicationError, match="comment: at most 5,000 characters"):
        submit_review(item=item, acting_user=annotator, decision="reject", reasons=["other"], comment="x" * 2_000_000)
    assert not Review.objects.exists()


@pytest.mark.django_db
def test_an_annotator_reads_what_each_distractor_tier_means(make_project, annotator, client_for):
    # Issue 20: "similar / middle / opposite" are the release's codes, not words an annotator acts on.
    from apps.verification.taxonomy import TIER_LABELS

    project = make_project(2)
    page = client_for(annotator).get(f"/verification/projects/{project.pk}/review/").content.decode()
    assert all(escape(label) in page for label in TIER_LABELS.values())


@pytest.mark.django_db
def test_the_review_page_shows_n_of_m_with_a_bar_that_moves(make_project, annotator, client_for):
    project = make_project(3)
    client = client_for(annotator)
    page = client.get(f"/verification/projects/{project.pk}/review/").content.decode()
    assert "Item 1 of 3" in page and '<progress class="task-progress" id="review-bar" max="3" value="0"' in page
    first = next_item(project=project, acting_user=annotator)
    client.post(f"/verification/items/{first.pk}/review/", {"decision": "approve", "seconds_spent": "3"})
    page = client.get(f"/verification/projects/{project.pk}/review/").content.decode()
    assert "Item 2 of 3" in page and 'id="review-bar" max="3" value="1"' in page
