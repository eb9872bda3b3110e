"""The statistics of the transfer, agents, consultation and KMMAU pages: every page answers 200 with no
data and with one item, says what to do next when there is nothing yet, and marks a share over one item as
"n too small" instead of a percentage."""

import json
from pathlib import Path

import pytest

from apps.consultations import services as consultations
from apps.sources.models import SourceBenchmark
from apps.sources.services import import_benchmark
from apps.transfer.ground_truth import services as ground_truth
from apps.transfer.hypertranslation import services as hypertranslation
from apps.transfer.models import NormalizationRun, Translation, TranslationRun
from apps.transfer.normalization import services as normalization
from tests.authoring.conftest import make_agent_question
from tests.transfer.conftest import is_meta, is_reviewer

pytestmark = pytest.mark.django_db

EMPTY_PAGES = [
    "/transfer/", "/transfer/ground-truth/", "/transfer/ground-truth/corrections/", "/transfer/translations/",
    "/transfer/normalize/", "/agents/", "/consultations/rulebooks/", "/consultations/rounds/", "/authoring/",
]


def _get(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def test_every_page_answers_with_no_data_and_says_what_to_do(admin, expert, client_for):
    client = client_for(admin)
    pages = {url: _get(client, url) for url in EMPTY_PAGES}
    assert "No runs yet: choose a benchmark" in pages["/transfer/translations/"]
    assert "No runs yet: choose a benchmark above and start a normalization run" in pages["/transfer/normalize/"]
    assert "No runs yet: choose a benchmark above and start the review" in pages["/transfer/ground-truth/"]
    assert "Import a subset</a>, then start the review above" in pages["/transfer/ground-truth/"]
    overview = pages["/agents/"]
    assert 'id="total-cost"><span class="stat empty" data-state="empty">no agent calls yet' in overview
    assert "Press <em>Check</em> beside a role above" in overview
    assert "Run <code>python manage.py load_rulebooks</code>" in pages["/consultations/rulebooks/"]
    _get(client_for(expert), "/consultations/inbox/")


@pytest.fixture
def empty_things(rulebooks, admin, make_user):
    """Things that exist but have nothing counted yet: a round before its analysis, a translation run and a
    normalization run with no output, a KMMAU set with no question."""
    from apps.authoring.services import create_question_set

    bench = SourceBenchmark.objects.create(name="empty-bench", format="voicebench")
    hyper = rulebooks["ko-hypertranslation"].latest_version()
    return {
        "round": consultations.create_round(rulebook=rulebooks["ko-hypertranslation"], acting_user=admin),
        "translation_run": TranslationRun.objects.create(benchmark=bench, rulebook_version=hyper, translator_model="x"),
        "normalization_run": NormalizationRun.objects.create(
            benchmark=bench, rulebook_version=rulebooks["ko-normalization"].latest_version()),
        "set": create_question_set(name="Empty set", acting_user=admin),
    }


def test_pages_of_things_with_nothing_counted_yet_show_empty_states(empty_things, admin, client_for):
    client = client_for(admin)
    round_page = _get(client, f"/consultations/rounds/{empty_things['round'].pk}/")
    assert "No sample analysed yet: start the analysis above" in round_page
    assert 'id="agent-cost">Agent cost of this round: <span class="stat empty" data-state="empty">no agent calls yet' in round_page
    version_page = _get(client, "/consultations/rulebooks/ko-hypertranslation/v1/")
    assert "No analysis made under this version yet" in version_page
    run_page = _get(client, f"/transfer/translations/{empty_things['translation_run'].pk}/")
    assert "No sample translated yet" in run_page and "No outputs yet." in run_page
    assert "nothing normalized yet" in _get(client, "/transfer/normalize/")
    dashboard = _get(client, f"/authoring/sets/{empty_things['set'].pk}/")
    assert "No questions made yet: choose a corpus" in dashboard and "No model scored yet" in dashboard
    assert "no question settled by two reviewers yet" in dashboard and "no blind answers yet" in dashboard


def review_one_sample(fake_llm, admin, tmp_path, capture_on_commit) -> None:
    """One sd-qa sample imported and reviewed: the reviewer adds aliases, the meta-reviewer confirms."""
    path = tmp_path / "sd-qa.jsonl"
    path.write_text(json.dumps({"prompt": "What language do they speak in Switzerland?", "reference": "German"}))
    import_benchmark(fmt="voicebench", subset="sd-qa", path=Path(path))
    fake_llm.reply_when(is_reviewer, {"verdict": "error", "correction_kind": "add_aliases", "added_aliases": ["French"],
                                      "rationale": "Switzerland has four national languages."})
    fake_llm.reply_when(is_meta, {"verdict": "confirm", "rationale": "French is a national language too."})
    with capture_on_commit(execute=True):
        ground_truth.start_ground_truth_review(benchmark="voicebench", subset="sd-qa", acting_user=admin)
    fake_llm.reset()


@pytest.fixture
def one_of_each(rulebooks, fake_llm, admin, tmp_path, kss_corpus, django_capture_on_commit_callbacks):
    """One sample through every stage: reviewed, translated, normalized and analysed in a round; one KMMAU
    question in review."""
    review_one_sample(fake_llm, admin, tmp_path, django_capture_on_commit_callbacks)
    fake_llm.always({"action": "direct_translation", "transcription_ko": "스위스에서는 어떤 언어를 쓰나요?",
                     "answer_ko": "독일어", "rule_ids": ["ht-proper-nouns"]})
    with django_capture_on_commit_callbacks(execute=True):
        run = hypertranslation.start_translation_run(benchmark="voicebench", subset="sd-qa", version_number=1,
                                                     acting_user=admin)
        normalization.start_normalization_run(benchmark="voicebench", subset="sd-qa", acting_user=admin)
    translation = Translation.objects.get()
    round = consultations.create_round(rulebook=rulebooks["ko-hypertranslation"], acting_user=admin)
    consultations.record_analysis(round=round, sample=translation.sample, version=round.base_version,
                                  action="deletion", cited_rule_ids=["ht-wordplay"], reason="demo of one")
    from apps.authoring.services import create_question_set

    question_set = create_question_set(name="One question", acting_user=admin)
    make_agent_question(question_set, kss_corpus.clips.first())
    return {"translation_run": run, "translation": translation, "round": round, "set": question_set}


def test_pages_with_one_item_show_thin_states(one_of_each, admin, client_for):
    from apps.agents.models import AgentCall

    client = client_for(admin)
    pages = {url: _get(client, url) for url in EMPTY_PAGES}
    thin = 'data-state="thin">1 of 1 <span class="muted">(n too small for a percentage)</span>'
    # The report's error rate over one reviewed sample: a count, not "100.0 %".
    assert thin in pages["/transfer/ground-truth/"] and "100.0 %" not in pages["/transfer/ground-truth/"]
    assert "(2 calls)" in pages["/transfer/ground-truth/"]  # the run's cost with its calls
    assert thin in pages["/transfer/normalize/"]  # ready for speech: 1 of 1
    overview = pages["/agents/"]
    assert '<span class="muted">(n = 1)</span>' in overview  # each model's mean latency rests on one call
    assert "(3 calls)" in overview
    call = AgentCall.objects.first()
    assert "$" in _get(client, f"/agents/calls/{call.pk}/")
    run_page = _get(client, f"/transfer/translations/{one_of_each['translation_run'].pk}/")
    assert 'data-state="thin">0 of 1' in run_page
    _get(client, f"/transfer/translations/output/{one_of_each['translation'].pk}/")
    _get(client, "/transfer/ground-truth/corrections/")
    round_page = _get(client, f"/consultations/rounds/{one_of_each['round'].pk}/")
    assert thin in round_page and "<th>Deletion</th>" in round_page and "<th>deletion</th>" not in round_page
    assert thin in _get(client, "/consultations/rulebooks/ko-hypertranslation/v1/")
    dashboard = _get(client, f"/authoring/sets/{one_of_each['set'].pk}/")
    assert "No questions made yet" not in dashboard


def test_the_shared_tags_render_each_state():
    from django.template import Context, Template

    def render(source, **values):
        return Template("{% load sori_format %}" + source).render(Context(values))

    assert render("{% rate 0 0 %}") == '<span class="stat empty" data-state="empty">none yet</span>'
    assert 'data-state="thin">2 of 3 ' in render("{% rate 2 3 %}")
    assert render("{% rate 130 160 %}") == '<span class="stat" data-state="ok">81.2 % <span class="muted">(130 of 160)</span></span>'
    assert render('{% mean 1234.4 1 unit="ms" %}') == (
        '<span class="stat" data-state="thin">1,234\u00a0ms <span class="muted">(n = 1)</span></span>')
    assert 'data-state="empty">no answered call' in render('{% mean None 0 empty="no answered call" %}')
    assert render("{% cost 0.01234 2 %}") == '<span class="stat" data-state="ok">$0.0123 <span class="muted">(2 calls)</span></span>'
    assert render("{{ v|usd:2 }}", v="1.5") == "$1.50"
