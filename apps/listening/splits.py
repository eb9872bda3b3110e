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


def stratified_split(clips: list[SplitClip], *, ratios=DEFAULT_RATIOS, seed: int = 0, hold_out_speakers: int = 0,
                     hold_out_texts: int = 0) -> dict[object, str]:
    """Assign each clip to train/validation/test so that every stretch of the MOS range is shared in the
    given ratios, and the exact sizes follow `split_counts`. Reproducible from `seed`, and independent of
    the order the clips come in (they are sorted by key first).

    `hold_out_speakers` / `hold_out_texts`: that many speakers (texts), drawn at random with the seed, have
    every clip put in test before the rest is stratified, so test holds speaker- and text-disjoint subsets
    of a chosen size (KOMOS: 34 and 55 of 100 test clips). The held-out clips count towards the test size;
    if they are more than it, the split is refused with ValueError.

    How the rest is stratified: order clips by MOS (ties broken at random), lay out the split labels along
    that order so that each label's running count tracks its ideal share (the label furthest behind its
    share goes next), then shuffle the labels inside consecutive blocks of about 1/smallest-ratio clips.
    Totals stay exact, every block of the MOS range holds each split in proportion, and which clip of a
    block lands in test is random.
    """
    if hold_out_speakers < 0 or hold_out_texts < 0:
        raise ValueError("the number of held-out speakers and texts cannot be negative")
    rng = np.random.default_rng(seed)
    clips = sorted(clips, key=lambda c: c.key)
    counts = split_counts(len(clips), tuple(ratios))
    held = _held_out(clips, rng, hold_out_speakers, hold_out_texts)
    if len(held) > counts[2]:
        raise ValueError(
            f"the held-out speakers and texts have {len(held)} clips, more than the {counts[2]} clips of test; "
            "hold out fewer speakers or texts, or give test a larger share"
        )
    rest = [c for c in clips if c.key not in held]
    assignment = dict.fromkeys(held, "test")
    assignment.update(_stratify(rest, [counts[0], counts[1], counts[2] - len(held)], ratios, rng))
    return assignment


def _held_out(clips: list[SplitClip], rng, speakers: int, texts: int) -> set:
    """Keys of the clips of `speakers` random speakers and `texts` random texts (chosen from the sorted
    distinct values, so the choice depends on the seed only)."""
    keys: set = set()
    for count, value_of, what in ((speakers, lambda c: c.speaker, "speakers"), (texts, lambda c: normalise_text(c.text), "texts")):
        if not count:
            continue
        values = sorted({value_of(c) for c in clips})
        if count >= len(values):
            raise ValueError(f"cannot hold out {count} {what}: the clips have only {len(values)}, and train needs some")
        chosen = {values[i] for i in rng.choice(len(values), size=count, replace=False)}
        keys |= {c.key for c in clips if value_of(c) in chosen}
    return keys


def _stratify(clips: list[SplitClip], counts: list[int], ratios, rng) -> dict[object, str]:
    n = len(clips)
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
    block = max(2, math.ceil(1 / min(positive))) if positive else max(n, 1)
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
