"""Speech tasks, routed to the `speech` queue (settings.CELERY_TASK_ROUTES): a GPU host runs
`celery -A workers worker -Q speech --concurrency=N`, N matching what its TTS/ASR servers can take.

Long tasks: acknowledged late and rejected when the worker dies, so a lost message is delivered again
(after the broker's visibility timeout); the service reuses finished attempts by their idempotency key."""

from celery import shared_task

from apps.speech.services import synthesize_sample


@shared_task(name="sori.speech.synthesize_sample", acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def synthesize_sample_task(synthesis_id: int) -> str:
    return synthesize_sample(synthesis_id)
