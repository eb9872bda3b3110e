"""Small inline SVG figures for the dashboard and the evaluation page (no plotting library, no CDN).

Each function returns markup safe to put in a template with |safe: every text is escaped here."""

from __future__ import annotations

from django.utils.html import escape

W, H = 480, 260
PAD_L, PAD_R, PAD_T, PAD_B = 46, 14, 16, 40


def _frame(title: str, body: list[str], *, width: int = W, height: int = H) -> str:
    return (
        f'<svg class="figure" role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" '
        f'width="100%" style="max-width:{width}px" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>"
        '<style>text{font:11px system-ui,sans-serif;fill:#44403c}.axis{stroke:#a8a29e}.bar{fill:#2563eb}'
        ".dot{fill:#2563eb;fill-opacity:.6}.ci{stroke:#1e3a8a;stroke-width:2}.ref{stroke:#a8a29e;stroke-dasharray:4 3}</style>"
        + "".join(body) + "</svg>"
    )


def _x_scale(lo, hi, width=W):
    span = (hi - lo) or 1
    return lambda v: PAD_L + (v - lo) / span * (width - PAD_L - PAD_R)


def _y_scale(lo, hi, height=H):
    span = (hi - lo) or 1
    return lambda v: height - PAD_B - (v - lo) / span * (height - PAD_T - PAD_B)


def histogram_svg(bins: list[tuple[float, float, int]], *, title: str, xlabel: str) -> str:
    if not bins:
        return ""
    top = max(c for _, _, c in bins) or 1
    x = _x_scale(bins[0][0], bins[-1][1])
    y = _y_scale(0, top)
    body = [f'<line class="axis" x1="{PAD_L}" y1="{H - PAD_B}" x2="{W - PAD_R}" y2="{H - PAD_B}"/>']
    for lo, hi, count in bins:
        x0, x1 = x(lo) + 1, x(min(hi, 5.0)) - 1
        body.append(
            f'<rect class="bar" x="{x0:.1f}" y="{y(count):.1f}" width="{max(x1 - x0, 1):.1f}" '
            f'height="{H - PAD_B - y(count):.1f}"><title>{lo:g}-{min(hi, 5):g}: {count}</title></rect>'
        )
        if count:
            body.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{y(count) - 3:.1f}" text-anchor="middle">{count}</text>')
    for tick in range(1, 6):
        body.append(f'<text x="{x(tick):.1f}" y="{H - PAD_B + 14}" text-anchor="middle">{tick}</text>')
    body.append(f'<text x="{(PAD_L + W - PAD_R) / 2}" y="{H - 8}" text-anchor="middle">{escape(xlabel)}</text>')
    return _frame(title, body)


def ci_bars_svg(rows: list[tuple[str, float, float | None]], *, title: str) -> str:
    """One point per group with its 95 % interval, on the 1-5 MOS axis. rows: (label, mean, half-width)."""
    if not rows:
        return ""
    height = PAD_T + PAD_B + 26 * len(rows)
    left = 110  # room for the group labels
    span = W - left - PAD_R

    def x(v):
        return left + (v - 1) / 4 * span

    body = []
    for tick in range(1, 6):
        body.append(f'<line class="ref" x1="{x(tick):.1f}" y1="{PAD_T}" x2="{x(tick):.1f}" y2="{height - PAD_B}"/>')
        body.append(f'<text x="{x(tick):.1f}" y="{height - PAD_B + 14}" text-anchor="middle">{tick}</text>')
    for i, (label, mean, half) in enumerate(rows):
        cy = PAD_T + 13 + 26 * i
        if half is not None:
            body.append(f'<line class="ci" x1="{x(max(1, mean - half)):.1f}" y1="{cy}" x2="{x(min(5, mean + half)):.1f}" y2="{cy}"/>')
        body.append(f'<circle class="dot" cx="{x(mean):.1f}" cy="{cy}" r="5"><title>{escape(label)}: {mean:.2f}</title></circle>')
        body.append(f'<text x="{left - 6}" y="{cy + 4}" text-anchor="end">{escape(label[:18])}</text>')
    body.append(f'<text x="{left + span / 2}" y="{height - 8}" text-anchor="middle">MOS (95 % CI, t)</text>')
    return _frame(title, body, height=height)


def scatter_svg(points: list[tuple[float, float]], *, title: str, xlabel: str, ylabel: str) -> str:
    """Calibration scatter on [1, 5] x [1, 5] with the identity line."""
    x = _x_scale(1, 5)
    y = _y_scale(1, 5)
    body = [
        f'<line class="axis" x1="{PAD_L}" y1="{H - PAD_B}" x2="{W - PAD_R}" y2="{H - PAD_B}"/>',
        f'<line class="axis" x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{H - PAD_B}"/>',
        f'<line class="ref" x1="{x(1):.1f}" y1="{y(1):.1f}" x2="{x(5):.1f}" y2="{y(5):.1f}"/>',
    ]
    for tick in range(1, 6):
        body.append(f'<text x="{x(tick):.1f}" y="{H - PAD_B + 14}" text-anchor="middle">{tick}</text>')
        body.append(f'<text x="{PAD_L - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick}</text>')
    for px, py in points:
        body.append(f'<circle class="dot" cx="{x(min(max(px, 1), 5)):.1f}" cy="{y(min(max(py, 1), 5)):.1f}" r="3.5"/>')
    body.append(f'<text x="{(PAD_L + W - PAD_R) / 2}" y="{H - 8}" text-anchor="middle">{escape(xlabel)}</text>')
    body.append(
        f'<text x="12" y="{(PAD_T + H - PAD_B) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {(PAD_T + H - PAD_B) / 2})">{escape(ylabel)}</text>'
    )
    return _frame(title, body)
