"""The verification dashboard's hand-written SQL: two aggregates over an aggregate (a second GROUP BY over the
first), which the ORM does not write. Each takes the ORM-built inner QuerySet (apps/verification/selectors.py)
and answers rows; the outer statement runs in the database, so a project of any size answers a few rows."""

from django.db.models import QuerySet

from apps.core.sql import aggregate_over


def items_by_review_counts(per_item: QuerySet) -> list[tuple[int, int, int]]:
    """(number of reviews, number of approvals, items) from per-item rows of `n` and `approvals`."""
    return aggregate_over(per_item, "SELECT n, approvals, COUNT(*) FROM {inner} GROUP BY n, approvals ORDER BY n, approvals")


def annotator_medians(ranked: QuerySet) -> list[tuple[int, int, int, float]]:
    """(annotator id, reviews, approvals, median seconds) from per-review rows ranked by time within each
    annotator (`rank` of `total`): the median is the middle row, or the mean of the two middle rows."""
    return aggregate_over(
        ranked,
        "SELECT annotator_id, COUNT(*), SUM(approved), "
        "AVG(CASE WHEN rank IN ((total + 1) / 2, (total + 2) / 2) THEN seconds_spent END) "
        "FROM {inner} GROUP BY annotator_id",
    )
