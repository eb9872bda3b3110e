"""A reviewer's cycle over the KMMAU review API (next-review, reviews) runs a fixed number of queries, token
authentication included, whatever the number of questions in review."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.authoring.conftest import make_agent_question

pytestmark = pytest.mark.django_db

# Measured per call with a token-authenticated client. Before issue 23: next-review 11, review 15 (17 settling
# the question); now next-review 9, review 12 (14 settling it), token authentication reading the roles in its
# one query.
MAX_QUERIES = {"next": 9, "review": 14}


@pytest.mark.parametrize("questions", [1, 4])
def test_next_review_and_review_stay_within_their_query_counts(question_set, kss_corpus, annotators, questions):
    clip = kss_corpus.clips.first()
    for i in range(questions):
        make_agent_question(question_set, clip, text=f"화자는 어디에서 친구를 만났나요? ({i})", dedup_key=f"fact-{i}")
    counts = {"next": [], "review": []}
    for reviewer in annotators[:2]:  # two approvals accept a question
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=reviewer).key}")
        while True:
            with CaptureQueriesContext(connection) as queries:
                given = client.post(f"/api/authoring/sets/{question_set.pk}/next-review/")
            if given.status_code == 204:
                break
            counts["next"].append(len(queries))
            with CaptureQueriesContext(connection) as queries:
                reviewed = client.post(f"/api/authoring/questions/{given.json()['id']}/reviews/", {"decision": "approve"},
                                       format="json")
            assert reviewed.status_code == 201, reviewed.content
            counts["review"].append(len(queries))
    assert len(counts["review"]) == 2 * questions
    assert reviewed.json()["status"] == "accepted"
    for kind, limit in MAX_QUERIES.items():
        assert max(counts[kind]) <= limit, f"{kind}: {counts[kind]} queries, at most {limit}"
