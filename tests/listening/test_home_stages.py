"""The MOS pipeline and to-dos on the admin's home page (apps.listening.apps pipeline_stages and todos)."""

import re

from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.listening.conftest import rate_via_services


def _stages(html: str, workflow: str) -> dict[str, int]:
    start = html.index(f'data-workflow="{workflow}"')
    block = html[start:html.index("</section>", start)]
    pairs = re.findall(r'<span class="stage__label">(.*?)</span>\s*<span class="stage__count">(\d+)</span>', block)
    return {label: int(count) for label, count in pairs}


def _queries(client, url="/") -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_mos_pipeline_counts_clips_ratings_and_complete_clips(client_for, admin, listeners, make_test):
    test = make_test(n=3)
    make_test(n=2, publish=False)
    for listener in listeners[:5]:
        rate_via_services(test, listener)
    stages = _stages(client_for(admin).get("/").content.decode(), "mos")
    assert stages == {"Import": 5, "Publish": 3, "Ratings": 15, "QC": 3, "Export": 0}


def test_clips_that_cannot_get_five_listeners_are_on_the_admins_to_do_list(client_for, admin, make_user, make_test):
    make_user("only_listener", "listener")
    test = make_test(n=2)
    html = client_for(admin).get("/").content.decode()
    assert re.search(rf'<a href="/listening/manage/tests/{test.pk}/"><span class="todo__count">2</span> Clips of “{test.name}” '
                     r"that cannot get 5 distinct listeners", html)


def test_the_admin_home_reads_a_bounded_number_of_queries_whatever_the_data(client_for, admin, listeners, make_test):
    client = client_for(admin)
    test = make_test(n=2)
    rate_via_services(test, listeners[0])
    small = _queries(client)
    make_test(n=12, publish=False)  # more clips, more ratings: the same reads
    for listener in listeners[1:4]:
        rate_via_services(test, listener)
    assert _queries(client) == small
    assert small < 60
