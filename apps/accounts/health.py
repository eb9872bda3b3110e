from django.conf import settings
from django.http import JsonResponse
from kombu import Connection

from apps.core import sql


def healthz(request):
    """Database and broker status for load balancers and people. 200 when everything configured answers."""
    checks = {"database": _check_database(), "broker": _check_broker()}
    healthy = all(value == "ok" or value.startswith("not configured") for value in checks.values())
    return JsonResponse({"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503)


def _check_database() -> str:
    try:
        sql.ping()
        return "ok"
    except Exception as exc:  # any failure is the answer, not an error page
        return f"error: {exc.__class__.__name__}"


def _check_broker() -> str:
    if not settings.CELERY_BROKER_URL:
        return "not configured (jobs run in-process)"
    try:
        with Connection(settings.CELERY_BROKER_URL, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS) as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return "ok"
    except Exception as exc:
        return f"error: {exc.__class__.__name__}"
