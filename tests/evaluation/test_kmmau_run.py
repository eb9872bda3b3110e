"""A run on a KMMAU release: one item per released question (capability as its subset, the choices kept), the
question and choices sent beside the clip's audio, and answers scored by MMAU's matching (the existing KMMAU
scoring), accuracy per capability; no judge is asked, and the run names none."""

import pytest

from apps.agents.fake_server import audio_parts
from apps.evaluation.models import SubsetScore
from apps.evaluation.services import create_run, start_collection, start_evaluation
from tests.authoring.conftest import corpus_folder, kss_corpus, question_set, seoul_corpus  # noqa: F401 (fixtures)
from tests.releases.conftest import build  # noqa: F401 (fixtures)


@pytest.mark.django_db
def test_a_kmmau_release_is_asked_with_its_choices_and_scored_by_mmau_matching(
        question_set, kss_corpus, build, qwen, fake_endpoint, admin, inline_jobs, client_for):  # noqa: F811
    from apps.authoring import services

    services.generate_rule_questions(question_set=question_set, corpus=kss_corpus)
    release = build("kmmau", question_set, name="kmmau")
    run = create_run(model=qwen, release=release, acting_user=admin)
    items = list(run.items.all())
    assert run.language == "ko" and run.family == "kmmau" and items
    assert all(i.metric == "kmmau" and i.extra["choices"] and i.audio for i in items)

    # The model always picks the first choice it is offered: right exactly where that choice is the answer.
    fake_endpoint.always(lambda body: body["messages"][0]["content"][1]["text"].split("\n- ")[1])
    expected = {}
    for i in items:
        expected.setdefault(i.subset, []).append(i.answer == i.extra["choices"][0])
    with inline_jobs():
        start_collection(run=run, acting_user=admin)
    body = fake_endpoint.requests[0]["body"]
    assert audio_parts(body) and body["messages"][0]["content"][1]["type"] == "text"

    with inline_jobs():
        job = start_evaluation(run=run, acting_user=admin)
    job.refresh_from_db()

    assert job.status == "succeeded", job.error
    scores = {s.subset: (round(s.score, 2), s.n) for s in SubsetScore.objects.filter(run=run)}
    assert scores == {cap: (round(100 * sum(hits) / len(hits), 2), len(hits)) for cap, hits in expected.items()}
    assert any(0 < score < 100 for score, _ in scores.values())  # right and wrong answers both happened
    # Scored by rule alone: no judge was asked, so none is named (the run, its page).
    run.refresh_from_db()
    assert run.judge_model == ""
    html = client_for(admin).get(f"/evaluation/runs/{run.pk}/").content.decode()
    scored = html.split("<dt>Scored</dt>", 1)[1].split("</dd>", 1)[0]
    assert "judge" not in scored
