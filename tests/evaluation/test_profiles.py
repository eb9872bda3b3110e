"""Reading profiles on every score (issue 32): an evaluation reads each response by Sori's reader and by
VoiceBench's, stores both with their versions, and reports SD-QA as (rule + judge) / 2; a re-scoring with a new
reader version is a job that keeps the old scores beside the new ones; the leaderboard, its exports, the API and
a comparison each read under one profile and say which, with the versions behind every cell."""

import dataclasses

import pytest
from django.urls import reverse

from apps.evaluation.jobs import compute_subset_scores
from apps.evaluation.leaderboard import export as leaderboard_export
from apps.evaluation.leaderboard import selectors as leaderboard
from apps.evaluation.models import ItemScore, RunStatus, SubsetScore
from apps.evaluation.responses import import_responses
from apps.evaluation.services import start_evaluation, start_rescoring
from tests.evaluation import boards

ANSWERS = {
    "What is the capital of Australia?": "The capital is Canberra.",
    "How many legs does a spider have?": "Spiders have six legs.",
    "Who wrote Hamlet?": "William Shakespeare wrote it.",
    "Which is a mammal? A. shark B. whale C. trout D. eel": "B",
    "Tell me about your day.": "It was a good day.",
}


@pytest.fixture
def judge_model(settings):
    settings.AGENTS_DEFAULT_ROLES = {**settings.AGENTS_DEFAULT_ROLES, "judge": ("openai", "gpt-4o-mini")}


@pytest.fixture
def evaluated(english_run, response_file, fake_llm, judge_model, inline_jobs, admin):
    by_question = dict(english_run.items.values_list("question", "item_id"))
    import_responses(run=english_run, source=response_file("r.csv", [{"id": by_question[q], "response": a}
                                                                     for q, a in ANSWERS.items()]))
    fake_llm.reply_when(lambda b: "six legs" in str(b), {"answer": "No"})
    fake_llm.reply_when(lambda b: "Candidate answer" in str(b), {"answer": "Yes"})
    fake_llm.always({"score": 4})
    with inline_jobs():
        job = start_evaluation(run=english_run, acting_user=admin)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return english_run


def _newer_sori_reader(monkeypatch, version="reader-2"):
    """The sori reader as a new version would be: the same reading, another version string."""
    from apps.evaluation import jobs as services

    real = services.score_response

    def newer(metric, item, response, *, language, profile="sori"):
        scored = real(metric, item, response, language=language, profile=profile)
        return dataclasses.replace(scored, version=version) if profile == "sori" and metric != "open" else scored

    monkeypatch.setattr(services, "score_response", newer)


@pytest.mark.django_db
def test_every_rule_score_is_read_by_both_profiles_and_says_which(evaluated):
    rule = ItemScore.objects.filter(item__run=evaluated, method="rule")
    assert sorted(set(rule.values_list("profile", flat=True))) == ["sori", "voicebench"]
    assert rule.filter(profile="sori").count() == rule.filter(profile="voicebench").count() == 4
    assert set(ItemScore.objects.filter(item__run=evaluated, method="judge").values_list("profile", flat=True)) == {""}
    for profile in ("sori", "voicebench"):
        subsets = SubsetScore.objects.filter(run=evaluated, profile=profile, current=True)
        assert {(s.subset, s.method) for s in subsets if s.primary} == {
            ("sd-qa", "combined"), ("mmsu", "rule"), ("commoneval", "judge")}
        assert all(s.version for s in subsets)


@pytest.mark.django_db
def test_sd_qa_is_reported_as_rule_plus_judge_over_two(evaluated):
    rule = SubsetScore.objects.get(run=evaluated, subset="sd-qa", method="rule", profile="sori")
    judge = SubsetScore.objects.get(run=evaluated, subset="sd-qa", method="judge", profile="sori")
    combined = SubsetScore.objects.get(run=evaluated, subset="sd-qa", method="combined", profile="sori")
    assert combined.primary and not rule.primary and not judge.primary
    assert combined.score == pytest.approx((rule.score + judge.score) / 2) and combined.n == 3
    assert combined.detail["formula"].startswith("(rule + judge) / 2")
    assert combined.version == f"{rule.version} + {judge.version}"


@pytest.mark.django_db
def test_a_rescoring_with_a_new_reader_version_keeps_the_old_scores_beside_the_new(evaluated, inline_jobs, admin,
                                                                                   monkeypatch, fake_llm):
    asked = len(fake_llm.requests)
    old = {s.item_id: (s.pk, s.version) for s in ItemScore.objects.filter(item__run=evaluated, method="rule", profile="sori")}
    _newer_sori_reader(monkeypatch)

    with inline_jobs():
        job = start_rescoring(run=evaluated, profile="sori", acting_user=admin)
    job.refresh_from_db()
    evaluated.refresh_from_db()

    assert job.status == "succeeded" and job.result["versions"] == ["reader-2"]
    assert evaluated.status == RunStatus.EVALUATED and len(fake_llm.requests) == asked  # the judge is not asked again
    sori = ItemScore.objects.filter(item__run=evaluated, method="rule", profile="sori")
    assert sori.count() == 8
    assert {(s.pk, s.version) for s in sori.filter(current=False)} == set(old.values())
    assert set(sori.filter(current=True).values_list("version", flat=True)) == {"reader-2"}
    # VoiceBench's reading was not touched
    assert not ItemScore.objects.filter(item__run=evaluated, profile="voicebench", current=False).exists()
    mmsu = SubsetScore.objects.filter(run=evaluated, subset="mmsu", method="rule", profile="sori")
    assert mmsu.get(current=True).version == "reader-2" and mmsu.get(current=False).version != "reader-2"


@pytest.mark.django_db
def test_a_rescoring_with_the_same_version_replaces_instead_of_piling_up(evaluated, inline_jobs, admin):
    before = ItemScore.objects.filter(item__run=evaluated).count(), SubsetScore.objects.filter(run=evaluated).count()
    with inline_jobs():
        start_rescoring(run=evaluated, profile="voicebench", acting_user=admin)
    after = ItemScore.objects.filter(item__run=evaluated).count(), SubsetScore.objects.filter(run=evaluated).count()
    assert after == before
    assert not SubsetScore.objects.filter(run=evaluated, current=False).exists()


@pytest.mark.django_db
def test_the_leaderboard_reads_one_profile_and_names_each_cells_versions(evaluated, monkeypatch, inline_jobs, admin):
    _newer_sori_reader(monkeypatch)
    with inline_jobs():
        start_rescoring(run=evaluated, profile="sori", acting_user=admin)

    sori, voicebench = leaderboard.leaderboard(), leaderboard.leaderboard(profile="voicebench")

    assert (sori.profile, voicebench.profile) == ("sori", "voicebench")
    mmsu = {b.profile: next(r for r in b.table5[0].rows if r.key == "mmsu").en[0] for b in (sori, voicebench)}
    assert mmsu["sori"].version == "reader-2" and mmsu["voicebench"].version not in ("", "reader-2")
    exported = leaderboard_export.as_json(voicebench)
    assert exported["profile"] == "voicebench"
    assert "voicebench" in leaderboard_export.as_csv(voicebench).splitlines()[1]
    assert "VoiceBench's own code" in leaderboard_export.as_markdown(voicebench)


@pytest.mark.django_db
def test_a_gap_is_only_between_runs_read_the_same_way(admin):
    vb, kvb = boards.source_benchmark("voicebench", "voicebench"), boards.release("kvoicebench", "spoken-qa", admin)
    m = boards.model("Qwen2.5-Omni")
    english = boards.run_with_scores(m, {"mmsu": (60.0, 10)}, benchmark=vb)
    boards.run_with_scores(m, {"mmsu": (40.0, 10)}, korean_of=(kvb, vb))
    # the English run also has VoiceBench's reading; the Korean run only Sori's
    SubsetScore.objects.create(run=english, subset="mmsu", metric="mcq", method="rule", profile="voicebench",
                               score=55.0, n=10, primary=True)

    def mmsu_row(profile):
        pair = next(p for p in leaderboard.leaderboard(profile=profile).table5 if p.kind == "voicebench")
        return next(r for r in pair.rows if r.key == "mmsu")

    assert mmsu_row("sori").gap[0].score == pytest.approx(-20.0)
    row = mmsu_row("voicebench")
    assert row.en[0].score == 55.0 and row.ko[0].score is None and row.gap[0].score is None


@pytest.mark.django_db
def test_comparing_two_runs_reads_one_profile(admin):
    vb = boards.source_benchmark("voicebench", "voicebench")
    a = boards.run_with_scores(boards.model("A"), {"mmsu": (100.0, 4)}, benchmark=vb)
    b = boards.run_with_scores(boards.model("B"), {"mmsu": (0.0, 4)}, benchmark=vb)
    boards.scored_items(a, "mmsu", [1, 1, 1, 1])
    boards.scored_items(b, "mmsu", [0, 0, 0, 0])
    for run, value in ((a, 0.0), (b, 1.0)):  # VoiceBench's reading says the opposite
        SubsetScore.objects.create(run=run, subset="mmsu", metric="mcq", method="rule", profile="voicebench",
                                   score=100 * value, n=4, primary=True)
        for item in run.items.all():
            ItemScore.objects.create(item=item, method="rule", profile="voicebench", score=value, evaluator="t", version="vb")

    assert leaderboard.compare(a, b, resamples=200)["overall"]["diff"] == pytest.approx(100.0)
    flipped = leaderboard.compare(a, b, resamples=200, profile="voicebench")
    assert flipped["profile"] == "voicebench" and flipped["overall"]["diff"] == pytest.approx(-100.0)


@pytest.mark.django_db
def test_an_admin_rescores_through_the_api(evaluated, api_client, admin):
    api_client.force_authenticate(admin)
    refused = api_client.post(reverse("evaluation-api:rescore", args=[evaluated.pk]), {"profile": "nonsense"}, format="json")
    assert refused.status_code == 400

    started = api_client.post(reverse("evaluation-api:rescore", args=[evaluated.pk]), {"profile": "voicebench"}, format="json")

    assert started.status_code == 202 and "voicebench" in started.json()["title"]
    busy = api_client.post(reverse("evaluation-api:rescore", args=[evaluated.pk]), {"profile": "sori"}, format="json")
    assert busy.status_code == 409
    detail = api_client.get(reverse("evaluation-api:run", args=[evaluated.pk])).json()
    assert {s["profile"] for s in detail["subset_scores"]} == {"sori", "voicebench"}
    board = api_client.get(reverse("evaluation-api:leaderboard"), {"profile": "voicebench"})
    assert board.status_code == 200 and board.json()["profile"] == "voicebench"
    assert api_client.get(reverse("evaluation-api:leaderboard"), {"profile": "x"}).status_code == 400
    assert api_client.get(reverse("evaluation-api:leaderboard"), {"profile": ""}).status_code == 400


@pytest.mark.django_db
def test_subset_scores_tolerate_being_computed_again(evaluated):
    first = {(s.subset, s.method, s.profile): s.score for s in SubsetScore.objects.filter(run=evaluated)}
    compute_subset_scores(evaluated)
    compute_subset_scores(evaluated, profiles=("voicebench",))
    again = {(s.subset, s.method, s.profile): s.score for s in SubsetScore.objects.filter(run=evaluated)}
    assert again == first


@pytest.mark.django_db
def test_an_admin_rescores_from_the_run_page_and_a_bad_profile_is_said_there(evaluated, client, admin):
    from apps.jobs.models import Job

    client.force_login(admin)
    refused = client.post(reverse("evaluation:rescore", args=[evaluated.pk]), {"profile": "nonsense"}, follow=True)
    assert "profile must be one of" in refused.content.decode()
    assert not Job.objects.filter(kind="evaluation.rescore").exists()

    started = client.post(reverse("evaluation:rescore", args=[evaluated.pk]), {"profile": "voicebench"}, follow=True)

    assert started.status_code == 200
    assert Job.objects.get(kind="evaluation.rescore").params == {"run": evaluated.pk, "profile": "voicebench"}
