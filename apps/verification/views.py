"""Pages: the annotator's review page and their own item pages, baseline answering, and the admin's project
dashboard, import, export, baseline and scoring pages. Thin: checks, a service call, a template."""

import tempfile
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from apps.accounts.decorators import login_or_token_required
from apps.accounts.permissions import can, fetch, require
from apps.core import posted
from apps.core.archives import extract_zip
from apps.core.errors import ApplicationError, InvalidInput, NotFound
from apps.core.uploads import upload_limit
from apps.instructions import views as instructions_form
from apps.queues.selectors import unreachable_items
from apps.verification import selectors, services
from apps.verification.exports import export_zip
from apps.verification.forms import BaselineForm, ImportForm, PredictionsForm, ReviewForm, SettingsForm
from apps.verification.media import served_name, served_type
from apps.verification.models import BaselineSession, Reason, VerificationItem, VerificationProject
from apps.verification.scoring import yes_no_options
from apps.verification.taxonomy import MULTIPLE, YES_NO

REASON_KEYS = list(enumerate(Reason.choices, start=1))


@login_required
def project_list(request):
    user = request.user
    require(user, "verification.review")
    projects = list(VerificationProject.objects.all())
    rows = []
    for project in projects:
        row = {"project": project}
        if user.is_sori_admin:
            row["summary"] = selectors.project_summary(project)
        if can(user, "verification.review"):
            row["waiting"] = selectors.waiting_for(project, user)
            row["open_reviews"] = selectors.unsettled_reviews(project, user)
        rows.append(row)
    baselines = BaselineSession.objects.select_related("project").all()[:20]
    return render(request, "verification/project_list.html", {"rows": rows, "baselines": baselines})


@login_required
def review(request, pk):
    """Hand the annotator their current or next item and show it with the decision form."""
    project = fetch(request, VerificationProject, pk, "verification.review")
    if request.user.is_sori_admin and not _reviewing_as_annotator(request, project):
        # An admin looking at the project must not take a review slot: they browse read-only, and taking
        # work is the explicit "review as annotator" button on that page.
        messages.info(request, gettext("You are browsing as an admin: nothing here takes a review slot."))
        return redirect("verification:items", pk=project.pk)
    item = services.next_item(project=project, acting_user=request.user)
    context = {"project": project, "reason_keys": REASON_KEYS}
    if item is not None:
        context["item"] = selectors.item_for_reviewer(item, request.user)
        context["item_obj"] = item
        context["reviewed"] = selectors.reviewed_by(project, request.user)
        context["instructions"] = services.project_instructions(project)
    context["waiting"] = selectors.waiting_for(project, request.user)
    if item is not None:  # "n of m": the items reviewed, the one in hand, and those that could still come
        context["total"] = context["reviewed"] + 1 + context["waiting"]
    return render(request, "verification/review.html", context)


@login_required
@require_POST
def submit(request, pk):
    item = get_object_or_404(VerificationItem.objects.select_related("project", "work_item"), pk=pk)
    require(request.user, "verification.review", item.project)
    form = ReviewForm(request.POST)
    back = request.POST.get("next") or "review"
    if not form.is_valid():
        messages.error(request, gettext("Not saved: %(errors)s") % {"errors": form.errors.as_text()})
    else:
        try:
            _, created = services.submit_review(
                item=item, acting_user=request.user, decision=form.cleaned_data["decision"], reasons=form.cleaned_data["reasons"],
                comment=form.cleaned_data["comment"], seconds=form.cleaned_data["seconds_spent"],
            )
            said = gettext("Saved: %(decision)s on %(external_id)s.") if created else gettext(
                "Changed: %(decision)s on %(external_id)s.")
            messages.success(request, said % {"decision": form.cleaned_data["decision"], "external_id": item.external_id})
        except ApplicationError as exc:
            messages.error(request, gettext("Not saved: %(exc)s") % {"exc": exc})
            if isinstance(exc, InvalidInput):
                back = "item"
    if back == "item":
        return redirect("verification:item", pk=item.pk)
    return redirect("verification:review", pk=item.project_id)


def _reviewing_as_annotator(request, project) -> bool:
    return project.pk in request.session.get("verification_review_as_annotator", [])


@login_required
@require_POST
def review_as_annotator(request, pk):
    """An admin who is also an annotator chooses to take review work in this project (or stops)."""
    project = get_object_or_404(VerificationProject, pk=pk)
    if not request.user.is_sori_admin:
        return redirect("verification:review", pk=project.pk)
    chosen = set(request.session.get("verification_review_as_annotator", []))
    if request.POST.get("stop"):
        chosen.discard(project.pk)
        request.session["verification_review_as_annotator"] = sorted(chosen)
        return redirect("verification:items", pk=project.pk)
    chosen.add(project.pk)
    request.session["verification_review_as_annotator"] = sorted(chosen)
    messages.info(request, gettext("You are reviewing as an annotator: each item you are shown takes one of its three review slots."))
    return redirect("verification:review", pk=project.pk)


@login_required
@require_POST
def skip(request, pk):
    require(request.user, "verification.review")
    item = get_object_or_404(VerificationItem, pk=pk)
    reason = request.POST.get("reason", "")[:500]
    if not services.skip_item(item=item, acting_user=request.user, reason=reason):
        # Not theirs: say nothing about the item (not even its name) and change nothing.
        messages.error(request, gettext("Nothing was skipped: that item is not assigned to you."))
        return redirect("verification:projects")
    if reason.strip():
        messages.info(request, gettext(
            "Declined %(external_id)s (%(reason)s); it will not come back to you."
        ) % {"external_id": item.external_id, "reason": reason.strip()})
    else:
        messages.info(request, gettext(
            "Skipped %(external_id)s for now; it comes back to you if no one else can take it."
        ) % {"external_id": item.external_id})
    return redirect("verification:review", pk=item.project_id)


@login_required
def item_detail(request, pk):
    item = fetch(request, VerificationItem.objects.select_related("audio", "project"), pk, "verification.view_item")
    admin = request.user.is_sori_admin
    data = selectors.item_for_reviewer(item, request.user, reveal_all=admin)
    history = item.history.select_related("annotator").order_by("at", "id") if (admin or item.is_settled) else None
    return render(request, "verification/item.html", {
        "item": data, "item_obj": item, "project": item.project, "reason_keys": REASON_KEYS,
        "history": history, "admin_view": admin,
    })


@login_or_token_required  # the visual_url an API answer gives is fetched with the token
def visual(request, pk):
    item = fetch(request, VerificationItem, pk, "verification.view_item")
    if not item.visual:
        raise NotFound(gettext("This item has no visual."))
    fh = item.visual.open("rb")
    content_type = served_type(fh)
    if content_type is None:
        # Stored before imports checked content (or put there by hand): never shown inline, so an SVG or
        # HTML file cannot run script from Sori's origin; the admin can still download and look at it.
        return FileResponse(fh, as_attachment=True, filename=served_name(item.visual.name, None),
                            content_type="application/octet-stream")
    return FileResponse(fh, content_type=content_type, filename=served_name(item.visual.name, content_type))


# ---- admin -------------------------------------------------------------------------------------------------


@login_required
def dashboard(request, pk):
    require(request.user, "verification.manage")
    project = get_object_or_404(VerificationProject, pk=pk)
    if request.method == "POST":
        form = SettingsForm(request.POST)
        if form.is_valid():
            settled = services.set_settle_on_first_rejection(project=project, value=form.cleaned_data["settle_on_first_rejection"])
            messages.success(request, ngettext(
                "Setting saved; %(settled)s pending item with a rejection settled now.",
                "Setting saved; %(settled)s pending items with a rejection settled now.",
                settled,
            ) % {"settled": settled})
        return redirect("verification:dashboard", pk=pk)
    return render(request, "verification/dashboard.html", {
        "project": project, "stats": selectors.dashboard(project),
        "unreachable": _with_items(unreachable_items(project.pool), project),
        # Both forms have a "name" field: their own id prefixes keep each label on its own input.
        "baseline_form": BaselineForm(auto_id="baseline-%s", initial={"name": f"{project.name} human baseline", "size": 300}),
        "predictions_form": PredictionsForm(auto_id="predictions-%s"), "runs": project.scoring_runs.all()[:20],
        "baselines": project.baselines.all(),
        **instructions_form.form_context(services.project_instructions(project),
                                         reverse("verification:instructions", args=[project.pk])),
    })


@login_required
@require_POST
def instructions(request, pk):
    """The admin writes the project's reviewer instructions (a new version once someone reviewed)."""
    project = fetch(request, VerificationProject, pk, "verification.manage")
    instructions_form.save_posted(request, lambda **text: services.revise_instructions(project=project, **text))
    return redirect("verification:dashboard", pk=pk)


def _with_items(unreachable, project):
    """[(VerificationItem, Unreachable)] for the dashboard's list of items that cannot reach three reviews."""
    if not unreachable:
        return []
    items = project.items.in_bulk([u.item_id for u in unreachable], field_name="work_item_id")
    return [(items[u.item_id], u) for u in unreachable if u.item_id in items]


@login_required
def item_list(request, pk):
    """Every item of a project, filterable by status and task, for an admin to read."""
    require(request.user, "verification.manage")
    project = get_object_or_404(VerificationProject, pk=pk)
    items = project.items.order_by("position").prefetch_related("reviews")
    status, task = request.GET.get("status", ""), request.GET.get("task", "")
    if status:
        items = items.filter(status=status)
    if task:
        items = items.filter(task=task)
    page = Paginator(items, 50).get_page(request.GET.get("page"))
    return render(request, "verification/item_list.html", {
        "project": project, "page": page, "status": status, "task": task,
        "may_review": request.user.has_role("annotator"), "reviewing": _reviewing_as_annotator(request, project),
        "tasks": project.items.values_list("task", flat=True).distinct().order_by("task"),
    })


@upload_limit("bundle")
@login_required
def upload(request):
    require(request.user, "verification.manage")
    problems = []
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                batch = _import_upload(form, request.user)
                messages.success(request, gettext(
                    "Imported %(item_count)s items into %(name)s."
                ) % {"item_count": batch.item_count, "name": batch.project.name})
                return redirect("verification:dashboard", pk=batch.project_id)
            except ApplicationError as exc:
                problems = exc.lines()
    else:
        form = ImportForm()
    return render(request, "verification/upload.html", {"form": form, "problems": problems})


def _import_upload(form, user):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        items_file = root / "items.upload"
        with open(items_file, "wb") as fh:
            for chunk in form.cleaned_data["file"].chunks():
                fh.write(chunk)
        media = root / "media"
        media.mkdir()
        extract_zip(form.cleaned_data["media"], media, name=form.cleaned_data["media"].name)
        return services.import_items(
            project_name=form.cleaned_data["name"], file_path=items_file, media_dir=media, acting_user=user,
            settle_on_first_rejection=form.cleaned_data["settle_on_first_rejection"],
            display_name=form.cleaned_data["file"].name,
        )


@login_required
def export(request, pk):
    require(request.user, "verification.manage")
    project = get_object_or_404(VerificationProject, pk=pk)
    response = HttpResponse(export_zip(project), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="verification-{project.pk}.zip"'
    return response


@login_required
@require_POST
def create_baseline(request, pk):
    require(request.user, "verification.manage")
    project = get_object_or_404(VerificationProject, pk=pk)
    form = BaselineForm(request.POST)
    if form.is_valid():
        try:
            session = services.create_baseline(project=project, name=form.cleaned_data["name"], size=form.cleaned_data["size"], acting_user=request.user)
            messages.success(request, gettext(
                "Baseline drawn: %(count)s items."
            ) % {"count": session.sample.count()})
            return redirect("verification:baseline", pk=session.pk)
        except ApplicationError as exc:
            messages.error(request, str(exc))
    else:
        messages.error(request, form.errors.as_text())
    return redirect("verification:dashboard", pk=pk)


@upload_limit("table")
@login_required
@require_POST
def score_predictions(request, pk):
    require(request.user, "verification.manage")
    project = get_object_or_404(VerificationProject, pk=pk)
    form = PredictionsForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / Path(upload.name).name
            path.write_bytes(upload.read())
            try:
                run = services.score_predictions_file(project=project, name=form.cleaned_data["name"], path=path, acting_user=request.user)
                messages.success(request, gettext(
                    "Scored %(name)s: overall %(overall)s %%."
                ) % {"name": run.name, "overall": run.report['overall']})
            except (ApplicationError, UnicodeDecodeError) as exc:
                messages.error(request, gettext("Not scored: %(exc)s") % {"exc": exc})
    else:
        messages.error(request, form.errors.as_text())
    return redirect("verification:dashboard", pk=pk)


# ---- human baseline ----------------------------------------------------------------------------------------


@login_required
def baseline(request, pk):
    session = get_object_or_404(BaselineSession.objects.select_related("project"), pk=pk)
    user = request.user
    if user.is_sori_admin and request.GET.get("answer") != "1":
        runs = session.project.scoring_runs.all()[:10]
        return render(request, "verification/baseline_report.html",
                      {"session": session, "report": selectors.baseline_report(session), "runs": runs})
    require(user, "verification.baseline", session)
    item = selectors.baseline_next(session, user)
    context = {"session": session}
    if item is not None:
        options = yes_no_options(item) if item.format == YES_NO else services.baseline_option_order(session, item, user)
        context.update(item=item, options=options, multiple=item.format == MULTIPLE)
    return render(request, "verification/baseline.html", context)


@login_required
@require_POST
def baseline_answer(request, pk, item_pk):
    session = fetch(request, BaselineSession, pk, "verification.baseline")
    item = get_object_or_404(VerificationItem, pk=item_pk)
    try:
        services.answer_baseline(session=session, item=item, acting_user=request.user, chosen=request.POST.getlist("choice"),
                                 seconds=posted.number(request.POST, "seconds_spent") or 0.0)
    except ApplicationError as exc:
        messages.error(request, gettext("Not saved: %(exc)s") % {"exc": exc})
    return redirect(f"{request.path.rsplit('/answer/', 1)[0]}/?answer=1")
