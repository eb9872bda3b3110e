"""The leaderboard pages: Tables 1, 5 and 6 with the figures, its exports (CSV, JSON, Markdown), and two runs
compared with a paired bootstrap. Reads only (apps.evaluation.leaderboard); any signed-in user may look."""

import json

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext

from apps.accounts.permissions import require
from apps.core.errors import ApplicationError, NotFound
from apps.evaluation.leaderboard import export as leaderboard_export
from apps.evaluation.leaderboard import selectors as leaderboard
from apps.evaluation.leaderboard.figures import gap_svg, ranks_svg
from apps.evaluation.models import EvaluationRun, Profile
from apps.evaluation.scoring import DEFAULT_PROFILE, PROFILES

EXPORTS = {
    "csv": ("text/csv; charset=utf-8", leaderboard_export.as_csv),
    "json": ("application/json", lambda board: json.dumps(leaderboard_export.as_json(board), ensure_ascii=False, indent=2)),
    "md": ("text/markdown; charset=utf-8", leaderboard_export.as_markdown),
}


def _profile(request) -> str:
    profile = request.GET.get("profile") or DEFAULT_PROFILE
    return profile if profile in PROFILES else DEFAULT_PROFILE


@login_required
def board(request):
    require(request.user, "evaluation.view")
    data = leaderboard.leaderboard(profile=_profile(request))
    names = [m.label for m in data.models]
    # Table 5 on the page: per subset row, each model's English, Korean and gap cells side by side.
    table5 = [(pair, [(row, list(zip(row.en, row.ko, row.gap, strict=True))) for row in pair.rows])
              for pair in data.table5]
    # A subset two benchmarks share (AlpacaEval) is named with its benchmark the second time.
    gap_rows, seen = [], set()
    for pair in data.table5:
        for row in pair.rows:
            label = row.ko_label if row.ko_label not in seen else f"{row.ko_label} ({pair.ko_label})"
            seen.add(row.ko_label)
            gap_rows.append({"label": label, "gaps": [c.score for c in row.gap]})
    models = {m.id: m.label for m in data.models}
    agreements = [{**a, "figure": ranks_svg(a, models)} if "refused" not in a else a for a in data.agreements]
    return render(request, "evaluation/leaderboard.html", {
        "board": data, "table5": table5, "gap_figure": gap_svg(gap_rows, names), "agreements": agreements,
        "profiles": Profile.choices,
    })


@login_required
def export(request, fmt):
    require(request.user, "evaluation.view")
    if fmt not in EXPORTS:
        raise NotFound(gettext("There is no %(fmt)s export of the leaderboard.") % {"fmt": fmt})
    content_type, render_as = EXPORTS[fmt]
    profile = _profile(request)
    response = HttpResponse(render_as(leaderboard.leaderboard(profile=profile)), content_type=content_type)
    suffix = "" if profile == DEFAULT_PROFILE else f"-{profile}"
    response["Content-Disposition"] = f'attachment; filename="sori-leaderboard{suffix}.{fmt}"'
    return response


def _run(value: str | None) -> EvaluationRun | None:
    if not value or not value.isdigit():
        return None
    return EvaluationRun.objects.select_related("model").filter(pk=int(value)).first()


@login_required
def compare(request):
    require(request.user, "evaluation.view")
    a, b = _run(request.GET.get("a")), _run(request.GET.get("b"))
    result, error = None, ""
    if request.GET.get("a") or request.GET.get("b"):
        if a is None or b is None:
            error = "Choose two runs that exist."
        else:
            try:
                result = leaderboard.compare(a, b, profile=_profile(request))
            except ApplicationError as exc:
                error = exc.message
    runs = leaderboard.scored_runs()
    return render(request, "evaluation/leaderboard_compare.html", {"runs": runs, "a": a, "b": b, "result": result,
                                                                   "error": error, "profile": _profile(request),
                                                                   "profiles": Profile.choices})
