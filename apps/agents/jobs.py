"""Job handlers of the agents app (run by apps.jobs): the provider check an admin starts from the agents page
runs here, so no page waits on an LLM."""

from apps.agents.models import AgentRole
from apps.agents.services import CHECK_ROLE_JOB, check_role
from apps.jobs.services import job_handler


@job_handler(CHECK_ROLE_JOB)
def run_role_check(job, progress) -> dict:
    role = AgentRole(job.params["role"])
    progress.set_total(1, message=f"Asking the {role.label} agent for a one-line answer")
    call = check_role(role)
    progress.advance(message=f"{role.label}: {call.provider}:{call.model} answered in {call.latency_ms} ms (${call.cost_usd}).")
    return {"call": call.pk, "provider": call.provider, "model": call.model, "latency_ms": call.latency_ms,
            "cost_usd": str(call.cost_usd)}
