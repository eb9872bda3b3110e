"""What an item's rule-based checker reads besides its answer, and how a translation carries it (no database
here). The Korean item's checker data is part of its translation, not of the scorer (seed 000 Table 3): the
translator gives it, it is validated here, stored on the Translation (`checker`), released on the item's row
and read from there by the evaluation run.

- IFEval (instruction-following samples): `instruction_id_list` and `kwargs`, one dict per instruction, with
  translated keywords, forbidden words, end phrases, postscript markers and section splitters, and a letter
  remapped to a Korean one (ht-letter-mapping); `removed_instructions` lists what a rule took out of the
  Korean item, each {"instruction_id", "rule"} (ht-case-removal removes every change_case:* instruction:
  Korean has no letter case).
- BBH: the `task` (VoiceBench's id names it, "hyperbaton_12"), which decides how an answer is read; an item
  redesigned as a Korean grammar judgment (ht-grammar-redesign) also carries its `choices`, in label order
  ㄱ, ㄴ, as the translation gives them.

The English item's checker data is read from the source record (`source_checker`)."""

import re
from collections import Counter

from apps.sources import catalogue
from apps.sources.catalogue import TaskType

CASE_RULE = "ht-case-removal"
LETTER_RULE = "ht-letter-mapping"
CASE_PREFIX = "change_case:"
LETTER_INSTRUCTION = "keywords:letter_frequency"
IFEVAL, BBH = "ifeval", "bbh"
# The checker fields a released row of each family carries (every row of the family has all of them) and the
# column kind the release writes each as (apps.releases.writing).
FIELDS = {
    IFEVAL: {"instruction_id_list": "list:string", "kwargs": "json", "removed_instructions": "json"},
    BBH: {"task": "string", "choices": "list:string"},
}
CHOICE_LABELS = "ㄱㄴㄷㄹㅁ"


def family(sample) -> str | None:
    """Which checker data the sample's item needs: ifeval, bbh, or None."""
    if sample.task_type == TaskType.INSTRUCTION_FOLLOWING:
        return IFEVAL
    found = catalogue.match(sample.subset)
    if found is not None and found[0].name == "bbh":
        return BBH
    return None


def bbh_task(raw: dict) -> str:
    """The BBH task of a source record: its `task`, or its VoiceBench id without the number (navigate_12)."""
    name = str((raw or {}).get("task") or (raw or {}).get("id") or "")
    return re.sub(r"_\d+$", "", name)


def source_checker(sample) -> dict:
    """The English item's checker data, read from the source record (empty when its family needs none)."""
    raw = sample.raw if isinstance(sample.raw, dict) else {}
    kind = family(sample)
    if kind == IFEVAL:
        return {"instruction_id_list": list(raw.get("instruction_id_list") or []),
                "kwargs": [_present(k) for k in raw.get("kwargs") or []], "removed_instructions": []}
    if kind == BBH:
        return {"task": bbh_task(raw), "choices": []}
    return {}


def _present(kwargs) -> dict:
    """A kwargs dict without its null arguments (source records list every argument of every instruction,
    mostly null; a translator may copy that shape)."""
    return {k: v for k, v in kwargs.items() if v is not None} if isinstance(kwargs, dict) else kwargs


def korean_checker(sample, *, instruction_id_list, kwargs, removed_instructions, choices, answer: str,
                   rule_ids: set[str], validate) -> tuple[dict, list[str]]:
    """(the Korean item's checker data, the problems that keep it from being checked as written).

    `validate(instruction_id_list, kwargs)` is the scorer's own validation (apps.evaluation.scoring.ifeval
    .problems for Korean); `rule_ids` are the ids of the pinned rulebook version. Problems name the
    instruction and the argument, for the translator's retry and the needs-attention reason."""
    kind = family(sample)
    if kind == IFEVAL:
        return _ifeval(sample, list(instruction_id_list), [_present(k) for k in kwargs], list(removed_instructions),
                       rule_ids, validate)
    found = []
    if instruction_id_list or kwargs or removed_instructions:
        found.append("instruction_id_list, kwargs and removed_instructions are for instruction-following (IFEval) "
                     "samples only; leave them empty")
    if kind == BBH:
        return {"task": bbh_task(sample.raw), "choices": list(choices)}, found + _choice_problems(choices, answer)
    if choices:
        found.append("choices are for a redesigned BBH grammar judgment only; leave them empty")
    return {}, found


def _ifeval(sample, ids, kwargs, removed, rule_ids, validate) -> tuple[dict, list[str]]:
    english = source_checker(sample)["instruction_id_list"]
    found = [f"removed_instructions: rule {r['rule']!r} of {r['instruction_id']} is not a rule of this version"
             for r in removed if r["rule"] not in rule_ids]
    found += [f"removed_instructions: {r['instruction_id']} is not a case instruction; {CASE_RULE} removes only "
              f"{CASE_PREFIX}* instructions" for r in removed
              if r["rule"] == CASE_RULE and not r["instruction_id"].startswith(CASE_PREFIX)]
    kept, taken_out = Counter(ids), Counter(r["instruction_id"] for r in removed)
    for instruction_id, count in (Counter(english) - kept - taken_out).items():
        found.append(f"instruction {instruction_id} of the English item is neither in instruction_id_list nor in "
                     f"removed_instructions" + (f" ({count} times)" if count > 1 else ""))
    for instruction_id in (kept + taken_out - Counter(english)):
        found.append(f"instruction {instruction_id} is not in the English item: the Korean item carries the English "
                     "instructions, minus the ones a rule removes")
    if CASE_RULE in rule_ids:
        found += [f"instruction {n} ({i}): {CASE_RULE} removes case instructions; list it in removed_instructions "
                  f"with rule {CASE_RULE}" for n, i in enumerate(ids, start=1) if i.startswith(CASE_PREFIX)]
    if not ids and english:
        found.append("every instruction was removed: nothing is left to check, so delete the sample instead")
    elif ids:
        found += validate(ids, kwargs)
    if LETTER_RULE in rule_ids:
        for n, (i, k) in enumerate(zip(ids, kwargs, strict=False), start=1):
            letter = str(k.get("letter") or "") if isinstance(k, dict) else ""
            if i == LETTER_INSTRUCTION and letter and not _korean_letter(letter):
                found.append(f"instruction {n} ({i}): argument 'letter' = {letter!r} is not a Korean letter; "
                             f"{LETTER_RULE} maps it to a Korean jamo (e -> ㅌ)")
    checker = {"instruction_id_list": ids, "kwargs": kwargs, "removed_instructions": removed}
    return checker, found


def rules_applied(checker: dict, english: dict, rule_ids) -> list[str]:
    """The rules the Korean checker data shows applied (the translator is asked to cite them; this makes
    sure): each removed instruction's rule, and the letter mapping where a letter-frequency letter changed."""
    applied = [r["rule"] for r in checker.get("removed_instructions", [])]
    if LETTER_RULE in rule_ids and _letters(checker) != _letters(english):
        applied.append(LETTER_RULE)
    return applied


def _letters(checker: dict) -> list:
    pairs = zip(checker.get("instruction_id_list", []), checker.get("kwargs", []), strict=False)
    return [k.get("letter") for i, k in pairs if i == LETTER_INSTRUCTION and isinstance(k, dict)]


def _korean_letter(letter: str) -> bool:
    return len(letter.strip()) == 1 and "\u3131" <= letter.strip() <= "\u318e"


def _choice_problems(choices: list[str], answer: str) -> list[str]:
    if not choices:
        return []
    found = []
    if len(choices) < 2 or len(choices) > len(CHOICE_LABELS):
        found.append(f"choices: {len(choices)} given; a choice item has 2 to {len(CHOICE_LABELS)}")
    if any(not c.strip() for c in choices):
        found.append("choices: an option is empty")
    labels = list(CHOICE_LABELS[: len(choices)])
    label = answer.strip().strip("().").upper()  # the stage maps (A)/(B) to ㄱ/ㄴ after the answer
    if label not in labels + list("ABCDE"[: len(choices)]):
        found.append(f"answer_ko {answer!r} is not one of the labels {', '.join(labels)} of the choices")
    return found
