"""A Content-Security-Policy on every page, so that one value slipping through escaping still runs no code:
scripts only from Sori's own files, no inline script, no eval, no inline style; and no template relies on
anything the policy forbids (inline <script>, on* handlers, javascript: links, style attributes)."""

import re
from pathlib import Path

import pytest
from django.conf import settings

TEMPLATE_DIRS = [Path(settings.BASE_DIR) / "templates", *sorted(Path(settings.BASE_DIR).glob("apps/*/templates"))]


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in header.split(";") if part.strip())}


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/login/", "/", "/verification/", "/listening/", "/agents/", "/api/docs/", "/no-such-page/"])
def test_every_page_forbids_inline_script_and_eval(url, admin, client_for):
    response = client_for(admin).get(url)
    assert response.status_code in (200, 302, 404)
    directives = policy(response)
    assert directives["script-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]
    assert not any("'unsafe-eval'" in values for values in directives.values())


@pytest.mark.django_db
def test_sori_pages_allow_no_inline_style_and_only_the_api_docs_do(admin, client_for):
    client = client_for(admin)
    assert policy(client.get("/verification/"))["style-src"] == ["'self'"]
    # The bundled Swagger UI sets inline styles; it still runs only its own files (the split view serves
    # its start-up script from Sori's origin).
    docs = client.get("/api/docs/")
    assert policy(docs)["style-src"] == ["'self'", "'unsafe-inline'"]
    assert "<script>" not in docs.content.decode()


def _templates():
    for folder in TEMPLATE_DIRS:
        yield from folder.rglob("*.html")


def test_no_template_needs_what_the_policy_forbids():
    forbidden = {
        "inline <script>": re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I),
        "inline event handler": re.compile(r"<[^>]*\son[a-z]+\s*=", re.I),
        "javascript: link": re.compile(r"javascript:", re.I),
        "style attribute": re.compile(r"<[^>]*\sstyle\s*=", re.I),
        "<style> block": re.compile(r"<style[\s>]", re.I),
        "htmx eval (hx-on, js: values)": re.compile(r"hx-on|hx-vals=[\"']js:|hx-vars", re.I),
    }
    found = [
        f"{path.relative_to(settings.BASE_DIR)}: {what}"
        for path in _templates() for what, pattern in forbidden.items() if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
    assert len(list(_templates())) > 50  # the scan saw the project's templates
