import csv
import json

import pytest
from django.core.management import call_command

from apps.accounts.models import Pseudonym
from apps.verification.models import VerificationItem
from apps.verification.services import import_items, next_item, submit_review
from tests.verification.conftest import mc_record, record, yes_no_record

FIELDS = ["external_id", "audio_path", "task", "domain", "format", "language", "question", "options", "answers", "tiers",
          "statement", "expected_yes", "prompts", "source", "metric", "transcript", "record"]


def _settle(project, annotators, verdicts):
    """verdicts: {external_id: decision of the first annotator}; the others approve."""
    for annotator in annotators:
        while (item := next_item(project=project, acting_user=annotator)) is not None:
            decision = verdicts.get(item.external_id, "approve") if annotator == annotators[0] else "approve"
            submit_review(item=item, acting_user=annotator, decision=decision, reasons=["wrong_answer"] if decision == "reject" else [],
                          comment="not a complaint" if decision == "reject" else "")


@pytest.mark.django_db
def test_export_round_trips_the_accepted_items_and_lists_reviews_and_rejections(hpsu, annotators, admin, client_for, tmp_path):
    prompts = {"standard": "Identify the purpose.", "positive": "Surely a complaint?", "negative": "Surely thanks?"}
    records = [record("r1", prompts=prompts), mc_record("r2"), yes_no_record("r3"), record("r4"),
               record("r5", transcript="좋네요.", language="ko")]
    batch = import_items(project_name="Round", file_path=hpsu.write(records), media_dir=hpsu.media)
    project = batch.project
    _settle(project, annotators, {"r4": "reject"})
    out = tmp_path / "export"
    call_command("export_verification", "Round", "--out", str(out))

    exported = json.loads((out / "items.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in exported] == ["r1", "r2", "r3", "r5"]
    assert exported == [r for r in records if r["id"] != "r4"]  # the same records, field for field, in order
    assert list(exported[0]) == list(records[0])  # key order kept

    again = import_items(project_name="Round again", file_path=out / "items.json", media_dir=out)
    originals = {i.external_id: i for i in VerificationItem.objects.filter(project=project)}
    for item in again.project.items.all():
        first = originals[item.external_id]
        assert [getattr(item, f) for f in FIELDS] == [getattr(first, f) for f in FIELDS]
        assert item.audio_id == first.audio_id  # the same audio bytes

    with open(out / "reviews.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 15
    stored = Pseudonym.objects.filter(scope=project.pseudonym_scope, user__in=annotators)
    assert {r["annotator"] for r in rows} == set(stored.values_list("value", flat=True)) and stored.count() == 3
    assert not any(a.username in (out / "reviews.csv").read_text() for a in annotators)
    rejected_row = next(r for r in rows if r["decision"] == "reject")
    assert (rejected_row["item"], rejected_row["reasons"], rejected_row["comment"]) == ("r4", "wrong_answer", "not a complaint")
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rejected] == ["r4"] and rejected[0]["rejections"][0]["reasons"] == ["wrong_answer"]

    response = client_for(admin).get(f"/verification/projects/{project.pk}/export.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert client_for(annotators[0]).get(f"/verification/projects/{project.pk}/export.zip").status_code == 403


@pytest.mark.django_db
def test_a_release_export_names_only_the_annotators_of_accepted_items(hpsu, annotators, make_user, tmp_path):
    from apps.verification.exports import export_project

    project = import_items(project_name="Named", file_path=hpsu.write([record("r1")]), media_dir=hpsu.media).project
    _settle(project, annotators, {})  # r1 accepted by three annotators
    import_items(project_name="Named", file_path=hpsu.write([record("r2")], name="more.json"), media_dir=hpsu.media)
    late = make_user("late", "annotator")
    item = next_item(project=project, acting_user=late)
    submit_review(item=item, acting_user=late, decision="reject", reasons=["wrong_answer"])  # r2 stays pending
    result = export_project(project, tmp_path / "release", reviews_of_accepted_only=True)
    assert result["reviews"] == 3 and not (tmp_path / "release" / "rejected.jsonl").exists()
    named = Pseudonym.objects.filter(scope=project.pseudonym_scope)
    assert set(named.values_list("user", flat=True)) == {a.pk for a in annotators}  # nobody for `late`
