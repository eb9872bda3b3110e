"""The leaderboard's exports: CSV (one row per score, with n, mark and run), JSON (the API's body) and Markdown
(Tables 1, 5 and 6 as the paper prints them, best bold and second underlined), from the page's links."""

import csv
import io
import json

import pytest
from django.urls import reverse

from tests.evaluation.boards import model, paper_board, run_with_scores, source_benchmark

pytestmark = pytest.mark.django_db


def _get(client, fmt):
    return client.get(reverse("evaluation:leaderboard_export", args=[fmt]))


def test_the_csv_has_one_row_per_score_with_n_mark_and_run(admin, client_for):
    runs = paper_board(admin)

    answer = _get(client_for(admin), "csv")

    assert answer["Content-Type"].startswith("text/csv") and "sori-leaderboard.csv" in answer["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(answer.content.decode())))
    raon = next(r for r in rows if r["table"] == "benchmark" and r["benchmark"] == "kvoicebench" and r["model"] == "Raon-Speech")
    assert (raon["score"], raon["n"], raon["mark"], raon["run"]) == ("66.61", "900", "best", str(runs[("Raon-Speech", "kvoicebench")].pk))
    af3 = next(r for r in rows if r["table"] == "subset" and r["benchmark"] == "kvoicebench" and r["subset"] == "advbench"
               and r["model"] == "Audio Flamingo3")
    assert af3["score"] == "5.70" and af3["language"] == "ko"
    assert sum(r["table"] == "capability" for r in rows) == 9 * 8
    assert len([r for r in rows if r["table"] == "benchmark"]) == 5 * 8


def test_the_csv_names_the_missing_subsets_of_a_benchmark_without_a_mean(admin, client_for):
    run_with_scores(model("Qwen2.5-Omni"), {"llama_questions": (70.0, 3)},
                    benchmark=source_benchmark("openaudiobench", "openaudiobench"))

    rows = list(csv.DictReader(io.StringIO(_get(client_for(admin), "csv").content.decode())))

    bench = next(r for r in rows if r["table"] == "benchmark")
    assert bench["score"] == "" and bench["missing"] == "trivia_qa web_questions alpacaeval_full"


def test_the_json_is_the_apis_leaderboard(admin, client_for, api_client):
    paper_board(admin)
    api_client.force_authenticate(admin)

    exported = json.loads(_get(client_for(admin), "json").content)

    assert exported == api_client.get("/api/evaluation/leaderboard/").json()
    assert [b["label"] for b in exported["benchmarks"]] == ["VoiceBench", "OpenAudioBench", "KVoiceBench", "KOpenAudioBench", "KMMAU"]
    assert len(exported["kmmau"]["capabilities"]) == 9


def test_the_markdown_is_a_paper_table_with_bold_and_underline(admin, client_for):
    paper_board(admin)

    text = _get(client_for(admin), "md").content.decode()

    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("| Benchmark"))
    assert header.startswith("| Benchmark | Audio Flamingo3 |") and header.count("|") == 10
    kvb = next(line for line in lines if line.startswith("| KVoiceBench |"))
    assert "**66.6**" in kvb and "<u>50.1</u>" in kvb
    assert "| *Korean SpokenQA* |" in text
    assert any(line.startswith("| KAdvBench |") and "5.7" in line for line in lines)
    assert any(line.startswith("| Gap AdvBench |") and "-43.0" in line for line in lines)
    assert any(line.startswith("| Contextual: Word Order |") for line in lines)


def test_an_unknown_format_is_not_found(admin, client_for):
    assert _get(client_for(admin), "xlsx").status_code == 404


def test_a_model_name_typed_as_a_formula_reaches_the_csv_as_text(admin, client_for):
    # Issue 18's rule for every export: a cell someone typed never runs as a formula.
    run_with_scores(model('=HYPERLINK("http://x")'), {"llama_questions": (70.0, 3)},
                    benchmark=source_benchmark("openaudiobench", "openaudiobench"))
    rows = list(csv.reader(io.StringIO(_get(client_for(admin), "csv").content.decode())))
    cells = [cell for row in rows for cell in row]
    assert "'=HYPERLINK(\"http://x\")" in cells and not any(cell.startswith("=") for cell in cells)


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells as GitHub's table reader splits them: at each | not escaped by a \\."""
    cells, cell, chars = [], "", iter(line.strip().removeprefix("|").removesuffix("|"))
    for char in chars:
        if char == "\\":
            cell += char + next(chars, "")
        elif char == "|":
            cells, cell = [*cells, cell.strip()], ""
        else:
            cell += char
    return [*cells, cell.strip()]


def test_a_model_name_cannot_break_the_markdown_table_or_add_html(admin, client_for):
    hostile = ["a|b<script>\nx", "Q&A \\", "<img src=x onerror=alert(1)>\r\n| 99.9 |"]
    bench = source_benchmark("openaudiobench", "openaudiobench")
    for n, name in enumerate(hostile):
        run = run_with_scores(model(name, answer_source="demo" if n == 2 else "imported"),
                              {"llama_questions": (70.0 - n, 3)}, benchmark=bench)
        if n == 2:  # demo answers are the run's (as the demo seeding imports them), so the label shows
            run.answer_source = "demo"
            run.save(update_fields=["answer_source"])
    run_with_scores(model("Plain"), {"llama_questions": (60.0, 3)}, benchmark=bench)

    text = _get(client_for(admin), "md").content.decode()

    assert "<script>" not in text and "<img" not in text and "&lt;script&gt;" in text
    tables = [line for line in text.splitlines() if line.startswith("|")]
    header = next(line for line in tables if line.startswith("| Benchmark"))
    assert _cells(header)[0] == "Benchmark"
    assert sorted(_cells(header)[1:]) == sorted([r"&lt;img src=x onerror=alert(1)&gt; \| 99.9 \|",
                                                 r"a\|b&lt;script&gt; x", "Plain", "Q&amp;A \\\\"])
    assert all(len(_cells(line)) == 5 for line in tables)
    row = next(line for line in tables if line.startswith("| OpenAudioBench"))
    assert _cells(row)[1:] == ["– (no trivia_qa, web_questions, alpacaeval_full)"] * 4
    assert "Demo answers, not a real model: &lt;img src=x onerror=alert(1)&gt; \\| 99.9 \\|." in text
