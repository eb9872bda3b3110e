"""Pages of MOS listening tests: the listener's flow (instructions and consent, one clip at a time, done)
and the admin's (tests, import, dashboard, exclusion, splits, export, predictors and evaluation).

Listener pages show nothing about a clip but its audio (under an opaque URL): no transcript, speaker,
system, source type, category or clip id."""

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.storage import default_storage
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts.models import User
from apps.accounts.permissions import require
from apps.core import posted
from apps.core.errors import ApplicationError, Conflict, InvalidInput, NotFound
from apps.core.uploads import upload_limit
from apps.instructions import views as instructions_form
from apps.jobs.models import Job, JobStatus
from apps.jobs.services import resume_job, start_job
from apps.listening import exports, selectors, services
from apps.listening.forms import ImportForm, PredictionsForm, SplitForm
from apps.listening.jobs import BUNDLE_FOLDER
from apps.listening.models import Clip, Consent, ListeningTest, Predictor, TestStatus
from apps.queues.selectors import unreachable_items

# The ACR scale's labels; in Korean as KOMOS's listeners saw them (아주 좋음 ... 아주 나쁨), from the catalogue.
ACR_SCALE = [
    (5, gettext_lazy("Excellent")),
    (4, gettext_lazy("Good")),
    (3, gettext_lazy("Fair")),
    (2, gettext_lazy("Poor")),
    (1, gettext_lazy("Bad")),
]


def _test(pk) -> ListeningTest:
    return get_object_or_404(ListeningTest.objects.select_related("pool"), pk=pk)


# --- listener pages -------------------------------------------------------------------------------------


@login_required
def index(request):
    require(request.user, "listening.rate")
    return render(request, "listening/index.html", {"tests": selectors.tests_for_listener(request.user)})


@login_required
def start(request, pk):
    """Instructions and consent; agreeing leads to the first clip."""
    require(request.user, "listening.rate")
    test = _open_test(request, pk)
    if request.method == "POST":
        if request.POST.get("agree") != "yes":
            messages.error(request, _("Please confirm that you have read the instructions."))
        else:
            services.record_consent(test=test, acting_user=request.user)
            return redirect("listening:rate", pk=test.pk)
    agreed = Consent.objects.filter(test=test, listener=request.user).exists()
    return render(request, "listening/start.html", {"test": test, "agreed": agreed, "scale": ACR_SCALE,
                                                    "instructions": services.test_instructions(test)})


@login_required
def rate(request, pk):
    """One clip at a time: the listener's current lease or the next clip in their own order."""
    require(request.user, "listening.rate")
    test = _open_test(request, pk)
    if not Consent.objects.filter(test=test, listener=request.user).exists():
        return redirect("listening:start", pk=test.pk)
    done = selectors.rated_by(test, request.user)
    assignment = services.next_assignment(test=test, acting_user=request.user)
    if assignment is None:
        return render(request, "listening/done.html", {"test": test, "done": done})
    clip = Clip.objects.select_related("asset").get(work_item_id=assignment.item_id)
    played = selectors.played_since_served(clip, request.user)
    left = selectors.clips_left(test, request.user)
    return render(request, "listening/rate.html", {
        "test": test, "clip_pk": clip.pk, "audio_url": clip.asset.get_absolute_url(), "played": played,
        "done": done, "left": left, "total": done + left, "number": done + 1, "scale": ACR_SCALE,
        "duration": clip.asset.duration_seconds,
        "playback_url": reverse("listening-api:playback", args=[clip.pk]),
        "instructions": services.test_instructions(test),
    })


def _open_test(request, pk) -> ListeningTest:
    """A test the listener may rate: published and meant for them (a draft is a 404 to listeners)."""
    test = _test(pk)
    if not test.is_open_to(request.user):
        raise NotFound(gettext("There is no such listening test for you."))
    return test


@login_required
@require_POST
def submit_rating(request, pk, clip_pk):
    require(request.user, "listening.rate")
    test = _test(pk)
    clip = get_object_or_404(Clip, pk=clip_pk, test=test)
    try:
        score = posted.number(request.POST, "score", whole=True)
        _rating, created = services.rate_clip(clip=clip, acting_user=request.user, score=score)
        labels = {value: f"{value} ({label})" for value, label in ACR_SCALE}
        number = selectors.rated_by(test, request.user)
        messages.success(request, _("Saved: clip %(number)s rated %(score)s.") % {"number": number, "score": labels[score]}
                         if created else _("That rating was already saved."))
    except (KeyError, InvalidInput):
        messages.error(request, _("Choose a score from 1 to 5."))
    except Conflict as refused:
        messages.error(request, str(refused))
    return redirect("listening:rate", pk=test.pk)


# --- admin pages ----------------------------------------------------------------------------------------


@login_required
def manage(request):
    require(request.user, "listening.manage")
    tests = [(t, selectors.summary(t)) for t in ListeningTest.objects.select_related("pool")]
    return render(request, "listening/manage.html", {"tests": tests})


@upload_limit("bundle")
@login_required
def import_test(request):
    """Upload a zip with a manifest (CSV/JSONL) and its audio; the import runs as a job with a progress bar."""
    require(request.user, "listening.manage")
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["bundle"]
        name = form.cleaned_data["name"].strip()
        if not upload.name.lower().endswith(".zip"):
            form.add_error("bundle", "Upload a .zip holding the manifest and its audio files.")
        elif ListeningTest.objects.filter(name=name, status=TestStatus.IMPORTING).exists():
            form.add_error("name", f"An unfinished import holds the name {name!r}: resume or discard it on the tests page.")
        elif ListeningTest.objects.filter(name=name).exists():
            form.add_error("name", f"A listening test named {name!r} already exists.")
        else:
            stored = default_storage.save(f"{BUNDLE_FOLDER}/{uuid.uuid4().hex}.zip", upload)
            job = start_job(
                kind="listening.import", title=f"Import listening test {name!r}", acting_user=request.user,
                # The bar's units are file checks then clips; its message counts each step (not "2400 / 2400").
                params={"bundle": stored, "name": name, "label": upload.name, "counts_in_message": True},
            )
            return redirect("listening:import_status", job_pk=job.pk)
    return render(request, "listening/import.html", {"form": form})


@login_required
def import_status(request, job_pk):
    require(request.user, "listening.manage")
    job = get_object_or_404(Job, pk=job_pk, kind="listening.import")
    test = None
    if job.status == JobStatus.SUCCEEDED and job.result.get("test"):
        test = ListeningTest.objects.filter(pk=job.result["test"]).first()
    return render(request, "listening/import_status.html", {
        "job": job, "test": test, "unfinished": ListeningTest.objects.filter(import_job=job, status=TestStatus.IMPORTING).first(),
        "errors": job.result.get("errors", []) if job.status in (JobStatus.FAILED, JobStatus.CANCELLED) else [],
    })


@login_required
@require_POST
def resume_import(request, pk):
    """Go on with an unfinished import from the clips it stored; its page shows the bar."""
    require(request.user, "listening.manage")
    test = get_object_or_404(ListeningTest, pk=pk, status=TestStatus.IMPORTING, import_job__isnull=False)
    if not resume_job(job=test.import_job):
        messages.info(request, gettext("The import is not stopped: it runs, or waits for a worker."))
    return redirect("listening:import_status", job_pk=test.import_job_id)


@login_required
@require_POST
def discard_import(request, pk):
    require(request.user, "listening.manage")
    test = get_object_or_404(ListeningTest, pk=pk, status=TestStatus.IMPORTING)
    try:
        services.discard_import(test=test, acting_user=request.user)
    except Conflict as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, gettext(
            "The unfinished import of %(name)s was discarded."
        ) % {"name": test.name})
    return redirect("listening:manage")


@login_required
def dashboard(request, pk):
    require(request.user, "listening.manage")
    test = _test(pk)
    context = selectors.dashboard(test)
    context.update({
        "test": test, "k": test.pool.required_per_item, "split_form": SplitForm(initial=_split_initial(test)),
        "all_listeners": User.objects.with_role("listener").order_by("username"),
        "assigned": set(test.listeners.values_list("pk", flat=True)),
        "unreachable": unreachable_items(test.pool) if test.is_published else None,
        "predictors": test.predictors.all(), "predictions_form": PredictionsForm(),
        **instructions_form.form_context(services.test_instructions(test), reverse("listening:instructions", args=[test.pk])),
    })
    return render(request, "listening/dashboard.html", context)


@login_required
@require_POST
def instructions(request, pk):
    """The admin writes the test's participant instructions (a new version once someone agreed or rated)."""
    require(request.user, "listening.manage")
    test = _test(pk)
    instructions_form.save_posted(request, lambda **text: services.revise_instructions(test=test, **text))
    return redirect("listening:dashboard", pk=pk)


@login_required
@require_POST
def publish(request, pk):
    """Publish a draft (or change its listeners): to everyone with the role, or to the listeners chosen."""
    require(request.user, "listening.manage")
    test = _test(pk)
    audience = request.POST.get("audience", "everyone")
    chosen = User.objects.filter(pk__in=[v for v in request.POST.getlist("listeners") if v.isdigit()])
    try:
        services.publish_test(test=test, acting_user=request.user, audience=audience, listeners=chosen)
    except (InvalidInput, Conflict) as refused:
        messages.error(request, gettext("Not published: %(message)s") % {"message": refused.message})
        return redirect(f"{reverse('listening:dashboard', args=[test.pk])}#publish")
    who = "every listener" if audience == "everyone" else ", ".join(u.username for u in chosen)
    messages.success(request, gettext("%(name)s is published to %(who)s.") % {"name": test.name, "who": who})
    return redirect("listening:dashboard", pk=test.pk)


def _split_initial(test):
    params = test.split_params or {}
    ratios = params.get("ratios") or [0.81, 0.09, 0.10]
    return {"train": ratios[0], "validation": ratios[1], "test": ratios[2], "seed": params.get("seed", 0),
            "hold_out_speakers": params.get("hold_out_speakers", 0), "hold_out_texts": params.get("hold_out_texts", 0)}


@login_required
@require_POST
def exclude(request, pk, user_pk):
    require(request.user, "listening.manage")
    test = _test(pk)
    listener = get_object_or_404(User, pk=user_pk)
    services.exclude_listener(test=test, listener=listener, acting_user=request.user, reason=request.POST.get("reason", "")[:500])
    messages.success(request, gettext(
        "%(username)s is excluded from %(name)s; their slots are open again."
    ) % {"username": listener.username, "name": test.name})
    return redirect("listening:dashboard", pk=test.pk)


@login_required
@require_POST
def make_splits(request, pk):
    require(request.user, "listening.manage")
    test = _test(pk)
    form = SplitForm(request.POST)
    if form.is_valid():
        d = form.cleaned_data
        try:
            result = services.make_splits(
                test=test, ratios=(d["train"], d["validation"], d["test"]), seed=d["seed"],
                hold_out_speakers=d["hold_out_speakers"], hold_out_texts=d["hold_out_texts"],
            )
        except InvalidInput as refused:
            messages.error(request, gettext("No split drawn: %(refused)s") % {"refused": refused})
            return redirect("listening:dashboard", pk=test.pk)
        messages.success(
            request,
            gettext(
                "Split: %(train)s train, %(validation)s validation, %(test)s test (%(speaker_disjoint)s "
                "speaker-disjoint, %(text_disjoint)s text-disjoint in test)."
            ) % {
                "train": result.counts['train'],
                "validation": result.counts['validation'],
                "test": result.counts['test'],
                "speaker_disjoint": result.speaker_disjoint,
                "text_disjoint": result.text_disjoint,
            },
        )
    else:
        messages.error(request, "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
    return redirect("listening:dashboard", pk=test.pk)


@login_required
def download(request, pk):
    require(request.user, "listening.manage")
    test = _test(pk)
    data = exports.export_zip(test, include_audio=request.GET.get("audio", "1") != "0")
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="listening-test-{test.pk}.zip"'
    return response


@upload_limit("table")
@login_required
@require_POST
def upload_predictions(request, pk):
    require(request.user, "listening.manage")
    test = _test(pk)
    form = PredictionsForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
        return redirect("listening:dashboard", pk=test.pk)
    upload = form.cleaned_data["file"]
    try:
        content = upload.read().decode("utf-8")
        stored = services.upload_predictions(
            test=test, content=content, filename=upload.name, name=form.cleaned_data["name"], acting_user=request.user
        )
    except UnicodeDecodeError:
        messages.error(request, gettext("%(name)s: not UTF-8 text") % {"name": upload.name})
    except ApplicationError as refused:
        for line in refused.lines():
            messages.error(request, line)
    else:
        messages.success(request, gettext(
            "Stored predictions of %(stored)s."
        ) % {"stored": ', '.join(p.name for p in stored)})
        return redirect("listening:evaluation", pk=test.pk)
    return redirect("listening:dashboard", pk=test.pk)


@login_required
def evaluation(request, pk):
    require(request.user, "listening.manage")
    test = _test(pk)
    predictors = list(test.predictors.all())
    compare = None
    a, b = request.GET.get("a"), request.GET.get("b")
    try:
        seed = posted.number(request.GET, "seed", whole=True) or 0
    except InvalidInput:
        seed = 0  # a mistyped seed in the address means the default, as no seed does
    if a and b and a != b:
        by_pk = {str(p.pk): p for p in predictors}
        if a in by_pk and b in by_pk:
            compare = (by_pk[a], by_pk[b])
    result = selectors.evaluate_predictors(test, predictors, compare=compare, seed=seed) if predictors else None
    error = result["bootstrap_error"] if compare and result else None
    return render(request, "listening/evaluation.html", {
        "test": test, "predictors": predictors, "result": result, "compare": compare, "seed": seed, "error": error,
    })


@login_required
@require_POST
def delete_predictor(request, pk, predictor_pk):
    require(request.user, "listening.manage")
    predictor = get_object_or_404(Predictor, pk=predictor_pk, test_id=pk)
    predictor.delete()
    return redirect("listening:evaluation", pk=pk)
