"""Train/validation/test splits stratified by clip MOS, and the disjoint subsets of test (KOMOS 810/90/100).

Plain functions: they take clip MOS values and metadata and return assignments; services.py stores them."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SPLITS = ("train", "validation", "test")
DEFAULT_RATIOS = (0.81, 0.09, 0.10)


@dataclass(frozen=True)
class SplitClip:
    key: object  # the clip's primary key (anything hashable)
    mos: float
    speaker: str
    text: str


def split_counts(n: int, ratios: tuple[float, float, float]) -> list[int]:
    """Exact split sizes for n clips by largest remainder (1,000 at 81/9/10 gives 810/90/100)."""
    if len(ratios) != 3 or any(r < 0 for r in ratios) or sum(ratios) <= 0:
        raise ValueError("ratios must be three non-negative numbers with a positive sum")
    total = sum(ratios)
    ideal = [n * r / total for r in ratios]
    counts = [math.floor(x) for x in ideal]
    for i in sorted(range(3), key=lambda i: ideal[i] - counts[i], reverse=True)[: n - sum(counts)]:
        counts[i] += 1
    return counts


def stratified_split(clips: list[SplitClip], *, ratios=DEFAULT_RATIOS, seed: int = 0) -> dict[object, str]:
    """Assign each clip to train/validation/test so that every stretch of the MOS range is shared in the
    given ratios, and the exact sizes follow `split_counts`. Reproducible from `seed`.

    How: order clips by MOS (ties broken at random), lay out the split labels along that order so that each
    label's running count tracks its ideal share (the label furthest behind its share goes next), then
    shuffle the labels inside consecutive blocks of about 1/smallest-ratio clips. Totals stay exact, every
    block of the MOS range holds each split in proportion, and which clip of a block lands in test is random.
    """
    rng = np.random.default_rng(seed)
    n = len(clips)
    counts = split_counts(n, tuple(ratios))
    tiebreak = rng.permutation(n)
    order = sorted(range(n), key=lambda i: (clips[i].mos, tiebreak[i]))
    labels: list[int] = []
    taken = [0, 0, 0]
    for pos in range(n):
        deficits = [counts[s] * (pos + 1) / n - taken[s] if taken[s] < counts[s] else -math.inf for s in range(3)]
        s = int(np.argmax(deficits))
        labels.append(s)
        taken[s] += 1
    positive = [r / sum(ratios) for r in ratios if r > 0]
    block = max(2, math.ceil(1 / min(positive))) if positive else n
    for start in range(0, n, block):
        chunk = labels[start:start + block]
        rng.shuffle(chunk)
        labels[start:start + block] = chunk
    return {clips[order[pos]].key: SPLITS[labels[pos]] for pos in range(n)}


def normalise_text(text: str) -> str:
    """Texts count as the same sentence when they match after trimming and collapsing whitespace."""
    return " ".join(text.split())


def disjoint_flags(clips: list[SplitClip], assignment: dict[object, str]) -> dict[object, tuple[bool, bool]]:
    """For every test clip: (speaker_disjoint, text_disjoint) - its speaker, resp. its text, occurs in no
    train or validation clip. Clips outside test get (False, False)."""
    seen_speakers = {c.speaker for c in clips if assignment.get(c.key) in ("train", "validation")}
    seen_texts = {normalise_text(c.text) for c in clips if assignment.get(c.key) in ("train", "validation")}
    flags = {}
    for c in clips:
        if assignment.get(c.key) == "test":
            flags[c.key] = (c.speaker not in seen_speakers, normalise_text(c.text) not in seen_texts)
        else:
            flags[c.key] = (False, False)
    return flags
