"""The listening dashboard's and the predictor evaluation's figures, drawn with apps.core.svg (presentation
attributes only, so they look the same under the Content-Security-Policy; labels measured so none is cut).

Each function returns markup safe to put in a template with |safe: every text is escaped by the helper."""

from __future__ import annotations

from apps.core.svg import Figure, text_width

W, H = 480, 260
PAD_L, PAD_R, PAD_T, PAD_B = 46, 14, 16, 40
LABEL_ROOM = 240  # the most a group label may take before it is shortened (full text in its <title>)


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
    fig = Figure(title, W, H)
    fig.line(PAD_L, H - PAD_B, W - PAD_R, H - PAD_B, role="axis")
    for lo, hi, count in bins:
        x0, x1 = x(lo) + 1, x(min(hi, 5.0)) - 1
        fig.rect(x0, y(count), max(x1 - x0, 1), H - PAD_B - y(count), role="bar", title=f"{lo:g}-{min(hi, 5):g}: {count}")
        if count:
            fig.text((x0 + x1) / 2, y(count) - 3, str(count), anchor="middle")
    for tick in range(1, 6):
        fig.text(x(tick), H - PAD_B + 14, str(tick), anchor="middle")
    fig.text((PAD_L + W - PAD_R) / 2, H - 8, xlabel, anchor="middle")
    return fig.render()


def ci_bars_svg(rows: list[tuple[str, float, float | None]], *, title: str) -> str:
    """One point per group with its 95 % interval, on the 1-5 MOS axis. rows: (label, mean, half-width).
    The label column is as wide as the longest label (up to LABEL_ROOM), so "espeak-ng+noise" fits whole."""
    if not rows:
        return ""
    height = PAD_T + PAD_B + 26 * len(rows)
    left = min(max(text_width(label) for label, _, _ in rows), LABEL_ROOM) + 16
    span = W - 110 - PAD_R  # the axis keeps its length; a wider label column widens the figure
    width = left + span + PAD_R

    def x(v):
        return left + (v - 1) / 4 * span

    fig = Figure(title, width, height)
    for tick in range(1, 6):
        fig.line(x(tick), PAD_T, x(tick), height - PAD_B, role="ref")
        fig.text(x(tick), height - PAD_B + 14, str(tick), anchor="middle")
    for i, (label, mean, half) in enumerate(rows):
        cy = PAD_T + 13 + 26 * i
        if half is not None:
            fig.line(x(max(1, mean - half)), cy, x(min(5, mean + half)), cy, role="ci",
                     title=f"{label}: 95 % CI {max(1, mean - half):.2f}-{min(5, mean + half):.2f}")
        fig.circle(x(mean), cy, 5, role="dot", title=f"{label}: {mean:.2f}")
        fig.text(left - 8, cy + 4, label, anchor="end", max_width=LABEL_ROOM)
    fig.text(left + span / 2, height - 8, "MOS (95 % CI, t)", anchor="middle")
    return fig.render()


def scatter_svg(points: list[tuple[float, float]], *, title: str, xlabel: str, ylabel: str) -> str:
    """Calibration scatter on [1, 5] x [1, 5] with the identity line."""
    x = _x_scale(1, 5)
    y = _y_scale(1, 5)
    fig = Figure(title, W, H)
    fig.line(PAD_L, H - PAD_B, W - PAD_R, H - PAD_B, role="axis")
    fig.line(PAD_L, PAD_T, PAD_L, H - PAD_B, role="axis")
    fig.line(x(1), y(1), x(5), y(5), role="ref")
    for tick in range(1, 6):
        fig.text(x(tick), H - PAD_B + 14, str(tick), anchor="middle")
        fig.text(PAD_L - 6, y(tick) + 4, str(tick), anchor="end")
    for px, py in points:
        fig.circle(x(min(max(px, 1), 5)), y(min(max(py, 1), 5)), 3.5, role="dot")
    fig.text((PAD_L + W - PAD_R) / 2, H - 8, xlabel, anchor="middle")
    fig.text(14, (PAD_T + H - PAD_B) / 2, ylabel, anchor="middle", rotate=True)
    return fig.render()
