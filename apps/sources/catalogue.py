"""The subsets Sori knows, one row each: the family it belongs to, the metric it is scored with, its task type,
its English and Korean names as seed 000's tables print them, and its row in Table 5. Every list of subsets
derives from here: the readers (apps.sources.formats), the metrics (apps.evaluation.scoring), the benchmark
means (apps.evaluation.aggregate) and the leaderboard's labels and order. One matcher (`match`) reads a stored
subset name for all of them.

Names are as Sori stores them: VoiceBench's and OpenAudioBench's own, SD-QA's regional splits as `sd-qa-<region>`
(apps.sources.formats.canonical_subset); a regional or per-domain split ("sd-qa-usa", "mmsu_biology") is its
family's row. A Korean counterpart keeps its source's name.

OpenAudioBench's AlpacaEval is the complete set VoiceBench calls `alpacaeval_full` (636 prompts; 614 kept in
KOpenAudioBench, seed 000 §4.2); OpenAudioBench's old name `alpaca_eval` stays readable as an alias. VoiceBench's
`alpacaeval` is the 199-prompt part, and its own `alpacaeval_full` is importable but not one of the nine subsets
VoiceBench's mean averages.

Pure: no database here (the scoring modules import it)."""

import re
from dataclasses import dataclass

from django.db import models

VOICEBENCH, OPENAUDIOBENCH, KMMAU = "voicebench", "openaudiobench", "kmmau"


class SourceFormat(models.TextChoices):
    VOICEBENCH = VOICEBENCH, "VoiceBench (JSONL or Parquet)"
    OPENAUDIOBENCH = OPENAUDIOBENCH, "OpenAudioBench (CSV)"


class TaskType(models.TextChoices):
    MULTIPLE_CHOICE = "multiple_choice", "Multiple-choice"
    BINARY = "binary", "Binary"
    SHORT_ANSWER = "short_answer", "Short answer"
    OPEN_ENDED = "open_ended", "Open-ended"
    INSTRUCTION_FOLLOWING = "instruction_following", "Instruction-following"
    SAFETY = "safety", "Safety"


# Ground-truth correction runs on samples with a deterministic answer (the paper: multiple-choice and
# short-answer). Binary items (BBH's True/False, Yes/No, valid/invalid) are two-option multiple choice.
DETERMINISTIC_TASKS = (TaskType.MULTIPLE_CHOICE, TaskType.BINARY, TaskType.SHORT_ANSWER)


@dataclass(frozen=True)
class Subset:
    family: str
    name: str
    metric: str  # apps.evaluation.scoring.METRICS
    task_type: str | None  # None: decided per row (BBH mixes binary, multiple-choice and short answers)
    label: str
    label_ko: str
    order: int | None = None  # its row in seed 000's Table 5; a subset with a row is one its benchmark's mean averages
    aliases: tuple[str, ...] = ()  # old names still read as this one
    size: int | None = None  # prompts in the source set, where seed 000 depends on it
    released: int | None = None  # prompts the Korean release keeps (seed 000 §4)


def _row(family, name, metric, task_type, label, *, order=None, **more) -> Subset:
    return Subset(family, name, metric, task_type, label, f"K{label}", order, **more)


# In each family, the order its benchmark lists them (and its mean names a missing one); `order` is Table 5's.
SUBSETS: tuple[Subset, ...] = (
    _row(VOICEBENCH, "alpacaeval", "open", TaskType.OPEN_ENDED, "AlpacaEval", order=8),
    _row(VOICEBENCH, "alpacaeval_full", "open", TaskType.OPEN_ENDED, "AlpacaEval"),
    _row(VOICEBENCH, "commoneval", "open", TaskType.OPEN_ENDED, "CommonEval", order=10),
    _row(VOICEBENCH, "wildvoice", "open", TaskType.OPEN_ENDED, "WildVoice", order=11),
    _row(VOICEBENCH, "sd-qa", "qa", TaskType.SHORT_ANSWER, "SD-QA", order=7),
    _row(VOICEBENCH, "mmsu", "mcq", TaskType.MULTIPLE_CHOICE, "MMSU", order=2),
    _row(VOICEBENCH, "openbookqa", "mcq", TaskType.MULTIPLE_CHOICE, "OpenBookQA", order=1),
    _row(VOICEBENCH, "bbh", "bbh", None, "BBH", order=3),
    _row(VOICEBENCH, "ifeval", "ifeval", TaskType.INSTRUCTION_FOLLOWING, "IFEval", order=12),
    _row(VOICEBENCH, "advbench", "refusal", TaskType.SAFETY, "AdvBench", order=13),
    _row(OPENAUDIOBENCH, "llama_questions", "qa", TaskType.SHORT_ANSWER, "LlamaQ", order=4),
    _row(OPENAUDIOBENCH, "trivia_qa", "qa", TaskType.SHORT_ANSWER, "TriviaQA", order=5),
    _row(OPENAUDIOBENCH, "web_questions", "qa", TaskType.SHORT_ANSWER, "WebQ", order=6),
    _row(OPENAUDIOBENCH, "alpacaeval_full", "open", TaskType.OPEN_ENDED, "AlpacaEval", order=9,
         aliases=("alpaca_eval",), size=636, released=614),
    # KMMAU is authored in Sori (apps.authoring), averaged over its capabilities, not over subsets.
    Subset(KMMAU, "kmmau", "kmmau", TaskType.MULTIPLE_CHOICE, "MMAU", "KMMAU"),
)

SPOKEN_QA_FAMILIES = (VOICEBENCH, OPENAUDIOBENCH)


def of_family(family: str) -> tuple[Subset, ...]:
    return tuple(s for s in SUBSETS if s.family == family)


def averaged(family: str) -> tuple[str, ...]:
    """The subsets a family's benchmark mean averages (those with a row in Table 5), in the family's order."""
    return tuple(s.name for s in of_family(family) if s.order is not None)


def table_order() -> list[str]:
    """Table 5's rows, top to bottom (AlpacaEval once for each benchmark that has it)."""
    return [s.name for s in sorted((s for s in SUBSETS if s.order is not None), key=lambda s: s.order)]


def names(*families: str, aliases: bool = True) -> dict[str, Subset]:
    """Every name (and old name) of the given families' subsets (all when none is given), to its row; a
    name two families share reads as the first family's row."""
    found: dict[str, Subset] = {}
    for s in SUBSETS:
        if not families or s.family in families:
            for name in (s.name, *(s.aliases if aliases else ())):
                found.setdefault(name, s)
    return found


def aliases() -> dict[str, str]:
    """Old subset names to the names they stand for."""
    return {old: s.name for s in SUBSETS for old in s.aliases}


def match(subset: str, family: str | None = None) -> tuple[Subset, str] | None:
    """The row a stored subset name is read as, and the split it names: the row itself ("mmsu" -> mmsu, ""),
    the row an old name stands for ("alpaca_eval" -> alpacaeval_full, ""), or its family's row for a regional
    or per-domain split ("sd-qa-usa" -> sd-qa, "usa"; "mmsu_biology" -> mmsu, "biology"). Case and surrounding
    blanks do not count; None for a name the family (every family when none is given) does not have."""
    stored = (subset or "").strip()
    wanted = stored.lower()
    known = names(family) if family else names()
    if wanted in known:
        return known[wanted], ""
    for name in sorted(names(family, aliases=False) if family else names(aliases=False), key=len, reverse=True):
        if re.fullmatch(rf"{re.escape(name)}[-_].+", wanted):
            return known[name], stored[len(name) + 1:]
    return None
