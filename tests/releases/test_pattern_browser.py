"""HTML `pattern` attributes are compiled by Chromium with the `v` flag, where `[a-z0-9-]` is a syntax
error: the browser then logs "Pattern attribute value ... is not a valid regular expression" and never checks
the field. Every pattern in the templates must compile that way, and the release name's is checked as typed."""

import re
from pathlib import Path

import pytest
from django.conf import settings

from tests.browser import PageWatch

pytestmark = [pytest.mark.browser]

PATTERN = re.compile(r"""\bpattern=(["'])(.*?)\1""")


def _template_patterns() -> list[tuple[str, str]]:
    base = Path(settings.BASE_DIR)
    found = []
    for path in sorted([*base.glob("templates/**/*.html"), *base.glob("apps/*/templates/**/*.html")]):
        for match in PATTERN.finditer(path.read_text(encoding="utf-8")):
            found.append((str(path.relative_to(base)), match.group(2).replace("&quot;", '"').replace("&amp;", "&")))
    return found


def test_every_pattern_in_the_templates_compiles_as_chromium_compiles_it(page):
    patterns = _template_patterns()
    assert any("releases/list.html" in where for where, _ in patterns)  # the scan finds them
    for where, pattern in patterns:
        # As the HTML standard builds it: ^(?:pattern)$ with the v flag.
        error = page.evaluate("p => { try { new RegExp('^(?:' + p + ')$', 'v'); return null } "
                              "catch (e) { return e.message } }", pattern)
        assert error is None, f"{where}: pattern {pattern!r} is invalid in the browser: {error}"


@pytest.mark.django_db(transaction=True)
def test_the_release_name_is_checked_by_the_browser_as_it_is_typed(page, login, admin, live_server):
    watch = PageWatch(page, live_server.url)
    login(page, admin)
    page.goto(f"{live_server.url}/releases/")
    valid = "document.getElementById('id_name').checkValidity()"
    page.fill("#id_name", "komos-demo-2")
    assert page.evaluate(valid)
    page.fill("#id_name", "KOMOS demo")
    assert not page.evaluate(valid)
    page.fill("#id_name", "-leading-dash")
    assert not page.evaluate(valid)
    watch.check()  # an invalid pattern is reported on the console when the field is checked
