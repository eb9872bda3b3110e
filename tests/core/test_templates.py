"""Django's {# ... #} comment ends on its own line: one that spans lines is printed on the page as text (it once
showed at the top of every page, the login page included). {% comment %} is the form for several lines."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_template_comment_spans_lines():
    templates = [p for top in ("templates", "apps") for p in (ROOT / top).rglob("*.html")]
    assert templates
    open_comments = [f"{path.relative_to(ROOT)}:{number}"
                     for path in templates
                     for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                     if line.count("{#") > line.count("#}")]
    assert open_comments == [], f"{{# ... #}} spanning lines (printed as text; use {{% comment %}}): {open_comments}"
