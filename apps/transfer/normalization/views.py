"""The normalization stage's page (experts and admins): try the normalizer on a text, start a
normalization run (admins), the runs' reports and the current texts that need attention."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from apps.accounts.permissions import can, require
from apps.core.errors import ApplicationError
from apps.transfer import selectors
from apps.transfer.forms import NormalizeTextForm, StartNormalizationForm, budget, preselected
from apps.transfer.models import NormalizationRun
from apps.transfer.normalization import services as normalization


@login_required
def normalize_page(request):
    """Experts try the normalizer on a text: the reading, the rules that fired, each span's reading."""
    require(request.user, "transfer.review")
    form = NormalizeTextForm(request.POST or None, prefix="try")
    outcome = error = None
    if request.method == "POST" and "try-text" in request.POST and form.is_valid():
        preserve = [p.strip() for p in form.cleaned_data["preserve"].split(",") if p.strip()]
        try:
            outcome = normalization.normalize_text(form.cleaned_data["text"], preserve=preserve,
                                                   use_agent=form.cleaned_data["use_agent"])
        except ApplicationError as exc:
            error = str(exc)
    start = StartNormalizationForm(request.POST if "run-benchmark" in request.POST else None, prefix="run",
                                   initial=preselected(StartNormalizationForm, request.GET, "benchmark"))
    if request.method == "POST" and "run-benchmark" in request.POST:
        require(request.user, "transfer.manage")
        if start.is_valid():
            data = start.cleaned_data
            try:
                normalization.start_normalization_run(
                    benchmark=data["benchmark"].name, subset=data["subset"].strip(), limit=data["limit"],
                    version_number=data["version"], budget_usd=budget(data["budget_usd"]), acting_user=request.user)
            except ApplicationError as exc:
                messages.error(request, str(exc))
            else:
                return redirect("transfer:normalize")
    runs = [(run, normalization.normalization_report(run)) for run in
            NormalizationRun.objects.select_related("benchmark", "rulebook_version__rulebook", "job")[:20]]
    attention = selectors.current_normalizations().filter(status="needs_attention")[:50]
    return render(request, "transfer/normalize.html", {"form": form, "outcome": outcome, "error": error,
                                                       "start": start, "runs": runs, "attention": attention,
                                                       "agent_call_page": can(request.user, "agents.manage")})
