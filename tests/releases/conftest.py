"""Fixtures for release tests: a rated listening test, a settled verification project, a corrected source
benchmark, and `build` which builds a release through the service (inline job) and returns it."""

import json

import pytest

from tests.authoring.conftest import corpus_folder, kss_corpus, question_set, seoul_corpus  # noqa: F401 (fixtures)
from tests.listening.conftest import make_test, write_manifest  # noqa: F401 (fixtures)
from tests.verification.conftest import hpsu, make_project, mc_record, record  # noqa: F401 (fixtures)


@pytest.fixture
def rated_test(make_test, listeners):  # noqa: F811
    """Six regular clips and one gold clip, each rated by five listeners (scores vary by clip and listener)."""
    from datetime import UTC, datetime, timedelta

    from apps.listening.models import Rating

    test = make_test(6, gold=1, name="KOMOS demo")
    # Written directly (the assignment engine has its own tests): quick, and the times are fixed.
    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    Rating.objects.bulk_create([
        Rating(clip=clip, listener=listener, score=1 + (i + n) % 5, rated_at=start + timedelta(minutes=10 * n + i))
        for i, clip in enumerate(test.clips.order_by("clip_id")) for n, listener in enumerate(listeners[:5])
    ])
    return test


@pytest.fixture
def settled_project(make_project, annotators):  # noqa: F811
    """Four HPSU items: three accepted (two Intent, one Emotions), one rejected."""
    from apps.verification.services import next_item, submit_review

    records = [record("r1", prompts={"standard": "Identify the purpose."}), mc_record("r2"), record("r3"),
               record("r4", transcript="좋네요.", language="ko")]
    project = make_project(records=records, name="HPSU release")
    for annotator in annotators:
        while (item := next_item(project=project, acting_user=annotator)) is not None:
            reject = annotator == annotators[0] and item.external_id == "r3"
            submit_review(item=item, acting_user=annotator, decision="reject" if reject else "approve",
                          reasons=["wrong_answer"] if reject else [], comment="")
    return project


@pytest.fixture
def benchmark(db, tmp_path):
    """VoiceBench sd-qa: four short-answer samples and one open-ended commoneval sample (Korean in NFD on
    purpose, so the release's NFC normalisation shows)."""
    import unicodedata

    from apps.sources.models import SourceBenchmark
    from apps.sources.services import import_benchmark

    rows = [("What is the capital of Australia?", "Sydney"), ("How many legs does a spider have?", "eight"),
            ("Who wrote Hamlet?", "William Shakespeare"), (unicodedata.normalize("NFD", "한국의 수도는?"), "서울")]
    path = tmp_path / "sd-qa.jsonl"
    path.write_text("\n".join(json.dumps({"prompt": q, "reference": a}, ensure_ascii=False) for q, a in rows))
    import_benchmark(fmt="voicebench", subset="sd-qa", path=path)
    other = tmp_path / "commoneval.jsonl"
    other.write_text('{"prompt": "Tell me about your day."}\n')
    import_benchmark(fmt="voicebench", subset="commoneval", path=other)
    return SourceBenchmark.objects.get(name="voicebench")


@pytest.fixture
def build(admin, django_capture_on_commit_callbacks):
    from apps.releases.services import create_release

    def make(kind, source, *, name="demo", version="1.0.0", license=None, sources=None, description="A test release."):
        defaults = {"mos": ("CC-BY-4.0", [{"name": "Sori listening test", "license": "CC-BY-4.0"}]),
                    "hpsu": ("CC-BY-NC-SA-4.0", [{"name": "HPSU", "license": "CC-BY-NC-SA-4.0"}])}
        lic, src = defaults.get(kind, (None, None))
        with django_capture_on_commit_callbacks(execute=True):  # the build job runs inline on commit
            release = create_release(acting_user=admin, kind=kind, source_id=source.pk, name=name, version=version,
                                     license=license or lic, sources=sources if sources is not None else src,
                                     description=description)
        release.refresh_from_db()
        assert release.status == "built", release.job.error
        return release

    return make


@pytest.fixture
def extracted(tmp_path):
    """extracted(release) -> the folder its stored archive unpacks to."""
    from apps.releases.services import extract

    counter = {"n": 0}

    def unpack(release):
        counter["n"] += 1
        return extract(release, tmp_path / f"out{counter['n']}")

    return unpack
