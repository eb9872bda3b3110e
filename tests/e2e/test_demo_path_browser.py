"""The newcomer's path, as a person meets it: `./scripts/demo` (SQLite, the scripted demo provider, jobs in
process) started in a throwaway copy of the repository, then every role's main flow in Chromium, with reload
and back in the middle of a task. The rest of the suite runs on PostgreSQL; this module is where the
embedded default is driven end to end.

Everything the browser reports fails a test (tests.browser.PageWatch: console errors such as CSP
violations, 404s and invalid `pattern` attributes, script errors, failed loads), and each main page is
screenshotted under artifacts/screenshots/e2e-*.png after checking that its Hangul is drawn by the shipped
font (tests.browser.look): this machine and CI have no CJK system font, so anything else would be boxes.

One demo is started for the module (about a minute the first time: it seeds and synthesises clips)."""

import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.browser import PageWatch, look, wait_until
from tests.conftest import CHROMIUM

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
# Django's request warnings ("Not Found: /x"), which its own handler and root's both printed before.
REQUEST_WARNING = re.compile(r"^(Not Found|Bad Request|Forbidden|Unauthorized|Conflict|Method Not Allowed|Internal Server Error): ")
PASSWORDS = {name: f"{name}-sori-demo" for name in ("admin", "expert", "listener1", "annotator1", "annotator2")}
START_TIMEOUT = 900  # seconds: a cold seed on two busy cores (CI runs other test files beside this one)
# The demo decides from the environment; nothing of the test run's (its PostgreSQL, Redis, data folder,
# provider keys) may leak into it, or it would not be the newcomer's path.
LEAKS = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE", "DEBUG", "MEDIA_ROOT",
         "STATIC_ROOT", "DJANGO_ALLOW_ASYNC_UNSAFE", "PYTEST_XDIST_WORKER", "PYTEST_CURRENT_TEST")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _copy_of_the_repository(target: Path) -> None:
    """The tracked files (as a fresh clone has them, with this checkout's edits), this run's .venv linked in
    and its install stamp written, so scripts/demo finds its dependencies installed instead of reinstalling."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():  # a file deleted in the work tree is still listed by --cached
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (target / ".venv").symlink_to(sys.prefix)  # the environment running these tests
    (target / "data").mkdir()
    (target / "data" / ".pip-installed").write_text(
        hashlib.sha256((target / "pyproject.toml").read_bytes()).hexdigest() + "\n")


class Demo:
    def __init__(self, folder: Path, port: int):
        self.folder, self.url = folder, f"http://127.0.0.1:{port}"
        self.log = folder / "demo.log"
        env = {k: v for k, v in os.environ.items()
               if k not in LEAKS and not k.startswith(("SORI_", "ANTHROPIC_", "OPENAI_"))}
        with open(self.log, "wb") as out:
            # Its own process group: the demo script, its provider and runserver's reloader stop together.
            self.process = subprocess.Popen(["./scripts/demo", "--port", str(port)], cwd=folder, env=env,
                                            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                            start_new_session=True)

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for_the_first_page(self) -> float:
        started = time.monotonic()
        while time.monotonic() - started < START_TIMEOUT:
            if self.process.poll() is not None:
                raise AssertionError(f"./scripts/demo stopped ({self.process.returncode}):\n{self.output()[-4000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/login/", timeout=5) as response:
                    if response.status == 200:
                        return time.monotonic() - started
            except OSError:
                pass
            time.sleep(1)
        raise AssertionError(f"no first page within {START_TIMEOUT} s:\n{self.output()[-4000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo-checkout")
    _copy_of_the_repository(folder)
    demo = Demo(folder, _free_port())
    try:
        seconds = demo.wait_for_the_first_page()
        print(f"./scripts/demo served its first page after {seconds:.0f} s")
        yield demo
    finally:
        demo.stop()
    # What the server printed while every flow ran: no crash, no line twice, no missing favicon.
    log = demo.output()
    assert "Traceback" not in log, log[log.index("Traceback") - 2000:][:6000]
    assert "Not Found: /favicon.ico" not in log
    lines = log.splitlines()
    doubled = [a for a, b in zip(lines, lines[1:], strict=False) if a == b and REQUEST_WARNING.match(a)]
    assert not doubled, f"printed twice: {doubled[:5]}"


@pytest.fixture(scope="module")
def chromium():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.skip(f"needs Chromium at {CHROMIUM}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--autoplay-policy=no-user-gesture-required"])
        yield browser
        browser.close()


@pytest.fixture
def person(demo, chromium):
    """person("listener1") -> (page, watch): a fresh browser logged in through the login form. Each flow
    checks its watch at its end; the watch is checked again at teardown, so nothing reported is lost."""
    contexts, watches = [], []

    def log_in(username: str):
        context = chromium.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30000)
        watch = PageWatch(page, demo.url)
        watches.append(watch)
        page.goto(f"{demo.url}/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORDS[username])
        with page.expect_navigation():
            page.click("button[type=submit]")
        assert page.url == f"{demo.url}/", f"{username} could not log in: {page.locator('main').inner_text()[:300]}"
        # The demo's participants start in Korean; this path reads the pages in English, as a person may choose.
        if page.locator("html").get_attribute("lang") != "en":
            with page.expect_navigation():
                page.click(".topbar__language button[value=en]")
        return page, watch

    yield log_in
    try:
        for watch in watches:
            watch.check()
    finally:
        for context in contexts:
            context.close()


def _open(page, url: str):
    response = page.goto(url)
    assert response.status == 200, f"{url} answered {response.status}"
    return response


def _reload(page):
    response = page.reload()
    assert response.status == 200, f"reloading {page.url} answered {response.status}"


def _back(page):
    response = page.go_back()
    assert response is None or response.status < 400, f"back to {page.url} answered {response.status}"


def _wait_for_job(page, *, timeout: float = 180):
    """Reload a page that shows a job until it says Succeeded (fail on Failed or a time-out)."""
    deadline = time.monotonic() + timeout
    while True:
        text = page.locator("main").inner_text()
        assert "Failed" not in text, f"the job failed on {page.url}:\n{text[:2000]}"
        if "Succeeded" in text:
            return
        assert time.monotonic() < deadline, f"no 'Succeeded' on {page.url} after {timeout} s:\n{text[:2000]}"
        page.wait_for_timeout(1000)
        _reload(page)


def test_the_admin_sees_the_home_page_starts_a_stage_and_reads_the_leaderboard(demo, person):
    page, watch = person("admin")
    look(page, "e2e-admin-home")
    _open(page, f"{demo.url}/transfer/ground-truth/")
    look(page, "e2e-admin-ground-truth-start")
    benchmark = page.locator("select[name=benchmark] option:not([value=''])").first.get_attribute("value")
    page.select_option("select[name=benchmark]", benchmark)
    page.fill("input[name=limit]", "2")
    with page.expect_navigation():
        page.click("button:has-text('Start the review')")
    _wait_for_job(page)
    look(page, "e2e-admin-ground-truth-run")
    _reload(page)  # a finished run's page reloads as it is
    _open(page, f"{demo.url}/evaluation/leaderboard/")
    look(page, "e2e-admin-leaderboard")
    _open(page, f"{demo.url}/releases/")
    page.fill("#id_name", "demo-release-1")  # the name's pattern is checked by the browser as it is typed
    assert page.evaluate("document.getElementById('id_name').checkValidity()")
    page.fill("#id_name", "Not a name!")
    assert not page.evaluate("document.getElementById('id_name').checkValidity()")
    look(page, "e2e-admin-releases")
    watch.check()


def _follow(page, selector: str):
    """Click the first link matching `selector` (the demo's objects are reached as a person reaches them,
    not by ids guessed in the test) and check the page it opens."""
    link = page.locator(selector).first
    href = link.get_attribute("href")
    with page.expect_navigation() as navigation:
        link.click()
    assert navigation.value.status == 200, f"{href} answered {navigation.value.status}"


def test_the_admin_reads_each_workflow_s_dashboard(demo, person):
    page, watch = person("admin")
    _open(page, f"{demo.url}/listening/manage/")
    _follow(page, "main a[href*='/listening/manage/tests/']")
    look(page, "e2e-admin-listening-dashboard")  # the SVG charts, under the CSP
    _open(page, f"{demo.url}/verification/")
    _follow(page, "main a[href^='/verification/projects/'][href$='/']")
    look(page, "e2e-admin-verification-dashboard")
    _open(page, f"{demo.url}/evaluation/runs/")
    look(page, "e2e-admin-evaluation-runs")
    _follow(page, "main a[href^='/evaluation/runs/'][href$='/']:not([href$='/new/'])")
    look(page, "e2e-admin-evaluation-run")
    _follow(page, "main a[href*='/items/']")
    look(page, "e2e-admin-evaluation-item")  # the model's response in a <pre>
    _open(page, f"{demo.url}/consultations/rounds/")
    look(page, "e2e-admin-consultation-rounds")
    watch.check()


def test_a_listener_consents_and_rates_behind_the_playback_gate_through_reload_and_back(demo, person):
    page, watch = person("listener1")
    look(page, "e2e-listener-home")
    _open(page, f"{demo.url}/listening/")
    with page.expect_navigation():
        page.click("main a:has-text('Rate')")
    look(page, "e2e-listener-consent")
    page.check("input[name=agree]")
    with page.expect_navigation():
        page.click("button[type=submit]:has-text('Start')")
    assert page.url.endswith("/rate/")
    rate_url = page.url
    look(page, "e2e-listener-rate")
    first = page.locator("#clip-number").inner_text()
    assert page.locator("button[data-score='4']").is_disabled()  # the gate: play to the end first
    _reload(page)  # in the middle of a clip, before playing it
    assert page.locator("#clip-number").inner_text() == first
    page.evaluate("document.getElementById('clip-audio').play()")
    wait_until(page, "!document.querySelector(\"button[data-score='4']\").disabled", timeout=30000)
    _reload(page)  # played to the end, not yet rated: the gate stays open for this clip
    assert page.locator("#clip-number").inner_text() == first
    wait_until(page, "!document.querySelector(\"button[data-score='4']\").disabled", timeout=15000)
    with page.expect_navigation():
        page.keyboard.press("4")
    assert "rated 4" in page.locator(".messages").inner_text()
    second = page.locator("#clip-number").inner_text()
    assert second != first
    _back(page)  # back to where the first clip was rated
    _open(page, rate_url)  # and on again: the next clip, not the one rated
    assert page.locator("#clip-number").inner_text() == second
    page.evaluate("document.getElementById('clip-audio').play()")
    wait_until(page, "!document.querySelector(\"button[data-score='3']\").disabled", timeout=30000)
    with page.expect_navigation():
        page.click("button[data-score='3']")
    assert "rated 3" in page.locator(".messages").inner_text()
    watch.check()


def test_an_annotator_reviews_hpsu_items_through_reload_and_back(demo, person):
    page, watch = person("annotator1")
    look(page, "e2e-annotator-home")
    _open(page, f"{demo.url}/verification/")
    with page.expect_navigation():
        page.click("main a:has-text('Review')")
    review_url = page.url
    look(page, "e2e-annotator-hpsu-review")
    first = page.locator(".verification-item code").first.inner_text()
    _reload(page)  # the item held for this annotator is the one shown again
    assert page.locator(".verification-item code").first.inner_text() == first
    page.wait_for_timeout(300)
    page.keyboard.press("a")
    page.locator(".messages").get_by_text(f"approve on {first}").wait_for()
    second = page.locator(".verification-item code").first.inner_text()
    assert second != first
    _back(page)
    _open(page, review_url)
    assert page.locator(".verification-item code").first.inner_text() == second
    page.keyboard.press("2")  # a reason, then reject
    page.keyboard.press("r")
    page.locator(".messages").get_by_text(f"reject on {second}").wait_for()
    look(page, "e2e-annotator-hpsu-after")
    watch.check()


def test_an_annotator_reviews_kmmau_questions_an_admin_had_written(demo, person):
    admin, admin_watch = person("admin")
    _open(admin, f"{demo.url}/authoring/")
    with admin.expect_navigation():
        admin.click("main a:has-text('KMMAU demo')")
    look(admin, "e2e-admin-kmmau-set")
    admin.select_option("#make ~ form select[name=capability]", "fact_extraction")
    admin.fill("#make ~ form input[name=limit]", "2")
    with admin.expect_navigation():
        admin.click("#make ~ form button[type=submit]")
    _wait_for_job(admin)

    page, watch = person("annotator2")
    _open(page, f"{demo.url}/authoring/")
    with page.expect_navigation():
        page.click("main a:has-text('Review')")
    review_url = page.url
    assert page.get_by_text("Nothing to review").count() == 0, page.locator("main").inner_text()[:1000]
    look(page, "e2e-annotator-kmmau-review")
    first = page.locator("input[name=question]").first.get_attribute("value")
    _reload(page)
    assert page.locator("input[name=question]").first.get_attribute("value") == first
    if page.locator("#approve").is_disabled():  # the review's playback gate: play the clip to its end first
        page.evaluate("document.getElementById('clip-audio').play()")
        wait_until(page, "!document.querySelector('fieldset.review-decision').disabled", timeout=15000)
    with page.expect_navigation():
        page.click("#approve")
    assert page.get_by_text("Review saved.").count() == 1
    _back(page)
    _open(page, review_url)
    assert page.locator("input[name=question]").count() == 0 or \
        page.locator("input[name=question]").first.get_attribute("value") != first
    _open(page, review_url.replace("/review/", "/author/"))
    look(page, "e2e-annotator-kmmau-author")
    admin_watch.check()
    watch.check()


def test_the_expert_answers_a_decision_question(demo, person):
    page, watch = person("expert")
    look(page, "e2e-expert-home")
    _open(page, f"{demo.url}/consultations/inbox/")
    questions = page.locator("main a[href*='/consultations/questions/']")
    before = questions.count()
    assert before >= 1
    with page.expect_navigation():
        questions.first.click()
    look(page, "e2e-expert-question")
    page.check("input[name=option][value=A]")
    page.check("input[name=confidence][value='4']")
    # The draft is saved as the expert chooses; a person sees "Draft saved" before reaching Submit.
    page.locator("#save-status").get_by_text("Draft saved").wait_for()
    with page.expect_navigation():
        page.click("button:has-text('Submit answer')")
    assert page.locator(".messages").count() == 1, page.locator("main").inner_text()[:1000]
    _open(page, f"{demo.url}/consultations/inbox/")
    look(page, "e2e-expert-inbox")
    watch.check()
