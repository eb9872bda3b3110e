"""Markup rules the accessibility audit asked for, checked on the served HTML (fast, no browser)."""

from html.parser import HTMLParser

import pytest

from tests.verification.conftest import hpsu, make_project  # noqa: F401

pytestmark = pytest.mark.django_db


class Elements(HTMLParser):
    def __init__(self, html: str):
        super().__init__()
        self.elements: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))


def test_the_messages_status_role_is_on_a_wrapper_and_the_list_keeps_its_role(make_project, admin, client_for):  # noqa: F811
    project = make_project(1)
    page = client_for(admin).get(f"/verification/projects/{project.pk}/review/", follow=True).content.decode()
    elements = Elements(page).elements
    lists = [attrs for tag, attrs in elements if tag == "ul" and "messages" in attrs.get("class", "")]
    assert lists and all("role" not in attrs for attrs in lists)  # a role on the <ul> would replace its list role
    assert any(tag == "div" and attrs.get("role") == "status" and "messages-status" in attrs.get("class", "")
               for tag, attrs in elements)


def test_the_verification_dashboard_has_no_duplicate_ids_and_each_label_names_its_own_field(make_project, admin, client_for):  # noqa: F811
    project = make_project(1)
    elements = Elements(client_for(admin).get(f"/verification/projects/{project.pk}/").content.decode()).elements
    ids = [attrs["id"] for _tag, attrs in elements if "id" in attrs]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    fields = {attrs["id"]: attrs.get("name") for tag, attrs in elements if tag in ("input", "textarea", "select") and "id" in attrs}
    assert fields["predictions-name"] == fields["baseline-name"] == "name"
    labelled = [attrs["for"] for tag, attrs in elements if tag == "label" and "for" in attrs]
    assert all(target in fields for target in labelled)
