"""Translation runs under a pinned, published hypertranslation rulebook version: actions, invented rule ids,
stale outputs and continued runs, multiple-choice labels, Korean aliases, undecided samples feeding the
consultation loop, corrections by a person, cancel and resume, parallel calls within the provider limit."""

import json

import pytest
from django.db import connection

from apps.agents.models import CachedResponse
from apps.consultations.models import AnalysisResult, Rulebook
from apps.consultations.rulebooks import get_version, load_rulebooks, publish_version
from apps.consultations.selectors import undecided_results
from apps.consultations.services import create_round
from apps.core.errors import Conflict, InvalidInput
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import resume_job
from apps.sources.models import SourceSample
from apps.sources.services import import_benchmark
from apps.transfer import selectors
from apps.transfer.hypertranslation import selectors as translation_selectors
from apps.transfer.hypertranslation.services import (
    continue_translation_run,
    correct_translation,
    dedupe_aliases,
    map_mc_answer,
    map_mc_labels,
    start_translation_run,
)
from apps.transfer.models import (
    Correction,
    CorrectionKind,
    CorrectionStatus,
    GroundTruthReview,
    ReviewOutcome,
    ReviewRun,
    Translation,
    TranslationAction,
)


def _sample_of(body) -> dict:
    """The sample the translator was asked about (the prompt carries it as JSON)."""
    text = body["messages"][0]["content"] if isinstance(body["messages"][0]["content"], str) else str(body)
    return json.loads(text.split("The sample (answer and aliases after ground-truth correction):\n", 1)[1].split("\n\n")[0])


def _rejected_before(body) -> bool:
    return any("Your answer was rejected" in str(m.get("content")) for m in body["messages"])


def _direct(sample, **extra):
    return {"action": "direct_translation", "transcription_ko": f"번역: {sample['transcription'][:20]}",
            "answer_ko": f"답 {sample['answer']}", "aliases_ko": [], "rule_ids": ["ht-proper-nouns"],
            "kept_terms": [], "reason": "", **extra}


@pytest.fixture
def now(django_capture_on_commit_callbacks):
    """Start a run and let its job run at once (jobs are dispatched when the transaction commits)."""
    def run(start, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            started = start(**kwargs)
        started.refresh_from_db()
        return started
    return run


@pytest.fixture
def rulebook(db):
    load_rulebooks()
    return Rulebook.objects.get(slug="ko-hypertranslation")


@pytest.fixture
def mc_samples(db, tmp_path):
    path = tmp_path / "mmsu.jsonl"
    path.write_text(json.dumps({"prompt": "Which rock forms from lava? A. Igneous B. Sedimentary C. Metamorphic D. Fossil",
                                "reference": "A"}) + "\n")
    import_benchmark(fmt="voicebench", subset="mmsu", path=path)
    return list(SourceSample.objects.filter(subset="mmsu"))


@pytest.fixture
def translator(fake_llm):
    """The translator: direct for most samples; the Australia one is deleted, the spider one replaced, the
    Hamlet one undecided (until `decide` is set), Switzerland gets aliases that collapse, MC keeps A-D."""
    state = {"decide_hamlet": False}

    def answer(body):
        sample = _sample_of(body)
        text = sample["transcription"]
        if "Australia" in text:
            return {"action": "deletion", "rule_ids": ["ht-wordplay"], "reason": "Time-sensitive, no Korean equivalent"}
        if "spider" in text:
            return _direct(sample, action="equivalent_replacement", transcription_ko="문어의 다리는 몇 개인가요?",
                           answer_ko="여덟 개", rule_ids=["ht-wordplay"], reason="Korean quiz equivalent")
        if "Hamlet" in text and not state["decide_hamlet"]:
            return {"action": "undecided", "reason": "No rule says whether Shakespeare titles are transliterated"}
        if "Switzerland" in text:
            return _direct(sample, answer_ko="독일어", aliases_ko=["독일어", "도이치어", "독일 어", "도이치어"],
                           rule_ids=["ht-aliases"])
        if "lava" in text:
            return _direct(sample, action="format_conversion", answer_ko="A",
                           transcription_ko="용암에서 생기는 암석은? A. 화성암 B. 퇴적암 C. 변성암 D. 화석",
                           rule_ids=["ht-terminology"])
        return _direct(sample)

    fake_llm.always(answer)
    fake_llm.state = state
    return fake_llm


@pytest.mark.django_db
def test_a_run_under_a_pinned_version_records_every_action(source_samples, mc_samples, rulebook, translator, admin, now):
    v1 = get_version("ko-hypertranslation", 1)
    run = now(start_translation_run, benchmark="voicebench", version_number=1, acting_user=admin)
    job = Job.objects.get(pk=run.job_id)
    assert job.status == JobStatus.SUCCEEDED and (job.done, job.total) == (8, 8)  # 5 sd-qa + 1 mmsu + 2 open-ended
    assert run.rulebook_version == v1 and run.translator_model == "anthropic:claude-sonnet-4-5"
    rows = {t.sample.transcription.split()[-1]: t for t in translation_selectors.run_translations(run)}
    assert all(t.rulebook_version_id == v1.pk and t.agent_call_id for t in rows.values())
    australia = next(t for t in rows.values() if "Australia" in t.source_transcription)
    assert (australia.action, australia.reason) == ("deletion", "Time-sensitive, no Korean equivalent")
    spider = next(t for t in rows.values() if "spider" in t.source_transcription)
    assert spider.action == "equivalent_replacement" and spider.transcription_ko == "문어의 다리는 몇 개인가요?"
    # multiple-choice labels become ㄱ/ㄴ/ㄷ/ㄹ in the question and the answer, and the rule is recorded
    mc = next(t for t in rows.values() if "lava" in t.source_transcription)
    assert mc.transcription_ko == "용암에서 생기는 암석은? ㄱ. 화성암 ㄴ. 퇴적암 ㄷ. 변성암 ㄹ. 화석"
    assert mc.answer_ko == "ㄱ" and mc.rule_ids == ["ht-terminology", "ht-mc-labels"]
    # Korean aliases collapsing to one form are listed once, and never repeat the answer
    swiss = next(t for t in rows.values() if "Switzerland" in t.source_transcription)
    assert (swiss.answer_ko, swiss.aliases_ko) == ("독일어", ["도이치어"])
    hamlet = next(t for t in rows.values() if "Hamlet" in t.source_transcription)
    assert hamlet.action == "undecided" and "Shakespeare" in hamlet.reason

    report = job.result["report"]
    assert report["total"]["deletion"] == 1 and report["total"]["equivalent_replacement"] == 1
    assert report["flagged"] == 2 and report["translated"] == 8 and report["flagged_percent"] == 25.0
    assert report["paper"] == {"flagged": 653, "total": 10083, "percent": 6.5}
    sdqa = next(r for r in report["subsets"] if r["subset"] == "sd-qa")
    assert (sdqa["direct_translation"], sdqa["undecided"], sdqa["total"]) == (2, 1, 5)
    # what the translator was asked: the pinned version's rules and the effective answer
    body = str(translator.requests[0]["body"])
    assert "ko-hypertranslation version 1" in body and "ht-mc-labels" in body


@pytest.mark.django_db
def test_excluded_samples_are_skipped_and_the_effective_answer_is_translated(source_samples, rulebook, translator, now):
    review_run = ReviewRun.objects.create(benchmark=source_samples[0].benchmark, reviewer_model="x", meta_reviewer_model="y")
    australia, spider = source_samples[1], source_samples[2]
    for sample, status in ((australia, CorrectionStatus.CONFIRMED), (spider, CorrectionStatus.REJECTED)):
        review = GroundTruthReview.objects.create(sample=sample, run=review_run, outcome=ReviewOutcome.CORRECTION_PROPOSED)
        Correction.objects.create(review=review, sample=sample, kind=CorrectionKind.NEW_ANSWER, proposed_answer="Canberra",
                                  reviewer_rationale="r", status=status)
    run = now(start_translation_run, benchmark="voicebench", subset="sd-qa")
    translated = {t.sample_id: t for t in translation_selectors.run_translations(run)}
    assert spider.pk not in translated and len(translated) == 4
    assert translated[australia.pk].source_answer == "Canberra"
    assert '"answer": "Canberra"' in str([r["body"] for r in translator.requests])


@pytest.mark.django_db
def test_an_invented_rule_id_is_sent_back_once_then_needs_attention(source_samples, rulebook, fake_llm, now):
    def answer(body):
        sample = _sample_of(body)
        if "Switzerland" in sample["transcription"]:
            return _direct(sample, rule_ids=["ht-made-up"])  # every time
        if "Hamlet" in sample["transcription"] and not _rejected_before(body):
            return _direct(sample, rule_ids=["ht-invented-once"])  # fixed when sent back
        return _direct(sample)

    fake_llm.always(answer)
    run = now(start_translation_run, benchmark="voicebench", subset="sd-qa")
    rows = {t.sample.transcription: t for t in translation_selectors.run_translations(run)}
    swiss = next(t for k, t in rows.items() if "Switzerland" in k)
    assert swiss.action == TranslationAction.NEEDS_ATTENTION
    assert "ht-made-up" in swiss.attention_reason and "do not exist in ko-hypertranslation v1" in swiss.attention_reason
    hamlet = next(t for k, t in rows.items() if "Hamlet" in k)
    assert hamlet.action == "direct_translation" and hamlet.rule_ids == ["ht-proper-nouns"]
    asked = [r for r in fake_llm.requests if "Switzerland" in str(r["body"])]
    assert len(asked) == 2 and "ht-made-up do not exist" in str(asked[1]["body"])  # sent back exactly once
    assert len([r for r in fake_llm.requests if "Hamlet" in str(r["body"])]) == 2


@pytest.mark.django_db
def test_a_new_version_makes_outputs_stale_and_a_continued_run_redoes_only_stale_and_undecided(
        source_samples, rulebook, translator, admin, now):
    first = now(start_translation_run, benchmark="voicebench", subset="sd-qa", version_number=1)
    assert translation_selectors.translation_report(first)["stale"] == 0
    v2 = publish_version(rulebook, notes="Titles of works", source="test", user=admin, additions=[{
        "id": "ht-titles", "category": "proper_nouns", "statement": "Use the established Korean title of a work.",
        "examples": [{"input": "Hamlet", "output": "햄릿"}], "scope": {"task_types": [], "subsets": []},
        "provenance": {"source": "consultation"}}])
    assert translation_selectors.translation_report(first)["stale"] == 5
    assert all(translation_selectors.is_stale(t) for t in translation_selectors.run_translations(first))

    second = now(continue_translation_run, run=first, acting_user=admin)
    assert second.rulebook_version == v2 and second.continues == first
    assert Job.objects.get(pk=second.job_id).status == JobStatus.SUCCEEDED
    assert translation_selectors.run_translations(second).count() == 5  # all five were stale
    assert Translation.objects.filter(run=first).count() == 5  # the old outputs stay, never overwritten
    assert translation_selectors.translation_report(first)["stale"] == 0  # superseded: no longer anyone's current one
    hamlet = selectors.current_translations().get(sample__transcription__contains="Hamlet")
    assert hamlet.action == "undecided" and hamlet.run == second

    translator.state["decide_hamlet"] = True
    before = len(translator.requests)
    third = now(continue_translation_run, run=second)
    assert [t.sample.transcription for t in translation_selectors.run_translations(third)] == ["Who wrote Hamlet?"]
    assert len(translator.requests) == before + 1  # only the undecided sample was asked again
    assert selectors.current_translations().get(sample__transcription__contains="Hamlet").action == "direct_translation"
    with pytest.raises(InvalidInput, match="no older than"):
        now(continue_translation_run, run=third, version_number=1)


@pytest.mark.django_db
def test_an_undecided_sample_feeds_the_open_consultation_round(source_samples, rulebook, translator, admin, now):
    round = create_round(rulebook=rulebook, acting_user=admin, scope={"subsets": ["sd-qa"]})
    now(start_translation_run, benchmark="voicebench", subset="sd-qa")
    [result] = AnalysisResult.objects.filter(round=round)
    assert result.action == "undecided" and "Hamlet" in result.sample.transcription
    assert "Shakespeare" in result.reason and result.agent_call_id is not None
    assert undecided_results(round) == [result]  # the round's question writer picks it up


@pytest.mark.django_db
def test_a_correction_is_a_new_row_naming_its_editor(source_samples, rulebook, translator, expert, now):
    run = now(start_translation_run, benchmark="voicebench", subset="sd-qa")
    original = selectors.current_translations().get(sample__transcription__contains="largest planet")
    edited = correct_translation(translation=original, acting_user=expert, transcription_ko="가장 큰 행성은?",
                                 answer_ko="목성", aliases_ko=["목성", "주피터"], note="more natural")
    assert (edited.corrects, edited.edited_by, edited.aliases_ko) == (original, expert, ["주피터"])
    assert selectors.current_translations().get(sample=original.sample) == edited
    assert Translation.objects.filter(sample=original.sample).count() == 2
    assert translation_selectors.run_translations(run).get(sample=original.sample) == edited
    with pytest.raises(Conflict, match="not the sample's current translation"):
        correct_translation(translation=original, acting_user=expert, transcription_ko="x", answer_ko="y", aliases_ko=[])
    with pytest.raises(InvalidInput, match="Korean transcription"):
        correct_translation(translation=edited, acting_user=expert, transcription_ko=" ", answer_ko="y", aliases_ko=[])


@pytest.mark.django_db(transaction=True)
def test_cancel_stops_the_run_and_resume_translates_only_what_is_left(source_samples, rulebook, fake_llm, now):
    seen = []

    def answer(body):
        seen.append(1)
        if len(seen) == 3:  # an admin presses Cancel while the third sample is being translated
            Job.objects.update(cancel_requested=True)
            connection.close()  # this runs on the fake server's thread
        return _direct(_sample_of(body))

    fake_llm.always(answer)
    run = now(start_translation_run, benchmark="voicebench", subset="sd-qa")
    job = Job.objects.get(pk=run.job_id)
    assert job.status == JobStatus.CANCELLED and Translation.objects.count() == 3
    assert resume_job(job=job)
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED and job.done == 5
    assert Translation.objects.count() == 5 and len(fake_llm.requests) == 5


@pytest.mark.postgres  # worker threads writing at once
@pytest.mark.django_db(transaction=True)
def test_parallel_translation_stays_within_the_provider_limit_and_the_budget(source_samples, rulebook, translator,
                                                                            settings, now):
    settings.TRANSFER_TRANSLATE_WORKERS = 4
    settings.AGENTS_CONCURRENCY = {"openai": 2, "anthropic": 2}
    translator.slow(0.2, times=5)
    run = now(start_translation_run, benchmark="voicebench", subset="sd-qa")
    assert Job.objects.get(pk=run.job_id).status == JobStatus.SUCCEEDED
    assert translator.max_in_flight_by_api["anthropic"] == 2
    assert translation_selectors.run_translations(run).count() == 5
    Translation.objects.all().delete()
    CachedResponse.objects.all().delete()
    run = now(start_translation_run, benchmark="voicebench", subset="sd-qa", budget_usd=0.02)
    job = Job.objects.get(pk=run.job_id)
    assert job.status == JobStatus.FAILED and "budget cap" in job.message


def test_label_mapping_and_alias_dedup():
    assert map_mc_labels("다음 중? (A) 사과 (B) 배") == "다음 중? (ㄱ) 사과 (ㄴ) 배"
    assert map_mc_labels("A. 화성암 B. 퇴적암\nC) 변성암 D: 화석") == "ㄱ. 화성암 ㄴ. 퇴적암\nㄷ) 변성암 ㄹ: 화석"
    assert map_mc_labels("A 고양이는 귀엽다") == "A 고양이는 귀엽다"
    assert [map_mc_answer(a) for a in ("A", "(B)", "C.", "D", "독일어")] == ["ㄱ", "ㄴ", "ㄷ", "ㄹ", "독일어"]
    assert dedupe_aliases("네덜란드", ["네덜란드", "화란", "홀란드", " 화란 ", "홀 란드"]) == ["화란", "홀란드"]


@pytest.mark.django_db
def test_a_failed_translation_keeps_the_last_usable_one_current(source_samples, rulebook, fake_llm, now, expert, client):
    from apps.transfer.normalization.services import normalize_translation, published_version

    sample = source_samples[0]
    good = Translation.objects.create(
        sample=sample, rulebook_version=rulebook.latest_version(), action="direct_translation",
        source_transcription=sample.transcription, source_answer=sample.answer, transcription_ko="스위스에서는 무슨 말을 하나요?",
        answer_ko="독일어")
    normalize_translation(good, version=published_version("normalization"))
    fake_llm.always({"note": "not a translation"})  # fails the schema, twice: every sample needs attention

    run = now(start_translation_run, benchmark="voicebench", subset="sd-qa")

    failed = Translation.objects.get(run=run, sample=sample)
    assert failed.action == TranslationAction.NEEDS_ATTENTION
    assert selectors.current_translations().get(sample=sample) == good
    assert [n.sample_id for n in selectors.ready_for_speech(benchmark=sample.benchmark)] == [sample.pk]
    run.job.refresh_from_db()
    assert run.job.status_text == "Succeeded, 4 need attention"  # the fifth kept its usable translation
    assert run.job.attention["url"] == f"/transfer/translations/{run.pk}/?action=needs_attention"
    others = selectors.current_translations().exclude(sample=sample)
    assert {t.action for t in others} == {TranslationAction.NEEDS_ATTENTION}  # nothing usable: the failure shows
    client.force_login(expert)
    page = client.get(f"/transfer/translations/output/{good.pk}/").content.decode()
    assert "stays current" in page and f"#{failed.pk}" in page
    assert "not used: the last usable translation stays current" in client.get(
        f"/transfer/translations/output/{failed.pk}/").content.decode()


def test_a_failed_samples_page_reads_as_words_not_as_pydantic_output(source_samples, rulebook, fake_llm, now, admin, client):
    # Issue 20: the page showed raw pydantic validation text with a pydantic.dev link, "Korean: (deleted)"
    # for a sample that was not deleted, and a one-line input for aliases meant one per line.
    fake_llm.always({"note": "not a translation"})
    run = now(start_translation_run, benchmark="voicebench", subset="sd-qa")
    failed = Translation.objects.filter(run=run).first()
    client.force_login(admin)
    page = client.get(f"/transfer/translations/output/{failed.pk}/").content.decode()
    assert "pydantic.dev" not in page and "the JSON does not match the schema: action: Field required" in page
    assert "(deleted)" not in page and "(no usable translation: see above)" in page
    good = Translation.objects.create(
        sample=source_samples[1], rulebook_version=rulebook.latest_version(), action="direct_translation",
        source_transcription="q", transcription_ko="질문", answer_ko="답", aliases_ko=["대답", "응답"])
    form = client.get(f"/transfer/translations/output/{good.pk}/").content.decode()
    assert '<textarea name="aliases_ko"' in form and "대답\n응답" in form
