"""Bad input gets a clear refusal, never a 500 or a traceback: a table of hostile values (JSON nested past
Python's recursion limit, a NUL in a value and in a key, a 200,000-character cell, a 5,000-digit number) run
through every importer command, the upload pages and the API. Each time nothing is written, nothing answers
5xx, and the message names the file, the line and (where one is to blame) the field."""

import io
import json
import zipfile

import pytest
from django.core.management import CommandError, call_command

from apps.audio.models import AudioAsset
from apps.authoring.models import Corpus, ScoreRun
from apps.consultations.models import ExpertAnswer
from apps.listening.models import ListeningTest
from apps.releases.models import Release
from apps.sources.models import SourceBenchmark, SourceSample
from apps.verification.models import ScoringRun, VerificationItem, VerificationProject
from tests.authoring.conftest import question_set  # noqa: F401 (fixture)
from tests.conftest import write_wav
from tests.consultations.conftest import make_question, rulebooks, samples  # noqa: F401 (fixtures)
from tests.verification.conftest import record

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000  # json.loads ends in a RecursionError on this
# name: (how the bad value is written in JSON, does it replace the field's value or add a key, what is said)
JSON_CASES = {
    "nested": (DEEP, "value", "nested more than 32 levels deep"),
    "nul in a value": ('"a\\u0000b"', "value", "contains a NUL character"),
    "nul in a key": ('"x"', "key", "a key contains a NUL character"),
    "200k characters": ('"' + "x" * 200_000 + '"', "value", "200,000 characters, over the limit of 131,072"),
    "5,000 digits": ("9" * 5000, "value", "a number of 5,000 digits"),
}
CSV_CASES = {
    "nul in a cell": ("a\x00b", "contains a NUL character"),
    "200k-character cell": ("x" * 200_000, "200,000 characters, over the limit of 131,072"),
}


def jsonl(good: dict, bad_field: str, case: str, **second) -> str:
    """Two records: `good`, then `good` updated with `second` and the case's bad value at `bad_field` (line 2)."""
    raw, where, _ = JSON_CASES[case]
    parts = [f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in {**good, **second}.items()
             if not (where == "value" and k == bad_field)]
    parts.append(f'"{bad_field}": {raw}' if where == "value" else f'"{bad_field}\\u0000": {raw}')
    return json.dumps(good, ensure_ascii=False) + "\n{" + ", ".join(parts) + "}\n"


def json_array(good: dict, bad_field: str, case: str, **second) -> str:
    first, second = jsonl(good, bad_field, case, **second).splitlines()
    return f"[{first},\n{second}]\n"


def named(case: str, field: str) -> str:
    """The field a refusal names: none for a value too deep to read, the key itself for a NUL in a key."""
    if case == "nested":
        return ""
    return f"{field}\\0: " if JSON_CASES[case][1] == "key" else f"{field}: "


def refusal(*args, **options) -> str:
    with pytest.raises(CommandError) as refused:
        call_command(*args, **options)
    return str(refused.value)


# --- importer commands ---------------------------------------------------------------------------------

CLIP = {"clip_id": "c1", "audio": "c1.wav", "text": "hello", "speaker": "s1", "source_type": "real", "style": "read",
        "category": "C", "system": "sys"}


@pytest.mark.parametrize("case", JSON_CASES)
def test_import_listening_test_refuses_each_bad_jsonl_value(case, tmp_path):
    write_wav(tmp_path / "c1.wav")
    (tmp_path / "m.jsonl").write_text(jsonl(CLIP, "text", case), encoding="utf-8")
    message = refusal("import_listening_test", "--name", "bad", "--manifest", str(tmp_path / "m.jsonl"))
    assert f"m.jsonl line 2: {named(case, 'text')}{JSON_CASES[case][2]}" in message
    assert ListeningTest.objects.count() == 0 and AudioAsset.objects.count() == 0


@pytest.mark.parametrize("case", CSV_CASES)
def test_import_listening_test_refuses_each_bad_csv_cell(case, tmp_path):
    write_wav(tmp_path / "c1.wav")
    header = ",".join(CLIP)
    rows = [",".join(CLIP.values()), ",".join({**CLIP, "text": CSV_CASES[case][0]}.values())]
    (tmp_path / "m.csv").write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    message = refusal("import_listening_test", "--name", "bad", "--manifest", str(tmp_path / "m.csv"))
    assert f"m.csv line 3: text: {CSV_CASES[case][1]}" in message
    assert ListeningTest.objects.count() == 0 and AudioAsset.objects.count() == 0


@pytest.mark.parametrize("layout", ["jsonl", "json"])
@pytest.mark.parametrize("case", JSON_CASES)
def test_import_verification_items_refuses_each_bad_value(case, layout, tmp_path):
    good = record("r0")
    (tmp_path / "media" / "Audios").mkdir(parents=True)
    write_wav(tmp_path / "media" / good["audio_path"])
    path = tmp_path / f"items.{layout}"
    path.write_text((jsonl if layout == "jsonl" else json_array)(good, "question", case, id="r1"), encoding="utf-8")
    message = refusal("import_verification_items", "--name", "bad", "--file", str(path), "--media", str(tmp_path / "media"))
    if layout == "json" and case == "nested":
        assert f"items.json line 2: {JSON_CASES[case][2]}" in message  # the array cannot be read on from there
    else:
        assert f"items.{layout} line 2: {named(case, 'question')}{JSON_CASES[case][2]}" in message
    assert VerificationProject.objects.count() == 0 and VerificationItem.objects.count() == 0


@pytest.mark.parametrize("case", JSON_CASES)
def test_import_benchmark_refuses_each_bad_jsonl_value(case, tmp_path):
    (tmp_path / "sd-qa.jsonl").write_text(jsonl({"prompt": "What is two plus two?", "reference": "four"}, "prompt", case),
                                          encoding="utf-8")
    message = refusal("import_benchmark", "--format", "voicebench", "--subset", "sd-qa", str(tmp_path / "sd-qa.jsonl"))
    assert f"sd-qa.jsonl line 2: {named(case, 'prompt')}{JSON_CASES[case][2]}" in message
    assert SourceBenchmark.objects.count() == 0 and SourceSample.objects.count() == 0


@pytest.mark.parametrize("case", CSV_CASES)
def test_import_benchmark_refuses_each_bad_csv_cell(case, tmp_path):
    path = tmp_path / "web_questions.csv"
    path.write_text(f"audio_filename,question,answers\na.wav,Who?,['x']\nb.wav,{CSV_CASES[case][0]},['y']\n", encoding="utf-8")
    message = refusal("import_benchmark", "--format", "openaudiobench", "--subset", "web_questions", str(path))
    assert f"web_questions.csv line 3: question: {CSV_CASES[case][1]}" in message
    assert SourceSample.objects.count() == 0


UTTERANCE = {"utterance_id": "u1", "audio": "u1.wav", "transcript": "안녕하세요", "num_speakers": 1}


@pytest.mark.parametrize("case", JSON_CASES)
def test_import_corpus_refuses_each_bad_manifest_value(case, tmp_path):
    write_wav(tmp_path / "u1.wav")
    (tmp_path / "corpus.jsonl").write_text(jsonl(UTTERANCE, "transcript", case), encoding="utf-8")
    message = refusal("import_corpus", str(tmp_path / "corpus.jsonl"), "--name", "bad", "--format", "manifest",
                      "--license", "CC0-1.0")
    assert f"corpus.jsonl line 2: {named(case, 'transcript')}{JSON_CASES[case][2]}" in message
    assert Corpus.objects.count() == 0 and AudioAsset.objects.count() == 0


@pytest.mark.parametrize(("cell", "reason"), [
    *CSV_CASES.values(),
    ("9" * 30, "a whole number too large to store"),  # no database integer holds it
    ("9" * 5000, "4300 digits"),
])
def test_import_corpus_refuses_each_bad_csv_cell_naming_its_column(cell, reason, tmp_path):
    write_wav(tmp_path / "u1.wav")
    write_wav(tmp_path / "u2.wav")
    column = "transcript" if not cell.isdigit() else "num_speakers"
    bad = {**UTTERANCE, "utterance_id": "u2", "audio": "u2.wav", column: cell}
    lines = [",".join(UTTERANCE), ",".join(map(str, UTTERANCE.values())), ",".join(map(str, bad.values()))]
    (tmp_path / "corpus.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    message = refusal("import_corpus", str(tmp_path / "corpus.csv"), "--name", "bad", "--format", "manifest",
                      "--license", "CC0-1.0")
    assert f"corpus.csv line 3: {column}: " in message and reason in message
    assert Corpus.objects.count() == 0


def test_import_corpus_refuses_a_nul_in_a_kss_transcript(tmp_path):
    (tmp_path / "1").mkdir()
    write_wav(tmp_path / "1" / "1_0000.wav")
    (tmp_path / "transcript.v.1.4.txt").write_text("1/1_0000.wav|안녕\x00|안녕\x00|안녕\x00|1.0|hello\n", encoding="utf-8")
    message = refusal("import_corpus", str(tmp_path / "transcript.v.1.4.txt"), "--name", "kss", "--format", "kss")
    assert "transcript.v.1.4.txt line 1: " in message and "contains a NUL character" in message
    assert Corpus.objects.count() == 0


@pytest.mark.parametrize("case", JSON_CASES)
def test_score_questions_refuses_each_bad_prediction(case, question_set, tmp_path):  # noqa: F811
    path = tmp_path / "predictions.jsonl"
    path.write_text(jsonl({"id": "kmmau-0000001", "model_output": "A"}, "model_output", case, id="kmmau-0000002"),
                    encoding="utf-8")
    message = refusal("score_questions", question_set.name, "--predictions", str(path), "--model", "m")
    assert f"predictions.jsonl line 2: {named(case, 'model_output')}{JSON_CASES[case][2]}" in message
    assert ScoreRun.objects.count() == 0


@pytest.fixture
def project(admin):
    from apps.verification.services import create_project

    return create_project(name="Scored", acting_user=admin)


@pytest.mark.parametrize("case", JSON_CASES)
def test_score_verification_refuses_each_bad_prediction(case, project, tmp_path):
    path = tmp_path / "predictions.jsonl"
    path.write_text(jsonl({"id": "i1", "prediction": "A"}, "prediction", case, id="i2"), encoding="utf-8")
    message = refusal("score_verification", project.name, "--predictions", str(path), "--model", "m")
    assert f"predictions.jsonl line 2: {named(case, 'prediction')}{JSON_CASES[case][2]}" in message
    assert ScoringRun.objects.count() == 0


@pytest.mark.parametrize("case", CSV_CASES)
def test_score_verification_refuses_each_bad_csv_cell(case, project, tmp_path):
    path = tmp_path / "predictions.csv"
    path.write_text(f"id,prediction\ni1,A\ni2,{CSV_CASES[case][0]}\n", encoding="utf-8")
    message = refusal("score_verification", project.name, "--predictions", str(path), "--model", "m")
    assert f"predictions.csv line 3: prediction: {CSV_CASES[case][1]}" in message
    assert ScoringRun.objects.count() == 0


def test_score_verification_refuses_a_file_that_is_not_utf8(project, tmp_path):
    path = tmp_path / "predictions.csv"
    path.write_bytes(b"id,prediction\ni1,\xff\xfe\n")
    assert "predictions.csv: not UTF-8 text" in refusal("score_verification", project.name, "--predictions", str(path),
                                                        "--model", "m")


@pytest.mark.parametrize("out", ["/etc/passwd", "/proc/sori-cannot-be-made"])
def test_build_release_refuses_an_out_that_is_a_file_or_cannot_be_made_before_building(out, admin):
    message = refusal("build_release", "--kind", "mos", "--from", "1", "--name", "x", "--version", "1",
                      "--out", out)
    assert message.startswith(f"--out {out}")
    assert Release.objects.count() == 0


# --- pages ---------------------------------------------------------------------------------------------

def _media_zip(folder, *names: str) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number, name in enumerate(names):
            archive.write(write_wav(folder / f"{number}.wav", seconds=0.3, freq=300 + number), name)
    buffer.seek(0)
    buffer.name = "media.zip"
    return buffer


@pytest.mark.parametrize("case", JSON_CASES)
def test_the_verification_upload_page_lists_the_refusal(case, admin, client_for, tmp_path):
    items = io.BytesIO(jsonl(record("r0"), "question", case, id="r1", audio_path="Audios/r1.wav").encode())
    items.name = "items.jsonl"
    page = client_for(admin).post("/verification/upload/", {
        "name": "bad", "file": items, "media": _media_zip(tmp_path, "Audios/r0.wav", "Audios/r1.wav")})
    assert page.status_code == 200
    assert f"items.jsonl line 2: {named(case, 'question')}{JSON_CASES[case][2]}" in page.content.decode()
    assert VerificationProject.objects.count() == 0


@pytest.mark.parametrize("case", JSON_CASES)
def test_the_transfer_import_page_lists_the_refusal(case, admin, client_for):
    data = io.BytesIO(jsonl({"prompt": "What is two plus two?", "reference": "four"}, "prompt", case).encode())
    data.name = "sd-qa.jsonl"
    page = client_for(admin).post("/transfer/import/", {"format": "voicebench", "subset": "sd-qa", "file": data})
    assert page.status_code == 200
    assert f"sd-qa.jsonl line 2: {named(case, 'prompt')}{JSON_CASES[case][2]}" in page.content.decode()
    assert SourceSample.objects.count() == 0


def test_the_normalizer_page_and_command_read_5000_digits_and_refuse_more(rulebooks, admin, client_for):  # noqa: F811
    page = client_for(admin).post("/transfer/normalize/", {"try-text": "9" * 4999 + "개", "try-preserve": ""})
    assert page.status_code == 200 and "구구구구" in page.content.decode()  # a run no number word covers: digit by digit
    out = io.StringIO()
    call_command("normalize_text", "1" * 4400, "--no-agent", stdout=out)
    assert out.getvalue().splitlines()[0] == "일" * 4400
    assert "at most 5,000" in refusal("normalize_text", "1" * 5001, "--no-agent")
    too_long = client_for(admin).post("/transfer/normalize/", {"try-text": "1" * 5001})
    assert too_long.status_code == 200 and "at most 5000 characters" in too_long.content.decode()


# --- the API -------------------------------------------------------------------------------------------

def _post_raw(client, url: str, body: str):
    return client.generic("POST", url, body.encode(), content_type="application/json")


@pytest.mark.parametrize("case", JSON_CASES)
def test_the_answers_endpoint_refuses_each_bad_body_naming_the_field(case, make_question, expert, api_client):  # noqa: F811
    question = make_question()
    api_client.force_authenticate(expert)
    raw, where, reason = JSON_CASES[case]
    # A key the endpoint does not read is dropped unread (the schema allows any); one inside a field it reads is not.
    body = f'{{"option": {raw}}}' if where == "value" else f'{{"option": {{"note\\u0000": {raw}}}}}'
    response = _post_raw(api_client, f"/api/consultations/questions/{question.pk}/answers/", body)
    assert response.status_code == 400, response.content[:300]
    answer = response.json()
    if case == "nested":
        assert "nested too deeply" in answer["detail"]
    else:
        ((field, (message,)),) = answer["fields"].items()
        assert field == "option" and message.startswith(reason)
    assert ExpertAnswer.objects.count() == 0


def test_the_answers_endpoint_refuses_an_option_of_a_nul(make_question, expert, api_client):  # noqa: F811
    question = make_question()
    api_client.force_authenticate(expert)
    response = api_client.post(f"/api/consultations/questions/{question.pk}/answers/", {"option": "\u0000"}, format="json")
    assert response.status_code == 400 and response.json()["fields"] == {"option": ["contains a NUL character"]}
    form = api_client.post(f"/api/consultations/questions/{question.pk}/answers/", {"option": "\u0000"})
    assert form.status_code == 400 and ExpertAnswer.objects.count() == 0


def test_the_releases_endpoint_refuses_a_4400_digit_version(admin, api_client):
    api_client.force_authenticate(admin)
    response = api_client.post("/api/releases/", {"kind": "mos", "source_id": 1, "name": "x", "version": "1" * 4400},
                               format="json")
    assert response.status_code == 400 and "version" in response.json()["fields"]
    assert Release.objects.count() == 0
