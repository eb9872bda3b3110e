import json

import pytest
from django.core.management import CommandError, call_command

from apps.audio.models import AudioAsset
from apps.core.errors import FileRefused
from apps.verification.models import VerificationItem, VerificationProject
from apps.verification.services import import_items
from tests.audio_looks import count_looks
from tests.verification.conftest import mc_record, record, yes_no_record


def _refusal(hpsu, records, **kwargs):
    path = hpsu.write(records, **kwargs)
    with pytest.raises(FileRefused) as caught:
        import_items(project_name="Refused", file_path=path, media_dir=hpsu.media)
    assert not VerificationProject.objects.filter(name="Refused").exists()
    assert VerificationItem.objects.count() == 0
    return caught.value.lines()


def at(hpsu, ext_id: str, *, name: str = "items.json", nth: int = 1) -> str:
    """"items.json line N", N the line the nth record with this id starts on (the line before its "id")."""
    lines = (hpsu.root / name).read_text(encoding="utf-8").splitlines()
    found = [i for i, line in enumerate(lines, start=1) if line.strip() == f'"id": "{ext_id}",']
    return f"{name} line {found[nth - 1] - 1}"


@pytest.mark.django_db
def test_it_imports_the_release_format_with_tiers_prompts_and_yes_no_statements(hpsu):
    prompts = {"standard": "Identify the purpose.", "positive": "It seems a complaint. Identify the purpose.",
               "negative": "It seems thanks. Identify the purpose."}
    records = [record("a", prompts=prompts, transcript="Well, this again."), mc_record("b"), yes_no_record("c")]
    batch = import_items(project_name="P", file_path=hpsu.write(records, jsonl=True), media_dir=hpsu.media)
    a, b, c = VerificationItem.objects.order_by("position")
    assert batch.item_count == 3 and batch.file_sha256
    assert (a.task, a.domain, a.format, a.answers) == ("Intent", "Discourse Context", "single", ["Complain"])
    assert a.tiers == {"Reject": "similar", "Question": "middle", "Thanks": "opposite"}
    assert a.prompts == prompts and a.transcript == "Well, this again."
    assert (b.format, b.answers) == ("multiple", ["Contentment", "Pride"])
    # selected_field "distractor": the wrong description is put to the listener, so "no" is correct.
    assert (c.format, c.statement, c.expected_yes) == ("yes_no", "一位儿童，面带微笑。", False)
    assert a.project.pool.required_per_item == 3
    assert a.audio.duration_seconds > 0


@pytest.mark.django_db
def test_each_audio_file_is_looked_at_once_and_stored_from_that_look(hpsu, monkeypatch):
    # The check's findings are what the store writes (issue 23), also for a file two records share.
    records = [record("a"), mc_record("b"), record("c", audio_path="Audios/a.wav")]
    path = hpsu.write(records)
    looks, decodes = count_looks(monkeypatch)
    import_items(project_name="Once", file_path=path, media_dir=hpsu.media)
    assert looks == {"a.wav": 1, "b.wav": 1} and decodes == {}  # PCM WAVs are read from their header alone
    a, b, c = VerificationItem.objects.order_by("position")
    assert a.audio == c.audio != b.audio and AudioAsset.objects.count() == 2


@pytest.mark.django_db
def test_it_refuses_an_unknown_task_naming_the_item(hpsu):
    problems = _refusal(hpsu, [record("ok"), record("x1", **{"sub-category": "Sarcasm Level"})])
    assert problems == [f"{at(hpsu, 'x1')}: sub-category: unknown task 'Sarcasm Level' (the 16 HPSU tasks are Age, Gender, ...)"]


@pytest.mark.django_db
def test_it_refuses_an_answer_that_is_not_among_the_options(hpsu):
    problems = _refusal(hpsu, [record("x2", answer="Praise", attributes=""), mc_record("x3", answer="Pride,Joy", attributes="")])
    assert problems == [f"{at(hpsu, 'x2')}: the answer 'Praise' is not among the options",
                        f"{at(hpsu, 'x3')}: the answer 'Joy' is not among the options"]


@pytest.mark.django_db
def test_it_refuses_a_tier_naming_a_missing_option(hpsu):
    attributes = {"true": "Complain", "similar": "Reject", "middle": "Question", "opposite": "Applaud"}
    problems = _refusal(hpsu, [record("x4", attributes=attributes)])
    assert problems == [f"{at(hpsu, 'x4')}: tier 'opposite' names 'Applaud', which is not among the options"]


@pytest.mark.django_db
def test_it_refuses_a_yes_no_item_without_exactly_two_options(hpsu):
    problems = _refusal(hpsu, [yes_no_record("x5", choice=["A man.", "A child.", "A woman."], answer="A man.")])
    assert problems == [f"{at(hpsu, 'x5')}: a yes/no item needs exactly two options, not 3"]


@pytest.mark.django_db
def test_it_refuses_duplicate_ids_in_the_file_and_in_the_project(hpsu):
    problems = _refusal(hpsu, [record("d1"), record("d1", answer="Reject", attributes="")])
    assert problems == [f"{at(hpsu, 'd1', nth=2)}: id: 'd1' repeats {at(hpsu, 'd1').removeprefix('items.json ')}"]
    import_items(project_name="Existing", file_path=hpsu.write([record("d2")], name="first.json"), media_dir=hpsu.media)
    with pytest.raises(FileRefused) as caught:
        import_items(project_name="Existing", file_path=hpsu.write([record("d3"), record("d2")], name="second.json"),
                     media_dir=hpsu.media)
    assert caught.value.lines() == [
        f"{at(hpsu, 'd2', name='second.json')}: id: duplicate id (the project already has an item with this id)"
    ]
    assert VerificationItem.objects.count() == 1  # d3 was not stored either: all or nothing


@pytest.mark.django_db
def test_it_refuses_missing_or_broken_media_and_stores_nothing(hpsu):
    path = hpsu.write([record("m1"), record("m2")])
    (hpsu.media / "Audios/m2.wav").unlink()
    (hpsu.media / "Audios/m1.wav").write_bytes(b"RIFF....not audio")
    with pytest.raises(FileRefused) as caught:
        import_items(project_name="Media", file_path=path, media_dir=hpsu.media)
    assert caught.value.lines()[0].startswith(f"{at(hpsu, 'm1')}: audio_path: media Audios/m1.wav: ")
    assert caught.value.lines()[1].startswith(f"{at(hpsu, 'm2')}: audio_path: missing media 'Audios/m2.wav'")
    assert AudioAsset.objects.count() == 0 and VerificationItem.objects.count() == 0


@pytest.mark.django_db
def test_a_path_leaving_the_media_folder_counts_as_missing(hpsu):
    problems = _refusal(hpsu, [record("t1", audio_path="../../etc/passwd")], audio=False)
    assert problems[0].startswith(f"{at(hpsu, 't1')}: audio_path: missing media '../../etc/passwd'")


@pytest.mark.django_db
def test_the_command_reports_every_problem_and_imports_when_clean(hpsu, capsys):
    bad = hpsu.write([record("c1", answer="Nope", attributes=""), record("c2", **{"sub-category": "Nope"})], name="bad.json")
    with pytest.raises(CommandError) as caught:
        call_command("import_verification_items", "--name", "Cmd", "--file", str(bad), "--media", str(hpsu.media))
    assert f"{at(hpsu, 'c1', name='bad.json')}: the answer 'Nope'" in str(caught.value)
    assert f"{at(hpsu, 'c2', name='bad.json')}: sub-category: unknown task" in str(caught.value)
    good = hpsu.write([record("c3")], name="good.json")
    call_command("import_verification_items", "--name", "Cmd", "--file", str(good), "--media", str(hpsu.media))
    assert "Imported 1 items into 'Cmd'" in capsys.readouterr().out


@pytest.mark.django_db
def test_bad_json_is_refused_with_its_line(hpsu):
    path = hpsu.root / "broken.jsonl"
    hpsu.root.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record("j1")) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(FileRefused) as caught:
        import_items(project_name="J", file_path=path, media_dir=hpsu.media)
    assert "broken.jsonl line 2: not valid JSON (Expecting property name enclosed in double quotes)" in caught.value.lines()


@pytest.mark.django_db
def test_an_admin_uploads_items_and_a_media_zip(hpsu, admin, annotator, client_for):
    import io
    import zipfile

    from django.core.files.uploadedfile import SimpleUploadedFile

    path = hpsu.write([record("u1"), mc_record("u2")])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for wav in hpsu.media.rglob("*.wav"):
            archive.write(wav, wav.relative_to(hpsu.media).as_posix())
    assert client_for(annotator).get("/verification/upload/").status_code == 403
    response = client_for(admin).post("/verification/upload/", {
        "name": "Uploaded", "file": SimpleUploadedFile("items.json", path.read_bytes()),
        "media": SimpleUploadedFile("media.zip", buffer.getvalue()),
    })
    assert response.status_code == 302
    assert VerificationProject.objects.get(name="Uploaded").items.count() == 2
    bad = client_for(admin).post("/verification/upload/", {
        "name": "Uploaded", "file": SimpleUploadedFile("items.json", path.read_bytes()),
        "media": SimpleUploadedFile("media.zip", buffer.getvalue()),
    })
    assert "items.json line 2: id: duplicate id (the project already has an item with this id)" in bad.content.decode()


@pytest.mark.django_db
def test_multiple_choice_answers_may_name_options_by_letter(hpsu):
    path = hpsu.write([mc_record("L1", answer="A,B", attributes={"true": "A,B"})])
    import_items(project_name="Letters", file_path=path, media_dir=hpsu.media)
    assert VerificationItem.objects.get(external_id="L1").answers == ["Contentment", "Pride"]
