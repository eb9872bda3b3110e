"""A round's statistics count each sample in scope at its newest analysis under the round's rulebook, and
PostgreSQL's DISTINCT ON read and the portable anti-join (SQLite, the demo) pick the same analyses."""

import pytest
from django.db import connection

from apps.consultations import selectors
from apps.consultations.models import AnalysisResult, DecisionQuestion, Rulebook, RulebookVersion
from apps.consultations.services import create_round
from apps.sources.models import SourceBenchmark, SourceSample


@pytest.fixture
def analysed_round(db):
    bench = SourceBenchmark.objects.create(name="stats", format="voicebench")
    samples = [
        SourceSample.objects.create(benchmark=bench, subset=subset, task_type="short_answer", source_id=f"s{i}",
                                    transcription=f"q{i}", answer="a", raw={}, line_number=i)
        for i, subset in enumerate(["web_questions", "web_questions", "mmsu", "mmsu", "ifeval"], start=1)
    ]
    rulebook = Rulebook.objects.create(slug="stats-ht", language="x-st", kind="hypertranslation", title="stats")
    other = Rulebook.objects.create(slug="stats-other", language="x-ot", kind="hypertranslation", title="other")
    v1 = RulebookVersion.objects.create(rulebook=rulebook, number=1, source="test")
    round = create_round(rulebook=rulebook, scope={"subsets": ["web_questions", "mmsu"]})
    v2 = RulebookVersion.objects.create(rulebook=rulebook, number=2, source="test")
    v3 = RulebookVersion.objects.create(rulebook=rulebook, number=3, source="test")
    o1 = RulebookVersion.objects.create(rulebook=other, number=1, source="test")
    other_round = create_round(rulebook=other, scope={})
    analyses = [  # (sample, version, action, cited)
        (0, v1, "undecided", []), (0, v3, "deletion", ["R1", "R2"]),              # newest: v3
        (1, v1, "equivalent_replacement", ["R2"]),                                 # only v1
        (2, v2, "direct_translation", ["R1"]), (2, v1, "deletion", ["R9"]),        # newest: v2
        (3, v1, "format_conversion", []), (3, v2, "equivalent_replacement", ["R1", "R2"]),
        (3, v3, "deletion", ["R1", "R2"]),                                         # newest: v3
        (4, v3, "deletion", ["R7"]),                                               # out of scope (ifeval)
    ]
    AnalysisResult.objects.bulk_create([
        AnalysisResult(sample=samples[i], version=v, round=round, action=a, cited_rule_ids=c) for i, v, a, c in analyses
    ] + [AnalysisResult(sample=samples[0], version=o1, round=other_round, action="deletion", cited_rule_ids=["X"])])
    # Three questions, one decided, affecting samples 0, 1 and 3 (sample 1 twice); one of another round.
    for number, status, affected in [(1, "decided", [0, 1]), (2, "open", [1, 3]), (3, "open", [])]:
        question = DecisionQuestion.objects.create(round=round, number=number, status=status, title="q",
                                                   decision_needed="which?")
        question.affected_samples.set([samples[i] for i in affected])
    DecisionQuestion.objects.create(round=other_round, number=1, title="q", decision_needed="which?",
                                    status="decided").affected_samples.set(samples)
    return round


def _figures(stats):
    return (stats.questions_raised, stats.questions_answered, stats.samples_affected,
            stats.samples_analysed, stats.per_action, stats.flagged_by_subset, stats.citations)


EXPECTED = (
    3, 1, 3, 4,
    {"deletion": 2, "direct_translation": 1, "equivalent_replacement": 1},
    {"mmsu": {"deletion": 1}, "web_questions": {"deletion": 1, "equivalent_replacement": 1}},
    {"R1": 3, "R2": 3},
)


def test_a_round_counts_each_sample_in_scope_at_its_newest_analysis(analysed_round):
    # On PostgreSQL (where the suite runs) this is the DISTINCT ON read; on SQLite the anti-join.
    assert _figures(selectors.round_stats(analysed_round)) == EXPECTED


def test_the_anti_join_for_databases_without_distinct_on_picks_the_same_analyses(analysed_round, monkeypatch):
    monkeypatch.setattr(connection.features, "can_distinct_on_fields", False)
    assert _figures(selectors.round_stats(analysed_round)) == EXPECTED


def test_a_version_counts_every_analysis_made_under_it(analysed_round):
    v2 = analysed_round.rulebook.versions.get(number=2)
    stats = selectors.version_stats(v2)
    assert _figures(stats) == (0, 0, 0, 2, {"direct_translation": 1, "equivalent_replacement": 1},
                               {"mmsu": {"equivalent_replacement": 1}}, {"R1": 2, "R2": 1})
