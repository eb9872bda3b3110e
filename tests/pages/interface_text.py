"""What a person reads on Sori's pages, for the Korean-interface test and the English-share measurement.

`crawl` opens every page a signed-in person reaches by following links from their home page (and the few
steps a participant takes by form: a listener's consent); `interface_strings` takes a page's visible text
and the attribute text a screen reader reads, leaving out content, which is marked by its language
(`lang="en"` English source text, `lang="ko"` Korean content) or `data-content`, identifiers and key names (<code>, <kbd>), and scripts and styles."""

import re
from html.parser import HTMLParser
from urllib.parse import urldefrag, urlsplit

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
LATIN = re.compile(r"[A-Za-z]")
# Read as they are in either language: names of the benchmarks and the method, and the file types.
WHITELIST = {"Sori", "MOS", "KMMAU", "HPSU", "ACR", "CSV", "JSON", "JSONL", "ZIP", "WAV", "URL", "ID", "LLM", "TTS",
             "ASR", "CER", "API", "SRCC", "LCC"}

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_READ_ATTRIBUTES = ("aria-label", "title", "placeholder", "alt")


class _TextParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # per open element: is its subtree left out?
        self.strings: list[str] = []

    @property
    def skipping(self) -> bool:
        return any(self.stack)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        # <html lang> names the page's language, not content; <code> holds identifiers and <kbd> key names.
        content = tag in ("code", "kbd") or tag != "html" and (attrs.get("lang") in ("en", "ko") or "data-content" in attrs)
        skip = tag in ("script", "style") or content
        if not self.skipping and not skip:
            for name in _READ_ATTRIBUTES:
                self._add(attrs.get(name))
            if tag == "input" and attrs.get("type") in ("submit", "button"):
                self._add(attrs.get("value"))
        if tag not in _VOID:
            self.stack.append(skip)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag not in _VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not self.skipping:
            self._add(data)

    def _add(self, text):
        text = " ".join((text or "").split())
        if text:
            self.strings.append(text)


def interface_strings(html: str) -> list[str]:
    parser = _TextParser()
    parser.feed(html)
    return parser.strings


def has_words(text: str) -> bool:
    return bool(HANGUL.search(text) or LATIN.search(text))


def english_only(text: str, *, names: frozenset = frozenset()) -> bool:
    """A string with Latin letters and no Hangul that is not a name, a known acronym, a URL or a file name."""
    if HANGUL.search(text) or not LATIN.search(text):
        return False
    words = [w for w in re.split(r"[\s·:,;()/|\[\]<>–—\-+=%#'\"?!.…]+", text) if w]
    return not all(
        w in WHITELIST or w in names or not LATIN.search(w) or "://" in w or re.fullmatch(r"[\w.]+\.\w{2,4}", w)
        or re.fullmatch(r"[A-Za-z]?\d+[A-Za-z]?", w) or re.fullmatch(r"[A-Z]", w)  # numbers, option letters
        for w in words
    ) and text not in names


_NOT_PAGES = ("/logout/", "/admin/", "/api/", "/audio/", "/static/", "/jsi18n/", "/language/")
_LINK = re.compile(r"""(?:href|hx-get)="([^"]+)\"""")


def crawl(client, *, start: str = "/", limit: int = 120, steps=()) -> dict[str, str]:
    """{url: html} of every page reached from `start` by following links (one or two variants of each path's
    query string), plus the pages `steps(client, url, html)` returns for the form steps a person takes."""
    pages: dict[str, str] = {}
    queue, seen, variants = [start], {start}, {}
    while queue and len(pages) < limit:
        url = queue.pop(0)
        response = client.get(url)
        if response.status_code in (301, 302):
            target = response["Location"]
            if target not in seen and _followable(target):
                seen.add(target)
                queue.append(target)
            continue
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        html = response.content.decode()
        pages[url] = html
        for step_url, step_html in steps(client, url, html) if steps else []:
            pages[step_url] = step_html
        for href in _LINK.findall(html):
            href = urldefrag(href.replace("&amp;", "&"))[0]
            parts = urlsplit(href)
            if not href or parts.netloc or not _followable(parts.path):
                continue
            if parts.query:
                variants[parts.path] = variants.get(parts.path, 0) + 1
                if variants[parts.path] > 2:
                    continue
            if href not in seen:
                seen.add(href)
                queue.append(href)
    return pages


def _followable(path: str) -> bool:
    return path.startswith("/") and not path.startswith(_NOT_PAGES) and not re.search(r"\.(zip|csv|json|wav)$", path)
