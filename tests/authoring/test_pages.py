"""The admin's pages (dashboard, corpus upload as a job, export download, scoring upload) and who may
open the annotator's pages."""

import io
import json
import zipfile

from django.core.files.uploadedfile import SimpleUploadedFile

from apps.authoring.models import Corpus
from apps.authoring.services import generate_rule_questions


def test_the_dashboard_shows_counts_targets_and_answer_letters(client_for, admin, question_set, kss_corpus):
    generate_rule_questions(question_set=question_set, corpus=kss_corpus, capabilities=["gender"])
    page = client_for(admin).get(f"/authoring/sets/{question_set.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Number of Speakers" in html and "Word Frequency" in html and "2204" in html
    assert "KSS (CC-BY-NC-SA-4.0)" in html
    # Methods in words, not codes: "Rule-based from metadata", never a bare <td>metadata</td>.
    assert "<td>Agent-generated with human review</td>" in html and "<td>metadata</td>" not in html


def test_annotators_cannot_open_the_dashboard_and_listeners_nothing(client_for, annotator, listener, question_set):
    assert client_for(annotator).get(f"/authoring/sets/{question_set.pk}/").status_code == 403
    assert client_for(annotator).get(f"/authoring/sets/{question_set.pk}/review/").status_code == 200
    assert client_for(listener).get("/authoring/").status_code == 403


def test_a_corpus_upload_runs_as_a_job_and_names_bad_rows(client_for, admin, corpus_folder, django_capture_on_commit_callbacks):
    from apps.jobs.models import Job

    transcript = corpus_folder.kss()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.write(transcript, "transcript.v.1.4.txt")
        for wav in corpus_folder.root.rglob("*.wav"):
            zf.write(wav, str(wav.relative_to(corpus_folder.root)))
    upload = SimpleUploadedFile("kss.zip", buffer.getvalue(), content_type="application/zip")
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(admin).post("/authoring/corpora/upload/", {
            "name": "KSS upload", "format": "kss", "path": "transcript.v.1.4.txt", "bundle": upload})
    assert response.status_code == 302
    job = Job.objects.get(kind="authoring.import_corpus")
    assert job.status == "succeeded", job.error
    assert Corpus.objects.get(name="KSS upload").clips.count() == 3

    bad = io.BytesIO()
    with zipfile.ZipFile(bad, "w") as zf:
        zf.write(transcript, "transcript.v.1.4.txt")  # no audio files
    with django_capture_on_commit_callbacks(execute=True):
        client_for(admin).post("/authoring/corpora/upload/", {
            "name": "KSS bad", "format": "kss", "path": "transcript.v.1.4.txt",
            "bundle": SimpleUploadedFile("bad.zip", bad.getvalue())})
    failed = Job.objects.filter(kind="authoring.import_corpus").order_by("-id").first()
    assert failed.status == "failed"
    assert "transcript.v.1.4.txt line 1: audio: missing audio file '1/1_0000.wav'" in failed.result["errors"]
    assert not Corpus.objects.filter(name="KSS bad").exists()


def test_export_download_and_scoring_upload(client_for, admin, question_set, seoul_corpus):
    generate_rule_questions(question_set=question_set, corpus=seoul_corpus, capabilities=["gender"])
    client = client_for(admin)
    response = client.get(f"/authoring/sets/{question_set.pk}/export.zip")
    assert response.status_code == 200 and response["X-Content-Type-Options"] == "nosniff"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    rows = json.loads(archive.read("kmmau.json"))
    assert len(rows) == 4 and "LICENSE.md" in archive.namelist()
    for row in rows:
        row["model_output"] = row["answer"]
    scored = client.post(f"/authoring/sets/{question_set.pk}/score/", {
        "model": "oracle", "predictions": SimpleUploadedFile("run.json", json.dumps(rows).encode())}, follow=True)
    assert "oracle: average 100.0 % (random 50.0 %)" in scored.content.decode()


def test_targets_that_are_not_a_json_object_are_refused_with_a_message(client_for, admin, question_set):
    client = client_for(admin)
    before = dict(question_set.targets)
    for bad, said in (("{not json", "targets are not valid JSON"), ("[1, 2]", "targets must map capabilities to counts")):
        page = client.post(f"/authoring/sets/{question_set.pk}/", {"targets": bad}, follow=True).content.decode()
        assert said in page, bad
    question_set.refresh_from_db()
    assert question_set.targets == before
