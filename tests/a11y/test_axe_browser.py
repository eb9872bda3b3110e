"""axe-core (WCAG 2.1 A and AA rules) on every participant task page and home page, in English and Korean,
on a 390 px phone and a desktop screen: any serious or critical violation fails. On the phone the pages fit
its width (no sideways scroll), a task page's clip, question and answer controls fit its first screen, and
every field, radio or checkbox label and button is a touch target of at least 44 px. A touch screen shows no
keyboard hint.

axe-core is fetched from the npm registry by the test install path (scripts/test, `npm pack`), never at
test time (no test reaches the internet), and is loaded into the page by the test only."""

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.a11y.conftest import DESKTOP, LANGUAGES, PHONE, context_for, set_language_cookie, speaking
from tests.browser import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / ".cache" / "axe-core" / "axe.min.js"
FAILING_IMPACTS = {"serious", "critical"}
TOUCH_TARGET = 44
# Controls a finger must hit: fields, the labels of radios and checkboxes, buttons (not text-like link buttons).
TOUCHED = ("main input[type=text], main textarea, main select, main label:has(> input[type=radio]), "
           "main label:has(> input[type=checkbox]), main button:not(.link-button)")


def run_axe(page) -> list[dict]:
    # Through the DevTools protocol, as tests/browser.py waits: the pages' Content-Security-Policy refuses an
    # inline <script>, and the test should see the pages with their policy.
    page.evaluate(AXE.read_text(encoding="utf-8"))
    # A new item fades in (.arrive): its text is half transparent until the animation ends.
    page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished)).then(() => true)")
    result = page.evaluate("""() => axe.run(document, {
        runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]},
        resultTypes: ["violations"],
    }).then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                         targets: v.nodes.map(n => n.target.join(" ")).slice(0, 5)})))""")
    return result


def beyond_first_screen(page, selectors: list[str]) -> list[str]:
    """Each element matched by `selectors` that is not wholly inside the first screen (the page as loaded,
    not scrolled), with its box."""
    found = []
    for selector in selectors:
        boxes = page.evaluate("""(selector) => [...document.querySelectorAll(selector)].map((e) => {
            const r = e.getBoundingClientRect(); return [r.top, r.bottom, e.outerHTML.slice(0, 80)]; })""", selector)
        assert boxes, f"nothing matches {selector} on {page.url}"
        found += [f"{selector} {text!r} spans {top:.0f}-{bottom:.0f} px" for top, bottom, text in boxes
                  if top < 0 or bottom > PHONE["height"]]
    return found


def small_targets(page) -> list[str]:
    return page.evaluate("""([selector, least]) => [...document.querySelectorAll(selector)]
        .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== "hidden")
        .map((e) => [e.getBoundingClientRect().height, e.outerHTML.slice(0, 80)])
        .filter(([height]) => height < least - 0.5).map(([height, text]) => `${height.toFixed(0)} px: ${text}`)""",
                         [TOUCHED, TOUCH_TARGET])


@pytest.mark.parametrize("language", LANGUAGES)
def test_participant_pages_have_no_serious_axe_violation_at_phone_and_desktop_width(
        language, participant_pages, browser, login, live_server):
    assert AXE.exists(), f"{AXE} is missing: scripts/test fetches it (npm pack axe-core)"
    impacts, serious, widths = Counter(), [], {}
    off_screen, small = [], []
    for viewport in (PHONE, DESKTOP):
        for user in dict.fromkeys(user for _name, user, _path, _first in participant_pages):
            context = context_for(browser, language=language, viewport=viewport)
            set_language_cookie(context, live_server.url, language)
            page = context.new_page()
            login(page, speaking(user, language))
            for name, owner, path, first_screen in participant_pages:
                if owner != user:
                    continue
                page.goto(live_server.url + path)
                for violation in run_axe(page):
                    impacts[violation["impact"]] += 1
                    if violation["impact"] in FAILING_IMPACTS:
                        serious.append(f"{name} at {viewport['width']} px: {json.dumps(violation, ensure_ascii=False)}")
                if viewport is PHONE:
                    widths[name] = page.evaluate("document.documentElement.scrollWidth")
                    off_screen += [f"{name}: {what}" for what in beyond_first_screen(page, first_screen)]
                    small += [f"{name}: {what}" for what in small_targets(page)]
            context.close()
    print(f"axe violations ({language}) by impact: {dict(impacts)}; page widths at 390 px: {widths}")
    assert not serious, "serious or critical axe violations:\n" + "\n".join(serious)
    assert not off_screen, "not on the first phone screen (390x844):\n" + "\n".join(off_screen)
    assert not small, f"touch targets under {TOUCH_TARGET} px on a phone:\n" + "\n".join(small)
    wide = {name: width for name, width in widths.items() if width > PHONE["width"]}
    assert not wide, f"pages wider than a 390 px phone (they scroll sideways): {wide}"


# An option as annotators write them: a whole Korean sentence, longer than a phone's field is wide.
LONG_KOREAN_OPTION = "화자가 두 번째 문장에서 말한 장소는 서울역 근처에 있는 아주 오래된 시립 도서관이에요"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_kmmau_author_form_fits_one_phone_screen_with_long_korean_options(
        language, participant_pages, annotator, browser, login, live_server):
    path = next(path for name, _user, path, _first in participant_pages if name == "kmmau author")
    first_screen = next(first for name, _user, _path, first in participant_pages if name == "kmmau author")
    context = context_for(browser, language=language, viewport=PHONE)
    page = context.new_page()
    login(page, speaking(annotator, language))
    page.goto(live_server.url + path)
    play_to_the_end(page)
    for field in ["#q-text"] + [f"#q-option{i}" for i in range(4)]:
        page.fill(field, LONG_KOREAN_OPTION)
    page.evaluate("document.fonts.ready.then(() => true)")  # measured with the Hangul web font drawn
    width = page.evaluate("document.documentElement.scrollWidth")
    off_screen, small = beyond_first_screen(page, first_screen), small_targets(page)
    context.close()
    assert width <= PHONE["width"], f"the author form is {width} px wide on a {PHONE['width']} px phone"
    assert not off_screen, "not on the first phone screen (390x844):\n" + "\n".join(off_screen)
    assert not small, f"touch targets under {TOUCH_TARGET} px:\n" + "\n".join(small)


# Wording that only makes sense with a keyboard, in either language ("keys 1-6", "press R", "(Enter)",
# "1~6 키", "R을 다시 누르세요").
KEYBOARD_WORDING = re.compile(r"\b(keys?|press|Enter|Ctrl)\b|(?<![가-힣])키(?=[를로\s)]|$)|[A-Z]을 다시 누르", re.IGNORECASE)


def keyboard_hints_shown(page) -> list[str]:
    """Text a person sees on the page that speaks of keys, and every visible <kbd>."""
    seen = page.evaluate("""() => [...document.querySelectorAll("main kbd")].filter((e) => e.getClientRects().length)
        .map((e) => `<kbd>${e.textContent}</kbd>`).concat(document.querySelector("main").innerText.split("\\n"))""")
    return [line for line in seen if line.startswith("<kbd>") or KEYBOARD_WORDING.search(line)]


def play_to_the_end(page):
    page.evaluate("document.getElementById('clip-audio').play()")
    wait_until(page, "document.getElementById('clip-audio').ended")
    page.wait_for_timeout(300)  # the gate's answer unlocks the controls


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_touch_screen_shows_no_keyboard_hint_on_the_task_pages(
        language, participant_pages, browser, login, live_server):
    shown = []
    for user in dict.fromkeys(user for name, user, _path, first in participant_pages if first or "answer" in name):
        context = context_for(browser, language=language, viewport=PHONE)  # is_mobile and has_touch
        page = context.new_page()
        login(page, speaking(user, language))
        for name, owner, path, first_screen in participant_pages:
            if owner != user or not (first_screen or "answer" in name):
                continue
            page.goto(live_server.url + path)
            assert page.evaluate("matchMedia('(hover: none), (pointer: coarse)').matches"), "not a touch screen"
            if name in ("rating", "kmmau review", "kmmau author"):
                play_to_the_end(page)  # the status line then says what to do next
            if name in ("verification review", "kmmau review"):
                page.tap("#reject")  # no reason chosen: the page says what to do
                shown += [f"{name}, rejecting: {line}" for line in keyboard_hints_shown(page)]
            if name == "kmmau review":
                page.tap("#edit-toggle")
                shown += [f"{name}, editing: {line}" for line in keyboard_hints_shown(page)]
            shown += [f"{name}: {line}" for line in keyboard_hints_shown(page)]
        context.close()
    assert not shown, "keyboard hints on a touch screen:\n" + "\n".join(shown)
