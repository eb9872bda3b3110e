"""Pages of consultations. Experts: the inbox, a question with its samples (answer saved as they type), the
rule drafts from their answers, and the rulebooks. Admins: rounds (analysis, questions, codification,
statistics, history) on top. Each view: fetch with a permission check, call a service, respond."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from apps.accounts.models import User
from apps.accounts.permissions import can, fetch, require
from apps.accounts.roles import Role
from apps.agents.models import AgentCall
from apps.agents.services import NoProviderConfigured, require_configured
from apps.consultations import agent_steps, rulebooks, selectors, services
from apps.consultations.labels import category_name
from apps.consultations.models import (
    ANALYSIS_JOB,
    CODIFY_JOB,
    NEEDS_ATTENTION,
    QUESTIONS_JOB,
    DecisionQuestion,
    DraftStatus,
    ExpertAnswer,
    QuestionStatus,
    Round,
    RoundStatus,
    Rulebook,
    RulebookVersion,
    RuleDraft,
)
from apps.consultations.rulebook_files import provenance_text
from apps.core import posted
from apps.core.errors import ApplicationError, Conflict, Forbidden, InvalidInput
from apps.jobs.models import Job


@login_required
def index(request):
    if request.user.is_sori_admin:
        return redirect("consultations:rounds")
    require(request.user, "consultations.answer")
    return redirect("consultations:inbox")


# --- Experts ---------------------------------------------------------------------------------------------


@login_required
def inbox(request):
    require(request.user, "consultations.answer")
    user = request.user
    return render(request, "consultations/inbox.html", {
        "waiting": selectors.open_questions_for(user).prefetch_related("affected_samples"),
        "disputed": [q for q in selectors.disputed_questions_for(user) if can(user, "consultations.settle", q)],
        "drafts": selectors.drafts_for(user),
        "answered": DecisionQuestion.objects.filter(answers__expert=user, answers__submitted_at__isnull=False)
        .select_related("round__rulebook").order_by("-answers__submitted_at")[:20],
    })


def _question_context(question: DecisionQuestion, user) -> dict:
    answer = ExpertAnswer.objects.filter(question=question, expert=user).first()
    decided_or_disputed = question.status in (QuestionStatus.DECIDED, QuestionStatus.DISPUTED)
    # Experts answer independently: the others' answers show only once the question is decided or disputed.
    others = question.answers.filter(submitted_at__isnull=False).exclude(expert=user).select_related("expert", "option")
    version = question.round.base_version if question.round else None
    rules = list(version.rules.filter(rule_id__in=question.rules_touched)) if version else []
    examples = [selectors.sample_fields(s) for s in question.example_samples.all()]
    return {
        "question": question,
        "options": question.options.all(),
        "answer": answer,
        "others": others if (decided_or_disputed or user.is_sori_admin) else [],
        "examples": examples,
        "affected_count": question.affected_samples.count(),
        "rules": rules,
        "version": version,
        "can_answer": question.status == QuestionStatus.OPEN and not (answer and answer.is_submitted)
        and can(user, "consultations.answer"),
        "can_settle": question.status == QuestionStatus.DISPUTED and can(user, "consultations.settle", question),
        "confidence_range": range(1, 6),
    }


@login_required
def question_detail(request, pk: int):
    question = fetch(request, DecisionQuestion.objects.select_related("round__rulebook", "round__base_version"), pk, "consultations.view_question")
    return render(request, "consultations/question.html", _question_context(question, request.user))


def _answer_fields(request) -> dict:
    return {
        "option": request.POST.get("option") or None,
        "text": request.POST.get("text", ""),
        "comment": request.POST.get("comment", ""),
        "confidence": request.POST.get("confidence") or None,
    }


@login_required
@require_POST
def question_autosave(request, pk: int):
    """htmx: save the draft answer as the expert types; answers with a small status line."""
    question = fetch(request, DecisionQuestion, pk, "consultations.answer")
    try:
        answer = services.save_answer_draft(question=question, acting_user=request.user, **_answer_fields(request))
    except ApplicationError as exc:
        return render(request, "consultations/_save_status.html", {"error": str(exc)}, status=exc.status)
    return render(request, "consultations/_save_status.html", {"saved_at": timezone.now(), "submitted": answer.is_submitted})


@login_required
@require_POST
def question_submit(request, pk: int):
    question = fetch(request, DecisionQuestion, pk, "consultations.answer")
    try:
        services.submit_answer(question=question, acting_user=request.user, **_answer_fields(request))
    except ApplicationError as exc:
        # Shown beside the submit button (static/js/sori.js), where the expert is looking.
        messages.error(request, str(exc), extra_tags="near:submit-answer")
        return redirect("consultations:question", pk=pk)
    messages.success(request, gettext(
        "Your answer to Q%(number)s is submitted."
    ) % {"number": question.number})
    following = selectors.open_questions_for(request.user).first()
    return redirect("consultations:question", pk=following.pk) if following else redirect("consultations:inbox")


@login_required
@require_POST
def question_settle(request, pk: int):
    question = fetch(request, DecisionQuestion.objects.select_related("round"), pk, "consultations.settle")
    try:
        services.settle_question(
            question=question, acting_user=request.user, option=request.POST.get("option") or None,
            text=request.POST.get("text", ""), note=request.POST.get("note", ""),
        )
    except ApplicationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, gettext("Q%(number)s settled.") % {"number": question.number})
    return redirect("consultations:question", pk=pk)


@login_required
@require_POST
def question_withdraw(request, pk: int):
    require(request.user, "consultations.manage")
    question = get_object_or_404(DecisionQuestion, pk=pk)
    try:
        services.withdraw_question(question=question, acting_user=request.user, reason=request.POST.get("reason", ""))
    except ApplicationError as exc:
        messages.error(request, str(exc))
    return redirect("consultations:question", pk=pk)


@login_required
def draft_detail(request, pk: int):
    draft = fetch(request, RuleDraft.objects.select_related("question__round__rulebook"), pk, "consultations.approve_draft")
    if request.method == "POST":
        try:
            if request.POST.get("decision") == "reject":
                services.reject_draft(draft=draft, acting_user=request.user, reason=request.POST.get("reason", ""))
                messages.success(request, gettext("Draft rejected."))
            else:
                examples = [
                    {"input": i.strip(), "output": o.strip()}
                    for i, o in zip(request.POST.getlist("example_input"), request.POST.getlist("example_output"), strict=False)
                    if i.strip() or o.strip()
                ]
                services.approve_draft(
                    draft=draft, acting_user=request.user, statement=request.POST.get("statement", "").strip(),
                    category=request.POST.get("category", "").strip(), rule_id=request.POST.get("rule_id", "").strip(),
                    examples=examples,
                )
                messages.success(request, gettext("Rule %(rule_id)s approved.") % {"rule_id": draft.rule_id})
        except ApplicationError as exc:
            messages.error(request, str(exc))
            return redirect("consultations:draft", pk=pk)
        return redirect("consultations:inbox")
    return render(request, "consultations/draft.html", {
        "draft": draft, "question": draft.question, "editable": draft.status in (DraftStatus.DRAFTED, DraftStatus.NEEDS_ATTENTION),
        "blank_example": draft.examples == [],
    })


# --- Rulebooks -------------------------------------------------------------------------------------------


@login_required
def rulebook_list(request):
    require(request.user, "consultations.read_rulebooks")
    books = Rulebook.objects.prefetch_related("versions")
    return render(request, "consultations/rulebooks.html", {"rulebooks": books})


@login_required
def version_detail(request, slug: str, number: int):
    require(request.user, "consultations.read_rulebooks")
    version = get_object_or_404(RulebookVersion.objects.select_related("rulebook"), rulebook__slug=slug, number=number)
    all_rules = list(version.rules.all())
    categories = list(dict.fromkeys(r.category for r in all_rules))
    category, query = request.GET.get("category", ""), request.GET.get("q", "").strip()
    rules = version.rules.all()
    if category:
        rules = rules.filter(category=category)
    if query:
        rules = rules.filter(Q(statement__icontains=query) | Q(rule_id__icontains=query) | Q(category__icontains=query))
    stats = selectors.version_stats(version) if request.user.is_sori_admin else None
    rules = [
        {"rule": r, "provenance": provenance_text(r.provenance), "category_label": category_name(r.category),
         "cited": stats.citations.get(r.rule_id, 0) if stats else None}
        for r in rules
    ]
    context = {
        "version": version, "rulebook": version.rulebook, "rules": rules, "category": category, "query": query,
        "categories": [(c, category_name(c)) for c in categories],
        "versions": version.rulebook.versions.all(), "total": len(all_rules),
    }
    if stats is not None:
        context["stats"] = stats
    template = "consultations/_rules.html" if request.htmx else "consultations/version.html"
    return render(request, template, context)


@login_required
def version_diff(request, slug: str):
    require(request.user, "consultations.read_rulebooks")
    rulebook = get_object_or_404(Rulebook, slug=slug)
    versions = list(rulebook.versions.all())
    if not versions:
        raise Forbidden(gettext("%(slug)s has no version to compare yet.") % {"slug": rulebook.slug})
    try:
        new_n = posted.number(request.GET, "to", whole=True) or versions[-1].number
        old_n = posted.number(request.GET, "from", whole=True) or max(1, new_n - 1)
    except InvalidInput:
        return HttpResponse("from and to must be version numbers", status=400)
    by_number = {v.number: v for v in versions}
    missing = [n for n in (old_n, new_n) if n not in by_number]
    if missing:
        # Not a 404: the rulebook exists, and the page answers with the versions it has and the diffs
        # between them (issue 14), so a stale or mistyped link leads somewhere.
        return render(request, "consultations/diff.html", {
            "rulebook": rulebook, "versions": versions, "missing": missing,
            "old": by_number.get(old_n, versions[0]), "new": by_number.get(new_n, versions[-1]),
        })
    old, new = by_number[old_n], by_number[new_n]
    changes = rulebooks.diff_versions(old, new)
    return render(request, "consultations/diff.html", {
        "rulebook": rulebook, "old": old, "new": new, "versions": versions,
        "changes": [
            {"change": c, "provenance": provenance_text((c.after or c.before).provenance)} for c in changes
        ],
        "counts": {k: sum(1 for c in changes if c.kind == k) for k in ("added", "changed", "removed")},
    })


# --- Rounds (admins) -------------------------------------------------------------------------------------


@login_required
def round_list(request):
    require(request.user, "consultations.manage")
    if request.method == "POST":
        rulebook = get_object_or_404(Rulebook, pk=request.POST.get("rulebook"))
        split = lambda name: [p.strip() for p in request.POST.get(name, "").split(",") if p.strip()]  # noqa: E731
        try:
            lead = User.objects.with_role(Role.EXPERT).filter(pk=posted.number(request.POST, "lead_expert", whole=True)).first()
            round = services.create_round(
                rulebook=rulebook, acting_user=request.user, scope={"subsets": split("subsets"), "task_types": split("task_types")},
                max_questions=posted.number(request.POST, "max_questions", whole=True) or None, lead_expert=lead,
            )
        except ApplicationError as exc:
            messages.error(request, str(exc))
            return redirect("consultations:rounds")
        return redirect("consultations:round", pk=round.pk)
    return render(request, "consultations/rounds.html", {
        "rounds": Round.objects.select_related("rulebook", "base_version", "resulting_version"),
        "rulebooks": Rulebook.objects.all(), "max_questions": settings.CONSULTATION_MAX_QUESTIONS,
        "experts": User.objects.with_role(Role.EXPERT).order_by("username"),
        "ground_truth_questions": DecisionQuestion.objects.filter(round=None).order_by("-created_at")[:20],
    })


NEEDS_ATTENTION_SHOWN = 100


@login_required
def round_detail(request, pk: int):
    require(request.user, "consultations.manage")
    round = get_object_or_404(Round.objects.select_related("rulebook", "base_version", "resulting_version"), pk=pk)
    jobs = Job.objects.filter(kind__in=[ANALYSIS_JOB, QUESTIONS_JOB, CODIFY_JOB], params__round=round.pk)
    calls = AgentCall.objects.filter(job__in=jobs)
    attention = round.analyses.filter(action=NEEDS_ATTENTION)
    return render(request, "consultations/round.html", {
        "round": round, "stats": selectors.round_stats(round),
        "questions": round.questions.annotate(submitted=Count("answers", filter=Q(answers__submitted_at__isnull=False))),
        "events": selectors.round_history(round),
        "jobs": jobs, "drafts": RuleDraft.objects.filter(question__round=round).select_related("question"),
        # The first hundred, without the samples' raw records (which can be large and are not shown).
        "needs_attention": attention.select_related("sample", "version").defer("sample__raw")
        .order_by("sample_id", "version__number")[:NEEDS_ATTENTION_SHOWN],
        "needs_attention_count": attention.count(),
        "provider_notice": _provider_notice(),
        "agent_cost": calls.total_cost(), "agent_calls": calls.count(),
    })


def _provider_notice() -> str:
    problems = []
    for role in ("analyst", "question_writer"):
        try:
            require_configured(role)
        except NoProviderConfigured as exc:
            problems.append(str(exc))
    return " ".join(dict.fromkeys(problems))


ROUND_ACTIONS = ("analyse", "questions", "close", "codify", "publish")


@login_required
@require_POST
def round_action(request, pk: int, action: str):
    require(request.user, "consultations.manage")
    if action not in ROUND_ACTIONS:
        raise Forbidden(gettext("There is no round action %(action)r.") % {"action": action})
    round = get_object_or_404(Round, pk=pk)
    try:
        if action == "analyse":
            agent_steps.start_analysis(round=round, acting_user=request.user)
        elif action == "questions":
            agent_steps.start_question_writing(round=round, acting_user=request.user)
        elif action == "close":
            agent_steps.close_round_and_codify(round=round, acting_user=request.user)
        elif action == "codify":
            if round.status != RoundStatus.CODIFYING:
                raise Conflict(gettext("the round is not codifying"))
            agent_steps.start_codification(round=round, acting_user=request.user)
        elif action == "publish":
            version = services.publish_round_version(round=round, acting_user=request.user)
            if version is None:
                messages.success(request, gettext("Round closed; no rule was approved, so the rulebook keeps its version."))
            else:
                messages.success(request, gettext(
                    "%(version)s published; re-analysis of the affected and undecided samples started."
                ) % {"version": version})
    except ApplicationError as exc:
        messages.error(request, str(exc))
    return redirect("consultations:round", pk=pk)
