"""A per-provider limit on requests in flight.

With Redis configured (every deployment that runs Celery workers) the limit holds across processes: a slot
is a member of a sorted set scored by its lease expiry, taken and released by small Lua scripts, and a
crashed worker's slot expires after settings.AGENTS_SLOT_LEASE_SECONDS. A slot taken for an owner (a job,
"job:42") is also listed under that owner, so reclaiming the job frees its slots at once (`release_owner`). Without Redis (the embedded demo:
one process) a process-wide semaphore per provider does the same job; it does not see other processes,
which is fine because there are none in that mode."""

import threading
import time
import uuid
from contextlib import contextmanager

import redis
from django.conf import settings

_ACQUIRE = """
local key, limit, now, expires, token = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, expires, token)
  redis.call('EXPIRE', key, math.ceil(expires - now) + 60)
  return 1
end
return 0
"""

_local_semaphores: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_local_lock = threading.Lock()
_redis_client = None


def _limit(provider: str) -> int:
    return int(settings.AGENTS_CONCURRENCY.get(provider, 4))


def _redis():
    global _redis_client
    if _redis_client is None or getattr(_redis_client, "_sori_url", None) != settings.REDIS_URL:
        _redis_client = redis.Redis.from_url(settings.REDIS_URL)
        _redis_client._sori_url = settings.REDIS_URL
    return _redis_client


def _owner_key(owner: str) -> str:
    return f"sori:agents:slot-owners:{owner}"


@contextmanager
def provider_slot(provider: str, *, limit: int | None = None, poll: float = 0.05, owner: str = ""):
    """Hold one of the provider's slots for the duration of a request (waits for a free one). `limit`
    overrides settings.AGENTS_CONCURRENCY (apps.speech passes its own per-backend limits); `owner` lists the
    slot under its holder (see release_owner)."""
    limit = limit or _limit(provider)
    if settings.REDIS_URL:
        client, key, token = _redis(), f"sori:agents:slots:{provider}", uuid.uuid4().hex
        acquire = client.register_script(_ACQUIRE)
        while True:
            now = time.time()
            if acquire(keys=[key], args=[limit, now, now + settings.AGENTS_SLOT_LEASE_SECONDS, token]):
                break
            time.sleep(poll)
        if owner:
            client.sadd(_owner_key(owner), f"{key}\n{token}")
            client.expire(_owner_key(owner), settings.AGENTS_SLOT_LEASE_SECONDS + 60)
        try:
            yield
        finally:
            client.zrem(key, token)
            if owner:
                client.srem(_owner_key(owner), f"{key}\n{token}")
    else:
        with _local_lock:
            semaphore = _local_semaphores.setdefault((provider, limit), threading.BoundedSemaphore(limit))
        with semaphore:
            yield


def release_owner(owner: str) -> int:
    """Free every slot `owner` holds (its process died: apps.jobs reclaim_lost_jobs calls this for a job it
    queues again). Returns how many were freed. Without Redis the process that held them is gone with them."""
    if not settings.REDIS_URL:
        return 0
    client = _redis()
    freed = 0
    for member in client.smembers(_owner_key(owner)):
        key, _, token = member.decode().partition("\n")
        freed += client.zrem(key, token)
    client.delete(_owner_key(owner))
    return freed
