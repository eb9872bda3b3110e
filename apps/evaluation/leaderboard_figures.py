"""The leaderboard's two figures as inline SVG made here (no plotting library, no script, no inline style: only
presentation attributes, so a Content-Security-Policy without 'unsafe-inline' shows them as they are).

- gap_svg: Korean minus English per subset, one bar per model, around zero (seed 000: the gaps differ by model
  and task family);
- ranks_svg: each model's rank on a SpokenQA benchmark beside its rank on an audio-understanding benchmark, a
  line between them (crossing lines are the rankings diverging), with Spearman's rho and Kendall's tau.

Every text is escaped here; the markup goes into templates with |safe."""

from __future__ import annotations

from django.utils.html import escape

# Eight distinguishable colours (Okabe-Ito, readable by colour-blind readers), repeated after eight models.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
FONT = 'font-family="system-ui, sans-serif" font-size="11" fill="#44403c"'


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _svg(title: str, width: int, height: int, body: list[str], figure_id: str) -> str:
    return (f'<svg id="{figure_id}" class="figure" role="img" aria-label="{escape(title)}" viewBox="0 0 {width} {height}" '
            f'width="100%" xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>' + "".join(body) + "</svg>")


def _text(x: float, y: float, text: str, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" {FONT} {extra}>{escape(text)}</text>'


def gap_svg(rows: list[dict], models: list[str]) -> str:
    """rows: [{"label": "OpenBookQA", "gaps": [gap or None per model]}]; models: column names in order."""
    rows = [r for r in rows if any(g is not None for g in r["gaps"])]
    if not rows:
        return ""
    values = [g for r in rows for g in r["gaps"] if g is not None]
    lo, hi = min(0.0, min(values)), max(0.0, max(values))
    span = (hi - lo) or 1.0
    left, right, top, bar = 110, 20, 34 + 16 * ((len(models) + 3) // 4), 7
    width = 720
    group = bar * len(models) + 10
    height = top + group * len(rows) + 30

    def x(v: float) -> float:
        return left + (v - lo) / span * (width - left - right)

    body = []
    for i, name in enumerate(models):  # the legend, four to a line
        lx, ly = left + (i % 4) * 150, 14 + 16 * (i // 4)
        body.append(f'<rect x="{lx}" y="{ly - 9}" width="10" height="10" fill="{colour(i)}"/>')
        body.append(_text(lx + 14, ly, name))
    for g, row in enumerate(rows):
        y0 = top + g * group
        body.append(_text(left - 6, y0 + group / 2, row["label"], "end"))
        for i, gap in enumerate(row["gaps"]):
            if gap is None:
                continue
            x0, x1 = sorted((x(0), x(gap)))
            body.append(f'<rect x="{x0:.1f}" y="{y0 + i * bar:.1f}" width="{max(x1 - x0, 1):.1f}" height="{bar - 1}" '
                        f'fill="{colour(i)}"><title>{escape(models[i])}, {escape(row["label"])}: '
                        f'{gap:+.1f} points (Korean minus English)</title></rect>')
    base = top + group * len(rows)
    body.append(f'<line x1="{x(0):.1f}" y1="{top - 4}" x2="{x(0):.1f}" y2="{base}" stroke="#78716c"/>')
    for tick in _ticks(lo, hi):
        body.append(f'<line x1="{x(tick):.1f}" y1="{base}" x2="{x(tick):.1f}" y2="{base + 4}" stroke="#a8a29e"/>')
        body.append(_text(x(tick), base + 16, f"{tick:+g}" if tick else "0", "middle"))
    body.append(_text(width - right, base + 28, "points, Korean minus English", "end"))
    return _svg("English-Korean gap per model and subset", width, height + 6, body, "gap-figure")


def _ticks(lo: float, hi: float) -> list[float]:
    step = 10 if hi - lo <= 60 else 20
    start = int(lo // step) * step
    return [float(t) for t in range(start, int(hi) + step, step) if lo <= t <= hi]


def ranks_svg(agreement: dict, models: dict[int, str]) -> str:
    """A slope chart of one agreement (leaderboard._agreements): rank on the SpokenQA benchmark on the left, on
    the audio-understanding benchmark on the right."""
    ranks = agreement.get("ranks") or []
    if not ranks:
        return ""
    n = max(max(r["spoken"], r["audio"]) for r in ranks)
    width, top, step, lx, rx = 520, 44, 24, 190, 330
    height = top + step * n + 16

    def y(rank: int) -> float:
        return top + (rank - 1) * step

    order = list(models)
    title = (f"{agreement['spoken']} rank vs {agreement['audio']} rank: Spearman {agreement['spearman']:.2f}, "
             f"Kendall {agreement['kendall']:.2f}")
    body = [_text(lx, 16, agreement["spoken"], "end", 'font-weight="bold"'),
            _text(rx, 16, agreement["audio"], "start", 'font-weight="bold"'),
            _text((lx + rx) / 2, 32, f"ρ {agreement['spearman']:.2f}  τ {agreement['kendall']:.2f}", "middle")]
    for r in ranks:
        c = colour(order.index(r["model"]) if r["model"] in order else 0)
        body.append(f'<line x1="{lx + 6}" y1="{y(r["spoken"]) - 4:.1f}" x2="{rx - 6}" y2="{y(r["audio"]) - 4:.1f}" '
                    f'stroke="{c}" stroke-width="2"><title>{escape(r["name"])}: {r["spoken"]} → {r["audio"]}</title></line>')
        body.append(_text(lx, y(r["spoken"]), f"{r['name']} {r['spoken']}", "end"))
        body.append(_text(rx, y(r["audio"]), f"{r['audio']} {r['name']}", "start"))
    return _svg(title, width, height, body, f"ranks-{escape(agreement['spoken'])}-{escape(agreement['audio'])}")
