"""Pages of the ground-truth stage (admins): start a review run and watch it, the per-subset report, the
corrections with the admin's overturn, and a retry of the agent answers that needed attention."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from apps.accounts.permissions import require
from apps.agents import selectors as agent_selectors
from apps.core.errors import ApplicationError
from apps.sources.models import SourceBenchmark
from apps.transfer import selectors as transfer_selectors
from apps.transfer.forms import OverturnForm, StartReviewForm, preselected
from apps.transfer.ground_truth import selectors, services
from apps.transfer.models import Correction, CorrectionStatus, ReviewRun


@login_required
def ground_truth(request):
    """Start the stage, watch runs (progress bar and cost), read the per-subset report."""
    require(request.user, "transfer.manage")
    form = StartReviewForm(request.POST or None, initial=preselected(StartReviewForm, request.GET, "benchmark"))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.start_ground_truth_review(
                benchmark=data["benchmark"].name, subset=data["subset"].strip(), limit=data["limit"],
                on_unresolved=data["on_unresolved"],
                budget_usd=float(data["budget_usd"]) if data["budget_usd"] is not None else None, acting_user=request.user,
            )
        except ApplicationError as exc:
            messages.error(request, gettext("The stage did not start: %(exc)s") % {"exc": exc})
        else:
            messages.success(request, gettext("Ground-truth review started."))
            return redirect("transfer:ground_truth")
    ready_error = None
    try:
        services.check_ground_truth_ready()
    except ApplicationError as exc:
        ready_error = str(exc)
    recent = list(ReviewRun.objects.select_related("job", "benchmark")[:20])
    spending = transfer_selectors.run_spending(recent)
    runs = [(run, *spending[run.pk]) for run in recent]
    reports = [(b, selectors.correction_report(b)) for b in SourceBenchmark.objects.all()]
    return render(request, "transfer/ground_truth.html", {
        "form": form, "ready_error": ready_error, "roles": agent_selectors.provider_status(), "runs": runs,
        "reports": [(b, r) for b, r in reports if r],
    })


@login_required
@require_POST
def retry_attention(request, name: str):
    """Forget the agent answers that needed attention so the next run (or a resume) asks again."""
    require(request.user, "transfer.manage")
    benchmark = get_object_or_404(SourceBenchmark, name=name)
    count = services.retry_needing_attention(benchmark=benchmark)
    messages.success(request, gettext(
        "%(count)s item(s) of %(benchmark)s will be asked again when the review next runs."
    ) % {"count": count, "benchmark": benchmark})
    return redirect("transfer:ground_truth")


@login_required
def corrections(request):
    require(request.user, "transfer.manage")
    benchmark = SourceBenchmark.objects.filter(name=request.GET.get("benchmark")).first()
    status = request.GET.get("status") or None
    rows = selectors.corrections(benchmark=benchmark, subset=request.GET.get("subset") or None, status=status)[:300]
    return render(request, "transfer/corrections.html", {
        "corrections": rows, "statuses": CorrectionStatus.choices, "status": status,
        "attention_reviews": selectors.reviews_needing_attention(benchmark)[:300]
        if status in (None, CorrectionStatus.NEEDS_ATTENTION) else [],
        "benchmarks": SourceBenchmark.objects.all(), "benchmark": benchmark, "overturn_form": OverturnForm(),
    })


@login_required
@require_POST
def overturn(request, pk: int):
    require(request.user, "transfer.manage")
    correction = get_object_or_404(Correction, pk=pk)
    form = OverturnForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Choose confirm or reject and say why."))
    else:
        try:
            services.overturn_correction(correction=correction, acting_user=request.user, to_status=form.cleaned_data["to_status"],
                                         note=form.cleaned_data["note"])
        except ApplicationError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, gettext(
                "Correction for %(sample)s is now %(status)s."
            ) % {"sample": correction.sample, "status": correction.get_status_display().lower()})
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = "transfer:corrections"
    return redirect(target or "transfer:corrections")
