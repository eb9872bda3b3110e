"""Pages of the hypertranslation stage (admins and experts): translation runs and their report, and the
side-by-side view with the correction form."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from apps.accounts.permissions import can, require
from apps.core.errors import ApplicationError
from apps.transfer import selectors
from apps.transfer.forms import CorrectTranslationForm, StartTranslationForm, budget, preselected
from apps.transfer.hypertranslation import selectors as stage_selectors
from apps.transfer.hypertranslation import services as hypertranslation
from apps.transfer.models import Translation, TranslationAction, TranslationRun


@login_required
def translation_runs(request):
    require(request.user, "transfer.review")
    form = StartTranslationForm(request.POST or None, initial=preselected(StartTranslationForm, request.GET, "benchmark"))
    if request.method == "POST":
        require(request.user, "transfer.manage")
        if form.is_valid():
            data = form.cleaned_data
            try:
                run = hypertranslation.start_translation_run(
                    benchmark=data["benchmark"].name, subset=data["subset"].strip(), limit=data["limit"],
                    version_number=data["version"], budget_usd=budget(data["budget_usd"]), acting_user=request.user)
            except ApplicationError as exc:
                messages.error(request, str(exc))
            else:
                return redirect("transfer:translation_run", run.pk)
    runs = TranslationRun.objects.select_related("benchmark", "rulebook_version__rulebook", "job")[:50]
    return render(request, "transfer/translation_runs.html", {"form": form, "runs": runs})


@login_required
def translation_run(request, pk: int):
    require(request.user, "transfer.review")
    run = get_object_or_404(TranslationRun.objects.select_related("benchmark", "rulebook_version__rulebook", "job"), pk=pk)
    outputs = stage_selectors.run_translations(run)
    action, subset = request.GET.get("action", ""), request.GET.get("subset", "")
    if action:
        outputs = outputs.filter(action=action)
    if subset:
        outputs = outputs.filter(sample__subset=subset)
    latest = stage_selectors.latest_version_numbers()
    rows = [(t, stage_selectors.is_stale(t, latest)) for t in outputs[:500]]
    newest = latest.get(run.rulebook_version.rulebook_id, run.rulebook_version.number)
    report = stage_selectors.translation_report(run)
    can_continue = bool(report["stale"] or report["total"]["undecided"] or report["total"]["needs_attention"])
    return render(request, "transfer/translation_run.html", {
        "run": run, "report": report, "rows": rows, "actions": TranslationAction.choices,
        "action": action, "subset": subset, "newest_version": newest, "can_continue": can_continue,
    })


@login_required
@require_POST
def continue_run(request, pk: int):
    require(request.user, "transfer.manage")
    run = get_object_or_404(TranslationRun, pk=pk)
    try:
        follow = hypertranslation.continue_translation_run(run=run, acting_user=request.user)
    except ApplicationError as exc:
        messages.error(request, str(exc))
        return redirect("transfer:translation_run", run.pk)
    return redirect("transfer:translation_run", follow.pk)


@login_required
def translation_detail(request, pk: int):
    """English beside Korean, the rules applied (from the pinned version), the agent call, the history of
    the sample's translations, and the correction form (a correction is a new row naming its editor)."""
    require(request.user, "transfer.review")
    translation = get_object_or_404(Translation.objects.select_related(
        "sample", "sample__benchmark", "rulebook_version__rulebook", "agent_call", "edited_by", "run"), pk=pk)
    current = selectors.current_translations().filter(sample_id=translation.sample_id).first()
    checker = stage_selectors.checker_comparison(translation)
    form = CorrectTranslationForm(request.POST or None, checker=checker is not None, initial={
        "transcription_ko": translation.transcription_ko, "answer_ko": translation.answer_ko,
        "aliases_ko": "\n".join(translation.aliases_ko),
        # Untranslated checker data starts from the English item's, for the editor to translate.
        "checker": json.dumps(translation.checker or checker["english"], ensure_ascii=False, indent=1) if checker else ""})
    if request.method == "POST" and form.is_valid():
        try:
            edited = hypertranslation.correct_translation(
                translation=translation, acting_user=request.user, transcription_ko=form.cleaned_data["transcription_ko"],
                answer_ko=form.cleaned_data["answer_ko"], aliases_ko=form.aliases(), note=form.cleaned_data["note"],
                checker=form.cleaned_data.get("checker"))
        except ApplicationError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, gettext("Correction saved by %(user)s.") % {"user": request.user})
            return redirect("transfer:translation_detail", edited.pk)
    rules = {r.rule_id: r for r in translation.rulebook_version.rules.filter(rule_id__in=translation.rule_ids)}
    history = Translation.objects.filter(sample_id=translation.sample_id).select_related(
        "rulebook_version__rulebook", "edited_by").order_by("-pk")
    return render(request, "transfer/translation_detail.html", {
        "t": translation, "current": current, "form": form, "history": history, "checker": checker,
        "rules": [(rid, rules.get(rid)) for rid in translation.rule_ids],
        "stale": stage_selectors.is_stale(translation), "normalized": translation.normalized_texts.order_by("-pk").first(),
        "agent_call_page": can(request.user, "agents.manage"),  # the call log's page; an expert sees the excerpt
        "newer_unusable": history.filter(pk__gt=translation.pk, action=TranslationAction.NEEDS_ATTENTION).first()
        if current is not None and current.pk == translation.pk else None,
    })
