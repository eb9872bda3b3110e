"""HPSU items that cannot get their three reviews from the annotators there are wait on the admin's home page."""

import re


def test_items_short_of_annotators_are_on_the_admins_to_do_list(make_project, make_user, admin, client_for):
    make_user("the_only_annotator", "annotator")
    project = make_project(2)
    html = client_for(admin).get("/").content.decode()
    assert re.search(rf'<a href="/verification/projects/{project.pk}/"><span class="todo__count">2</span> Items of '
                     rf"“{project.name}” that cannot get 3 reviews", html)


def test_no_hpsu_to_do_while_three_annotators_can_review(make_project, annotators, admin, client_for):
    make_project(2)
    assert "cannot get 3 reviews" not in client_for(admin).get("/").content.decode()
