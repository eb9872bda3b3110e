from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from apps.accounts.permissions import require
from apps.core.errors import ApplicationError
from apps.speech import selectors, services
from apps.speech.forms import AcceptForm, EditTextForm, StartRunForm
from apps.speech.models import ReferenceVoice, SampleStatus, SampleSynthesis, SynthesisRun
from apps.transfer.forms import preselected


@login_required
def home(request):
    """Backends, reference voices, start a run, recent runs."""
    require(request.user, "speech.manage")
    form = StartRunForm(request.POST or None, initial=preselected(StartRunForm, request.GET, "benchmark"))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = services.start_run(acting_user=request.user, benchmark=data["benchmark"], subset=data["subset"].strip(),
                                     limit=data["limit"], cer_threshold=data["cer_threshold"],
                                     max_attempts=data["max_attempts"], seed=data["seed"])
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            return redirect("speech:run", pk=run.pk)
    return render(request, "speech/home.html", {
        "form": form, "backends": selectors.backend_status(), "missing": services.backends_missing(),
        "voices": ReferenceVoice.objects.select_related("clip"),
        "runs": SynthesisRun.objects.select_related("benchmark", "job")[:20],
    })


@login_required
def run_detail(request, pk):
    require(request.user, "speech.manage")
    run = get_object_or_404(SynthesisRun.objects.select_related("benchmark", "job"), pk=pk)
    status = request.GET.get("status", "")
    samples = run.samples.select_related("sample", "voice", "final_attempt").order_by("sample_id")
    if status in SampleStatus.values:
        samples = samples.filter(status=status)
    return render(request, "speech/run.html", {"run": run, "summary": selectors.run_summary(run),
                                               "samples": samples[:500], "status": status})


@login_required
def sample_audit(request, pk):
    require(request.user, "speech.manage")
    synthesis = get_object_or_404(
        SampleSynthesis.objects.select_related("run", "sample", "normalized__translation", "normalized__rulebook_version",
                                               "final_attempt"), pk=pk)
    return render(request, "speech/audit.html", {
        **selectors.audit(synthesis), "edit_form": EditTextForm(initial={"text": synthesis.text}),
    })


@login_required
@require_POST
def accept(request, pk):
    require(request.user, "speech.manage")
    synthesis = get_object_or_404(SampleSynthesis, pk=pk)
    form = AcceptForm(request.POST)
    if form.is_valid():
        attempt = get_object_or_404(synthesis.attempts, pk=form.cleaned_data["attempt"])
        try:
            services.accept_attempt(acting_user=request.user, attempt=attempt, note=form.cleaned_data["note"])
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, gettext(
                "Attempt %(number)s accepted by ear."
            ) % {"number": attempt.number})
    return redirect("speech:sample", pk=pk)


@login_required
@require_POST
def edit_rerun(request, pk):
    require(request.user, "speech.manage")
    synthesis = get_object_or_404(SampleSynthesis, pk=pk)
    form = EditTextForm(request.POST)
    if form.is_valid():
        try:
            services.edit_and_rerun(acting_user=request.user, synthesis=synthesis, text=form.cleaned_data["text"],
                                    note=form.cleaned_data["note"])
        except ApplicationError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, gettext("Text changed; the sample is being synthesized again."))
    return redirect("speech:sample", pk=pk)
