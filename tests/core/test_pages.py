"""API lists page by number; a `page` that is sent must be one (apps.core.pagination.Pages)."""

import pytest
from django.urls import reverse


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["", "abc", "-1", "0", "1.5", "١"])
def test_a_page_that_is_not_a_whole_number_is_refused_naming_the_field(api_client, admin, page):
    api_client.force_authenticate(admin)
    response = api_client.get(reverse("jobs-api:api-jobs"), {"page": page})
    assert response.status_code == 400
    assert response.json()["fields"] == {"page": ["page must be a whole number from 1."]}


@pytest.mark.django_db
@pytest.mark.parametrize("page", [None, "1", "last"])
def test_the_first_and_last_pages_answer(api_client, admin, page):
    api_client.force_authenticate(admin)
    response = api_client.get(reverse("jobs-api:api-jobs"), {} if page is None else {"page": page})
    assert response.status_code == 200
    assert response.json()["count"] == 0
