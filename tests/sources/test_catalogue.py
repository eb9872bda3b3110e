"""One catalogue of subsets, and every list of subsets derived from it: the readers', the metrics', the benchmark
means' and the leaderboard's. One matcher reads a stored subset name for all of them."""

import pytest

from apps.core.errors import InvalidInput
from apps.evaluation import aggregate, scoring
from apps.evaluation.jobs import is_sd_qa
from apps.evaluation.leaderboard import selectors as leaderboard
from apps.sources import catalogue, formats
from apps.sources.catalogue import KMMAU, OPENAUDIOBENCH, VOICEBENCH
from apps.transfer import checker_data


def test_the_readers_import_exactly_the_catalogues_subsets_with_its_task_types():
    for family, table in ((VOICEBENCH, formats.VOICEBENCH_SUBSETS), (OPENAUDIOBENCH, formats.OPENAUDIOBENCH_SUBSETS)):
        rows = catalogue.of_family(family)
        assert set(table) == {s.name for s in rows}
        assert {name: (spec.task_type, spec.size, spec.released) for name, spec in table.items()} == {
            s.name: (s.task_type, s.size, s.released) for s in rows}


def test_each_metric_and_each_benchmark_mean_is_the_catalogues():
    assert scoring.SUBSET_METRICS == {name: s.metric for name, s in catalogue.names().items()}
    assert aggregate.VOICEBENCH_SUBSETS == ("alpacaeval", "commoneval", "wildvoice", "sd-qa", "mmsu", "openbookqa",
                                           "bbh", "ifeval", "advbench")
    assert aggregate.OPENAUDIOBENCH_SUBSETS == ("llama_questions", "trivia_qa", "web_questions", "alpacaeval_full")
    assert aggregate.SUBSET_ALIASES == {"alpaca_eval": "alpacaeval_full"}
    assert set(scoring.METRICS) >= {s.metric for s in catalogue.SUBSETS}


def test_the_leaderboard_labels_and_orders_subsets_as_the_catalogue_does():
    assert leaderboard.SUBSET_ORDER == catalogue.table_order() == ["openbookqa", "mmsu", "bbh", "llama_questions", "trivia_qa", "web_questions",
                                       "sd-qa", "alpacaeval", "alpacaeval_full", "commoneval", "wildvoice", "ifeval",
                                       "advbench"]
    for family in catalogue.SPOKEN_QA_FAMILIES:
        for s in catalogue.of_family(family):
            assert (leaderboard.subset_label(family, s.name), leaderboard.subset_label(family, s.name, "ko")) == (
                s.label, s.label_ko)
    assert leaderboard.subset_label(OPENAUDIOBENCH, "llama_questions", "ko") == "KLlamaQ"


@pytest.mark.parametrize("stored, family, row, part", [
    ("mmsu", VOICEBENCH, "mmsu", ""),
    ("MMSU_biology", VOICEBENCH, "mmsu", "biology"),
    (" sd-qa-usa ", VOICEBENCH, "sd-qa", "usa"),
    ("alpaca_eval", OPENAUDIOBENCH, "alpacaeval_full", ""),
    ("ALPACA_EVAL", None, "alpacaeval_full", ""),
    ("alpacaeval_full", VOICEBENCH, "alpacaeval_full", ""),  # VoiceBench's own complete set, not a split of alpacaeval
    ("kmmau", None, "kmmau", ""),
])
def test_one_matcher_reads_every_stored_name(stored, family, row, part):
    found, split = catalogue.match(stored, family)
    assert (found.name, split) == (row, part)


@pytest.mark.parametrize("stored, family", [("alpaca_eval", VOICEBENCH), ("sd-qa-", VOICEBENCH), ("mtbench", None),
                                            ("mmsu", OPENAUDIOBENCH), ("kmmau", VOICEBENCH)])
def test_the_matcher_knows_no_other_name(stored, family):
    assert catalogue.match(stored, family) is None


def test_every_reader_of_subset_names_agrees_with_the_matcher():
    # The reader, the metric, the leaderboard's averaged key and its words, and the SD-QA and BBH checks.
    assert formats.subset_spec("voicebench", "mmsu_law") is formats.VOICEBENCH_SUBSETS["mmsu"]
    assert scoring.metric_for("sd-qa-gbr") == "qa"
    assert leaderboard.subset_key(VOICEBENCH, "sd-qa-gbr") == "sd-qa"
    assert leaderboard.subset_key(OPENAUDIOBENCH, "Alpaca_Eval") == "alpacaeval_full"
    assert leaderboard.subset_key(VOICEBENCH, "alpacaeval_full") is None  # not one of the nine VoiceBench averages
    assert leaderboard.subset_name("sd-qa-usa") == "SD-QA (usa)"
    assert leaderboard.subset_name("alpaca_eval") == "AlpacaEval"
    assert leaderboard.subset_name("kmmau") == "kmmau"  # KMMAU's items are named by capability
    assert is_sd_qa("SD-QA_usa") and not is_sd_qa("sd-qa-")
    assert checker_data.family(type("Sample", (), {"task_type": "binary", "subset": "bbh_navigate"})) == "bbh"
    with pytest.raises(InvalidInput, match="known subsets: alpacaeval_full, alpaca_eval, llama_questions"):
        formats.subset_spec("openaudiobench", "mmsu")
    assert KMMAU not in catalogue.SPOKEN_QA_FAMILIES
