"""URL map. Pages live under each app's prefix; every app's API lives under /api/ (the app's
`api_urlpatterns` carry their own prefix, e.g. listening/...)."""

from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from apps.accounts.api import MeView, TokenView
from apps.accounts.health import healthz
from apps.core.views import favicon

WORKFLOW_APPS = [
    "queues", "agents", "speech", "transfer", "consultations", "listening", "verification", "authoring", "releases",
    "evaluation",
]


def _api(app: str):
    module = __import__(f"apps.{app}.urls", fromlist=["api_urlpatterns"])
    return path("api/", include((module.api_urlpatterns, f"{app}-api")))


_docs = csp_update({"style-src": ["'unsafe-inline'"], "worker-src": ["blob:"]})


urlpatterns = [
    path("", include("apps.accounts.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("jobs/", include("apps.jobs.urls")),
    path("audio/", include("apps.audio.urls")),
    path("api/auth/token/", TokenView.as_view(), name="api-token"),
    path("api/me/", MeView.as_view(), name="api-me"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file, so the docs run under the CSP; the two
    # docs pages (bundled third-party UIs, no user content) may set inline styles, which both UIs need.
    path("api/docs/", _docs(SpectacularSwaggerSplitView.as_view(url_name="api-schema")), name="api-docs"),
    path("api/redoc/", _docs(SpectacularRedocView.as_view(url_name="api-schema")), name="api-redoc"),
    *[path(f"{app}/", include(f"apps.{app}.urls")) for app in WORKFLOW_APPS],
    *[_api(app) for app in ["jobs", *WORKFLOW_APPS]],
]

handler404 = "apps.core.views.not_found"
