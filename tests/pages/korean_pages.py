"""The demo's participants and the pages each one reaches (tests/pages/interface_text.crawl), shared by the
Korean-interface test and the English-share measurement (tests/pages/english_share.py)."""

import re
from io import StringIO

from django.core.management import call_command
from django.test import Client

from tests.pages.interface_text import crawl, english_only, has_words, interface_strings

# One person per participant role, as ./scripts/demo seeds them.
PARTICIPANTS = {"listener": "listener1", "annotator": "annotator1", "expert": "expert"}
# Pages every person may meet besides their own: a page that does not exist and one they may not open.
ERROR_PAGES = ["/no-such-page/", "/jobs/"]


def seed_demo():
    call_command("seed_demo", stdout=StringIO())


def _consent(client, url, html):
    """A listener agrees to a test's instructions, which leads to its rating page."""
    if re.fullmatch(r"/listening/tests/\d+/", url) and 'name="agree"' in html:
        response = client.post(url, {"agree": "yes"}, follow=True)
        return [(response.request["PATH_INFO"], response.content.decode())]
    return []


def participant_pages(user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    pages = crawl(client, steps=_consent)
    for url in ERROR_PAGES:
        pages[url] = client.get(url).content.decode()
    return pages


def untranslated(pages: dict[str, str], names: frozenset) -> dict[str, set[str]]:
    """{english-only interface string: the pages it is on}."""
    found: dict[str, set[str]] = {}
    for url, html in pages.items():
        for text in interface_strings(html):
            if english_only(text, names=names):
                found.setdefault(text, set()).add(url)
    return found


def english_share(pages: dict[str, str], names: frozenset) -> tuple[int, int]:
    """(English-only, all) distinct interface strings with words in them, over a person's pages."""
    strings = {text for html in pages.values() for text in interface_strings(html) if has_words(text)}
    return sum(english_only(text, names=names) for text in strings), len(strings)
