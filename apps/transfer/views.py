"""Pages of the transfer app outside its stages: the benchmarks overview, the import of a source subset and of
a source benchmark's audio.
Each stage's pages live in its folder (ground_truth/views.py, hypertranslation/views.py,
normalization/views.py)."""

from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from apps.accounts.permissions import require
from apps.core.errors import ApplicationError
from apps.core.uploads import upload_limit
from apps.sources import services, source_audio
from apps.transfer import selectors
from apps.transfer.forms import AudioImportForm, ImportForm


@login_required
def home(request):
    require(request.user, "transfer.manage")
    return render(request, "transfer/home.html", {"overview": selectors.benchmark_overview(),
                                                  "audio_form": AudioImportForm()})


@upload_limit("bundle")
@login_required
@require_POST
def import_audio(request):
    """A source benchmark's audio from a zip, into the audio store (apps.sources.source_audio)."""
    require(request.user, "transfer.manage")
    form = AudioImportForm(request.POST, request.FILES)
    if not form.is_valid():
        for problems in form.errors.values():
            messages.error(request, " ".join(problems))
        return redirect("transfer:home")
    upload = form.cleaned_data["file"]
    try:
        result = source_audio.import_audio_zip(benchmark=form.cleaned_data["benchmark"], source=upload, name=upload.name)
    except ApplicationError as exc:
        for line in exc.lines():
            messages.error(request, line)
    else:
        messages.success(request, result.summary())
    return redirect("transfer:home")


@upload_limit("benchmark")
@login_required
def import_upload(request):
    require(request.user, "transfer.manage")
    form = ImportForm(request.POST or None, request.FILES or None)
    errors = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            result = services.import_benchmark(
                fmt=form.cleaned_data["format"], subset=form.cleaned_data["subset"].strip(),
                path=Path(upload.name), data=upload.read(), benchmark=form.cleaned_data["benchmark"] or None,
            )
        except ApplicationError as exc:
            errors = exc.lines()
            messages.error(request, gettext(
                "Nothing was imported from %(name)s: %(count)s problem(s)."
            ) % {"name": upload.name, "count": exc.count})
        else:
            messages.success(request, gettext(
                "%(name)s/%(subset)s: %(created)s samples imported, %(unchanged)s already there."
            ) % {
                "name": result.benchmark.name,
                "subset": result.subset,
                "created": result.created,
                "unchanged": result.unchanged,
            })
            return redirect("transfer:home")
    return render(request, "transfer/import.html", {"form": form, "errors": errors})
