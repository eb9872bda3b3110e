"""Browser-test helpers that work under Sori's Content-Security-Policy.

Playwright's wait_for_function polls its predicate with eval() inside the page, which the policy (no
'unsafe-eval') refuses; page.evaluate runs through the DevTools protocol, outside the policy. So waits
poll with page.evaluate, and browser tests see the pages exactly as users do, policy included.

PageWatch fails a test on what a person's browser reports (console errors, script errors, failed loads), and
look() saves a page's screenshot after checking that its Hangul is drawn by the shipped font."""

import re
import time
from pathlib import Path


def wait_until(page, expression: str, *, timeout: float = 15000, interval: float = 50) -> None:
    """Wait until the JavaScript `expression` (or "() => ..." function) is truthy in the page, like
    page.wait_for_function; raise TimeoutError after `timeout` milliseconds."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:.0f} ms for {expression}")
        page.wait_for_timeout(interval)


# --- what a person would see go wrong ---------------------------------------------------------------------

class PageWatch:
    """Collects what goes wrong in a page as a person's browser meets it: console errors (CSP violations,
    resources that failed to load, invalid `pattern` attributes, ...), uncaught script errors, and same-origin
    responses of 400 or more (a subresource's, or a page's 500). `check()` fails the test naming each one.

        watch = PageWatch(page, base_url)
        ... drive the page ...
        watch.check()
    """

    def __init__(self, page, origin: str):
        self.origin = origin.rstrip("/")
        self.problems: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        page.on("response", self._response)

    def _console(self, message) -> None:
        if message.type == "error":
            where = message.location.get("url", "") if message.location else ""
            self.problems.append(f"console error: {message.text}" + (f" (at {where})" if where else ""))

    def _response(self, response) -> None:
        if not response.url.startswith(self.origin + "/") or response.status < 400:
            return
        # A page a flow navigates to is checked by the flow itself, except a crash, which is never expected.
        if response.request.resource_type != "document" or response.status >= 500:
            self.problems.append(f"{response.status} for {response.request.resource_type} {response.url}")

    def check(self) -> None:
        problems, self.problems = self.problems, []
        assert not problems, "the browser reported:\n" + "\n".join(problems)


# Hangul jamo, compatibility jamo, extended jamo and syllables: what the shipped face must draw on a machine
# without a CJK font (static/css/sori.css gives "Sori Hangul" a unicode-range covering these).
HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7a3]")
# The name the shipped woff2 (static/fonts/noto-sans-kr) carries inside: the browser reports a font by it,
# whatever the CSS calls it.
SHIPPED_HANGUL_FACE = "Noto Sans KR"


def hangul_tofu(page) -> list[str]:
    """Every rendered text holding Hangul whose Hangul the shipped web font does not draw (so a machine
    without a CJK font shows boxes): empty when all is well. It asks Chromium which fonts drew the text of
    each node (CDP CSS.getPlatformFontsForNode, exact and cheap), across form controls' own shadow trees
    (input values, placeholders, the chosen option), <pre> and SVG text. Text that is not rendered (hidden,
    <title>, the closed options of a select) has no fonts and is left out."""
    page.evaluate("document.fonts.ready.then(() => true)")  # web fonts that are loading swap in first
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        found = []
        stack = [root]
        while stack:
            node = stack.pop()
            children = node.get("children", [])
            stack.extend(children + node.get("shadowRoots", []) + ([node["contentDocument"]] if "contentDocument" in node else []))
            if node.get("nodeType") != 1:
                continue
            own = "".join(c.get("nodeValue", "") for c in children if c.get("nodeType") == 3)
            wanted = len(HANGUL.findall(own))
            if not wanted:
                continue
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
            if not fonts:
                continue
            drawn = sum(f["glyphCount"] for f in fonts if f["isCustomFont"] and f["familyName"].startswith(SHIPPED_HANGUL_FACE))
            if drawn < wanted:
                used = ", ".join(f"{f['familyName']} ({f['glyphCount']})" for f in fonts)
                found.append(f"<{node['nodeName'].lower()}> {own.strip()[:60]!r}: {wanted} Hangul characters, drawn with {used}")
        return found
    finally:
        cdp.detach()


SCREENSHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"


def look(page, name: str) -> Path:
    """A full-page screenshot kept as a CI artefact under artifacts/screenshots/ (git-ignored; its path is
    printed), after checking that every Hangul text on the page is drawn by the shipped font."""
    tofu = hangul_tofu(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")
    assert not tofu, f"Hangul drawn without the shipped font on {page.url} (see {path}):\n" + "\n".join(tofu)
    return path
