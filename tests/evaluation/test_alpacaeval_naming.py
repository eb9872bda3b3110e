"""KOpenAudioBench's AlpacaEval named and sized as seed 000 §4.2 has it: 614 KAlpacaEval prompts, from the complete
AlpacaEval set VoiceBench calls `alpacaeval_full` (636). OpenAudioBench's old name `alpaca_eval` stays importable
(an alias, stored as given) and everything that reads subsets counts it as AlpacaEval, labelled AlpacaEval and
KAlpacaEval on the leaderboard."""

import csv

import pytest

from apps.core.errors import InvalidInput
from apps.evaluation.aggregate import OPENAUDIOBENCH_SUBSETS, benchmark_score
from apps.evaluation.leaderboard import selectors as leaderboard
from apps.evaluation.scoring import metric_for
from apps.sources import formats
from apps.sources.catalogue import TaskType
from apps.sources.models import SourceSample
from apps.sources.services import import_benchmark
from tests.evaluation.boards import model, release, run_with_scores, source_benchmark


def _csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["audio_filename", "instruction", "output"])
        writer.writerows(rows)
    return path


def test_openaudiobenchs_alpacaeval_is_the_complete_set_of_636_kept_as_614_in_the_korean_release():
    spec = formats.subset_spec("openaudiobench", "alpacaeval_full")
    assert (spec.task_type, spec.size, spec.released) == (TaskType.OPEN_ENDED, 636, 614)
    assert "alpacaeval_full" in formats.OPENAUDIOBENCH_SUBSETS and "alpaca_eval" not in formats.OPENAUDIOBENCH_SUBSETS
    assert "alpacaeval_full" in OPENAUDIOBENCH_SUBSETS and "alpaca_eval" not in OPENAUDIOBENCH_SUBSETS
    # The old name reads as the new one, so old files still import.
    assert formats.subset_spec("openaudiobench", "alpaca_eval") is spec
    # VoiceBench keeps both of its own names (alpacaeval is the 199-prompt part).
    assert set(formats.VOICEBENCH_SUBSETS) >= {"alpacaeval", "alpacaeval_full"}


def test_an_unknown_subset_is_refused_naming_the_new_name_and_the_old_one():
    with pytest.raises(InvalidInput, match="known subsets: alpacaeval_full, alpaca_eval, llama_questions"):
        formats.subset_spec("openaudiobench", "alpaca")


@pytest.mark.django_db
@pytest.mark.parametrize("subset", ["alpacaeval_full", "alpaca_eval"])
def test_a_file_imports_under_the_new_name_and_the_old_one_stored_as_given(tmp_path, subset):
    path = _csv(tmp_path / f"{subset}.csv", [["ae_1.wav", "Give me three tips for sleep.", "1. ..."],
                                             ["ae_2.wav", "수면 팁 세 가지를 알려 주세요.", "1. ..."]])

    result = import_benchmark(fmt="openaudiobench", subset=subset, path=path)
    again = import_benchmark(fmt="openaudiobench", subset=subset, path=path)

    assert (result.created, again.created, again.unchanged) == (2, 0, 2)
    assert set(SourceSample.objects.values_list("subset", "task_type")) == {(subset, TaskType.OPEN_ENDED)}


@pytest.mark.parametrize("subset", ["alpacaeval_full", "alpaca_eval", "alpacaeval", "ALPACA_EVAL"])
def test_every_name_of_alpacaeval_is_judged_open_ended(subset):
    assert metric_for(subset) == "open"


def test_a_benchmark_mean_counts_a_score_stored_under_the_old_name():
    scores = {"llama_questions": 80.0, "trivia_qa": 60.0, "web_questions": 50.0}

    assert benchmark_score({**scores, "alpaca_eval": 70.0}, OPENAUDIOBENCH_SUBSETS) == pytest.approx(65.0)
    assert benchmark_score({**scores, "alpacaeval_full": 70.0}, OPENAUDIOBENCH_SUBSETS) == pytest.approx(65.0)
    # Both names: the new one counts.
    assert benchmark_score({**scores, "alpaca_eval": 10.0, "alpacaeval_full": 70.0}, OPENAUDIOBENCH_SUBSETS) == pytest.approx(65.0)
    with pytest.raises(InvalidInput, match="no score for alpacaeval_full"):
        benchmark_score(scores, OPENAUDIOBENCH_SUBSETS)


@pytest.mark.django_db
@pytest.mark.parametrize("stored", ["alpacaeval_full", "alpaca_eval"])
def test_the_leaderboard_shows_either_name_as_alpacaeval_and_kalpacaeval(admin, stored):
    oab = source_benchmark("openaudiobench", "openaudiobench")
    koab = release("kopenaudiobench", "spoken-qa", admin)
    scores = {"llama_questions": (80.0, 300), "trivia_qa": (60.0, 1000), "web_questions": (50.0, 1000)}
    run_with_scores(model("Raon-Speech"), {**scores, stored: (77.4, 636)}, benchmark=oab)
    run_with_scores(model("Raon-Speech"), {**scores, stored: (65.0, 614)}, korean_of=(koab, oab))

    board = leaderboard.leaderboard()

    row = next(r for r in board.table1 if r.label == "OpenAudioBench")
    assert row.cells[0].score == pytest.approx((80 + 60 + 50 + 77.4) / 4) and not row.cells[0].missing
    korean = next(r for r in board.table1 if r.label == "KOpenAudioBench")
    assert korean.cells[0].score == pytest.approx((80 + 60 + 50 + 65.0) / 4)
    pair = next(p for p in board.table5 if p.kind == "openaudiobench")
    alpaca = next(r for r in pair.rows if r.key == "alpacaeval_full")
    assert (alpaca.label, alpaca.ko_label) == ("AlpacaEval", "KAlpacaEval")
    assert (alpaca.en[0].score, alpaca.en[0].n, alpaca.ko[0].score, alpaca.ko[0].n) == (77.4, 636, 65.0, 614)
    assert alpaca.gap[0].score == pytest.approx(65.0 - 77.4)
    assert alpaca.en[0].subset == stored  # the cell links to the subset as the run stored it
    assert [r.label for r in pair.rows] == ["LlamaQ", "TriviaQA", "WebQ", "AlpacaEval"]


@pytest.mark.django_db
def test_a_benchmark_without_alpacaeval_names_it_by_the_new_name(admin):
    run_with_scores(model("Qwen2.5-Omni"), {"llama_questions": (70.0, 3)},
                    benchmark=source_benchmark("openaudiobench", "openaudiobench"))

    cell = next(r for r in leaderboard.leaderboard().table1 if r.label == "OpenAudioBench").cells[0]

    assert cell.score is None and cell.missing == ("trivia_qa", "web_questions", "alpacaeval_full")
