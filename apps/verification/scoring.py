"""Scoring answers from a model or a person by the HPSU rules (seed 003, "Evaluation Strategy"; the release's
evaluate.py), without an LLM judge: a prediction must name the option(s), by text or by letter.

- single-choice and yes/no: 1 for the exact answer, else 0;
- multiple-choice: 0 if any wrong option is chosen; otherwise 1 for all correct options and 0.5 for a
  correct proper subset (partial credit for omissions, as the release's evaluator scores "Incomplete");
- tiered single-choice: which tier the answer hit (true, similar, middle, opposite; blank if unrecognised);
- reports per task, domain, language and prompt variant; the robustness spread per task is the best minus the
  worst variant; overall is the unweighted mean of the per-task scores (standard prompt), in percent.

A predictions file has `id, prediction` and optionally `variant` (standard|positive|negative; default
standard): CSV with a header row, a JSON array, or JSONL."""

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

from django.utils.translation import gettext
from pydantic import Field, model_validator

from apps.core.errors import FileRefused
from apps.core.tabular import RowModel, read_table
from apps.verification.taxonomy import MULTIPLE, NO_WORDS, PROMPT_VARIANTS, TASKS, YES_NO, YES_WORDS

LOCAL_YES_NO = {"en": ("Yes", "No"), "zh": ("是", "否"), "ko": ("예", "아니요")}


@dataclass(frozen=True)
class Prediction:
    item_id: str
    text: str
    variant: str = "standard"


@dataclass(frozen=True)
class ItemScore:
    score: float
    tier: str  # true | similar | middle | opposite | blank ("" for untiered items)
    chosen: tuple[str, ...]


def _norm(text: str) -> str:
    text = str(text).strip().strip("\"'“”‘’「」").strip()
    text = re.sub(r"[\s.。!！?？]+$", "", text)
    return text.casefold()


def yes_no_options(item) -> list[str]:
    """What a person picks from for a yes/no item: the item's own Yes/No options, or yes/no in its language
    when the item puts a statement to the listener."""
    if item.statement or item.expected_yes is None or not _is_word_pair(item.options):
        return list(LOCAL_YES_NO.get(item.language, LOCAL_YES_NO["en"]))
    return list(item.options)


def _is_word_pair(options) -> bool:
    words = {_norm(o) for o in options}
    return bool(words & YES_WORDS) and bool(words & NO_WORDS)


def parse_choice(item, text: str) -> tuple[str, ...] | None:
    """The option texts a prediction names, or None when it names none recognisably."""
    if item.format == YES_NO:
        word = _norm(text)
        if word in YES_WORDS:
            return ("yes",)
        if word in NO_WORDS:
            return ("no",)
        return None
    by_text = {_norm(o): o for o in item.options}
    whole = by_text.get(_norm(text))
    if whole is not None:
        return (whole,)
    parts = [p for p in re.split(r"[,，、;；]|\band\b", str(text)) if p.strip()]
    if item.format != MULTIPLE and len(parts) > 1:
        return None
    chosen = []
    for part in parts:
        key = _norm(part)
        if key in by_text:
            chosen.append(by_text[key])
            continue
        letter = re.fullmatch(r"\(?([a-z])[).:]?", key)
        if letter and ord(letter.group(1)) - ord("a") < len(item.options):
            chosen.append(item.options[ord(letter.group(1)) - ord("a")])
            continue
        return None
    return tuple(dict.fromkeys(chosen)) or None


def score_item(item, text: str) -> ItemScore:
    chosen = parse_choice(item, text)
    tiered = bool(item.tiers) and item.format != MULTIPLE
    if chosen is None:
        return ItemScore(0.0, "blank" if tiered else "", ())
    if item.format == YES_NO:
        correct = (chosen == ("yes",)) == bool(item.expected_yes)
        return ItemScore(1.0 if correct else 0.0, "", chosen)
    answers = set(item.answers)
    if item.format == MULTIPLE:
        picked = set(chosen)
        if picked - answers:
            score = 0.0
        else:
            score = 1.0 if picked == answers else 0.5
        return ItemScore(score, "", chosen)
    option = chosen[0]
    score = 1.0 if option in answers else 0.0
    tier = ("true" if option in answers else item.tiers.get(option, "blank")) if tiered else ""
    return ItemScore(score, tier, chosen)


def read_predictions(path: Path) -> list[Prediction]:
    """The predictions file at `path`, read by the shared tabular reader (FileRefused when missing)."""
    path = Path(path)
    if not path.is_file():
        raise FileRefused(gettext("no such file"), file=path.name)
    return parse_predictions(path.read_bytes(), name=path.name)


class PredictionRow(RowModel):
    id: str = Field(min_length=1)
    prediction: str  # an empty prediction is a real (wrong) answer
    variant: str = ""
    prompt: str = ""  # the release's name for the variant

    @model_validator(mode="after")
    def _variant(self) -> "PredictionRow":
        self.variant = self.variant or self.prompt or "standard"
        if self.variant not in PROMPT_VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r} (expected {', '.join(PROMPT_VARIANTS)})")
        return self


def parse_predictions(data: bytes | str, *, name: str = "predictions") -> list[Prediction]:
    """A CSV with a header row, a JSON array or JSONL (told apart by the first character); FileRefused
    names every bad row by file and line. The bytes go to the tabular reader as they are, so it decodes
    them (a file that is not UTF-8 is refused, not a traceback)."""
    if isinstance(data, str):
        data = data.encode()
    first = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    kind = "json" if first == b"[" else "jsonl" if first == b"{" else "csv"
    rows = read_table(data, PredictionRow, name=name, format=kind, unique=[("id", "variant")], blank_is_missing=False)
    return [Prediction(row.id, row.prediction, row.variant) for _, row in rows]


def _pct(values: list[float]) -> float | None:
    return round(100 * mean(values), 2) if values else None


def score(items, predictions: list[Prediction], *, missing: str = "zero") -> dict:
    """Score predictions against items (the accepted items of a project). missing="zero" counts an item
    without a standard prediction as wrong (a model run must answer everything); "skip" scores only what was
    answered (a human baseline over a sample)."""
    by_id = {item.external_id: item for item in items}
    scored: list[tuple[object, str, ItemScore]] = []
    unknown = sorted({p.item_id for p in predictions if p.item_id not in by_id})
    answered = set()
    for p in predictions:
        item = by_id.get(p.item_id)
        if item is not None:
            scored.append((item, p.variant, score_item(item, p.text)))
            answered.add((p.item_id, p.variant))
    missing_ids = [i for i in by_id if (i, "standard") not in answered]
    if missing == "zero":
        scored += [(by_id[i], "standard", ItemScore(0.0, "blank" if by_id[i].tiers else "", ())) for i in missing_ids]

    standard = [(item, s) for item, variant, s in scored if variant == "standard"]
    per_task, per_domain, per_language = defaultdict(list), defaultdict(list), defaultdict(list)
    tiers: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    mc_grades: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for item, s in standard:
        per_task[item.task].append(s.score)
        per_domain[item.domain].append(s.score)
        per_language[item.language].append(s.score)
        if s.tier:
            tiers[item.task][s.tier] += 1
        if item.format == MULTIPLE:
            mc_grades[item.task][{1.0: "perfect", 0.5: "incomplete"}.get(s.score, "incorrect")] += 1
    per_variant: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for item, variant, s in scored:
        per_variant[item.task][variant].append(s.score)
    task_order = [t.name for t in TASKS if t.name in per_task]
    task_scores = {t: _pct(per_task[t]) for t in task_order}
    variants = {t: {v: _pct(per_variant[t][v]) for v in PROMPT_VARIANTS if per_variant[t][v]} for t in task_order}
    spread = {
        t: round(max(v.values()) - min(v.values()), 2) for t, v in variants.items() if len(v) >= 2
    }
    return {
        "overall": round(mean(task_scores.values()), 2) if task_scores else None,
        "per_task": {t: {"score": task_scores[t], "n": len(per_task[t])} for t in task_order},
        "per_domain": {d: {"score": _pct(v), "n": len(v)} for d, v in sorted(per_domain.items())},
        "per_language": {lang: {"score": _pct(v), "n": len(v)} for lang, v in sorted(per_language.items())},
        "per_variant": variants,
        "robustness_spread": spread,
        "tiers": {t: dict(v) for t, v in tiers.items()},
        "multiple_choice": {t: dict(v) for t, v in mc_grades.items()},
        "scored": len(standard),
        "missing": len(missing_ids) if missing == "zero" else 0,
        "unknown_ids": unknown[:50],
    }
