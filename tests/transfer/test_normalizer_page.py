"""The normalization page as an expert meets it: when the normalizer agent read a span, the page shows what it
was asked and answered, and links the call log's page only for those who may open it (no link to a 403)."""

import re

import pytest

from apps.agents.models import AgentCall
from apps.consultations.rulebooks import load_rulebooks

pytestmark = pytest.mark.django_db


def try_text(client) -> str:
    return client.post("/transfer/normalize/", {"try-text": "거미는 하루에 3번 먹나요?", "try-use_agent": "on"}).content.decode()


def test_an_expert_sees_what_the_agent_read_and_no_link_that_answers_403(client_for, expert, admin, fake_llm):
    load_rulebooks()
    fake_llm.always({"readings": [{"index": 1, "reading": "세 번"}]})
    client = client_for(expert)
    page = try_text(client)
    call = AgentCall.objects.get()
    assert "거미는 하루에 세 번 먹나요?" in page
    excerpt = page[page.index(f'id="agent-call-{call.pk}"'):]
    assert "Asked" in excerpt and "3번" in excerpt and "Answered" in excerpt and "세 번" in excerpt
    assert f"/agents/calls/{call.pk}/" not in page and client.get(f"/agents/calls/{call.pk}/").status_code == 403
    for href in set(re.findall(r'href="(/[^"#]*)', page)):  # every link on the page opens for the expert
        assert client.get(href).status_code != 403, href
    # An admin gets the call log's page too (the same question again: a cached call, a row of its own).
    assert re.search(r'href="/agents/calls/\d+/">The agent call #', try_text(client_for(admin)))
