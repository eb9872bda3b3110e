"""An escalated KMMAU question is on the admin's home page, linked to the escalations, until it is resolved."""

from apps.authoring.services import resolve_escalation
from tests.authoring.test_manual import authored, blind


def test_an_escalated_question_is_on_the_admins_to_do_list_until_resolved(api_client, client_for, admin, annotators,
                                                                          question_set, kss_corpus):
    question = authored(api_client, annotators[0], question_set, kss_corpus.clips.first())
    assert blind(api_client, annotators[1], question_set, "세 명").json()["status"] == "escalated"
    html = client_for(admin).get("/").content.decode()
    assert '<a href="/authoring/escalations/"><span class="todo__count">1</span> KMMAU questions escalated' in html
    resolve_escalation(question=question, acting_user=admin, accept=True, correct_index=2, note="세 명이 맞다")
    assert "KMMAU questions escalated" not in client_for(admin).get("/").content.decode()
