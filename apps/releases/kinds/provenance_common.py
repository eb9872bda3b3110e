"""Provenance pieces several kinds share: agent calls as the release records them."""

from apps.agents.models import AgentCall


def agent_calls(ids) -> dict[int, dict]:
    """call id -> what provenance.jsonl records of it (one query however many)."""
    fields = ["id", "role", "provider", "model", "prompt_name", "prompt_version", "input_hash", "status"]
    return {row["id"]: row for row in AgentCall.objects.filter(id__in=set(ids)).values(*fields)}
