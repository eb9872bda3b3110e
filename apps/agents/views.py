from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from apps.accounts.permissions import require
from apps.agents import selectors
from apps.agents.models import AgentCall, AgentRole, CallStatus
from apps.agents.services import start_role_check
from apps.core.errors import Forbidden


@login_required
def overview(request):
    """Roles with their provider (or a plain 'not configured'), and the call log's cost and latency."""
    require(request.user, "agents.manage")
    status = request.GET.get("status") or None
    summary = selectors.call_summary()
    return render(request, "agents/overview.html", {
        "roles": selectors.provider_status(),
        "summary": summary,
        "total_calls": sum(s["calls"] for s in summary),
        "calls": selectors.recent_calls(status=status, limit=100),
        "statuses": CallStatus.choices,
        "status": status,
        "total_cost": AgentCall.objects.total_cost(),
    })


@login_required
def call_detail(request, pk: int):
    require(request.user, "agents.manage")
    call = get_object_or_404(AgentCall.objects.select_related("job"), pk=pk)
    return render(request, "agents/call_detail.html", {"call": call})


@login_required
@require_POST
def check(request, role: str):
    """Start a one-line round trip to the role's provider and model (never from the cache), so an admin can
    see that a key, endpoint and model name work before starting a stage; the job page shows the answer."""
    require(request.user, "agents.manage")
    if role not in AgentRole.values:
        raise Forbidden(gettext("There is no agent role %(role)r to check.") % {"role": role})
    job = start_role_check(role=role, acting_user=request.user)
    return redirect("jobs:detail", pk=job.pk)
