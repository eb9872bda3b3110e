"""The rating page in a real browser: keys after a click on Play, visible confirmation and progress,
seeking forward refused on a first listen, an early playback report refused by the server, and a test that
starts as a draft until an admin publishes it to named listeners."""

import pytest

from apps.audio.models import AudioPlayback
from apps.listening.models import ClipServing, Rating
from apps.listening.services import import_listening_test, publish_test
from tests.browser import wait_until
from tests.listening.conftest import clip_rows

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _start(page, live_server, test):
    page.goto(f"{live_server.url}/listening/tests/{test.pk}/")
    page.check("input[name=agree]")
    page.click("button[type=submit]:has-text('Start')")
    page.wait_for_url(f"{live_server.url}/listening/tests/{test.pk}/rate/")


def test_keys_rate_after_a_click_on_play_with_confirmation_and_progress(make_test, listener, page, login, live_server):
    test = make_test(3)
    login(page, listener)
    _start(page, live_server, test)
    assert "1 (bad) to 5 (excellent)" in page.locator("#test-asks").inner_text()
    assert page.locator("#progress").inner_text().startswith("0 of 3")
    # Click the player's own Play button (left end of the controls): the audio element now has focus.
    box = page.locator("#clip-audio").bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + box["height"] / 2)
    wait_until(page, "!document.querySelector(\"button[data-score='4']\").disabled", timeout=15000)
    with page.expect_navigation():
        page.keyboard.press("4")
    rating = Rating.objects.get()
    assert rating.score == 4 and rating.listening_seconds is not None and rating.listening_seconds > 0
    assert "Saved: clip 1 rated 4 (Good" in page.locator(".messages").inner_text()
    assert page.locator("#clip-number").inner_text() == "Clip 2"
    assert page.locator("#progress").inner_text().startswith("1 of 3")
    assert page.evaluate("document.getElementById('listening-rate').classList.contains('arrive')")


def test_seeking_forward_is_undone_and_an_early_playback_report_is_refused(write_manifest, listener, page, login, live_server):
    path = write_manifest(clip_rows(1, prefix="long"), name="long.csv", seconds=4.0)
    test = import_listening_test(name="long clips", manifest=path)
    publish_test(test=test, acting_user=None)
    login(page, listener)
    _start(page, live_server, test)
    wait_until(page, "document.getElementById('clip-audio').readyState >= 1")
    # Dragging the seek bar to the end on a first listen: the page puts the playhead back.
    page.evaluate("const a = document.getElementById('clip-audio'); a.currentTime = a.duration - 0.05;")
    wait_until(page, "document.getElementById('clip-audio').currentTime < 1")
    assert "Seeking forward is off" in page.locator("#playback-status").inner_text()
    assert page.locator("button[data-score='3']").is_disabled()
    # A script reporting the end at once is refused by the server: the clip has not had time to play.
    clip = test.clips.get()
    assert ClipServing.objects.filter(clip=clip, listener=listener).exists()
    answer = page.evaluate("""async () => {
        const root = document.getElementById('clip-audio');
        const token = document.querySelector('input[name=csrfmiddlewaretoken]').value;
        const r = await fetch(root.dataset.playbackUrl, {method: 'POST', headers: {'X-CSRFToken': token, 'Accept': 'application/json'}});
        return {status: r.status, body: await r.json()};
    }""")
    assert answer["status"] == 409 and answer["body"]["code"] == "playback_too_early"
    assert not AudioPlayback.objects.exists()
    # Listening to all of it unlocks the buttons.
    page.evaluate("document.getElementById('clip-audio').play()")
    wait_until(page, "!document.querySelector(\"button[data-score='3']\").disabled", timeout=20000)
    assert AudioPlayback.objects.filter(asset=clip.asset, user=listener).exists()


def test_a_test_is_a_draft_until_published_to_the_listeners_chosen(make_test, admin, listeners, browser, live_server, login):
    test = make_test(2, publish=False)
    first, second = listeners[0], listeners[1]
    listener_page = browser.new_context().new_page()
    login(listener_page, first)
    listener_page.goto(f"{live_server.url}/listening/")
    assert test.name not in listener_page.locator("main").inner_text()
    assert listener_page.goto(f"{live_server.url}/listening/tests/{test.pk}/").status == 404

    admin_page = browser.new_context().new_page()
    login(admin_page, admin)
    admin_page.goto(f"{live_server.url}/listening/manage/tests/{test.pk}/")
    assert "Draft: no listener sees this test yet" in admin_page.locator("#publish").inner_text()
    admin_page.check("input[name=audience][value=named]")
    admin_page.select_option("#listeners", label=first.username)
    admin_page.click("#publish-button")
    admin_page.wait_for_selector(".message--success")
    assert f"Open to {first.username}" in admin_page.locator("#audience").inner_text()

    listener_page.goto(f"{live_server.url}/listening/")
    assert test.name in listener_page.locator("main").inner_text()
    assert listener_page.goto(f"{live_server.url}/listening/tests/{test.pk}/").status == 200
    other_page = browser.new_context().new_page()
    login(other_page, second)
    assert other_page.goto(f"{live_server.url}/listening/tests/{test.pk}/").status == 404
