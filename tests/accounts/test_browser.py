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


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_admin_opens_a_workflow_menu_with_the_keyboard(page, live_server, admin, login):
    login(page, admin)
    speech = page.locator("nav a[href='/speech/']")
    assert not speech.is_visible()  # closed until asked for
    page.locator("[data-group=spoken_qa] summary").focus()
    page.keyboard.press("Enter")
    assert speech.is_visible()
    links = page.locator("[data-group=spoken_qa] a").all_inner_texts()
    assert links.index("Source benchmarks") < links.index("Speech") < links.index("Releases")
    speech.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/speech/")
    assert page.locator("[data-group=spoken_qa] summary.menu__current").count() == 1


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_one_workflow_menu_is_open_at_a_time_and_escape_closes_it(page, live_server, admin, login):
    login(page, admin)
    spoken, system = page.locator("[data-group=spoken_qa] details"), page.locator("[data-group=system] details")
    page.locator("[data-group=spoken_qa] summary").click()
    page.locator("[data-group=system] summary").click()
    page.wait_for_function("!document.querySelector('[data-group=spoken_qa] details').open")
    assert system.evaluate("d => d.open") and not spoken.evaluate("d => d.open")
    page.keyboard.press("Escape")
    page.wait_for_function("!document.querySelector('[data-group=system] details').open")
    assert page.evaluate("document.activeElement.textContent") == "System"
