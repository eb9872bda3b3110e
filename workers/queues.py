"""Celery task of the assignment engine: relabel leases that ran out (housekeeping; slots free themselves)."""

from celery import shared_task

from apps.queues.services import expire_stale_leases


@shared_task(name="sori.queues.expire_stale_leases", acks_late=True, ignore_result=True)
def expire_stale_leases_task() -> int:
    return expire_stale_leases()
