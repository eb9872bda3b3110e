"""Voice assignment (no ORM): each sample of a run gets a gender and a voice, balanced and reproducible
from the run's seed; re-synthesis moves to the next voice of the same gender."""

import hashlib
import random


def assign(sample_ids: list[int], voices_by_gender: dict[str, list[int]], *, seed: int) -> dict[int, tuple[str, int]]:
    """{sample id: (gender, voice slot)}. The samples are shuffled by the seed and dealt to the genders in
    turn, then to each gender's voices in turn, so genders and voices differ in count by at most one."""
    genders = sorted(g for g, voices in voices_by_gender.items() if voices)
    if not genders:
        raise ValueError("no reference voices to assign")
    order = sorted(sample_ids)
    random.Random(seed).shuffle(order)
    dealt: dict[str, int] = {g: 0 for g in genders}
    assignment = {}
    for position, sample_id in enumerate(order):
        gender = genders[position % len(genders)]
        assignment[sample_id] = (gender, dealt[gender] % len(voices_by_gender[gender]))
        dealt[gender] += 1
    return assignment


def voice_for_attempt(voices: list, slot: int, attempt_index: int):
    """The voice of the attempt_index-th attempt (0-based) of a series that started at `slot`."""
    return voices[(slot + attempt_index) % len(voices)]


def attempt_seed(run_seed: int, sample_id: int, number: int) -> int:
    """A seed per (run, sample, attempt number): a redelivered task computes the same one."""
    digest = hashlib.sha256(f"{run_seed}:{sample_id}:{number}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF
