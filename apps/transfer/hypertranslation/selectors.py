"""Reads of the hypertranslation stage: a run's outputs, which are stale (made under an older rulebook
version than the newest published one), and the run's report beside the paper's figures."""

from django.db.models import Max, OuterRef, Subquery

from apps.consultations.models import RulebookVersion
from apps.transfer.models import Translation, TranslationAction, TranslationRun
from apps.transfer.selectors import current_translations, run_spending

PAPER_FLAGGED, PAPER_TOTAL = 653, 10_083  # seed 000: deletions and replacements among all samples (6.5 %)
FLAGGED = (TranslationAction.DELETION, TranslationAction.EQUIVALENT_REPLACEMENT)


def latest_version_numbers() -> dict[int, int]:
    """Each rulebook's newest published version number, by rulebook id."""
    return dict(RulebookVersion.objects.values("rulebook_id").annotate(n=Max("number")).values_list("rulebook_id", "n"))


def is_stale(translation: Translation, latest: dict[int, int] | None = None) -> bool:
    """Made under an older version than the rulebook's newest published one."""
    latest = latest if latest is not None else latest_version_numbers()
    version = translation.rulebook_version
    return version.number < latest.get(version.rulebook_id, version.number)


def run_translations(run: TranslationRun):
    """The run's outputs as they stand: each sample's newest row recorded by this run (a correction of one
    of them counts as the run's)."""
    newest = Translation.objects.filter(run=run, sample=OuterRef("sample")).order_by("-pk").values("pk")[:1]
    return (Translation.objects.filter(run=run, pk=Subquery(newest))
            .select_related("sample", "rulebook_version", "rulebook_version__rulebook", "agent_call", "edited_by")
            .order_by("sample_id"))


def translation_report(run: TranslationRun) -> dict:
    """Counts per subset and action, with deletions and replacements beside the paper's 653 of 10,083."""
    rows = list(run_translations(run).values("sample__subset", "action"))
    actions = [a for a, _ in TranslationAction.choices]
    subsets: dict[str, dict[str, int]] = {}
    for row in rows:
        counts = subsets.setdefault(row["sample__subset"], dict.fromkeys(actions, 0))
        counts[row["action"]] += 1
    total = {a: sum(c[a] for c in subsets.values()) for a in actions}
    translated = len(rows)
    flagged = sum(total[a] for a in FLAGGED)
    spent, calls = run_spending([run])[run.pk]
    return {
        "subsets": [{"subset": name, **counts, "total": sum(counts.values())} for name, counts in sorted(subsets.items())],
        "total": {**total, "total": translated},
        "flagged": flagged,
        "translated": translated,
        "flagged_percent": round(100 * flagged / translated, 1) if translated else 0.0,
        "paper": {"flagged": PAPER_FLAGGED, "total": PAPER_TOTAL,
                  "percent": round(100 * PAPER_FLAGGED / PAPER_TOTAL, 1)},
        "stale": stale_count(run),
        "cost_usd": str(spent),
        "calls": calls,
    }


def stale_count(run: TranslationRun) -> int:
    """How many of the run's current outputs are the sample's current translation and are stale."""
    latest = latest_version_numbers()
    current = set(current_translations(benchmark=run.benchmark).filter(run=run).values_list("pk", flat=True))
    return sum(1 for t in run_translations(run) if t.pk in current and is_stale(t, latest))

