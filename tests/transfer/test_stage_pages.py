"""The hypertranslation and normalization pages: a run's report beside the paper's 653 of 10,083, the
side-by-side view and its correction form (recorded with the editor), and the normalizer page."""

import json

import pytest

from apps.accounts.permissions import can
from apps.consultations.rulebooks import load_rulebooks
from apps.transfer.hypertranslation import selectors as translation_selectors
from apps.transfer.models import Translation

pytestmark = pytest.mark.django_db


@pytest.fixture
def translated_run(source_samples, fake_llm, admin, client_for, django_capture_on_commit_callbacks):
    load_rulebooks()

    def answer(body):
        sample = json.loads(body["messages"][0]["content"].split("ground-truth correction):\n", 1)[1].split("\n\n")[0])
        if "Australia" in sample["transcription"]:
            return {"action": "deletion", "rule_ids": ["ht-wordplay"], "reason": "Time-sensitive"}
        return {"action": "direct_translation", "transcription_ko": "번역된 질문", "answer_ko": "답",
                "rule_ids": ["ht-proper-nouns"]}

    fake_llm.always(answer)
    client = client_for(admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/transfer/translations/", {"benchmark": "voicebench", "subset": "sd-qa", "version": "1"})
    run = source_samples[0].translations.get().run
    assert response.status_code == 302 and response["Location"] == f"/transfer/translations/{run.pk}/"
    return run


def test_the_run_page_counts_actions_beside_the_paper(translated_run, admin, client_for):
    page = client_for(admin).get(f"/transfer/translations/{translated_run.pk}/").content.decode()
    # One of five: too few for a percentage, so the count says so (it becomes "20.0 % (1 of 5)" from ten on).
    assert "Deleted or replaced: <strong>" in page and "1 of 5 <span class=\"muted\">(n too small for a percentage)</span>" in page
    assert "the paper: 653 of 10,083 (6.5 %)" in page
    assert "ko-hypertranslation v1" in page and "Time-sensitive" not in page  # reasons are on the detail page
    only_deleted = client_for(admin).get(f"/transfer/translations/{translated_run.pk}/?action=deletion").content.decode()
    assert only_deleted.count("/transfer/translations/output/") == 1


def test_an_expert_corrects_a_translation_and_the_edit_names_them(translated_run, expert, client_for):
    original = translation_selectors.run_translations(translated_run).exclude(action="deletion").first()
    client = client_for(expert)
    page = client.get(f"/transfer/translations/output/{original.pk}/").content.decode()
    assert original.source_transcription in page and "번역된 질문" in page
    assert "ht-proper-nouns</code>: Transliterate names" in page
    # The expert reads the agent call on this page; the call log's page (403 for an expert) is not linked.
    assert f'id="agent-call-{original.agent_call_id}"' in page and f"/agents/calls/{original.agent_call_id}/" not in page
    response = client.post(f"/transfer/translations/output/{original.pk}/", {
        "transcription_ko": "고친 질문", "answer_ko": "고친 답", "aliases_ko": "고친 답\n다른 답", "note": "clearer"})
    edited = Translation.objects.get(corrects=original)
    assert response.status_code == 302 and response["Location"] == f"/transfer/translations/output/{edited.pk}/"
    assert (edited.edited_by, edited.aliases_ko, edited.edit_note) == (expert, ["다른 답"], "clearer")
    page = client.get(response["Location"]).content.decode()
    assert "edited by <strong>erin_expert</strong>" in page
    # starting runs is for admins only
    assert client.post("/transfer/translations/", {"benchmark": "voicebench"}).status_code == 403


def test_the_normalizer_page_shows_the_reading_and_the_rules(expert, client_for):
    load_rulebooks()
    page = client_for(expert).post("/transfer/normalize/", {"try-text": "사과 3개는 $32", "try-preserve": ""}).content.decode()
    assert "<strong>사과 세 개는 삼십이 달러</strong>" in page
    assert "<code>nm-counter-numerals</code>" in page and "<code>nm-currency</code>" in page


def test_experts_review_the_stages_and_only_admins_run_them(expert, admin):
    """One rule (apps/transfer/rules.py) for every transfer page: experts read and correct, admins run."""
    assert can(expert, "transfer.review") and not can(expert, "transfer.manage")
    assert can(admin, "transfer.manage")


def test_an_expert_cannot_open_the_admin_pages_of_transfer(expert, client_for):
    client = client_for(expert)
    for url in ("/transfer/", "/transfer/import/", "/transfer/ground-truth/", "/transfer/ground-truth/corrections/"):
        assert client.get(url).status_code == 403, url
    assert client.post("/transfer/normalize/", {"run-benchmark": "voicebench"}).status_code == 403


def test_listeners_cannot_open_the_stage_pages(listener, client_for):
    client = client_for(listener)
    assert client.get("/transfer/translations/").status_code == 403
    assert client.get("/transfer/normalize/").status_code == 403
