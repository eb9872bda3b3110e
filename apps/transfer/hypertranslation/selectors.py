"""Reads of the hypertranslation stage: a run's outputs, which are stale (made under an older rulebook
version than the newest published one), and the run's report beside the paper's figures."""

import json

from django.db.models import Max, OuterRef, Subquery

from apps.consultations.models import RulebookVersion
from apps.transfer import checker_data
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



def checker_comparison(translation: Translation) -> dict | None:
    """The English item's checker data beside the Korean one, for the translation page (None when the
    sample's family needs none): IFEval's instructions paired in the English order, each with its English
    and Korean arguments or the rule that removed it; BBH's task and choices."""
    english = checker_data.source_checker(translation.sample)
    if not english:
        return None
    korean = translation.checker or {}
    if checker_data.family(translation.sample) == checker_data.BBH:
        return {"family": checker_data.BBH, "english": english, "korean": korean, "rows": [],
                "choices": list(zip(checker_data.CHOICE_LABELS, korean.get("choices", []), strict=False))}
    ids, kwargs = korean.get("instruction_id_list", []), korean.get("kwargs", [])
    removed = list(korean.get("removed_instructions", []))
    unused = list(range(len(ids)))
    rows = []
    for english_id, english_kwargs in zip(english["instruction_id_list"], english["kwargs"], strict=False):
        row = {"english_id": english_id, "english_kwargs": _args(english_kwargs), "korean_id": "", "korean_kwargs": [],
               "removed_by": ""}
        match = next((i for i in unused if ids[i] == english_id), None)
        if match is not None:
            unused.remove(match)
            row.update(korean_id=ids[match], korean_kwargs=_args(kwargs[match] if match < len(kwargs) else None))
        elif (gone := next((r for r in removed if r.get("instruction_id") == english_id), None)) is not None:
            removed.remove(gone)
            row["removed_by"] = gone.get("rule", "")
        rows.append(row)
    rows += [{"english_id": "", "english_kwargs": [], "korean_id": ids[i],
              "korean_kwargs": _args(kwargs[i] if i < len(kwargs) else None), "removed_by": ""} for i in unused]
    return {"family": checker_data.IFEVAL, "english": english, "korean": korean, "rows": rows,
            "translated": bool(korean)}


def _args(kwargs) -> list[tuple[str, str]]:
    """An instruction's arguments as (name, value written as JSON) pairs, in the order given."""
    if not isinstance(kwargs, dict):
        return [("(not an object)", json.dumps(kwargs, ensure_ascii=False))] if kwargs is not None else []
    return [(k, json.dumps(v, ensure_ascii=False)) for k, v in kwargs.items() if v is not None]
