"""The leaderboard as files: JSON (what the API returns), CSV (one row per score, for a spreadsheet or pandas) and
Markdown (Tables 1, 5 and 6 laid out as seed 000 prints them, best in bold and second underlined, ready to paste
into a paper). All three are made from one typed board (leaderboard.board.Board), so they never disagree with the page.

Each also says how the judge of every run on the board was asked (EvaluationRun.judge_model and judge_sampling):
VoiceBench's judge samples n=3 at temperature 0.5, top-p 0.95, and a judge model that refused a setting sampled
at its own default instead, which a reader comparing with published numbers must know. JSON: `judges`, one
entry a run; CSV: the columns `judge` and `judge_refused` on every row of a run; Markdown: a note under the
tables."""

from __future__ import annotations

import html
import io

from apps.core import csvsafe
from apps.evaluation.leaderboard.board import Board, Cell

CSV_COLUMNS = ["table", "section", "benchmark", "language", "subset", "model", "version", "demo", "score", "n", "mark",
               "missing", "run", "profile", "reader_version", "judge", "judge_refused"]
PROFILE_NOTES = {
    "sori": "Read by Sori's reader (profile `sori`: corrected, the same reader for English and Korean).",
    "voicebench": "Read by VoiceBench's own code (profile `voicebench`); where it would guess at random, the guess's "
                  "expected credit is counted.",
}


def as_json(board: Board) -> dict:
    """The API's answer: the typed board as its schema says."""
    return board.as_json()


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def as_csv(board: Board) -> str:
    # Model names are typed by people: the formula-safe writer, as every export.
    out = io.StringIO()
    writer = csvsafe.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    judged = {j["run"]: j for j in board.judges}

    def rows(table, section, benchmark, language, subset, cells):
        for m, c in zip(board.models, cells, strict=True):
            if c.score is None and not c.missing:
                continue
            judge = judged.get(c.run_id) or {}
            writer.writerow([table, section, benchmark, language, subset, m.name, m.version, "yes" if m.demo else "",
                             _fmt(c.score), c.n, c.mark, " ".join(c.missing), c.run_id or "", board.profile, c.version,
                             judge.get("judge_model", ""), " ".join(judge.get("refused", []))])

    for r in board.table1:
        rows("benchmark", r.section, r.name, r.language, "", r.cells)
    for p in board.table5:
        for row in p.rows:
            rows("subset", "SpokenQA", p.en, "en", row.key, row.en)
            rows("subset", "SpokenQA", p.ko, "ko", row.key, row.ko)
    if board.table6:
        for row in board.table6.rows:
            rows("capability", row.category, board.table6.name, "ko", row.key, row.cells)
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
    demo = [str(m) for m in board.demo_models]
    out = [PROFILE_NOTES[board.profile], "",
           "Table 1: Benchmark-level results. Bold and underline mark the best and second best per row.", ""]
    lines, section = [], None
    for r in board.table1:
        if r.section != section:
            section = r.section
            lines.append([f"*{section}*"] + [""] * len(names))
        lines.append([r.label if r.label != r.kind else r.name] + [_md_cell(c) for c in r.cells])
    out += _md_table(["Benchmark", *names], lines)
    for p in board.table5:
        out += ["", f"Table 5 ({p.label} / {p.ko_label}): subset scores, English then Korean, and the gap "
                    "(Korean minus English).", ""]
        lines = [[row.label] + [_md_cell(c) for c in row.en] for row in p.rows]
        lines += [[row.ko_label] + [_md_cell(c) for c in row.ko] for row in p.rows]
        lines += [[f"Gap {row.label}"] + [("–" if c.score is None else f"{c.score:+.1f}") for c in row.gap]
                  for row in p.rows]
        out += _md_table(["Subset", *names], lines)
    if board.table6:
        out += ["", "Table 6: KMMAU accuracy (%) by capability.", ""]
        lines = [[f"{r.category}: {r.label}"] + [_md_cell(c) for c in r.cells] for r in board.table6.rows]
        lines.append(["Average"] + [_md_cell(c) for c in board.table6.average])
        out += _md_table(["Capability", *names], lines)
    if demo:
        out += ["", f"Demo answers, not a real model: {', '.join(map(_md_text, demo))}."]
    out += _judge_notes(board)
    return "\n".join(out) + "\n"


def _judge_notes(board: Board) -> list[str]:
    """One line per judge model (and what it refused) under the tables, naming the runs it judged."""
    groups: dict[tuple[str, bool, tuple[str, ...]], list[str]] = {}
    for j in board.judges:
        key = (j["judge_model"], "n" in j, tuple(j["refused"]))
        groups.setdefault(key, []).append(_md_text(f"{j['model']} on {j['benchmark']}"))
    lines = []
    for (judge_model, recorded, refused), runs in sorted(groups.items()):
        model = _md_text(judge_model)
        if not recorded:
            lines.append(f"Judge {model}, its sampling not recorded (judged before Sori asked as VoiceBench's judge "
                         f"does): {', '.join(runs)}.")
        elif refused:
            lines.append(f"Judge {model} refused {' and '.join(refused)}, so it sampled at its own default for "
                         f"{'them' if len(refused) > 1 else 'it'}, not as VoiceBench's judge (n=3, temperature 0.5, "
                         f"top-p 0.95): {', '.join(runs)}.")
        else:
            lines.append(f"Judge {model}, n=3 at temperature 0.5, top-p 0.95 as VoiceBench's judge: {', '.join(runs)}.")
    return ["", *lines] if lines else []

