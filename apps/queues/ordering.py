"""Per-worker shuffling of a pool's items.

Every item gets a random `order_key` in [0, P) when it is created, P the Mersenne prime 2**31 - 1. A worker
sees the items sorted by (order_key * a + b) mod P, where a in [1, P) and b in [0, P) come from a hash of
(pool id, worker id). x -> (a*x + b) mod P is a bijection of [0, P), so each worker's order is a
permutation of the random keys: stable for the same worker, different for two workers (different a), and
cheap to compute inside the claim query itself (one ORDER BY expression, no per-worker table)."""

import hashlib

ORDER_PRIME = 2**31 - 1


def order_seed(pool_id: int, worker_id: int) -> tuple[int, int]:
    """(a, b) for this worker in this pool. a*key + b stays below 2**62, so it fits a signed 64-bit int."""
    digest = hashlib.sha256(f"sori.queues:{pool_id}:{worker_id}".encode()).digest()
    a = 1 + int.from_bytes(digest[:8], "big") % (ORDER_PRIME - 1)
    b = int.from_bytes(digest[8:16], "big") % ORDER_PRIME
    return a, b


def rank(order_key: int, seed: tuple[int, int]) -> int:
    """The position key of an item for a worker (the same expression the claim query sorts by)."""
    a, b = seed
    return (order_key * a + b) % ORDER_PRIME
