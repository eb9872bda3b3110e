"""apps.core.svg, the one figure helper: no inline style (the CSP refuses it), every text inside the viewBox
however long, a shortened label keeping its full text in a <title>, Hangul measured a full em wide."""

import re

from apps.core.svg import Figure, shorten, text_width
from apps.evaluation.leaderboard.figures import ranks_svg


def _view_box(svg: str) -> list[float]:
    return [float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]


def test_a_figure_has_no_inline_style_and_colours_its_shapes_with_attributes():
    fig = Figure("t", 100, 50)
    fig.rect(10, 10, 20, 20, role="bar")
    fig.line(0, 0, 10, 10, role="ci")

    svg = fig.render()

    assert "style" not in svg
    assert 'class="bar"' in svg and 'fill="#2563eb"' in svg and 'class="ci"' in svg and 'stroke-width="2"' in svg


def test_the_view_box_grows_to_hold_a_label_that_reaches_past_the_planned_room():
    fig = Figure("t", 100, 50)
    fig.text(20, 20, "espeak-ng+noise with a very long name", anchor="end")

    x, _, width, _ = _view_box(fig.render())

    assert x <= 20 - text_width("espeak-ng+noise with a very long name") and x + width >= 100


def test_hangul_counts_a_full_em_and_a_shortened_label_keeps_its_full_text():
    assert text_width("한국어", 10) == 30.0
    assert text_width("한국어", 10) > text_width("abc", 10)
    fig = Figure("t", 100, 50)
    fig.text(0, 20, "한국어 음성 합성 시스템", max_width=40)

    svg = fig.render()

    assert "<title>한국어 음성 합성 시스템</title>" in svg and shorten("한국어 음성 합성 시스템", 40) in svg
    assert shorten("한국어 음성 합성 시스템", 40).endswith("…")


def test_a_rank_chart_shortens_a_long_model_name_but_never_its_rank():
    name = "HyperCLOVA X 8B Omni 한국어 음성 대화 모델 with a long suffix"
    agreement = {"spoken": "voicebench", "audio": "kmmau", "spearman": 0.5, "kendall": 0.3,
                 "ranks": [{"model": 1, "name": name, "spoken": 1, "audio": 2},
                           {"model": 2, "name": "A", "spoken": 2, "audio": 1}]}

    svg = ranks_svg(agreement, {1: name, 2: "A"})

    shown = re.findall(r"<text[^>]*>(?:<title>[^<]*</title>)?([^<]*)</text>", svg)
    assert any(s.endswith("… 1") for s in shown) and any(s.startswith("2 ") and s.endswith("…") for s in shown)
    assert f"<title>{name} 1</title>" in svg
