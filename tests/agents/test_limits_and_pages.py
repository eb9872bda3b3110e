"""Per-provider concurrency limit, the per-job budget cap, and the admin pages of the agent layer."""

import threading
from contextlib import contextmanager
from decimal import Decimal

import pytest
from django.db import connection
from pydantic import BaseModel

from apps.agents import transport
from apps.agents.models import AgentCall
from apps.agents.services import BudgetExceeded, call_agent
from apps.jobs.models import Job


class Echo(BaseModel):
    ok: bool
    echo: str


def ask(word, **kwargs):
    return call_agent(role="reviewer", prompt="provider_check", variables={"word": word}, schema=Echo, **kwargs)


class SlotSchedule:
    """The transport's slot, recorded: each request queues for a slot, holds one, frees it, in the order
    these happen (a logical clock, not a timer). The first holders wait inside their slot until all
    `expected` requests have queued, so the schedule does not depend on how fast threads start."""

    def __init__(self, real_slot, expected: int):
        self.real_slot, self.expected = real_slot, expected
        self.events: list[tuple[str, int]] = []
        self.everyone_queued = threading.Event()
        self._lock = threading.Lock()

    def _note(self, what: str) -> None:
        with self._lock:
            self.events.append((what, threading.get_ident()))
            if sum(1 for event, _ in self.events if event == "queue") == self.expected:
                self.everyone_queued.set()

    @contextmanager
    def __call__(self, slot: str, **kwargs):
        self._note("queue")
        with self.real_slot(slot, **kwargs):
            self._note("hold")
            self.everyone_queued.wait(timeout=30)
            try:
                yield
            finally:
                self._note("free")  # noted before the real slot is given back, so no hold is noted early

    def most_held(self) -> int:
        held = most = 0
        for event, _ in self.events:
            held += {"hold": 1, "free": -1}.get(event, 0)
            most = max(most, held)
        return most

    def waited_for_a_free_slot(self) -> int:
        """How many requests got their slot only after another request freed one."""
        queued_at = {}
        waited = 0
        for index, (event, thread) in enumerate(self.events):
            if event == "queue":
                queued_at[thread] = index
            elif event == "hold":
                waited += any(e == "free" for e, _ in self.events[queued_at[thread]:index])
        return waited


@pytest.mark.postgres  # threads writing at once; the in-memory SQLite test database locks whole tables
@pytest.mark.parametrize("backend", ["redis", "process"])
@pytest.mark.django_db(transaction=True)
def test_no_more_requests_are_in_flight_than_the_provider_limit(fake_llm, settings, backend, monkeypatch):
    if backend == "redis" and not settings.REDIS_URL:
        pytest.skip("needs Redis")
    if backend == "process":
        settings.REDIS_URL = None
    settings.AGENTS_CONCURRENCY = {"openai": 2, "anthropic": 2}
    fake_llm.always(lambda body: {"ok": True, "echo": "x"})
    fake_llm.slow(0.3, times=6)
    schedule = SlotSchedule(transport.provider_slot, expected=6)
    monkeypatch.setattr(transport, "provider_slot", schedule)
    failures = []

    def worker(n):
        try:
            ask(f"word-{n}")
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert failures == []
    assert fake_llm.max_in_flight == 2
    # The plan: six requests, two slots: two go at once, the four others each wait for one to be freed.
    assert [event for event, _ in schedule.events].count("hold") == 6 and schedule.most_held() == 2
    assert schedule.waited_for_a_free_slot() == 4
    assert AgentCall.objects.count() == 6


@pytest.mark.django_db
def test_the_budget_cap_refuses_a_call_that_could_pass_it(fake_llm):
    job = Job.objects.create(kind="test.kind", title="budget", params={"budget_usd": 0.02})
    fake_llm.always(lambda body: {"ok": True, "echo": "x"}, usage=(2000, 1000))  # $0.012 per call on gpt-4.1

    ask("one", job=job)
    with pytest.raises(BudgetExceeded, match=r"budget cap \$0.02 reached: \$0.0120 spent"):
        ask("two", job=job)

    assert len(fake_llm.requests) == 1
    assert AgentCall.objects.filter(job=job).total_cost() == Decimal("0.012")


@pytest.mark.django_db
def test_a_cache_hit_is_served_even_when_the_budget_is_spent(fake_llm):
    fake_llm.reply({"ok": True, "echo": "x"}, usage=(2000, 1000))
    ask("same")
    job = Job.objects.create(kind="test.kind", title="budget", params={"budget_usd": 0})
    assert ask("same", job=job).cached is True


@pytest.mark.django_db
def test_the_agents_page_shows_the_call_log_with_cost_and_latency(fake_llm, admin, client_for):
    fake_llm.reply({"ok": True, "echo": "sori"}, usage=(1000, 200))
    call = ask("sori").call
    ask("sori")  # a cache hit

    page = client_for(admin).get("/agents/").content.decode()
    assert "configured" in page and "no provider configured" not in page
    assert "gpt-4.1" in page and "$0.003600" in page and f"{call.latency_ms} ms" in page
    assert "From cache (no request)" in page

    detail = client_for(admin).get(f"/agents/calls/{call.pk}/").content.decode()
    assert call.input_hash in detail and "provider_check v1" in detail


@pytest.mark.django_db
def test_only_admins_see_the_agent_pages(client_for, expert):
    assert client_for(expert).get("/agents/").status_code == 403


@pytest.mark.django_db
def test_an_admin_assigns_a_model_to_a_role_in_the_admin(admin, client_for):
    from apps.agents.models import RoleAssignment
    from apps.agents.services import agent_config

    admin.is_staff = admin.is_superuser = True
    admin.save()
    response = client_for(admin).post("/admin/agents/roleassignment/add/", {
        "role": "meta_reviewer", "provider": "openai", "model": "gpt-4o"})
    assert response.status_code == 302
    assert agent_config("meta_reviewer") == ("openai", "gpt-4o")
    assert RoleAssignment.objects.get().updated_by == admin


@pytest.mark.django_db
def test_demo_data_seeds_offline_and_idempotently():
    import io

    from django.apps import apps

    from apps.sources.models import SourceSample
    from apps.transfer.demo import OPENAUDIOBENCH, VOICEBENCH

    config = apps.get_app_config("transfer")
    config.seed_demo(io.StringIO())
    config.seed_demo(io.StringIO())
    # Every subset of both demo benchmarks (Tables 1 and 5), each sample once.
    assert set(SourceSample.objects.values_list("subset", flat=True)) == {*VOICEBENCH, *OPENAUDIOBENCH}
    assert SourceSample.objects.count() == sum(len(rows) for rows in VOICEBENCH.values()) + sum(
        len(rows) for _, rows in OPENAUDIOBENCH.values())


@pytest.mark.django_db
def test_admins_get_agent_and_transfer_links_and_panels_and_others_do_not(admin, expert, client_for):
    home = client_for(admin).get("/").content.decode()
    assert 'href="/agents/"' in home and 'href="/transfer/"' in home
    assert "No provider is configured for: Reviewer" in home and "Ground-truth correction" in home
    other = client_for(expert).get("/").content.decode()
    assert 'href="/agents/"' not in other and "Ground-truth correction" not in other


@pytest.mark.django_db
def test_an_admin_checks_a_role_and_a_repeat_check_is_never_served_from_the_cache(
    fake_llm, admin, client_for, django_capture_on_commit_callbacks
):
    fake_llm.always(lambda body: {"ok": True, "echo": body["messages"][-1]["content"].split('"echo": "')[1].split('"')[0]})
    client = client_for(admin)
    for sent_before in range(2):
        with django_capture_on_commit_callbacks() as queued:
            response = client.post("/agents/roles/reviewer/check/")
        assert response.status_code == 302 and "/jobs/" in response.url
        assert len(fake_llm.requests) == sent_before  # the request only queued the check
        for run in queued:  # what the worker does once the request has committed
            run()
        assert "Reviewer: openai:gpt-4.1 answered in" in client.get(response.url).content.decode()
    assert len(fake_llm.requests) == 2

    fake_llm.reset()
    fake_llm.always({"ok": True, "echo": "something else"})
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/agents/roles/meta_reviewer/check/")
    page = client.get(response.url).content.decode()
    assert "echoed &#x27;something else&#x27;" in page and 'data-status="failed"' in page
