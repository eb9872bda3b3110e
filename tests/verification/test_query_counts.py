"""An annotator's cycle over the verification API (next, review) runs a fixed number of queries, token
authentication included, whatever the size of the project."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

# Measured per call with a token-authenticated client. Before issue 23: next 13, review 17 (18 settling the
# item); now next 11, review 13 (14 settling it), token authentication reading the roles in its one query.
MAX_QUERIES = {"next": 11, "review": 14}


@pytest.mark.parametrize("items", [2, 10])
def test_next_and_review_stay_within_their_query_counts(make_project, annotators, items):
    project = make_project(items)
    counts = {"next": [], "review": []}
    for annotator in annotators:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=annotator).key}")
        while True:
            with CaptureQueriesContext(connection) as queries:
                given = client.post(f"/api/verification/projects/{project.pk}/next/")
            if given.status_code == 204:
                break
            counts["next"].append(len(queries))
            with CaptureQueriesContext(connection) as queries:
                reviewed = client.post(f"/api/verification/items/{given.json()['id']}/reviews/", {"decision": "approve"},
                                       format="json")
            assert reviewed.status_code == 201
            counts["review"].append(len(queries))
    assert len(counts["review"]) == 3 * items  # three annotators reviewed every item, the last review settling it
    assert reviewed.json()["settled"] is True
    for kind, limit in MAX_QUERIES.items():
        assert max(counts[kind]) <= limit, f"{kind}: {counts[kind]} queries, at most {limit}"
