"""Pages: the set list, the admin's dashboard (generate, agent questions, export, scoring), corpus upload,
and the annotator's review, authoring and blind-answer pages. Thin: a check, a service call, a template.
Refusals from services reach the person as a message on the page they came from."""

import json
import tempfile
from pathlib import Path

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.files.storage import default_storage
from django.http import FileResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from apps.accounts.permissions import can, fetch, require
from apps.authoring import selectors, services
from apps.authoring.capabilities import (
    AGENT_CAPABILITIES,
    MANUAL_CAPABILITIES,
    RULE_CAPABILITIES,
    capability_label,
)
from apps.authoring.corpora import PARSERS
from apps.authoring.exports import write_export
from apps.authoring.jobs import UPLOAD_FOLDER
from apps.authoring.models import Clip, Corpus, Question, QuestionSet, RejectReason
from apps.core import posted
from apps.core.archives import zip_folder
from apps.core.errors import ApplicationError, InvalidInput
from apps.core.uploads import upload_limit
from apps.instructions import views as instructions_form
from apps.jobs.services import start_job


@login_required
def set_list(request):
    require(request.user, "authoring.work")
    sets = QuestionSet.objects.prefetch_related("corpora")
    return render(request, "authoring/set_list.html", {
        "sets": sets, "corpora": Corpus.objects.all() if request.user.is_sori_admin else [],
        "escalations": selectors.escalations_for(request.user).count(),
    })


class CorpusUploadForm(forms.Form):
    name = forms.CharField(max_length=100)
    format = forms.ChoiceField(choices=[(k, k) for k in PARSERS])
    license = forms.CharField(max_length=100, required=False, help_text="SPDX id; KSS and Zeroth have defaults")
    path = forms.CharField(max_length=300, required=False,
                           help_text="the corpus file or folder inside the zip (e.g. transcript.v.1.4.txt)")
    bundle = forms.FileField(help_text="a zip with the corpus file and its audio")


@upload_limit("bundle")
@login_required
def upload_corpus(request):
    require(request.user, "authoring.manage")
    form = CorpusUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        stored = default_storage.save(f"{UPLOAD_FOLDER}/{data['bundle'].name}", data["bundle"])
        job = start_job(kind="authoring.import_corpus", title=f"Import corpus {data['name']}", acting_user=request.user,
                        params={"upload": stored, "label": data["bundle"].name, "name": data["name"],
                                "format": data["format"], "license": data["license"], "path": data["path"]})
        return redirect("jobs:detail", job.pk)
    return render(request, "authoring/upload.html", {"form": form})


def _posted_targets(text: str) -> dict:
    """The dashboard's targets field: a JSON object of capability -> count (set_targets checks the counts)."""
    try:
        targets = json.loads(text or "{}")
    except ValueError as exc:
        raise InvalidInput(gettext("targets are not valid JSON (%(exc)s)") % {"exc": exc}, field="targets") from None
    if not isinstance(targets, dict):
        raise InvalidInput(gettext("targets must map capabilities to counts"), field="targets")
    return targets


def _posted_index(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InvalidInput(gettext("choose the correct option"), field="correct_index") from None


@login_required
def dashboard(request, pk):
    require(request.user, "authoring.manage")
    question_set = get_object_or_404(QuestionSet, pk=pk)
    if request.method == "POST" and "targets" in request.POST:
        try:
            services.set_targets(question_set=question_set, targets=_posted_targets(request.POST["targets"]),
                                 acting_user=request.user)
            messages.success(request, gettext("Targets saved."))
        except ApplicationError as exc:
            messages.error(request, exc.message)
        return redirect("authoring:dashboard", pk)
    return render(request, "authoring/dashboard.html", {
        "set": question_set, "summary": selectors.set_summary(question_set), "corpora": Corpus.objects.all(),
        "rule_capabilities": RULE_CAPABILITIES, "agent_capabilities": AGENT_CAPABILITIES,
        "runs": question_set.score_runs.all()[:10], "targets_json": json.dumps(question_set.targets),
        "attention": selectors.agent_questions_needing_attention(question_set),
        **instructions_form.form_context(services.set_instructions(question_set),
                                         reverse("authoring:instructions", args=[question_set.pk])),
    })


@login_required
@require_POST
def instructions(request, pk):
    """The admin writes the set's annotator instructions (a new version once someone reviewed)."""
    question_set = fetch(request, QuestionSet, pk, "authoring.manage")
    instructions_form.save_posted(request, lambda **text: services.revise_instructions(question_set=question_set, **text))
    return redirect("authoring:dashboard", pk)


@login_required
@require_POST
def generate(request, pk):
    """Start rule-based generation or agent-written questions for a corpus, as a job."""
    require(request.user, "authoring.manage")
    question_set = get_object_or_404(QuestionSet, pk=pk)
    corpus = get_object_or_404(Corpus, pk=request.POST.get("corpus"))
    capability = request.POST.get("capability", "")
    if capability in AGENT_CAPABILITIES:
        limit = posted.number(request.POST, "limit", whole=True) or 20
        retry = request.POST.get("retry") == "1"
        job = start_job(kind="authoring.agent_questions",
                        title=f"{capability_label(capability)} questions for {question_set.name}{' (retry)' if retry else ''}",
                        acting_user=request.user, params={"set": question_set.pk, "corpus": corpus.pk,
                                                          "capability": capability, "limit": limit, "retry": retry})
    else:
        job = start_job(kind="authoring.generate", title=f"Rule-based questions for {question_set.name}",
                        acting_user=request.user, params={"set": question_set.pk, "corpus": corpus.pk,
                                                          "capabilities": [capability] if capability else []})
    return redirect("jobs:detail", job.pk)


@login_required
def export(request, pk):
    require(request.user, "authoring.manage")
    question_set = get_object_or_404(QuestionSet, pk=pk)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "export"
        write_export(question_set, folder)
        archive = tempfile.NamedTemporaryFile(suffix=".zip")  # closed (and removed) by the response
        zip_folder(folder, archive)
        archive.seek(0)
    return FileResponse(archive, as_attachment=True, filename=f"kmmau-set-{question_set.pk}.zip")


@upload_limit("table")
@login_required
@require_POST
def score(request, pk):
    require(request.user, "authoring.manage")
    question_set = get_object_or_404(QuestionSet, pk=pk)
    upload = request.FILES.get("predictions")
    if upload is None:
        messages.error(request, gettext("Choose a predictions file."))
        return redirect("authoring:dashboard", pk)
    try:
        run = services.score_predictions(question_set=question_set, data=upload.read(), file=upload.name,
                                         model_name=request.POST.get("model", ""), acting_user=request.user)
        messages.success(request, gettext(
            "%(model_name)s: average %(average)s %% (random %(random_average)s %%)"
        ) % {
            "model_name": run.model_name,
            "average": run.result['average'],
            "random_average": run.result['random_average'],
        })
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect("authoring:dashboard", pk)


@login_required
def review(request, pk):
    require(request.user, "authoring.work")
    question_set = get_object_or_404(QuestionSet, pk=pk)
    if request.method == "POST":
        question = get_object_or_404(Question, pk=request.POST.get("question"), question_set=question_set)
        decision = request.POST.get("decision", "")
        try:
            edit = None
            if decision == "edit":
                options = [request.POST.get(f"option{i}", "") for i in range(len(question.options))]
                edit = {"text": request.POST.get("text", ""), "options": options,
                        "correct_index": _posted_index(request.POST.get("correct_index"))}
            services.submit_review(question=question, acting_user=request.user, decision=decision,
                                   reasons=request.POST.getlist("reasons"), comment=request.POST.get("comment", ""),
                                   edit=edit, version=posted.number(request.POST, "version", whole=True) or None)
            messages.success(request, gettext("Review saved."))
        except ApplicationError as exc:
            messages.error(request, exc.message)
        return redirect("authoring:review", pk)
    question = services.next_review(question_set=question_set, acting_user=request.user)
    return render(request, "authoring/review.html", {
        "set": question_set, "question": selectors.question_for_reviewer(question) if question else None,
        "reasons": [(n, value, label) for n, (value, label) in enumerate(RejectReason.choices, start=1)],
        "progress": selectors.review_progress(question_set, request.user, holding=question is not None),
        "played": question is not None and selectors.has_played(question.clip_id, request.user),
        "playback_url": reverse("authoring-api:playback", args=[question.clip_id]) if question else "",
        # An empty queue says where questions come from: an admin has agents write them on the dashboard.
        "dashboard_url": reverse("authoring:dashboard", args=[pk]) if can(request.user, "authoring.manage") else "",
        "agent_capabilities": AGENT_CAPABILITIES,
        "instructions": services.set_instructions(question_set) if question else None,
    })


def _next_clip(question_set: QuestionSet, capability: str) -> Clip | None:
    return (Clip.objects.filter(corpus__in=question_set.corpora.all())
            .exclude(questions__question_set=question_set, questions__dedup_key=capability)
            .select_related("audio").order_by("id").first())


@login_required
def author(request, pk):
    """The annotator listens to a clip; the form unlocks after playback ended; they write the question."""
    require(request.user, "authoring.work")
    question_set = get_object_or_404(QuestionSet, pk=pk)
    capability = request.GET.get("capability") or request.POST.get("capability") or str(MANUAL_CAPABILITIES[0])
    if capability not in MANUAL_CAPABILITIES:
        capability = str(MANUAL_CAPABILITIES[0])
    if request.method == "POST":
        clip = get_object_or_404(Clip, pk=request.POST.get("clip"))
        try:
            services.author_question(
                question_set=question_set, clip=clip, acting_user=request.user, capability=capability,
                text=request.POST.get("text", ""), options=[request.POST.get(f"option{i}", "") for i in range(4)],
                correct_index=_posted_index(request.POST.get("correct_index", -1)),
            )
            messages.success(request, gettext("Question saved; another annotator will answer it blind."))
        except ApplicationError as exc:
            messages.error(request, exc.message)
        return redirect(f"{reverse('authoring:author', args=[pk])}?capability={capability}")
    clip = _next_clip(question_set, capability)
    played = clip is not None and selectors.has_played(clip.pk, request.user)
    return render(request, "authoring/author.html", {
        "set": question_set, "clip": clip, "played": played, "capability": capability,
        "capabilities": [(str(c), capability_label(c)) for c in MANUAL_CAPABILITIES], "slots": range(4),
        "playback_url": reverse("authoring-api:playback", args=[clip.pk]) if clip else "",
        "instructions": services.set_instructions(question_set) if clip else None,
    })


@login_required
def answer(request, pk):
    """A second annotator answers an authored question blind, after listening."""
    require(request.user, "authoring.work")
    question_set = get_object_or_404(QuestionSet, pk=pk)
    if request.method == "POST":
        question = get_object_or_404(Question, pk=request.POST.get("question"), question_set=question_set)
        try:
            answer, _ = services.submit_blind_answer(question=question, acting_user=request.user,
                                                     choice=request.POST.get("choice", ""))
            messages.success(request, "Your answer matches the author's." if answer.matches
                             else "Your answer differs from the author's; an admin will look at it.")
        except ApplicationError as exc:
            messages.error(request, exc.message)
        return redirect("authoring:answer", pk)
    question = services.next_blind_answer(question_set=question_set, acting_user=request.user)
    played = question is not None and selectors.has_played(question.clip_id, request.user)
    return render(request, "authoring/answer.html", {
        "set": question_set, "question": selectors.question_for_answerer(question) if question else None,
        "played": played,
        "playback_url": reverse("authoring-api:playback", args=[question.clip_id]) if question else "",
        "instructions": services.set_instructions(question_set) if question else None,
    })


@login_required
def escalations(request):
    require(request.user, "authoring.work")
    items = selectors.escalation_views(selectors.escalations_for(request.user))
    return render(request, "authoring/escalations.html", {"items": items})


@login_required
@require_POST
def resolve(request, pk):
    require(request.user, "authoring.manage")
    question = get_object_or_404(Question, pk=pk)
    try:
        index = request.POST.get("correct_index")
        services.resolve_escalation(question=question, acting_user=request.user,
                                    accept=request.POST.get("accept") == "1",
                                    correct_index=int(index) if index not in (None, "") else None,
                                    note=request.POST.get("note", ""))
        messages.success(request, gettext("Resolved."))
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect("authoring:escalations")
