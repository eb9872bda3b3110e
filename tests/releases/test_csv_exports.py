"""No export runs a formula: what an importer, annotator or author typed reaches every CSV export with a
formula cell neutralised (a leading '), read back with Python's csv module; numbers stay numbers; Parquet and
JSON keep the exact text. Covers the listening export and MOS release, the verification export and HPSU
release, and the KMMAU export."""

import csv
import json
from datetime import UTC, datetime

import pandas as pd
import pytest
from django.core.management import call_command

from apps.listening.models import Rating
from apps.listening.services import import_listening_test
from apps.verification.services import next_item, submit_review
from tests.listening.conftest import clip_rows
from tests.verification.conftest import mc_record, record

pytestmark = pytest.mark.django_db

LINK = '=HYPERLINK("http://evil.example/","click")'


def _csv(path, **options) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh, **options))


def _dicts(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture
def formula_test(write_manifest, listeners):
    """A listening test whose manifest carries formulas in text, system, speaker and category; rated by five."""
    rows = clip_rows(4, prefix="f")
    rows[0].update(text="=1+1", system="+cmd", speaker="@SUM(1)", category="-2+3")
    test = import_listening_test(name="formulas", manifest=write_manifest(rows, name="formulas.csv"))
    Rating.objects.bulk_create([
        Rating(clip=clip, listener=listener, score=1 + (i + n) % 5, rated_at=datetime(2026, 1, 5, 9, i, n, tzinfo=UTC))
        for i, clip in enumerate(test.clips.order_by("clip_id")) for n, listener in enumerate(listeners[:5])
    ])
    return test


def test_the_listening_export_neutralises_formulas_and_keeps_numbers_and_parquet_exact(formula_test, tmp_path):
    out = tmp_path / "export"
    call_command("export_listening_test", str(formula_test.pk), "--out", str(out), "--no-audio")

    clips = _dicts(out / "clips.csv")
    first = next(c for c in clips if c["clip_id"] == "f000")
    assert (first["text"], first["system"], first["speaker"], first["category"]) == ("'=1+1", "'+cmd", "'@SUM(1)", "'-2+3")
    assert float(first["mos_mean"]) > 0 and first["n"] == "5"  # numbers stay numbers
    assert all(float(r["score"]) in {1, 2, 3, 4, 5} for r in _dicts(out / "ratings.csv"))

    bvcc = _csv(out / "listener_ratings.csv")
    assert {row[0] for row in bvcc if row[1].startswith("f000")} == {"'+cmd"}
    assert all(row[2] in {"1", "2", "3", "4", "5"} for row in bvcc)

    parquet = pd.read_parquet(out / "clips.parquet").set_index("clip_id")
    assert (parquet.loc["f000", "text"], parquet.loc["f000", "system"]) == ("=1+1", "+cmd")


def test_the_mos_release_writes_its_listener_file_with_the_same_writer(formula_test, build, extracted):
    folder = extracted(build("mos", formula_test, name="komos-formulas"))
    bvcc = _csv(folder / "listener_ratings.csv")
    assert {row[0] for row in bvcc if row[1].startswith("f000")} == {"'+cmd"}
    clips = pd.concat(pd.read_parquet(p) for p in folder.rglob("*.parquet") if "clips" in str(p))
    assert "+cmd" in set(clips["system"])  # Parquet keeps the exact text


@pytest.fixture
def commented_project(make_project, annotators):
    """Three items, every review approving with a formula as its comment (one rejects r3)."""
    project = make_project(records=[record("r1"), mc_record("r2"), record("r3")], name="Formula comments")
    for annotator in annotators:
        while (item := next_item(project=project, acting_user=annotator)) is not None:
            reject = annotator == annotators[0] and item.external_id == "r3"
            submit_review(item=item, acting_user=annotator, decision="reject" if reject else "approve",
                          reasons=["wrong_answer"] if reject else [], comment="+cmd" if reject else LINK)
    return project


def test_the_verification_export_neutralises_a_review_comment(commented_project, tmp_path):
    out = tmp_path / "export"
    call_command("export_verification", commented_project.name, "--out", str(out))
    reviews = _dicts(out / "reviews.csv")
    assert {r["comment"] for r in reviews} == {"'" + LINK, "'+cmd"}
    assert all(float(r["seconds_spent"]) >= 0 and r["changes"].isdigit() for r in reviews)
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rejected[0]["rejections"][0]["comment"] == "+cmd"  # JSON keeps the exact text


def test_the_hpsu_release_keeps_only_accepted_reviews_neutralised(commented_project, build, extracted):
    folder = extracted(build("hpsu", commented_project, name="hpsu-formulas"))
    reviews = _dicts(folder / "reviews.csv")
    assert {r["item"] for r in reviews} == {"r1", "r2"} and len(reviews) == 6
    assert {r["comment"] for r in reviews} == {"'" + LINK}
    assert {r["item_status"] for r in reviews} == {"accepted"}


def test_the_kmmau_export_neutralises_manual_options_and_json_keeps_them(question_set, kss_corpus, tmp_path):
    from apps.authoring.exports import EXPORT_CSV, EXPORT_JSON, write_export
    from apps.authoring.models import Question, QuestionStatus

    question_set.corpora.add(kss_corpus)
    Question.objects.create(
        question_set=question_set, capability="role_profession", method="manual", clip=kss_corpus.clips.first(),
        text="-화자의 직업은?", options=["=1+1", "@SUM(1)", "교사", "-3"], correct_index=0,
        dedup_key="role_profession", status=QuestionStatus.ACCEPTED, provenance={"method": "manual"},
    )
    write_export(question_set, tmp_path)
    (row,) = _dicts(tmp_path / EXPORT_CSV)
    choices = {row[f"choice_{letter}"] for letter in "abcd"}
    assert choices == {"'=1+1", "'@SUM(1)", "교사", "'-3"}
    assert row["answer"] == "'=1+1" and row["question"] == "'-화자의 직업은?"
    (exported,) = json.loads((tmp_path / EXPORT_JSON).read_text(encoding="utf-8"))
    assert set(exported["choices"]) == {"=1+1", "@SUM(1)", "교사", "-3"} and exported["answer"] == "=1+1"
