"""What every rule-based evaluator returns for one response (no database here)."""

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class Scored:
    """One response's score and what produced it.

    score: 0..1 (1 = correct / refused / instructions followed); None when only the LLM judge can score it
    (open-ended answers). detail: JSON-serialisable record of the evidence (extracted option, matched alias,
    per-instruction results, matched refusal phrase...). evaluator and version name the rule, so a change
    of rule is visible beside every score; profile names the reading (sori or voicebench)."""

    score: float | None
    detail: dict
    evaluator: str
    version: str
    profile: str = "sori"  # the reading profile that produced it (apps.evaluation.scoring.PROFILES)


@cache
def data_file(name: str) -> dict:
    """A versioned rule file from data/ (read once per process)."""
    with open(DATA / name, encoding="utf-8") as f:
        return yaml.safe_load(f)
