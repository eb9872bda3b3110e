"""The 404 for URLs that match nothing (under /api/ the API's JSON error shape, elsewhere the page), and the favicon."""

from django.http import JsonResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.views.defaults import page_not_found


def not_found(request, exception):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found.", "code": "not_found", "fields": {}}, status=404)
    return page_not_found(request, exception)


def favicon(request):
    """Browsers ask for /favicon.ico on pages without a <link rel="icon"> (the Django admin, the API's
    browsable pages): the shipped icon, not a 404 in the log. Not a permanent redirect: the static name
    carries the file's hash, which changes with the file."""
    return redirect(static("img/favicon.svg"))
