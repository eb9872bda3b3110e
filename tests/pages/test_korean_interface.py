"""Sori speaks its participants' language: every page a listener, an annotator or an expert reaches in the
demo is in Korean, apart from content (marked lang="en" or data-content) and names; English is one switch
away, and the catalogue behind it is complete and compiled."""

import json
from pathlib import Path

import polib
import pytest
from django.conf import settings

from apps.accounts.models import User
from tests.pages.interface_text import interface_strings
from tests.pages.korean_pages import PARTICIPANTS, english_share, participant_pages, seed_demo, untranslated

LOCALE = Path(settings.BASE_DIR) / "locale" / "ko" / "LC_MESSAGES"
# Where the strings of the pages a participant reaches come from (the admin-only pages are translatable, and
# their Korean may stay empty): the shared frame, the participants' templates and scripts, and the Python
# modules that label what they see.
PARTICIPANT_SOURCES = (
    "templates/", "apps/accounts/", "apps/core/", "static/js/",
    *[f"apps/listening/templates/listening/{n}.html" for n in ("index", "start", "rate", "done")],
    *[f"apps/verification/templates/verification/{n}.html" for n in ("project_list", "review", "_review_form", "_item", "item")],
    *[f"apps/authoring/templates/authoring/{n}.html" for n in ("set_list", "review", "author", "answer")],
    *[f"apps/consultations/templates/consultations/{n}.html"
      for n in ("inbox", "question", "_rules", "_save_status", "_stats", "rulebooks", "version", "diff", "draft")],
    *[f"apps/verification/templates/verification/{n}.html" for n in ("baseline",)],
    "apps/transfer/templates/transfer/normalize.html", "apps/transfer/templates/transfer/_agent_call.html",
    "apps/transfer/templates/transfer/translation_runs.html", "apps/transfer/templates/transfer/translation_run.html",
    "apps/transfer/templates/transfer/translation_detail.html", "apps/listening/static/", "apps/verification/static/",
    "apps/authoring/static/", "apps/consultations/static/", "apps/listening/views.py", "apps/verification/taxonomy.py",
    "apps/verification/templatetags/", "apps/authoring/templatetags/", "apps/consultations/labels.py",
    "apps/consultations/templatetags/", "apps/consultations/models.py", "apps/verification/models.py",
    "apps/authoring/models.py", "apps/transfer/forms.py", "apps/listening/services.py", "apps/verification/services.py",
    "apps/audio/playback.py", "apps/instructions/templates/instructions/_show.html",
)


@pytest.fixture
def demo(db):
    seed_demo()
    return frozenset(n for u in User.objects.all() for n in (u.username, str(u)))


def test_every_page_a_participant_reaches_is_in_korean(demo):
    problems = {}
    for role, username in PARTICIPANTS.items():
        person = User.objects.get(username=username)
        assert person.language == "ko"  # the demo's participants start in Korean
        pages = participant_pages(person)
        assert len(pages) >= 4, f"{role} reached only {sorted(pages)}"
        for url, html in pages.items():
            assert '<html lang="ko">' in html, url
        english, total = english_share(pages, demo)
        print(f"{role}: {len(pages)} pages, {english} of {total} interface strings English-only")
        for text, urls in untranslated(pages, demo).items():
            problems[f"{role}: {text!r}"] = sorted(urls)[:3]
    assert not problems, "\n".join(f"{k} on {v}" for k, v in sorted(problems.items()))


def test_a_participant_switches_to_english_and_back(client_for, make_user):
    person = make_user("minji", "listener", language=None)
    assert person.language == "ko"
    client = client_for(person)
    home = client.get("/").content.decode()
    assert '<html lang="ko">' in home and "내 작업" in home
    response = client.post("/language/", {"language": "en", "next": "/listening/"})
    assert response.status_code == 302 and response["Location"] == "/listening/"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    person.refresh_from_db()
    assert person.language == "en"
    # The saved setting wins over what the browser asks for.
    english = client.get("/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert '<html lang="en">' in english and "Your work" in english
    client.post("/language/", {"language": "ko", "next": "/"})
    person.refresh_from_db()
    assert person.language == "ko"


def test_the_login_page_follows_the_browser_and_has_a_switch(client, db):
    korean = client.get("/login/", HTTP_ACCEPT_LANGUAGE="ko-KR,ko;q=0.9,en;q=0.5").content.decode()
    assert '<html lang="ko">' in korean and "비밀번호" in korean
    assert 'name="language" value="en"' in korean  # the switch offers the other language
    english = client.get("/login/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").content.decode()
    assert '<html lang="en">' in english and "Password" in english
    client.post("/language/", {"language": "ko", "next": "/login/"})
    assert '<html lang="ko">' in client.get("/login/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_a_participant_starts_in_korean_and_an_admin_in_the_browsers_language(client, make_user):
    for role in ("listener", "annotator", "expert"):
        assert make_user(f"new_{role}", role, language=None).language == "ko"
    boss = make_user("boss", "admin", language=None)
    assert boss.language == ""
    client.post("/login/", {"username": "boss", "password": "pw-for-tests-1"}, HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.8")
    boss.refresh_from_db()
    assert boss.language == "en"


def test_dates_follow_the_active_language_in_kst(settings):
    from datetime import UTC, datetime

    from django.utils import translation

    from apps.pages.templatetags.sori_format import when

    settings.TIME_ZONE = "Asia/Seoul"
    moment = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    with translation.override("en"):
        assert when(moment) == "2026-01-05 18:00 KST"
    with translation.override("ko"):
        assert when(moment) == "2026년 1월 5일 18:00 KST"


def test_the_javascript_catalogue_is_served_in_korean(client, db):
    response = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="ko")
    # the catalogue is JSON inside the script: non-ASCII text is \u-escaped
    assert response.status_code == 200 and json.dumps("먼저 음성을 끝까지 들어 주세요.") in response.content.decode()


def test_content_markers_keep_content_out_of_the_interface_strings():
    html = '<p>안녕 <span lang="en">Source text</span> <q lang="ko">Minnie</q> <b data-content>Test A</b> <i aria-label="재생">x1</i></p>'
    assert interface_strings(html) == ["안녕", "재생", "x1"]


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_the_korean_catalogue_is_complete_and_compiled(domain):
    po_path = LOCALE / f"{domain}.po"
    catalogue = polib.pofile(str(po_path))
    for_participants = [e for e in catalogue if any(path.startswith(PARTICIPANT_SOURCES) for path, _ in e.occurrences)]
    assert for_participants
    assert not [e.msgid for e in for_participants if not e.translated()], "untranslated entries for participant pages"
    assert not [e.msgid for e in catalogue.fuzzy_entries()], "fuzzy entries"
    mo_path = po_path.with_suffix(".mo")
    assert mo_path.exists(), f"{mo_path} is not compiled: run python manage.py compilemessages"
    assert mo_path.stat().st_mtime >= po_path.stat().st_mtime, f"{mo_path} is older than its .po: compile again"
