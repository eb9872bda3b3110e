"""Answer-position balance (no database here). Options are stored in the order they were written; when a
set is exported, the correct option of each capability's accepted questions is moved to positions taken
from a seeded shuffle of a round-robin list (0, 1, 2, 3, 0, 1, ...), so every position holds the answer
within one of an equal share, and the same accepted questions and seed always give the same file. The
distractors keep their relative order."""

import random
from collections import Counter, defaultdict

LETTERS = "ABCD"


def target_positions(count: int, options: int, seed: str) -> list[int]:
    positions = [k % options for k in range(count)]
    random.Random(seed).shuffle(positions)
    return positions


def arrange(questions, *, seed: int) -> dict[int, tuple[list[str], int]]:
    """{question id: (options in export order, correct position)} for questions with `pk`, `capability`,
    `options` and `correct_index`."""
    by_capability = defaultdict(list)
    for q in questions:
        by_capability[q.capability].append(q)
    arranged = {}
    for capability, group in by_capability.items():
        group.sort(key=lambda q: q.pk)
        # Each capability has one option count (validation), so one list of positions serves the group.
        positions = target_positions(len(group), len(group[0].options), f"{seed}:{capability}")
        for q, position in zip(group, positions, strict=True):
            correct = q.options[q.correct_index]
            rest = [o for i, o in enumerate(q.options) if i != q.correct_index]
            rest.insert(position, correct)
            arranged[q.pk] = (rest, position)
    return arranged


def letter_distribution(arranged: dict[int, tuple[list[str], int]], capabilities: dict[int, str]) -> dict[str, dict]:
    """{capability: {"A": n, "B": n, ...}} of the correct positions."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for pk, (_options, position) in arranged.items():
        counts[capabilities[pk]][LETTERS[position]] += 1
    return {cap: dict(sorted(c.items())) for cap, c in counts.items()}
