"""Hangul renders on a machine without CJK fonts: the page loads the Korean web font shipped in static/."""

from pathlib import Path

import pytest
from django.conf import settings

from tests.browser import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_shipped_korean_web_font_draws_hangul(page, login, listener, live_server, tmp_path):
    font_dir = Path(settings.BASE_DIR) / "static" / "fonts" / "noto-sans-kr"
    assert (font_dir / "LICENSE").read_text().count("SIL Open Font License") >= 1
    login(page, listener)
    page.goto(f"{live_server.url}/")
    wait_until(page, "document.fonts.status === 'loaded'")
    page.evaluate("document.fonts.load('16px \"Sori Hangul\"', '소리')")
    wait_until(page, "document.fonts.check('16px \"Sori Hangul\"', '소리')")
    loaded = page.evaluate("""[...document.fonts].filter(f => f.family.replace(/"/g, '') === 'Sori Hangul')
                                 .map(f => f.status)""")
    assert loaded == ["loaded"]
    # The brand's Hangul is drawn wider than an empty box would be: the glyphs have real shapes.
    width = page.evaluate("""() => { const c = document.createElement('canvas').getContext('2d');
        c.font = '32px "Sori Hangul"'; return c.measureText('소리').width; }""")
    assert width > 40
    page.screenshot(path=str(tmp_path / "hangul.png"))
