"""Migration 0005 turns the "transfer.correction:<pk>" strings into the foreign key, and gives a correction
already sent to an expert, but never pulled into the inbox, its question."""

import pytest

from tests.migrating import migrate, migrate_to_latest

BEFORE = [("consultations", "0004_agent_call_links")]
AFTER = [("consultations", "0005_correction_link")]


@pytest.mark.django_db(transaction=True)
def test_existing_links_become_foreign_keys_and_unasked_corrections_get_their_question():
    old = migrate(BEFORE)
    try:
        Benchmark, Sample = old.get_model("transfer", "SourceBenchmark"), old.get_model("transfer", "SourceSample")
        Run, Review = old.get_model("transfer", "ReviewRun"), old.get_model("transfer", "GroundTruthReview")
        Correction, Question = old.get_model("transfer", "Correction"), old.get_model("consultations", "DecisionQuestion")
        bench = Benchmark.objects.create(name="voicebench", format="voicebench")
        run = Run.objects.create(benchmark=bench, on_unresolved="expert")

        def correction(source_id: str):
            sample = Sample.objects.create(benchmark=bench, subset="sd-qa", task_type="short_answer", source_id=source_id,
                                           transcription=f"question {source_id}", answer="Astana", raw={}, line_number=1)
            review = Review.objects.create(sample=sample, run=run, outcome="correction_proposed")
            return Correction.objects.create(review=review, sample=sample, kind="add_aliases", proposed_aliases=["Nur-Sultan"],
                                             reviewer_rationale="renamed in 2019", meta_verdict="reject", status="needs_expert")

        asked, unasked = correction("a"), correction("b")
        pulled = Question.objects.create(round=None, number=1, origin="ground_truth", title="t", decision_needed="d",
                                         ground_truth_ref=f"transfer.correction:{asked.pk}")
    finally:
        new = migrate(AFTER)
    Question = new.get_model("consultations", "DecisionQuestion")
    assert Question.objects.get(pk=pulled.pk).correction_id == asked.pk
    raised = Question.objects.get(correction_id=unasked.pk)
    assert (raised.number, raised.round_id, raised.origin) == (2, None, "ground_truth")
    assert "also accept 'Nur-Sultan'" in raised.title and "renamed in 2019" in raised.decision_needed
    assert sorted(raised.options.values_list("key", "label")) == [("A", "Apply the correction"), ("B", "Reject the correction")]
    assert list(raised.affected_samples.values_list("source_id", flat=True)) == ["b"]
    migrate_to_latest()
