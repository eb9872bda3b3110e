"""API helpers for consumers of the engine: turn a refusal into the project's JSON 409 body."""

from rest_framework import status
from rest_framework.exceptions import APIException

from apps.queues.services import QueueError


class QueueConflict(APIException):
    """409 with {"detail": <the refusal's message>, "code": "no_lease" | "slot_taken" | "item_closed" |
    "worker_excluded"}. Use: `except QueueError as exc: raise QueueConflict.from_error(exc) from exc`."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "This item cannot be submitted now."
    default_code = "queue_conflict"

    @classmethod
    def from_error(cls, error: QueueError) -> "QueueConflict":
        return cls(detail=str(error), code=error.code)
