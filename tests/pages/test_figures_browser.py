"""Every figure draws under the Content-Security-Policy as it was meant to (apps/core/svg.py): in Chromium the
listening dashboard and the leaderboard report no console error and no CSP violation, a bar is filled in
colour (not the black an unstyled rect gets), a 95 % interval and a reference line have a visible stroke, and
every label, the longest and the Korean ones included, lies inside its figure."""

import pytest

from apps.listening.models import Clip
from tests.evaluation.boards import MODELS, paper_board
from tests.listening.conftest import rate_via_services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_SYSTEM = "espeak-ng+noise"
KOREAN_SYSTEM = "한국어 음성 합성 시스템 (기본 목소리)"


@pytest.fixture
def console_problems(page):
    """Console errors and CSP violations the page reports (securitypolicyviolation events included)."""
    seen = []

    def note(message):
        # The missing favicon is its own point of issue 34 (a 404 on every page), not a figure's problem.
        if message.location.get("url", "").endswith("/favicon.ico"):
            return
        if message.type == "error" or "Content Security Policy" in message.text:
            seen.append(message.text)

    page.on("console", note)
    page.add_init_script("""window.__csp = [];
        document.addEventListener('securitypolicyviolation',
            (e) => window.__csp.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));""")
    return lambda: seen + page.evaluate("window.__csp || []")


# For each figure: the texts whose box reaches outside the figure's box on screen (half a pixel of slack).
OUTSIDE = """() => [...document.querySelectorAll('svg.figure')].flatMap((svg) => {
    const box = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].map((t) => [t.textContent, t.getBoundingClientRect()])
      .filter(([, r]) => r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
                         || r.bottom > box.bottom + 0.5)
      .map(([text]) => `${svg.getAttribute('aria-label')}: ${text}`);
})"""


def _paint(page, selector: str) -> dict:
    return page.evaluate("""(selector) => { const s = getComputedStyle(document.querySelector(selector));
        return {fill: s.fill, stroke: s.stroke, width: parseFloat(s.strokeWidth), dash: s.strokeDasharray,
                opacity: parseFloat(s.opacity)}; }""", selector)


def test_the_listening_dashboard_draws_its_bars_intervals_and_labels_under_the_csp(
        make_test, listeners, admin, page, login, live_server, console_problems):
    test = make_test(9)
    clips = list(test.clips.regular().order_by("pk"))
    for i, clip in enumerate(clips):  # three systems: a long name, a Korean one, a short one
        Clip.objects.filter(pk=clip.pk).update(system=(LONG_SYSTEM, KOREAN_SYSTEM, "sys")[i % 3])
    for i, user in enumerate(listeners[:5]):
        rate_via_services(test, user, score_for=lambda clip, i=i: 1 + (clip.pk + i) % 5)
    login(page, admin)

    response = page.goto(f"{live_server.url}/listening/manage/tests/{test.pk}/")

    assert response.status == 200
    page.wait_for_load_state("networkidle")
    assert console_problems() == []
    bar = _paint(page, "svg.figure rect.bar")
    assert bar["fill"] not in ("rgb(0, 0, 0)", "none")
    ci = _paint(page, "svg.figure line.ci")
    assert ci["stroke"] not in ("none", "rgba(0, 0, 0, 0)") and ci["width"] >= 1
    ref = _paint(page, "svg.figure line.ref")
    assert ref["stroke"] != "none" and ref["dash"] != "none"
    labels = page.evaluate("[...document.querySelectorAll('svg.figure text')].map((t) => t.textContent)")
    assert LONG_SYSTEM in labels and KOREAN_SYSTEM in labels, str(labels)  # whole, not cut to fit
    assert page.evaluate(OUTSIDE) == []


def test_the_leaderboard_figures_keep_every_label_inside_under_the_csp(admin, page, login, live_server, console_problems):
    # The longest model name is a Korean one: the legend and the rank charts must make room for it.
    paper_board(admin, models=[*MODELS[:7], "HyperCLOVA X 8B Omni 한국어 음성 대화 모델"])
    login(page, admin)

    response = page.goto(f"{live_server.url}/evaluation/leaderboard/")

    assert response.status == 200
    page.wait_for_load_state("networkidle")
    assert console_problems() == []
    assert page.locator("#gap-figure").count() == 1 and page.locator("svg.figure[id^=ranks-]").count() >= 1
    bar = _paint(page, "#gap-figure rect.bar")
    assert bar["fill"] not in ("rgb(0, 0, 0)", "none")
    slope = _paint(page, "svg.figure[id^=ranks-] line.slope")
    assert slope["stroke"] != "none" and slope["width"] >= 1
    assert page.evaluate(OUTSIDE) == []
