"""An annotator's cycle over the verification API: a review's answer carries the next item, so after the
first `next` an item takes one call; each call runs a fixed number of queries, token authentication
included, whatever the size of the project."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db

# Measured per call with a token-authenticated client. Before issue 23: next 13, review 17 (18 settling the
# item), and a `next` per item. Now next 9, and review with the next item handed on 19 (20 settling the item;
# up to 22 when nothing is left, the queue looking for an item to offer again).
MAX_QUERIES = {"next": 9, "review": 22}


@pytest.mark.parametrize("items", [2, 10])
def test_a_review_hands_on_the_next_item_within_a_fixed_query_count(make_project, annotators, items, token_client_for):
    project = make_project(items)
    counts = {"next": [], "review": []}
    for annotator in annotators:
        client = token_client_for(annotator)
        with CaptureQueriesContext(connection) as queries:
            item = client.post(f"/api/verification/projects/{project.pk}/next/").json()
        counts["next"].append(len(queries))
        seen = set()
        while item is not None:
            assert item["id"] not in seen and item["your_review"] is None and item["audio_url"]
            seen.add(item["id"])
            with CaptureQueriesContext(connection) as queries:
                reviewed = client.post(f"/api/verification/items/{item['id']}/reviews/", {"decision": "approve"},
                                       format="json")
            assert reviewed.status_code == 201
            counts["review"].append(len(queries))
            item = reviewed.json()["next"]
            if item is not None:  # the item handed on is the annotator's lease: `next` answers the same one
                assert client.post(f"/api/verification/projects/{project.pk}/next/").json()["id"] == item["id"]
        assert len(seen) == items
        assert client.post(f"/api/verification/projects/{project.pk}/next/").status_code == 204
    assert len(counts["review"]) == 3 * items  # three annotators reviewed every item, the last review settling it
    assert reviewed.json()["settled"] is True
    for kind, limit in MAX_QUERIES.items():
        assert max(counts[kind]) <= limit, f"{kind}: {counts[kind]} queries, at most {limit}"
