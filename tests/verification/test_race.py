"""Annotators racing on PostgreSQL: every item ends with exactly three distinct reviews."""


import pytest

from apps.core.errors import ApplicationError
from apps.verification.models import ItemStatus, Review, VerificationItem
from apps.verification.services import next_item, submit_review
from tests.race import run_threads


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_annotators_leave_exactly_three_distinct_reviews_per_item(make_project, make_user):
    project = make_project(12)
    workers = [make_user(f"racer{i}", "annotator") for i in range(8)]

    def work(user):
        while True:
            item = next_item(project=project, acting_user=user)
            if item is None:
                return
            # Submit twice, as a double click would: one review must be stored.
            for _ in range(2):
                try:
                    submit_review(item=item, acting_user=user, decision="approve" if item.pk % 4 else "reject",
                                  reasons=[] if item.pk % 4 else ["wrong_answer"])
                except ApplicationError as exc:
                    if exc.code != "settled":
                        raise

    errors = run_threads([lambda u=u: work(u) for u in workers])
    assert not errors, errors
    for item in VerificationItem.objects.filter(project=project):
        reviewers = list(Review.objects.filter(item=item).values_list("annotator_id", flat=True))
        assert len(reviewers) == 3 and len(set(reviewers)) == 3, (item.external_id, reviewers)
        assert item.status in (ItemStatus.ACCEPTED, ItemStatus.REJECTED)
        assert item.history.count() == 3
        item.work_item.refresh_from_db()
        assert item.work_item.submitted_count == 3
