"""The pages work in Chromium under the Content-Security-Policy and the browser reports no violation: the
review page with its image, the listening page, the baseline page, the agents filter and an htmx-polled
job page. A page whose behaviour was blocked would fail its step here, not only log a console error."""

import subprocess

import pytest
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from apps.listening.models import Rating
from apps.verification.models import BaselineAnswer, ItemStatus, Review, VerificationItem
from apps.verification.services import create_baseline
from tests.browser import wait_until
from tests.verification.conftest import record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def csp_violations(page):
    """Every CSP violation the page reports, from its console and its securitypolicyviolation events."""
    console = []
    page.on("console", lambda m: console.append(m.text) if "Content Security Policy" in m.text else None)
    # Init scripts run through the DevTools protocol, outside the page's policy.
    page.add_init_script("""window.__csp = [];
        document.addEventListener('securitypolicyviolation',
            (e) => window.__csp.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));""")

    def read():
        return console + page.evaluate("window.__csp || []")

    return read


def test_the_review_page_shows_its_image_and_takes_keys_under_the_csp(hpsu, make_project, annotator, page, login,
                                                                         live_server, csp_violations):
    image = hpsu.media / "Images/p1.png"
    image.parent.mkdir(parents=True)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=32x24", "-frames:v", "1",
                    "-c:v", "png", "-f", "image2", str(image)], check=True)
    project = make_project(records=[record("p1", image_path="Images/p1.png")])
    login(page, annotator)
    page.goto(f"{live_server.url}/verification/projects/{project.pk}/review/")
    wait_until(page, "document.querySelector('img.verification-visual')?.naturalWidth === 32")
    assert page.evaluate("getComputedStyle(document.querySelector('img.verification-visual')).maxWidth") == "100%"
    page.keyboard.press("a")  # review.js, a static file, handles the key
    page.locator("#nothing-left").wait_for()
    assert Review.objects.get(annotator=annotator).decision == "approve"
    assert csp_violations() == []


def test_the_listening_page_plays_and_rates_under_the_csp(make_test, listener, page, login, live_server, csp_violations):
    test = make_test(2)
    login(page, listener)
    page.goto(f"{live_server.url}/listening/tests/{test.pk}/")
    page.check("input[name=agree]")
    page.click("button[type=submit]:has-text('Start')")
    page.wait_for_url(f"{live_server.url}/listening/tests/{test.pk}/rate/")
    assert page.evaluate("getComputedStyle(document.querySelector('.acr')).display") == "grid"  # rate.css loaded
    box = page.locator("#clip-audio").bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + box["height"] / 2)
    wait_until(page, "!document.querySelector(\"button[data-score='4']\").disabled", timeout=15000)
    with page.expect_navigation():
        page.keyboard.press("4")
    assert Rating.objects.get().score == 4
    assert csp_violations() == []


def test_the_baseline_page_times_the_answer_from_its_static_script(make_project, annotator, page, login, live_server,
                                                                    csp_violations):
    project = make_project(1)
    VerificationItem.objects.filter(project=project).update(status=ItemStatus.ACCEPTED, settled_at=timezone.now())
    session = create_baseline(project=project, name="Baseline", size=1)
    login(page, annotator)
    page.goto(f"{live_server.url}/verification/baselines/{session.pk}/")
    page.wait_for_timeout(300)
    page.locator("input[name=choice]").first.check()
    with page.expect_navigation():
        page.click("#baseline-form button[type=submit]")
    assert BaselineAnswer.objects.get().seconds_spent >= 0.2
    assert csp_violations() == []


def test_the_agents_filter_submits_on_change_and_a_job_page_polls_with_htmx(admin, page, login, live_server,
                                                                             csp_violations):
    login(page, admin)
    page.goto(f"{live_server.url}/agents/")
    with page.expect_navigation():
        page.select_option("#status", index=1)
    assert "status=" in page.url
    job = Job.objects.create(kind="listening.import", title="Import 'csp'", status=JobStatus.RUNNING, total=10,
                             message="Checking", created_by=admin, started_at=timezone.now())
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    Job.objects.filter(pk=job.pk).update(done=7, message="Storing audio")
    page.get_by_text("Storing audio").first.wait_for(timeout=10000)  # htmx fetched and swapped the progress
    assert csp_violations() == []


@pytest.mark.parametrize("path", [
    "/", "/verification/", "/listening/", "/agents/", "/jobs/", "/consultations/", "/transfer/", "/authoring/",
    "/releases/", "/admin/", "/admin/accounts/user/", "/api/docs/",
])
def test_the_main_pages_report_no_violation(path, admin, page, login, live_server, csp_violations):
    login(page, admin)
    response = page.goto(f"{live_server.url}{path}")
    assert response.status == 200
    page.wait_for_load_state("networkidle")
    assert csp_violations() == []


def test_redoc_renders_and_only_its_third_party_fonts_and_logo_are_blocked(admin, page, login, live_server, csp_violations):
    """The bundled Redoc asks for Google Fonts and a logo from its CDN: the policy keeps pages from reaching
    other hosts, so those two are blocked (the docs render in fallback fonts) and nothing else is."""
    login(page, admin)
    page.goto(f"{live_server.url}/api/redoc/")
    page.get_by_text("Sori API").first.wait_for()
    page.wait_for_load_state("networkidle")
    violations = csp_violations()
    assert violations and all("https://fonts.googleapis.com/" in v or "https://cdn.redoc.ly/" in v for v in violations)
