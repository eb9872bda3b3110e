"""The checks every browser test can use (tests/browser.py) catch what they are for: Hangul drawn without the
shipped font (boxes on a machine without a CJK font), and errors a person's browser reports."""

import pytest

from tests.browser import PageWatch, hangul_tofu

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_hangul_in_the_shipped_font_passes_and_hangul_in_a_system_font_is_named(page, live_server):
    page.goto(f"{live_server.url}/login/")
    assert hangul_tofu(page) == []  # the brand's 소리, in the shipped face
    # Script-set styles are allowed by the CSP (not inline style): one text in the page's font, one forced
    # onto a system font with no Hangul, as a form control or a <pre> without the font rule would be.
    page.evaluate("""() => {
        const ok = document.createElement('p'); ok.textContent = '한국어 문장'; document.body.append(ok);
        const bad = document.createElement('p'); bad.textContent = '두부 상자'; bad.style.fontFamily = 'DejaVu Sans';
        document.body.append(bad);
        const field = document.createElement('input'); field.value = '입력'; field.style.fontFamily = 'monospace';
        document.body.append(field);
    }""")
    found = hangul_tofu(page)
    assert len(found) == 2, found
    assert found[0].startswith("<p> '두부 상자': 4 Hangul characters, drawn with DejaVu Sans") or \
        found[1].startswith("<p> '두부 상자': 4 Hangul characters, drawn with DejaVu Sans"), found
    assert any("'입력'" in line for line in found), found


def test_the_watch_names_a_failed_load_and_a_script_error(page, live_server):
    watch = PageWatch(page, live_server.url)
    page.goto(f"{live_server.url}/login/")
    watch.check()  # a clean page passes
    page.evaluate("""() => {
        const img = document.createElement('img'); img.src = '/static/no-such-file.png'; document.body.append(img);
        setTimeout(() => { throw new Error('boom in a handler'); }, 0);
    }""")
    page.wait_for_timeout(500)
    with pytest.raises(AssertionError) as failure:
        watch.check()
    text = str(failure.value)
    assert "404 for image" in text and "no-such-file.png" in text and "boom in a handler" in text
