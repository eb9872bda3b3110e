"""Celery task of the audio store: remove files no asset names and report damaged assets (beat, daily)."""

from celery import shared_task

from apps.audio.audit import audit_audio_storage


@shared_task(name="sori.audio.audit_storage", acks_late=True, ignore_result=True)
def audit_audio_storage_task() -> dict:
    audit = audit_audio_storage(remove_orphans=True)
    return {"orphans": len(audit.orphans), "removed": len(audit.removed), "damaged": len(audit.problems)}
