"""Sori's one way to draw a figure: inline SVG made on the server (no plotting library, no script, no CDN).

Why it looks like this:
- The Content-Security-Policy refuses inline styles (style="" and <style>, config/settings.py), so every
  colour, stroke and dash is a presentation attribute (fill="...", stroke="..."), which the policy does not
  govern. Each element also carries its role as a class (bar, ci, ref, axis, ...) for the stylesheet and tests.
- Text takes its font from static/css/sori.css (`svg text`: the shipped "Sori Hangul" face first), so Korean
  labels draw on a machine without CJK fonts; no font-family attribute here competes with it.
- The server cannot know the browser's font, so a label's width is an upper estimate (text_width), every
  text's box is tracked, and the viewBox grows to hold them all: no label is cut at the figure's edge. A label
  longer than the room a figure gives it is shortened with "…" and keeps its full text in a <title>.

Every text is escaped here; Figure.render() returns markup safe to put in a template."""

from __future__ import annotations

import unicodedata

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

FONT_SIZE = 11
INK = "#44403c"  # text
# What each role looks like, as presentation attributes (see the module docstring for why not CSS).
ROLES: dict[str, dict[str, str]] = {
    "axis": {"stroke": "#a8a29e"},
    "tick": {"stroke": "#a8a29e"},
    "zero": {"stroke": "#78716c"},
    "ref": {"stroke": "#a8a29e", "stroke-dasharray": "4 3"},
    "bar": {"fill": "#2563eb"},
    "dot": {"fill": "#2563eb", "fill-opacity": "0.6"},
    "ci": {"stroke": "#1e3a8a", "stroke-width": "2"},
    "swatch": {},
    "slope": {"stroke-width": "2"},
}
# Eight distinguishable colours (Okabe-Ito, readable by colour-blind readers), repeated after eight series.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]

# Widths in em, on the wide side of common sans faces (DejaVu Sans, Chromium's fallback on Linux, is among
# the widest), so an estimate is never shorter than the drawn text.
_NARROW = set("ijlI.,:;'|!`")
_SEMI = set("frt()[]{}- /\"")
_WIDE = set("MWmw@%")


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def text_width(text: str, size: float = FONT_SIZE, *, bold: bool = False) -> float:
    """An upper estimate of `text`'s drawn width in px: Hangul and other wide characters take a full em."""
    em = 0.0
    for ch in text:
        if unicodedata.east_asian_width(ch) in ("W", "F"):
            em += 1.0
        elif ch in _NARROW:
            em += 0.34
        elif ch in _SEMI:
            em += 0.48
        elif ch in _WIDE or ch.isupper():
            em += 1.0 if ch in _WIDE else 0.8
        else:
            em += 0.66
    return em * size * (1.1 if bold else 1.0)


def shorten(text: str, max_width: float, size: float = FONT_SIZE, *, bold: bool = False) -> str:
    """`text` cut to fit `max_width` px with an ellipsis, or unchanged when it fits."""
    if text_width(text, size, bold=bold) <= max_width:
        return text
    while text and text_width(text + "…", size, bold=bold) > max_width:
        text = text[:-1]
    return text.rstrip() + "…"


def _attrs(values: dict) -> str:
    return "".join(f' {k}="{escape(v)}"' for k, v in values.items() if v is not None and v != "")


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


class Figure:
    """Collects shapes and texts, then renders an <svg> whose viewBox holds all of them.

    `width` and `height` are the room the layout planned; render() widens it where a text reaches further.
    Shapes take a role (ROLES) and may override its colour (fill/stroke) for a series."""

    def __init__(self, title: str, width: float, height: float, *, figure_id: str = ""):
        self.title, self.figure_id = title, figure_id
        self.min_x, self.min_y, self.max_x, self.max_y = 0.0, 0.0, float(width), float(height)
        self.parts: list[str] = []

    def _grow(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.min_x, self.min_y = min(self.min_x, x0), min(self.min_y, y0)
        self.max_x, self.max_y = max(self.max_x, x1), max(self.max_y, y1)

    def _shape(self, tag: str, role: str, geometry: dict, title: str | None, colours: dict) -> None:
        attrs = {"class": role, **{k: _num(v) for k, v in geometry.items()}, **ROLES.get(role, {}),
                 **{k: v for k, v in colours.items() if v}}
        inner = f"<title>{escape(title)}</title></{tag}>" if title else None
        self.parts.append(f"<{tag}{_attrs(attrs)}>{inner}" if inner else f"<{tag}{_attrs(attrs)}/>")

    def line(self, x1, y1, x2, y2, *, role: str = "axis", stroke: str | None = None, title: str | None = None):
        self._grow(min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))
        self._shape("line", role, {"x1": x1, "y1": y1, "x2": x2, "y2": y2}, title, {"stroke": stroke})

    def rect(self, x, y, width, height, *, role: str = "bar", fill: str | None = None, title: str | None = None):
        self._grow(x, y, x + width, y + height)
        self._shape("rect", role, {"x": x, "y": y, "width": width, "height": height}, title, {"fill": fill})

    def circle(self, cx, cy, r, *, role: str = "dot", fill: str | None = None, title: str | None = None):
        self._grow(cx - r, cy - r, cx + r, cy + r)
        self._shape("circle", role, {"cx": cx, "cy": cy, "r": r}, title, {"fill": fill})

    def text(self, x, y, text: str, *, anchor: str = "start", max_width: float | None = None, size: float = FONT_SIZE,
             bold: bool = False, rotate: bool = False, role: str = "label", full: str | None = None) -> float:
        """A text with its baseline at y; shortened to `max_width` px (full text in its <title>) if given.
        `full`: the whole text for the <title> when the caller shortened a part itself (a name before a rank).
        `rotate` turns it a quarter anticlockwise around (x, y) (a y-axis title). Returns its estimated width."""
        shown = shorten(text, max_width, size, bold=bold) if max_width else text
        full = full if full and full != shown else text
        width = text_width(shown, size, bold=bold)
        start = {"start": 0.0, "middle": width / 2, "end": width}[anchor]
        if rotate:
            self._grow(x - size, y - width + start, x + 0.3 * size, y + start)
        else:
            self._grow(x - start, y - size, x - start + width, y + 0.3 * size)
        attrs = {"class": role, "x": _num(x), "y": _num(y), "text-anchor": anchor, "font-size": _num(size),
                 "fill": INK, "font-weight": "bold" if bold else None,
                 "transform": f"rotate(-90 {_num(x)} {_num(y)})" if rotate else None}
        tip = f"<title>{escape(full)}</title>" if shown != full else ""
        self.parts.append(f"<text{_attrs(attrs)}>{tip}{escape(shown)}</text>")
        return width

    def render(self) -> SafeString:
        pad = 2  # a little room so a glyph's overhang is not cut
        x0, y0 = self.min_x - pad if self.min_x < 0 else 0, self.min_y - pad if self.min_y < 0 else 0
        width, height = self.max_x + pad - x0, self.max_y + pad - y0
        # width and height give the natural size; sori.css lets it shrink to its column (.figure).
        head = _attrs({"id": self.figure_id, "class": "figure", "role": "img", "aria-label": self.title,
                       "viewBox": f"{_num(x0)} {_num(y0)} {_num(width)} {_num(height)}",
                       "width": _num(width), "height": _num(height), "xmlns": "http://www.w3.org/2000/svg"})
        return mark_safe(f"<svg{head}><title>{escape(self.title)}</title>{''.join(self.parts)}</svg>")
