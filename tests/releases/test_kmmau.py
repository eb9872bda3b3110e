"""The KMMAU kind: a question set's accepted questions with MMAU's fields plus audio, one config per
capability; byte-identical rebuilds, offline loading with `datasets`, the corpora's licences enforced, and
every human step in provenance under a pseudonym (no username in any file)."""

import hashlib
import json

import pytest

from apps.audio import playback
from apps.core.errors import InvalidInput
from apps.releases.models import Release
from apps.releases.writing import files_under, verify_folder
from tests.authoring import mmau_evaluation
from tests.authoring.conftest import heard, listened, make_agent_question
from tests.releases.test_card_and_loading import _front_matter, _load_every_config, _offline  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def kmmau_set(question_set, kss_corpus, seoul_corpus, annotators):
    """Rule questions from KSS and Seoul, an agent question approved by two reviewers, a manual segment
    question whose blind answer matched, and one agent question still in review (not released)."""
    from apps.authoring import services

    services.generate_rule_questions(question_set=question_set, corpus=kss_corpus)
    services.generate_rule_questions(question_set=question_set, corpus=seoul_corpus, capabilities=["gender", "age"])
    clips = list(kss_corpus.clips.order_by("id"))
    reviewed = make_agent_question(question_set, clips[0])
    for reviewer in annotators[1:]:
        assert services.next_review(question_set=question_set, acting_user=reviewer) == reviewed
        listened(clips[0], reviewer)
        services.submit_review(question=reviewed, acting_user=reviewer, decision="approve")
    author, answerer = annotators[0], annotators[1]
    heard(clips[1], author)
    playback.report_playback(asset=clips[1].audio, acting_user=author)
    manual, _ = services.author_question(
        question_set=question_set, clip=clips[1], acting_user=author, capability="general_counting",
        text="몇 명이 말하나요?", options=["한 명", "두 명", "세 명", "네 명"], correct_index=0, start_seconds=0.25,
        end_seconds=1.0)
    heard(clips[1], answerer)
    playback.report_playback(asset=clips[1].audio, acting_user=answerer)
    assert services.next_blind_answer(question_set=question_set, acting_user=answerer) == manual
    services.submit_blind_answer(question=manual, acting_user=answerer, choice="한 명")
    make_agent_question(question_set, clips[2], dedup_key="topic", capability="topic_summary")
    return question_set


def _hashes(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files_under(folder)}


def _build(build, source, **kw):
    return build("kmmau", source, name=kw.pop("name", "kmmau"), **kw)


def test_a_kmmau_release_carries_mmau_rows_audio_and_pseudonymous_provenance(kmmau_set, build, extracted, annotators, admin):
    from apps.authoring.models import Question
    from apps.authoring.selectors import accepted_questions

    release = _build(build, kmmau_set)
    assert release.license == "CC-BY-NC-SA-4.0"
    assert release.sources == [{"name": "KSS", "license": "CC-BY-NC-SA-4.0"}, {"name": "Seoul", "license": "CC-BY-NC-2.0"}]
    folder = extracted(release)
    assert verify_folder(folder) == []
    accepted = accepted_questions(kmmau_set).count()
    assert accepted == Question.objects.filter(question_set=kmmau_set).count() - 1 and release.item_count == accepted

    mmau = json.loads((folder / "kmmau.json").read_text(encoding="utf-8"))
    assert len(mmau) == accepted and all((folder / row["audio_id"]).is_file() for row in mmau)
    for row in mmau:
        row["model_output"] = row["answer"]
    assert mmau_evaluation.evaluate(mmau)["total_accuracy"] == 100.0  # MMAU's scorer reads it unchanged

    capabilities = {r["capability"] for r in mmau}
    assert {"fact_extraction", "general_counting"} <= capabilities and "topic_summary" not in capabilities
    for capability in capabilities:
        rows = [json.loads(line) for line in (folder / f"data/{capability}.jsonl").read_text(encoding="utf-8").splitlines()]
        for row in rows:
            assert (folder / row["audio"]).is_file() and row["audio"].startswith("audio/")
            assert row["answer"] in row["choices"]
            assert (row["original_dataset"], row["original_sample_id"]) == (row["dataset"], row["utterance_id"])

    provenance = {json.loads(line)["id"]: json.loads(line) for line in (folder / "provenance.jsonl").read_text().splitlines()}
    counted = next(p for p in provenance.values() if p["source"]["method"] == "manual")
    assert [d["kind"] for d in counted["human_decisions"]["decisions"]] == ["authored", "blind answer"]
    assert len(counted["human_decisions"]["pseudonyms"]) == 2
    reviewed = next(p for p in provenance.values() if p["source"]["method"] == "agent")
    assert [d["kind"] for d in reviewed["human_decisions"]["decisions"]] == ["review", "review"]
    # The same person has the same pseudonym across questions (annotator2 answered one and reviewed the other).
    assert set(counted["human_decisions"]["pseudonyms"]) & set(reviewed["human_decisions"]["pseudonyms"])

    names = [u.username for u in (*annotators, admin)]
    for path in files_under(folder):
        if path.suffix in {".json", ".jsonl", ".md", ".csv", ""}:
            text = path.read_text(encoding="utf-8")
            assert not [n for n in names if n in text], path
    # The database keeps who the pseudonyms are, for admins.
    item = release.items.get(item_id=counted["id"])
    assert sorted(item.people.values()) == sorted([annotators[0].pk, annotators[1].pk])


def test_a_kmmau_release_rebuilds_to_the_same_bytes_and_loads_offline(kmmau_set, build, extracted, tmp_path):
    first = _build(build, kmmau_set)
    before, archive = _hashes(extracted(first)), first.archive_sha256
    Release.objects.filter(pk=first.pk).delete()
    second = _build(build, kmmau_set)
    folder = extracted(second)
    assert _hashes(folder) == before and second.archive_sha256 == archive

    meta, body = _front_matter(folder / "README.md")
    assert meta["license"] == "cc-by-nc-sa-4.0" and meta["language"] == ["ko"]
    assert "KSS: CC-BY-NC-SA-4.0" in body and "Seoul: CC-BY-NC-2.0" in body
    loaded = _load_every_config(folder, meta, tmp_path)
    assert {config for config, _ in loaded} == {c["config_name"] for c in meta["configs"]}
    counting = loaded[("general_counting", "test")]
    assert counting.column_names[:2] == ["id", "audio"] and len(counting) == 1
    assert counting[0]["question"] == "몇 명이 말하나요?" and counting[0]["choices"][0] == "한 명"
    assert counting[0]["start_seconds"] == 0.25 and (folder / counting[0]["audio"]["path"]).is_file()


def test_a_kmmau_release_cannot_drop_the_corpora_terms(kmmau_set, admin):
    from apps.releases.services import create_release

    with pytest.raises(InvalidInput, match="KSS") as refused:
        create_release(acting_user=admin, kind="kmmau", source_id=kmmau_set.pk, name="kmmau", version="1.0.0",
                       license="CC-BY-4.0")
    assert refused.value.field == "license" and not Release.objects.exists()
    # Seoul Corpus is CC BY-NC 2.0: NC is kept by CC BY-NC-SA 4.0, the paper's licence for KMMAU.
    create_release(acting_user=admin, kind="kmmau", source_id=kmmau_set.pk, name="kmmau", version="1.0.0")


def test_a_kmmau_item_page_names_the_people_for_admins_in_bounded_queries(kmmau_set, build, admin, annotators,
                                                                          client_for, django_assert_num_queries):
    from django.urls import reverse

    release = _build(build, kmmau_set)
    manual = next(i for i in release.items.all() if i.provenance["source"]["method"] == "manual")
    rule = next(i for i in release.items.all() if i.provenance["source"]["method"] == "metadata")
    client = client_for(admin)
    client.get(reverse("releases:item", args=[release.pk, rule.item_id]))  # warm the session
    reviewed = next(i for i in release.items.all() if i.provenance["source"]["method"] == "agent")
    with django_assert_num_queries(5):
        plain = client.get(reverse("releases:item", args=[release.pk, rule.item_id]))
    with django_assert_num_queries(6):  # one more: the people behind the pseudonyms
        page = client.get(reverse("releases:item", args=[release.pk, manual.item_id]))
    with django_assert_num_queries(6):
        assert client.get(reverse("releases:item", args=[release.pk, reviewed.item_id])).status_code == 200
    assert plain.status_code == page.status_code == 200
    html = page.content.decode()
    assert "몇 명이 말하나요?" in html and "blind answer" in html
    assert annotators[0].username in html and annotators[1].username in html
    # The released row's choices read as words, not as a Python list.
    assert "<dd>한 명, 두 명, 세 명, 네 명</dd>" in html and "[&#x27;" not in html


def test_the_build_form_offers_question_sets(kmmau_set, admin, client_for):
    html = client_for(admin).get("/releases/").content.decode()
    assert f'value="kmmau:{kmmau_set.pk}"' in html and f"{kmmau_set.name} (#{kmmau_set.pk})" in html


def test_a_question_set_without_accepted_questions_is_refused_before_a_build(question_set, admin):
    from apps.core.errors import Conflict
    from apps.releases.services import create_release

    with pytest.raises(Conflict, match="no accepted questions yet"):
        create_release(acting_user=admin, kind="kmmau", source_id=question_set.pk, name="kmmau", version="1.0.0")
    assert not Release.objects.exists()


def test_the_demo_question_set_builds_a_release(build):
    import io

    from apps.authoring.demo import DEMO_SET, seed_demo
    from apps.authoring.models import QuestionSet
    from apps.authoring.selectors import accepted_questions

    seed_demo(io.StringIO())
    demo_set = QuestionSet.objects.get(name=DEMO_SET)
    release = _build(build, demo_set, name="kmmau-demo")
    assert release.item_count == accepted_questions(demo_set).count() > 0
    assert release.license == "CC-BY-NC-SA-4.0" and release.sources[0]["license"] == "CC0-1.0"
