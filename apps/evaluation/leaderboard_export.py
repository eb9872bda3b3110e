"""The leaderboard as files: JSON (what the API returns), CSV (one row per score, for a spreadsheet or pandas) and
Markdown (Tables 1, 5 and 6 laid out as seed 000 prints them, best in bold and second underlined, ready to paste
into a paper). All three are made from one leaderboard.Board, so they never disagree with the page."""

from __future__ import annotations

import html
import io

from apps.core import csvsafe
from apps.evaluation.leaderboard import Board, Cell

CSV_COLUMNS = ["table", "section", "benchmark", "language", "subset", "model", "version", "demo", "score", "n", "mark",
               "missing", "run"]


def _model(m) -> dict:
    return {"id": m.pk, "name": m.name, "version": m.version, "label": str(m), "demo": m.is_demo}


def _cells(board: Board, cells: list[Cell]) -> list[dict]:
    return [{"model": m.pk, **c.as_dict()} for m, c in zip(board.models, cells, strict=True)]


def as_json(board: Board) -> dict:
    return {
        "models": [_model(m) for m in board.models],
        "benchmarks": [{"name": r["name"], "label": r["label"], "section": r["section"], "kind": r["kind"],
                        "language": r["language"], "subsets": r["subsets"], "scores": _cells(board, r["cells"])}
                       for r in board.table1],
        "subsets": [{"kind": p["kind"], "source": p["source"], "english": p["en"], "korean": p["ko"],
                     "rows": [{"subset": row["key"], "label": row["label"], "korean_label": row["ko_label"],
                               "english": _cells(board, row["en"]), "korean": _cells(board, row["ko"]),
                               "gap": _cells(board, row["gap"])} for row in p["rows"]]}
                    for p in board.table5],
        "kmmau": None if board.table6 is None else {
            "name": board.table6["name"],
            "capabilities": [{"capability": r["key"], "label": r["label"], "category": r["category"],
                              "scores": _cells(board, r["cells"])} for r in board.table6["rows"]],
            "average": _cells(board, board.table6["average"])},
        "rank_agreement": [dict(a) for a in board.agreements],
    }


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def as_csv(board: Board) -> str:
    # Model names are typed by people: the formula-safe writer, as every export.
    out = io.StringIO()
    writer = csvsafe.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)

    def rows(table, section, benchmark, language, subset, cells):
        for m, c in zip(board.models, cells, strict=True):
            if c.score is None and not c.missing:
                continue
            writer.writerow([table, section, benchmark, language, subset, m.name, m.version, "yes" if m.is_demo else "",
                             _fmt(c.score), c.n, c.mark, " ".join(c.missing), c.run_id or ""])

    for r in board.table1:
        rows("benchmark", r["section"], r["name"], r["language"], "", r["cells"])
    for p in board.table5:
        for row in p["rows"]:
            rows("subset", "SpokenQA", p["en"], "en", row["key"], row["en"])
            rows("subset", "SpokenQA", p["ko"], "ko", row["key"], row["ko"])
    if board.table6:
        for row in board.table6["rows"]:
            rows("capability", row["category"], board.table6["name"], "ko", row["key"], row["cells"])
    return out.getvalue()


class _Markdown(str):
    """A cell _md_cell wrote as Markdown (a score in bold or underlined), which _md_table keeps as it is."""


def _md_text(text: str) -> str:
    """Typed text (a model's name, a label) as a table cell shows it: HTML escaped, so a name cannot add
    markup; line breaks as spaces and | escaped, so it cannot end its row or cell (backslashes first, so
    a name ending in one cannot unescape the |)."""
    text = html.escape(" ".join(str(text).splitlines()), quote=False)
    return text.replace("\\", "\\\\").replace("|", "\\|")


def _md_cell(c: Cell) -> _Markdown:
    if c.score is None:
        return _Markdown(f"– (no {', '.join(map(_md_text, c.missing))})" if c.missing else "–")
    text = f"{c.score:.1f}"
    return _Markdown(f"**{text}**" if c.mark == "best" else f"<u>{text}</u>" if c.mark == "second" else text)


def _md_table(header: list[str], lines: list[list[str]]) -> list[str]:
    def row(cells: list[str]) -> str:
        return "| " + " | ".join(x if isinstance(x, _Markdown) else _md_text(x) for x in cells) + " |"

    return [row(header), "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|", *map(row, lines)]


def as_markdown(board: Board) -> str:
    names = [str(m) for m in board.models]
    demo = [str(m) for m in board.models if m.is_demo]
    out = ["Table 1: Benchmark-level results. Bold and underline mark the best and second best per row.", ""]
    lines, section = [], None
    for r in board.table1:
        if r["section"] != section:
            section = r["section"]
            lines.append([f"*{section}*"] + [""] * len(names))
        lines.append([r["label"] if r["label"] != r["kind"] else r["name"]] + [_md_cell(c) for c in r["cells"]])
    out += _md_table(["Benchmark", *names], lines)
    for p in board.table5:
        out += ["", f"Table 5 ({p['label']} / {p['ko_label']}): subset scores, English then Korean, and the gap "
                    "(Korean minus English).", ""]
        lines = [[row["label"]] + [_md_cell(c) for c in row["en"]] for row in p["rows"]]
        lines += [[row["ko_label"]] + [_md_cell(c) for c in row["ko"]] for row in p["rows"]]
        lines += [[f"Gap {row['label']}"] + [("–" if c.score is None else f"{c.score:+.1f}") for c in row["gap"]]
                  for row in p["rows"]]
        out += _md_table(["Subset", *names], lines)
    if board.table6:
        out += ["", "Table 6: KMMAU accuracy (%) by capability.", ""]
        lines = [[f"{r['category']}: {r['label']}"] + [_md_cell(c) for c in r["cells"]] for r in board.table6["rows"]]
        lines.append(["Average"] + [_md_cell(c) for c in board.table6["average"]])
        out += _md_table(["Capability", *names], lines)
    if demo:
        out += ["", f"Demo answers, not a real model: {', '.join(map(_md_text, demo))}."]
    return "\n".join(out) + "\n"

