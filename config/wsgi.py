"""The WSGI entry point (gunicorn config.wsgi). In production (DEBUG=0) the static files are served from
collectstatic's manifest; without it every page that links a stylesheet answers 500, so the server refuses
to start and says what to run instead."""

import os

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()


def _require_collected_static() -> None:
    from django.conf import settings

    manifest = settings.STATIC_ROOT / "staticfiles.json"
    if not settings.DEBUG and not manifest.exists():
        raise ImproperlyConfigured(
            f"{manifest} is missing: with DEBUG=0 the static files must be collected before the server starts. "
            "Run: python manage.py collectstatic --noinput (the Docker image does it at build time)")


_require_collected_static()
