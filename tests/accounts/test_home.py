"""The top menu, the admin's home (pipelines and what needs them now) and the login page in demo mode."""

import re

from django.test import override_settings

from apps.accounts.demo import demo_password


def _menu(html: str) -> list[tuple[str, list[str]]]:
    """The main menu as [(group label or "", [link labels])], in page order."""
    nav = html[html.index('<nav aria-label="Main"'):html.index("</nav>")]
    groups = []
    for part in re.split(r'<li class="mainnav__group"', nav):
        inside, _, after = part.rpartition("</details>")
        if inside:
            summary = re.search(r"<summary[^>]*>(.*?)</summary>", inside).group(1)
            groups.append((summary, re.findall(r"<a [^>]*>(.*?)</a>", inside)))
        groups += [("", [link]) for link in re.findall(r"<a [^>]*>(.*?)</a>", after)]
    return groups


def test_the_admins_menu_groups_pages_by_workflow_in_pipeline_order(client_for, admin):
    menu = _menu(client_for(admin).get("/").content.decode())
    labels = [label for label, _ in menu if label]
    assert labels == ["Spoken QA", "KMMAU", "Evaluation", "System"]
    spoken = dict(menu)["Spoken QA"]
    assert spoken == ["Source benchmarks", "Ground truth", "Hypertranslation", "Normalization", "Consultations",
                      "Rulebooks", "Speech", "Releases"]
    # Single-page groups are plain links, between their neighbours in workflow order.
    flat = [link for _, links in menu for link in links]
    assert flat.index("Releases") < flat.index("MOS listening tests") < flat.index("HPSU verification") \
        < flat.index("KMMAU question sets") < flat.index("Runs") < flat.index("Leaderboard") < flat.index("Jobs")


def test_the_menu_marks_the_current_page_and_its_group(client_for, admin):
    html = client_for(admin).get("/transfer/normalize/").content.decode()
    assert '<a href="/transfer/normalize/" aria-current="page">Normalization</a>' in html
    assert '<summary class="menu__current">Spoken QA</summary>' in html


def test_a_listener_sees_only_their_own_pages_in_the_menu(client_for, listener):
    menu = _menu(client_for(listener).get("/").content.decode())
    assert [link for _, links in menu for link in links] == ["Home", "Listening"]
    assert "<details" not in client_for(listener).get("/").content.decode()


def test_an_experts_menu_holds_their_spoken_qa_pages(client_for, expert):
    menu = dict(_menu(client_for(expert).get("/").content.decode()))
    assert menu["Spoken QA"] == ["Questions", "Hypertranslation", "Normalization", "Rulebooks"]


def test_the_admin_home_shows_every_pipeline_in_stage_order(client_for, admin):
    html = client_for(admin).get("/").content.decode()
    pipelines = re.findall(r'data-workflow="(\w+)"', html)
    assert pipelines == ["spoken_qa", "mos", "hpsu", "kmmau"]
    spoken = html[html.index('data-workflow="spoken_qa"'):html.index('data-workflow="mos"')]
    stages = re.findall(r'<span class="stage__label">(.*?)</span>', spoken)
    assert stages == ["Source", "Ground truth", "Hypertranslation", "Normalization", "Speech", "Release", "Evaluation"]
    assert 'href="/evaluation/leaderboard/"' in html and "Evaluation runs" in html


def test_an_empty_to_do_list_says_so_in_words(client_for, admin):
    html = client_for(admin).get("/").content.decode()
    assert "Nothing needs you right now" in html and 'class="todo"' not in html


def test_a_failed_job_is_on_the_admins_to_do_list(client_for, admin):
    from apps.jobs.models import Job, JobStatus

    Job.objects.create(kind="test.kind", title="an import", status=JobStatus.FAILED, error="boom")
    html = client_for(admin).get("/").content.decode()
    todo = re.search(r'<li class="todo"><a href="(.*?)"><span class="todo__count">(\d+)</span> (.*?)</a>', html)
    assert todo.groups() == ("/jobs/", "1", "Failed background jobs: read why, then resume or start again")
    assert "Nothing needs you right now" not in html


def test_a_failed_release_build_is_a_to_do_until_a_later_build_makes_it_good(client_for, admin):
    from apps.releases.models import Release, ReleaseStatus

    failed = Release.objects.create(name="kvoicebench", version="1", kind="spoken-qa", license="Apache-2.0",
                                    status=ReleaseStatus.FAILED, built_by=admin)
    assert f'href="/releases/{failed.pk}/"' in client_for(admin).get("/").content.decode()
    Release.objects.create(name="kvoicebench", version="2", kind="spoken-qa", license="Apache-2.0",
                           status=ReleaseStatus.BUILT, built_by=admin)
    assert f'href="/releases/{failed.pk}/"' not in client_for(admin).get("/").content.decode()


def test_a_listeners_home_keeps_their_queue_and_shows_no_pipeline(client_for, listener):
    html = client_for(listener).get("/").content.decode()
    assert "Your work" in html and "Pipelines" not in html and "Needs you now" not in html


def test_the_login_page_lists_the_demo_logins_in_demo_mode(client, make_user, settings):
    settings.SORI_DEMO_PROVIDER = True
    for name, role in [("admin", "admin"), ("listener1", "listener"), ("annotator1", "annotator"), ("expert", "expert")]:
        make_user(name, role, password=demo_password(name))
    html = client.get("/login/").content.decode()
    for name in ["admin", "listener1", "annotator1", "expert"]:
        assert f"<code>{name}</code>" in html and f"<code>{demo_password(name)}</code>" in html
    assert client.post("/login/", {"username": "listener1", "password": demo_password("listener1")}).status_code == 302


def test_the_login_page_lists_no_demo_login_outside_demo_mode(client, make_user):
    make_user("admin", "admin", password=demo_password("admin"))
    with override_settings(SORI_DEMO_PROVIDER=False):
        html = client.get("/login/").content.decode()
    assert "Demo logins" not in html and demo_password("admin") not in html


def test_the_login_page_lists_only_demo_accounts_that_exist(client, make_user, settings):
    settings.SORI_DEMO_PROVIDER = True
    make_user("listener1", "listener", password=demo_password("listener1"))
    html = client.get("/login/").content.decode()
    assert "<code>listener1</code>" in html and "<code>admin</code>" not in html


def test_the_menu_follows_the_rules_not_the_roles(client_for, annotator, monkeypatch):
    """A rule that lets annotators rate clips and read translations puts those pages in their menu: navigation
    asks can(), as the pages and the API do."""
    from apps.accounts import permissions

    def links():
        return [link for _, group in _menu(client_for(annotator).get("/").content.decode()) for link in group]

    assert "Listening" not in links() and "Hypertranslation" not in links()
    monkeypatch.setitem(permissions._rules, "listening.rate", lambda user, obj=None: True)
    monkeypatch.setitem(permissions._rules, "transfer.review", lambda user, obj=None: True)
    assert {"Listening", "Hypertranslation", "Normalization"} <= set(links())
    assert "MOS listening tests" not in links()
