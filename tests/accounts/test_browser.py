import pytest


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_listener_logs_in_and_sees_their_home_page(page, live_server, make_user, login):
    person = make_user("yuna", "listener")
    login(page, person)
    assert page.locator("h1").inner_text() == "Welcome, yuna"
    assert "listener" in page.locator("main").inner_text()
    assert page.locator("a[href='/jobs/']").count() == 0


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_wrong_password_keeps_you_on_the_login_page(page, live_server, make_user):
    make_user("yuna", "listener")
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "yuna")
    page.fill("#id_password", "nope")
    page.keyboard.press("Enter")
    page.locator("[role=alert]").wait_for()
    assert page.url.startswith(f"{live_server.url}/login/")
