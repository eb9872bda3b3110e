"""The leaderboard's two figures, drawn with apps.core.svg (presentation attributes only, labels measured):

- gap_svg: Korean minus English per subset, one bar per model, around zero (seed 000: the gaps differ by model
  and task family);
- ranks_svg: each model's rank on a SpokenQA benchmark beside its rank on an audio-understanding benchmark, a
  line between them (crossing lines are the rankings diverging), with Spearman's rho and Kendall's tau.

Every text is escaped by the helper; the markup goes into templates with |safe."""

from __future__ import annotations

from apps.core.svg import Figure, colour, shorten, text_width

LABEL_ROOM = 220  # the most a subset or model label may take before it is shortened (full text in its <title>)


def gap_svg(rows: list[dict], models: list[str]) -> str:
    """rows: [{"label": "OpenBookQA", "gaps": [gap or None per model]}]; models: column names in order."""
    rows = [r for r in rows if any(g is not None for g in r["gaps"])]
    if not rows:
        return ""
    values = [g for r in rows for g in r["gaps"] if g is not None]
    lo, hi = min(0.0, min(values)), max(0.0, max(values))
    span = (hi - lo) or 1.0
    width, right, bar = 720, 20, 7
    left = min(max(text_width(r["label"]) for r in rows), LABEL_ROOM) + 14

    # The legend flows left to right and wraps, each entry as wide as its (measured) name.
    legend, lx, ly = [], left, 14
    for i, name in enumerate(models):
        room = min(text_width(name), LABEL_ROOM) + 14 + 18
        if lx > left and lx + room > width - right:
            lx, ly = left, ly + 16
        legend.append((i, name, lx, ly))
        lx += room
    top = ly + 20
    group = bar * len(models) + 10
    height = top + group * len(rows) + 30

    def x(v: float) -> float:
        return left + (v - lo) / span * (width - left - right)

    fig = Figure("English-Korean gap per model and subset", width, height + 6, figure_id="gap-figure")
    for i, name, lx, ly in legend:
        fig.rect(lx, ly - 9, 10, 10, role="swatch", fill=colour(i))
        fig.text(lx + 14, ly, name, max_width=LABEL_ROOM)
    for g, row in enumerate(rows):
        y0 = top + g * group
        fig.text(left - 6, y0 + group / 2, row["label"], anchor="end", max_width=LABEL_ROOM)
        for i, gap in enumerate(row["gaps"]):
            if gap is None:
                continue
            x0, x1 = sorted((x(0), x(gap)))
            fig.rect(x0, y0 + i * bar, max(x1 - x0, 1), bar - 1, role="bar", fill=colour(i),
                     title=f"{models[i]}, {row['label']}: {gap:+.1f} points (Korean minus English)")
    base = top + group * len(rows)
    fig.line(x(0), top - 4, x(0), base, role="zero")
    for tick in _ticks(lo, hi):
        fig.line(x(tick), base, x(tick), base + 4, role="tick")
        fig.text(x(tick), base + 16, f"{tick:+g}" if tick else "0", anchor="middle")
    fig.text(width - right, base + 28, "points, Korean minus English", anchor="end")
    return fig.render()


def _ticks(lo: float, hi: float) -> list[float]:
    step = 10 if hi - lo <= 60 else 20
    start = int(lo // step) * step
    return [float(t) for t in range(start, int(hi) + step, step) if lo <= t <= hi]


def ranks_svg(agreement: dict, models: dict[int, str]) -> str:
    """A slope chart of one agreement (leaderboard._agreements): rank on the SpokenQA benchmark on the left, on
    the audio-understanding benchmark on the right; each side as wide as its longest label."""
    ranks = agreement.get("ranks") or []
    if not ranks:
        return ""
    n = max(max(r["spoken"], r["audio"]) for r in ranks)
    top, step, gap = 44, 24, 140
    # A long name is shortened, never the rank beside it (the full name stays in the label's <title>).
    left_labels = [f"{shorten(r['name'], LABEL_ROOM - 24)} {r['spoken']}" for r in ranks]
    right_labels = [f"{r['audio']} {shorten(r['name'], LABEL_ROOM - 24)}" for r in ranks]
    lx = 8 + min(max(max(map(text_width, left_labels)), text_width(agreement["spoken"], bold=True)), LABEL_ROOM)
    rx = lx + gap
    width = rx + min(max(max(map(text_width, right_labels)), text_width(agreement["audio"], bold=True)), LABEL_ROOM) + 8
    height = top + step * n + 16

    def y(rank: int) -> float:
        return top + (rank - 1) * step

    order = list(models)
    title = (f"{agreement['spoken']} rank vs {agreement['audio']} rank: Spearman {agreement['spearman']:.2f}, "
             f"Kendall {agreement['kendall']:.2f}")
    fig = Figure(title, width, height, figure_id=f"ranks-{agreement['spoken']}-{agreement['audio']}")
    fig.text(lx, 16, agreement["spoken"], anchor="end", bold=True, max_width=LABEL_ROOM)
    fig.text(rx, 16, agreement["audio"], bold=True, max_width=LABEL_ROOM)
    fig.text((lx + rx) / 2, 32, f"ρ {agreement['spearman']:.2f}  τ {agreement['kendall']:.2f}", anchor="middle")
    for r, left_label, right_label in zip(ranks, left_labels, right_labels, strict=True):
        c = colour(order.index(r["model"]) if r["model"] in order else 0)
        fig.line(lx + 6, y(r["spoken"]) - 4, rx - 6, y(r["audio"]) - 4, role="slope", stroke=c,
                 title=f"{r['name']}: {r['spoken']} → {r['audio']}")
        fig.text(lx, y(r["spoken"]), left_label, anchor="end", full=f"{r['name']} {r['spoken']}")
        fig.text(rx, y(r["audio"]), right_label, full=f"{r['audio']} {r['name']}")
    return fig.render()
