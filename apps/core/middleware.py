"""Pages answer a refusal the way the API does, with its status: a full page naming what was refused, or,
for an htmx request, the bare message (static/js/sori.js shows a failed htmx response's text)."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.core.errors import ApplicationError


def render_refusal(request, error: ApplicationError) -> HttpResponse:
    if getattr(request, "htmx", False):
        return HttpResponse(error.message, status=error.status, content_type="text/plain; charset=utf-8")
    return render(request, "core/refused.html", {"error": error}, status=error.status)


class ApplicationErrorMiddleware:
    """Turns an ApplicationError escaping a page view into render_refusal's answer. API views never reach
    here: DRF hands their exceptions to the API exception handler first."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, ApplicationError):
            return render_refusal(request, exception)
        return None
