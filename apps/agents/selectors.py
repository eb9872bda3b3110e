"""Reads for the agent pages: which roles can run, and what the call log says about cost and latency."""

from django.conf import settings
from django.db.models import Avg, Count, Q, Sum

from apps.agents import providers
from apps.agents.models import AgentCall, AgentRole, CallStatus, RoleAssignment
from apps.agents.services import agent_config, price_of


def provider_status() -> list[dict]:
    """Per role: provider, model, where the choice comes from, whether its provider is configured, price."""
    assigned = {row.role: row for row in RoleAssignment.objects.all()}
    rows = []
    for role in AgentRole:
        provider, model = agent_config(role)
        rows.append({
            "role": role.value, "label": role.label, "provider": provider, "model": model,
            "source": "admin" if role in assigned else "settings default",
            "configured": providers.is_configured(provider), "price": price_of(provider, model),
            "default": settings.AGENTS_DEFAULT_ROLES[role],
        })
    return rows


def call_summary(queryset=None) -> list[dict]:
    """Per role, provider and model: calls, cache hits, failures, tokens, cost and mean latency (over the
    `timed` calls a provider answered)."""
    qs = queryset if queryset is not None else AgentCall.objects.all()
    return list(
        qs.values("role", "provider", "model")
        .annotate(
            calls=Count("id"),
            cached=Count("id", filter=Q(status=CallStatus.CACHED)),
            invalid=Count("id", filter=Q(status=CallStatus.INVALID)),
            failed=Count("id", filter=Q(status=CallStatus.FAILED)),
            input_tokens=Sum("input_tokens"),
            output_tokens=Sum("output_tokens"),
            cost=Sum("cost_usd"),
            latency_ms=Avg("latency_ms", filter=Q(status__in=[CallStatus.OK, CallStatus.INVALID])),
            timed=Count("id", filter=Q(status__in=[CallStatus.OK, CallStatus.INVALID])),  # the n of the mean latency
        )
        .order_by("role", "provider", "model")
    )


def recent_calls(*, job=None, status: str | None = None, limit: int = 200):
    qs = AgentCall.objects.select_related("job")
    if job is not None:
        qs = qs.filter(job=job)
    if status:
        qs = qs.filter(status=status)
    return qs[:limit]
