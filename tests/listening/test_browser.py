"""A listener in a real browser: cannot rate before the clip has played to its end, rates with a key, and
gets the next clip."""

import pytest

from apps.listening.models import Rating
from tests.browser import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_listener_rates_with_a_key_only_after_playback_and_gets_the_next_clip(make_test, listener, page, login, live_server):
    test = make_test(3, seconds=5)  # long enough that a forced submit comes before it could have played
    login(page, listener)
    page.goto(f"{live_server.url}/listening/tests/{test.pk}/")
    assert page.get_by_text("formal or informal").count() >= 1
    page.check("input[name=agree]")
    page.click("button[type=submit]:has-text('Start')")
    page.wait_for_url(f"{live_server.url}/listening/tests/{test.pk}/rate/")

    buttons = page.locator("button[data-score]")
    assert buttons.count() == 5
    assert all(buttons.nth(i).is_disabled() for i in range(5))
    first_src = page.get_attribute("#clip-audio", "src")

    # Before playback: the key does nothing, and a forced submit is refused by the server.
    page.keyboard.press("4")
    page.wait_for_timeout(300)
    assert Rating.objects.count() == 0
    page.evaluate("document.querySelectorAll('button[data-score]').forEach(b => b.disabled = false)")
    with page.expect_navigation():
        page.click("button[data-score='2']")
    assert page.get_by_text("has not had time to play to its end").count() >= 1
    assert Rating.objects.count() == 0
    assert all(page.locator("button[data-score]").nth(i).is_disabled() for i in range(5))

    # Play it to the end; the buttons unlock, then the key rates.
    page.evaluate("document.getElementById('clip-audio').play()")
    wait_until(page, "!document.querySelector(\"button[data-score='4']\").disabled", timeout=15000)
    with page.expect_navigation():
        page.keyboard.press("4")
    rating = Rating.objects.get()
    assert rating.score == 4 and rating.listener == listener
    assert page.locator("#progress").inner_text().startswith("1 of 3 rated")
    next_src = page.get_attribute("#clip-audio", "src")
    assert next_src and next_src != first_src
    assert all(page.locator("button[data-score]").nth(i).is_disabled() for i in range(5))
