"""The 404 for URLs that match nothing: under /api/ the API's JSON error shape, elsewhere the page."""

from django.http import JsonResponse
from django.views.defaults import page_not_found


def not_found(request, exception):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found.", "code": "not_found", "fields": {}}, status=404)
    return page_not_found(request, exception)
